/*
 * chan.c - the registry: the channels by name and their run.  A new
 * channel is one row here and one extern in channel.h.  Only the program
 * of the channels, bin/oxi-chan, links this table (and so every
 * channel's libraries); oxi-recv and oxi-send run the terminal in-process
 * and exec oxi-chan for any other name (chanarg.c).
 */
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
	return oxi_chan_call(oxi_chan_find(name, dir), o);
}
