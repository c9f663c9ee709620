/*
 * chan.c - the registry: the channels oxi-recv and oxi-send run by name,
 * their options and their run.  A new channel is one row here and one
 * extern in channel.h.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"

/* the channels, by the name given on the command line */
static const struct oxi_chan *const chans[] = {
	&oxi_chan_cli,
	&oxi_chan_telegram,
	&oxi_chan_slack,
	&oxi_chan_discord,
	NULL
};

void
oxi_chan_opts_init(struct oxi_chan_opts *o)
{
	const char *v;

	memset(o, 0, sizeof *o);
	o->notif = -1;
	o->rcptfd = -1;
	o->errfd = -1;
	o->max = OXI_MAXLINE_DEFAULT;
	if ((v = oxi_getenv("OXI_MAXLINE")))
		o->max = oxi_sizearg(v, "OXI_MAXLINE");
}

int
oxi_chan_fdarg(const char *arg, const char *what)
{
	int fd = oxi_fdarg(arg);

	if (fcntl(fd, F_GETFD) < 0)
		oxi_die(OXI_EX_USAGE, "%s fd %d is not open", what, fd);
	return fd;
}

const char *
oxi_chan_namearg(const char *arg, const char *what)
{
	if (*arg == '\0')
		oxi_die(OXI_EX_USAGE, "empty %s", what);
	return arg;
}

oxi_chan_fn
oxi_chan_find(const char *name, int dir)
{
	struct oxi_buf known = OXI_BUF_INIT;
	const struct oxi_chan *const *c;
	oxi_chan_fn fn;

	for (c = chans; *c; c++) {
		fn = dir == OXI_CHAN_SEND ? (*c)->send : (*c)->recv;
		if (fn && strcmp((*c)->name, name) == 0)
			return fn;
	}
	for (c = chans; *c; c++)
		if (dir == OXI_CHAN_SEND ? (*c)->send : (*c)->recv)
			oxi_buf_printf(&known, "%s%s", known.len ? ", " : "",
			    (*c)->name);
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
