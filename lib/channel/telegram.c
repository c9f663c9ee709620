/*
 * telegram.c - the Telegram channel: oxi-recv telegram (tgrecv.c) and
 * oxi-send telegram (tgsend.c) over the Bot API client of tgapi.c.  See
 * oxi-recv(1) and oxi-send(1), TELEGRAM.
 */
#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"

const struct oxi_chan oxi_chan_telegram = {
	.name = "telegram",
	.recv = oxi_tg_recv,
	.send = oxi_tg_send,
};
