/* dcsend.c - oxi-send discord: being written */
#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

int
oxi_dc_send(const struct oxi_chan_opts *o, const char **what)
{
	(void)o;
	(void)what;
	oxi_die(OXI_EX_USAGE, "discord: not yet");
}
