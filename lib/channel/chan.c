/*
 * chan.c - what every channel's receiver and sender share: the table of
 * channels oxi-recv and oxi-send run by name, their options, rejecting a
 * record, writing a receipt, making text safe for a terminal
 */
#include <stdio.h>
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"

/* the channels, by the name given on the command line */
static const struct chan {
	const char *name;	/* as given on the command line */
	oxi_chan_fn recv;	/* its receiver, or NULL */
	oxi_chan_fn send;	/* its sender, or NULL */
} chans[] = {
	{ "cli", oxi_cli_recv, oxi_cli_send },
	{ NULL, NULL, NULL }
};

void
oxi_chan_opts_init(struct oxi_chan_opts *o)
{
	const char *v;

	memset(o, 0, sizeof *o);
	o->notif = -1;
	o->rcptfd = -1;
	o->max = OXI_MAXLINE_DEFAULT;
	if ((v = oxi_getenv("OXI_MAXLINE")))
		o->max = oxi_sizearg(v, "OXI_MAXLINE");
}

oxi_chan_fn
oxi_chan_find(const char *name, int dir)
{
	struct oxi_buf known = OXI_BUF_INIT;
	const struct chan *c;
	oxi_chan_fn fn;

	for (c = chans; c->name; c++) {
		fn = dir == OXI_CHAN_SEND ? c->send : c->recv;
		if (fn && strcmp(c->name, name) == 0)
			return fn;
	}
	for (c = chans; c->name; c++)
		if (dir == OXI_CHAN_SEND ? c->send : c->recv)
			oxi_buf_printf(&known, "%s%s", known.len ? ", " : "",
			    c->name);
	oxi_die(OXI_EX_USAGE, "unknown channel '%s' (known: %s)", name,
	    known.s ? known.s : "");
}

int
oxi_chan_run(const char *name, int dir, const struct oxi_chan_opts *o)
{
	const char *what = "";
	oxi_chan_fn fn;
	int r;

	if (o->max == 0 || o->max > 1 << 30)
		oxi_die(OXI_EX_USAGE, "invalid maxline: 1 to 1024m bytes");
	fn = oxi_chan_find(name, dir);
	if ((r = fn(o, &what)) < 0)
		oxi_diesys(OXI_EX_TEMP, "%s", what);
	return r;
}

void
oxi_term_clean(struct oxi_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len, *run;
	char caret[3] = { '^', 0, 0 };

	while (p < end) {
		/* copy the longest run of harmless bytes at once */
		for (run = p; p < end; p++) {
			if (*p == '\n' || *p == '\t')
				continue;
			if (*p < 0x20 || *p == 0x7f)
				break;
			if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 &&
			    p[1] <= 0x9f)
				break;
		}
		oxi_buf_cat(b, run, p - run);
		if (p >= end)
			break;
		if (*p == '\r') {
			p++;
		} else if (*p == 0x7f) {
			oxi_buf_cat(b, "^?", 2);
			p++;
		} else if (*p < 0x20) {
			caret[1] = (char)(*p + 0x40);
			oxi_buf_cat(b, caret, 2);
			p++;
		} else {
			/* C1 control U+0080..U+009F: ESC plus its 7-bit twin */
			oxi_buf_cat(b, "^[", 2);
			oxi_buf_putc(b, p[1] - 0x40);
			p += 2;
		}
	}
}
