/*
 * tgrecv.c - oxi-recv telegram (a placeholder for the first commit)
 */
#include <errno.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"

int
oxi_tg_recv(const struct oxi_chan_opts *o, const char **what)
{
	struct tg tg;

	tg_open(&tg, o->account);
	tg_close(&tg);
	*what = "unable to receive from telegram";
	errno = ENOSYS;
	return -1;
}
