/*
 * tgsend.c - oxi-send telegram: replies, drafts, typing, approval
 * questions and errors delivered through the Bot API
 *
 * Records on stdin for channel telegram (and for our account, when they
 * name one) are taken; other types and channels are ignored, a debug
 * line each, as the cli sender does.  stdin is read by the hand-off
 * (oxi(7)): a msg.out, an approval.ask and an error that names a chat
 * go into the sent-ledger (tgsent.c), all those of one read in one
 * transaction, before their bytes are consumed; one whose id is there
 * already is dropped, so a reply is delivered once however often it
 * comes.  msg.draft and typing go straight to the deliveries (tgout.c):
 * they are worth nothing later.  An error without a chat is a warning.
 * At start, what the ledger holds undelivered is delivered.
 *
 * Receipts go to -r fd, else stdout: one per msg.out and per error
 * shown, ok or not.  SIGTERM: nothing new starts, the calls in flight
 * end, the rest waits in the ledger for the next start.  End of input:
 * what is queued is delivered first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"

#define EDIT_MS		1000		/* drafts: one call a second */
#define TYPING_MS	4000		/* typing lasts 5 s on the screen */

/* the deliveries of tgout.c, for the hand-off (chsent.c) */
static void
draft(void *tx, jv rec)
{
	tg_out_draft(tx, rec);
}

static void
typing(void *tx, jv rec)
{
	tg_out_typing(tx, rec);
}

/* a record of the ledger to deliver (new, or left undelivered) */
static void
job(void *tx, const char *key, jv rec)
{
	tg_out_job(tx, key, rec);
}

static void
settings(struct tgtx *tx, const struct oxi_chan_opts *o)
{
	if (o->chat || o->thread || o->user || o->first || o->drafts ||
	    o->errfd >= 0 || o->webhook)
		oxi_die(OXI_EX_USAGE, "-c, -t, -u, -m, -D, -e and -w are not "
		    "options of the telegram sender");
	tx->o = o;
	if (oxi_env_ms("OXI_TELEGRAM_EDIT_INTERVAL", EDIT_MS,
	    &tx->edit_ms) < 0)
		oxi_die(OXI_EX_USAGE, "OXI_TELEGRAM_EDIT_INTERVAL must be a "
		    "number of seconds");
	tx->typing_ms = TYPING_MS;
}

/* the token, checked before readiness: one Telegram refuses ends the
 * stage with 100 at once, not at its first reply; a network that is
 * down is only warned about (deliveries retry) */
static void
checktoken(struct tgtx *tx)
{
	struct tg_res res;

	if (tg_call(&tx->tg, "getMe", jv_null(), 30000, &res) == 0) {
		tg_res_free(&res);
		return;
	}
	if (res.code == 401 || res.code == 404)
		oxi_die(OXI_EX_USAGE, "the bot token was refused (%s): check "
		    "TELEGRAM_BOT_TOKEN", res.err);
	oxi_warn("telegram: %s; replies wait for it", res.err);
	tg_res_free(&res);
}

static long
due(void *tx)
{
	return tg_out_due(tx);
}

static int
busy(void *tx)
{
	return tg_out_busy(tx);
}

int
oxi_tg_send(const struct oxi_chan_opts *o, const char **what)
{
	struct tgtx tx;
	const struct ch_sink sink = { job, draft, typing, &tx };
	const struct ch_out out = { due, busy, &tx.inflight, &tx.stopping,
		&tx };
	struct oxi_nd in;
	int status;

	(void)what;
	memset(&tx, 0, sizeof tx);
	settings(&tx, o);
	tg_open(&tx.tg, o->account);
	if ((tx.tg.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	ch_sent_open(&tx.sent, "telegram", tx.tg.account,
	    o->rcptfd >= 0 ? o->rcptfd : 1);
	ch_sent_prune(&tx.sent);
	oxi_nd_init(&in, 0, "stdin");
	in.max = o->max;
	if (oxi_nd_peek(&in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	/* what a stage killed before left undelivered, or unreceipted */
	ch_sent_load(&tx.sent, job, &tx);
	checktoken(&tx);
	oxi_notify(o->notif);
	status = ch_sent_run(&tx.sent, &in, &sink, &out, tx.tg.loop,
	    tx.tg.sigfd);
	tg_out_free(&tx);
	oxi_nd_free(&in);
	ch_sent_close(&tx.sent);
	tg_close(&tx.tg);
	return status;
}
