/*
 * dcsend.c - oxi-send discord: replies, drafts, typing, approval
 * questions and errors delivered through the REST API
 *
 * As oxi-send telegram (tgsend.c): records for channel discord (and for
 * our account, when they name one) are taken, other types and channels
 * ignored; stdin is read by the hand-off (oxi(7)): a msg.out, an
 * approval.ask and an error that names a chat go into the sent-ledger
 * (channel/ch.h: discord-send-<account>.db), all those of one read in
 * one transaction, before their bytes are consumed; one whose id is
 * there already is dropped.  msg.draft and typing go straight to the
 * deliveries (dcout.c).  At start, what the ledger holds undelivered is
 * delivered, and the receipts owed are written.
 *
 * Receipts go to -r fd, else stdout: one per msg.out and per error
 * shown.  SIGTERM: nothing new starts, the calls in flight end, the rest
 * waits in the ledger.  End of input: what is queued is delivered first.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

#define EDIT_MS		1000		/* drafts: one edit a second */
#define TYPING_MS	8000		/* typing lasts 10 s on the screen */
#define PRUNE_MS	3600000		/* the ledger is pruned so often */

/* the kinds of record the sender takes */
enum { R_OUT, R_ASK, R_ERR, R_DRAFT, R_TYPING, R_NONE };

static int
kind(const char *type)
{
	static const char *const types[] = { "msg.out", "approval.ask",
		"error", "msg.draft", "typing", NULL };
	int i;

	for (i = 0; types[i] && strcmp(types[i], type) != 0; i++)
		;
	return i;
}

/* one record (borrowed) of in: ours to deliver goes into the ledger (*txn
 * says a transaction is open) and the queue.  0, or 1 if rejected */
static int
take(struct dctx *tx, struct oxi_nd *in, jv rec, int *txn)
{
	const char *type = oxi_msg_type_peek(rec), *why, *v, *id, *ref;
	struct oxi_buf key = OXI_BUF_INIT;
	char ulid[OXI_ID_LEN + 1];
	int k = kind(type);

	if (k == R_NONE)
		return 0;
	if (((v = oxi_msg_peek(rec, "channel")) && strcmp(v, "discord")) ||
	    ((v = oxi_msg_peek(rec, "account")) && strcmp(v,
	    tx->dc.account))) {
		oxi_debug("%s:%lu: %s record for another channel or account "
		    "ignored", in->name, in->lineno, type);
		return 0;
	}
	id = oxi_msg_peek(rec, "id");
	if (oxi_msg_check(rec, &why) < 0 || (k == R_DRAFT && !id &&
	    (why = "msg.draft record needs \"id\" (a string)"))) {
		oxi_nd_reject(in, why);
		if (k == R_OUT && id)
			ch_sent_receipt(&tx->sent, id, oxi_msg_peek(rec,
			    "in_reply_to"), NULL, why);
		return 1;
	}
	if (k == R_DRAFT || k == R_TYPING) {
		(k == R_DRAFT ? dc_out_draft : dc_out_typing)(tx, rec);
		return 0;
	}
	ref = oxi_msg_peek(rec, "ref");
	if (k == R_ERR && !(oxi_msg_peek(rec, "channel") &&
	    oxi_msg_peek(rec, "chat"))) {
		oxi_warn("%s: %s", oxi_msg_peek(rec, "code"),
		    oxi_msg_peek(rec, "message"));
		return 0;
	}
	if (k == R_ERR && !id && ref)
		oxi_buf_printf(&key, "error:%s", ref);
	else if (id)
		oxi_buf_cats(&key, id);
	else {
		oxi_id_new(ulid);
		oxi_buf_printf(&key, "noid:%s", ulid);
	}
	if (!*txn) {
		ch_sent_begin(&tx->sent);
		*txn = 1;
	}
	if (ch_sent_put(&tx->sent, key.s, in->line, in->linelen))
		dc_out_job(tx, key.s, jv_copy(rec));
	else
		oxi_debug("%s:%lu: %s %s is known: not sent again", in->name,
		    in->lineno, type, key.s);
	oxi_buf_free(&key);
	return 0;
}

/* the records read so far: taken, committed, consumed; the status */
static int
takeall(struct dctx *tx, struct oxi_nd *in)
{
	int r, txn = 0, status = 0;
	jv rec;

	while ((r = oxi_nd_take(in, &rec)) == OXI_ND_OK || r == OXI_ND_BAD) {
		if (r == OXI_ND_BAD) {
			status = OXI_EX_FALSE;
			continue;
		}
		if (take(tx, in, rec, &txn))
			status = OXI_EX_FALSE;
		jv_free(rec);
	}
	if (txn)
		ch_sent_commit(&tx->sent);
	if (oxi_nd_consume(in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	return status;
}

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

int
oxi_dc_send(const struct oxi_chan_opts *o, const char **what)
{
	struct dctx tx;
	struct oxi_nd in;
	struct pollfd pfd[2];
	long long pruned;
	long wait;
	int status = 0, n;

	(void)what;
	memset(&tx, 0, sizeof tx);
	settings(&tx, o);
	dc_open(&tx.dc, o->account);
	if ((tx.dc.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	ch_sent_open(&tx.sent, "discord", tx.dc.account, o->rcptfd >= 0 ?
	    o->rcptfd : 1);
	ch_sent_prune(&tx.sent);
	pruned = oxi_clock_ms();
	oxi_nd_init(&in, 0, "stdin");
	in.max = o->max;
	if (oxi_nd_peek(&in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	ch_sent_load(&tx.sent, dc_out_job, &tx);
	checktoken(&tx);
	oxi_notify(o->notif);
	for (;;) {
		status |= takeall(&tx, &in);
		if (oxi_sig_term && !tx.stopping) {
			oxi_info("stopping: %d call(s) in flight", tx.inflight);
			tx.stopping = 1;
		}
		wait = dc_out_due(&tx);
		if (tx.stopping ? tx.inflight == 0 :
		    in.eof && !dc_out_busy(&tx))
			break;
		if (oxi_clock_ms() - pruned > PRUNE_MS) {
			ch_sent_prune(&tx.sent);
			pruned = oxi_clock_ms();
		}
		n = 0;
		pfd[n].fd = tx.dc.sigfd;
		pfd[n++].events = POLLIN;
		if (!in.eof && !tx.stopping) {
			pfd[n].fd = in.fd;
			pfd[n++].events = POLLIN;
		}
		pfd[0].revents = pfd[1].revents = 0;
		if (oxi_http_poll(tx.dc.loop, pfd, n, (int)wait) < 0)
			oxi_die(OXI_EX_TEMP, "unable to run the HTTP calls");
		if (pfd[0].revents)
			oxi_sig_drain();
		if (n > 1 && pfd[1].revents && oxi_nd_fill(&in) < 0 &&
		    errno != EINTR && errno != EAGAIN)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	}
	dc_out_free(&tx);
	oxi_nd_free(&in);
	ch_sent_close(&tx.sent);
	dc_close(&tx.dc);
	return status;
}
