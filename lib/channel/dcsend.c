/*
 * dcsend.c - oxi-send discord: replies, drafts, typing, approval
 * questions and errors delivered through the REST API
 *
 * As oxi-send telegram (tgsend.c), through the same hand-off
 * (ch_sent_take, chsent.c): records for channel discord (and for our
 * account, when they name one) are taken, other types and channels
 * ignored; a msg.out, an approval.ask and an error that names a chat go
 * into the sent-ledger (discord-send-<account>.db), all those of one
 * read in one transaction, before their bytes are consumed; one whose
 * id is there already is dropped.  msg.draft and typing go straight to
 * the deliveries (dcout.c).  At start, what the ledger holds undelivered
 * is delivered, and the receipts owed are written.
 *
 * Receipts go to -r fd, else stdout: one per msg.out and per error
 * shown.  SIGTERM: nothing new starts, the calls in flight end, the rest
 * waits in the ledger.  End of input: what is queued is delivered first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

#define EDIT_MS		1000		/* drafts: one edit a second */
#define TYPING_MS	8000		/* typing lasts 10 s on the screen */

static void
settings(struct dctx *tx, const struct oxi_chan_opts *o)
{
	if (o->chat || o->thread || o->user || o->first || o->drafts ||
	    o->errfd >= 0 || o->webhook)
		oxi_die(OXI_EX_USAGE, "-c, -t, -u, -m, -D, -e and -w are not "
		    "options of the discord sender");
	tx->o = o;
	if (oxi_env_ms("OXI_DISCORD_EDIT_INTERVAL", EDIT_MS,
	    &tx->edit_ms) < 0)
		oxi_die(OXI_EX_USAGE, "OXI_DISCORD_EDIT_INTERVAL must be a "
		    "number of seconds");
	tx->typing_ms = TYPING_MS;
}

/* the token, checked before readiness: a refused one ends the stage
 * with 100 at once; a network that is down is only warned about */
static void
checktoken(struct dctx *tx)
{
	struct dc_res res;

	if (dc_call(&tx->dc, "GET", "/users/@me", jv_null(), &res) == 0) {
		dc_res_free(&res);
		return;
	}
	if (res.status == 401)
		oxi_die(OXI_EX_USAGE, "the bot token was refused (%s): check "
		    "DISCORD_BOT_TOKEN", res.err);
	oxi_warn("discord: %s; replies wait for it", res.err);
	dc_res_free(&res);
}

static long
due(void *tx)
{
	return dc_out_due(tx);
}

static int
busy(void *tx)
{
	return dc_out_busy(tx);
}

int
oxi_dc_send(const struct oxi_chan_opts *o, const char **what)
{
	struct dctx tx;
	const struct ch_sink sink = { dc_out_job, dc_out_draft, dc_out_typing,
		&tx };
	const struct ch_out out = { due, busy, &tx.inflight, &tx.stopping,
		&tx };
	struct oxi_nd in;
	int status;

	(void)what;
	memset(&tx, 0, sizeof tx);
	settings(&tx, o);
	dc_open(&tx.dc, o->account);
	if ((tx.dc.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	ch_sent_open(&tx.sent, "discord", tx.dc.account, o->rcptfd >= 0 ?
	    o->rcptfd : 1);
	ch_sent_prune(&tx.sent);
	oxi_nd_init(&in, 0, "stdin");
	in.max = o->max;
	if (oxi_nd_peek(&in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	ch_sent_load(&tx.sent, dc_out_job, &tx);
	checktoken(&tx);
	oxi_notify(o->notif);
	status = ch_sent_run(&tx.sent, &in, &sink, &out, tx.dc.loop,
	    tx.dc.sigfd);
	dc_out_free(&tx);
	oxi_nd_free(&in);
	ch_sent_close(&tx.sent);
	dc_close(&tx.dc);
	return status;
}
