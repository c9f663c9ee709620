/*
 * slack.c - the Slack channel: oxi-recv slack (skrecv.c: Socket Mode, or
 * the Events API of skhook.c) and oxi-send slack (sksend.c) over the Web
 * API client of skapi.c.  See oxi-recv(1) and oxi-send(1), SLACK.
 */
#include "oxi.h"
#include "channel/channel.h"
#include "channel/sk.h"

const struct oxi_chan oxi_chan_slack = {
	.name = "slack",
	.recv = oxi_sk_recv,
	.send = oxi_sk_send,
};
