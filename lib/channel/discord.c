/*
 * discord.c - the Discord channel: oxi-recv discord (dcrecv.c, the
 * Gateway) and oxi-send discord (dcsend.c) over the REST client of
 * dcapi.c.  See oxi-recv(1) and oxi-send(1), DISCORD.
 */
#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

const struct oxi_chan oxi_chan_discord = {
	.name = "discord",
	.recv = oxi_dc_recv,
	.send = oxi_dc_send,
};
