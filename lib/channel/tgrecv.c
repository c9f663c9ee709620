/*
 * tgrecv.c - oxi-recv telegram: updates of the Bot API as records
 *
 * Long polling: getUpdates waits up to $OXI_TELEGRAM_POLL seconds for
 * the updates past the offset.  Each batch goes into the ledger
 * (telegram-<account>.db in the state directory, WAL, synchronous=FULL)
 * in one transaction before anything else; only the next getUpdates,
 * whose offset is past them, confirms them to Telegram.  Then each
 * update not yet written becomes its records (tgmsg.c), written to
 * stdout one write(2) each, and is marked written.  A kill at any point
 * loses nothing: what Telegram has confirmed is in the ledger, and what
 * the ledger holds unwritten is written at the next start.  A kill
 * between the write and the mark writes the record again at the next
 * start, with the same id, for the next stage to drop.
 *
 * With -w (or $OXI_TELEGRAM_WEBHOOK) Telegram posts the updates to
 * tghook.c instead, which answers 200 once the update is in the ledger.
 *
 * Errors: a refused token (401, 404) dies 100; the network, 429 and 5xx
 * are retried with a growing pause, each failure warned; SIGTERM stops
 * the long poll at once and exits 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/tg.h"

#define POLL_S		50		/* getUpdates timeout, seconds */
#define BACKOFF_MS	1000		/* the first pause after a failure */
#define BACKOFF_MAX	60000		/* the longest */
#define PRUNE_MS	3600000		/* and pruned so often */

/* what we ask Telegram for: the kinds tgmsg.c takes */
#define ALLOWED	"[\"message\",\"edited_message\",\"callback_query\"]"

/*
 * Writes the records of every update in the ledger not yet written, in
 * update order: 0, 1 if SIGTERM left some for the next start, or -1 if
 * stdout is gone.
 */
static int
drain(struct tgrx *rx)
{
	long long id, at;
	jv u, out;

	while (tg_ledger_next(rx, &id, &u, &at)) {
		out = jv_array();
		if (jv_is_valid(u) && tg_update(rx, u, at, &out) < 0) {
			jv_free(u);
			jv_free(out);
			return 1;
		}
		jv_free(u);
		if (ch_records(out) < 0)
			return -1;
		tg_ledger_done(rx, id);
	}
	return 0;
}

/* a refused token ends us: a supervisor must not start us again */
static void
refused(const struct tg_res *res)
{
	if (res->code == 401 || res->code == 404)
		oxi_die(OXI_EX_USAGE, "the bot token was refused (%s): check "
		    "TELEGRAM_BOT_TOKEN", res->err);
}

/* waits after a failed call: retry_after, else the backoff, doubled */
static void
backoff(struct tgrx *rx, const struct tg_res *res, long *ms)
{
	long wait = *ms;

	if (res->retry_after > 0)
		wait = res->retry_after * 1000;
	else
		*ms = *ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : *ms * 2;
	oxi_warn("telegram: %s; again in %ld s", res->err, (wait + 999) / 1000);
	tg_pause(&rx->tg, wait);
}

/* getMe: the bot's username, for mentions; a cached one if the network
 * is down.  0, or 1 if SIGTERM came first */
static int
whoami(struct tgrx *rx)
{
	struct tg_res res;
	long ms = BACKOFF_MS;
	jv v;

	while (!oxi_sig_term) {
		if (tg_call(&rx->tg, "getMe", jv_null(), 30000, &res) == 0) {
			v = oxi_jget(res.result, "username");
			if (jv_get_kind(v) == JV_KIND_STRING)
				snprintf(rx->botname, sizeof rx->botname, "%s",
				    jv_string_value(v));
			jv_free(v);
			tg_res_free(&res);
			tg_ledger_setmeta(rx, "username", rx->botname);
			oxi_debug("telegram: the bot is @%s", rx->botname);
			return 0;
		}
		if (oxi_sig_term)
			break;
		refused(&res);
		if (!res.temp)
			oxi_die(OXI_EX_USAGE, "telegram: %s", res.err);
		tg_ledger_meta(rx, "username", rx->botname, sizeof rx->botname);
		if (rx->botname[0]) {
			oxi_warn("telegram: %s; going on as @%s", res.err,
			    rx->botname);
			return 0;
		}
		backoff(rx, &res, &ms);
	}
	return 1;
}

/* records a batch of updates (consumed) in one transaction; the offset
 * past them in *off */
static void
record(struct tgrx *rx, jv ups, long long *off)
{
	const char *err;
	jv u;
	long long d;
	int i, n = jv_array_length(jv_copy(ups));

	tg_ledger_exec(rx, "BEGIN IMMEDIATE");
	for (i = 0; i < n; i++) {
		u = jv_array_get(jv_copy(ups), i);
		d = tg_int(u, "update_id", -1);
		if (d >= 0 && d + 1 > *off)
			*off = d + 1;
		if (tg_ledger_put(rx, u, &err) < 0) {
			if (errno != EINVAL)
				oxi_die(OXI_EX_TEMP, "ledger: %s", err);
			oxi_warn("telegram: %s: skipped", err);
		}
	}
	tg_ledger_exec(rx, "COMMIT");
	jv_free(ups);
}

