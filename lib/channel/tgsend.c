/*
 * tgsend.c - oxi-send telegram: a placeholder until the sender lands
 */
#include <errno.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"

int
oxi_tg_send(const struct oxi_chan_opts *o, const char **what)
{
	(void)o;
	oxi_warn("telegram: the sender is not written yet");
	*what = "unable to send to telegram";
	errno = ENOSYS;
	return -1;
}