/* the long poll, until SIGTERM: 0, or -1 if stdout is gone */
static int
poll_loop(struct tgrx *rx, long poll_s)
{
	struct tg_res res;
	long long off = tg_ledger_offset(rx), pruned = oxi_clock_ms();
	long ms = BACKOFF_MS;
	jv p;

	while (!oxi_sig_term) {
		if (drain(rx) < 0)
			return -1;
		if (oxi_sig_term)
			break;
		if (oxi_clock_ms() - pruned > PRUNE_MS) {
			tg_ledger_prune(rx);
			pruned = oxi_clock_ms();
		}
		p = jv_object();
		if (off > 0)
			p = jv_object_set(p, jv_string("offset"),
			    jv_number((double)off));
		p = jv_object_set(p, jv_string("timeout"),
		    jv_number((double)poll_s));
		p = jv_object_set(p, jv_string("allowed_updates"),
		    jv_parse(ALLOWED));
		if (tg_call(&rx->tg, "getUpdates", p, (poll_s + 15) * 1000,
		    &res) < 0) {
			if (oxi_sig_term)
				break;
			refused(&res);
			if (res.code == 409 && strstr(res.desc, "webhook")) {
				oxi_warn("telegram: a webhook is set: deleting "
				    "it to poll");
				tg_call(&rx->tg, "deleteWebhook", jv_null(),
				    30000, &res);
				tg_res_free(&res);
				continue;
			}
			backoff(rx, &res, &ms);
			continue;
		}
		ms = BACKOFF_MS;
		if (jv_get_kind(res.result) != JV_KIND_ARRAY) {
			oxi_warn("telegram: getUpdates: not a list of updates");
			tg_res_free(&res);
			tg_pause(&rx->tg, BACKOFF_MS);
			continue;
		}
		/* short polls (OXI_TELEGRAM_POLL=0) come a second apart */
		if (poll_s == 0 && jv_array_length(jv_copy(res.result)) == 0)
			tg_pause(&rx->tg, 1000);
		record(rx, jv_copy(res.result), &off);
		tg_res_free(&res);
	}
	return 0;
}

/* the webhook's loop, until SIGTERM: 0, or -1 if stdout is gone */
static int
hook_loop(struct tgrx *rx, struct tghook *h)
{
	long long pruned = oxi_clock_ms();

	while (!oxi_sig_term) {
		if (drain(rx) < 0)
			return -1;
		if (oxi_clock_ms() - pruned > PRUNE_MS) {
			tg_ledger_prune(rx);
			pruned = oxi_clock_ms();
		}
		if (tg_hook_wait(h, rx->tg.sigfd, 60000) < 0 && errno != EINTR)
			oxi_diesys(OXI_EX_TEMP, "webhook");
	}
	return 0;
}

static void
settings(struct tgrx *rx, const struct oxi_chan_opts *o, long *poll_s)
{
	static const char *const groups[] = { "mention", "all", NULL };
	static const char *const edits[] = { "ignore", "new", NULL };
	const char *v;

	if (o->chat || o->thread || o->user || o->first || o->rcptfd >= 0)
		oxi_die(OXI_EX_USAGE, "-c, -t, -u, -m and -r are options of "
		    "the cli channel");
	rx->o = o;
	rx->groups_all = ch_choose("OXI_TELEGRAM_GROUPS", "mention",
	    groups);
	rx->edits_new = ch_choose("OXI_TELEGRAM_EDITS", "ignore",
	    edits);
	rx->filemax = TG_FILE_MAX;
	if ((v = oxi_getenv("OXI_TELEGRAM_FILE_MAX")))
		rx->filemax = oxi_sizearg(v, "OXI_TELEGRAM_FILE_MAX");
	if (oxi_env_int("OXI_TELEGRAM_POLL", POLL_S, 600, poll_s) < 0)
		oxi_die(OXI_EX_USAGE, "OXI_TELEGRAM_POLL must be 0 to 600 "
		    "seconds");
}

int
oxi_tg_recv(const struct oxi_chan_opts *o, const char **what)
{
	struct tgrx rx;
	struct tghook *h = NULL;
	const char *listen = o->webhook;
	long poll_s;
	int r;

	memset(&rx, 0, sizeof rx);
	settings(&rx, o, &poll_s);
	tg_open(&rx.tg, o->account);
	if ((rx.tg.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	rx.tg.termstop = 1;
	tg_ledger_open(&rx);
	tg_ledger_prune(&rx);
	if (!listen)
		listen = oxi_getenv("OXI_TELEGRAM_WEBHOOK");
	if (listen)
		h = tg_hook_open(&rx, listen);
	if (whoami(&rx) == 0) {
		oxi_notify(o->notif);
		r = h ? hook_loop(&rx, h) : poll_loop(&rx, poll_s);
	} else
		r = 0;
	if (h)
		tg_hook_close(h);
	tg_ledger_close(&rx);
	tg_close(&rx.tg);
	free(rx.filedir);
	if (r < 0) {
		*what = "unable to write to stdout";
		return -1;
	}
	return 0;
}
