/*
 * skrecv.c - oxi-recv slack: Socket Mode (or the Events API over HTTP,
 * skhook.c) as records
 *
 * apps.connections.open with the app token gives a single-use wss://
 * URL; on it Slack sends hello, then envelopes.  Each envelope goes into
 * the ledger (skledger.c, synchronous=FULL) under its key (a retry of an
 * event has the key of the first), and only then is it acknowledged
 * ({"envelope_id":...}); then what the ledger holds unwritten becomes
 * records (skevent.c), each written with one write(2), and is marked
 * written.  A kill at any point loses nothing: an envelope not yet
 * acknowledged is sent again by Slack, one acknowledged is in the
 * ledger, and one written but not marked is written again at the next
 * start, with the same record ids, for the next stage to drop.
 *
 * The connection: a disconnect envelope (refresh_requested, warning)
 * opens a new one at once (link_disabled ends us with 100: Socket Mode
 * was turned off); a dropped or silent one (no frame for 30 s,
 * $OXI_SLACK_PING_INTERVAL, then our ping unanswered for as long) is
 * replaced after a pause doubled from a second up to BACKOFF_MAX.  A
 * refused token dies 100; SIGTERM closes the socket and exits 0.
 */
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/sk.h"

#define BACKOFF_MS	1000		/* the first pause after a drop */
#define BACKOFF_MAX	30000		/* the longest */
#define PING_MS		30000		/* silence before our ping */

static long ping_ms = PING_MS;	/* $OXI_SLACK_PING_INTERVAL */
#define PRUNE_MS	3600000		/* the ledger is pruned so often */

/* a file of a message: fetched into filedir, its path or error in att */
static jv
fetch(void *arg, jv f, jv att)
{
	struct skrx *rx = arg;
	struct oxi_buf dest = OXI_BUF_INIT;
	struct sk_res res;
	struct stat sb;
	const char *id = NULL, *url = NULL, *name = NULL, *ext;
	jv v = oxi_jget(f, "id"), u = oxi_jget(f, "url_private_download"),
	    n = oxi_jget(f, "name"), sz = oxi_jget(f, "size");

	if (jv_get_kind(u) != JV_KIND_STRING) {
		jv_free(u);
		u = oxi_jget(f, "url_private");
	}
	if (jv_get_kind(v) == JV_KIND_STRING)
		id = jv_string_value(v);
	if (jv_get_kind(u) == JV_KIND_STRING)
		url = jv_string_value(u);
	if (jv_get_kind(n) == JV_KIND_STRING)
		name = jv_string_value(n);
	ext = name ? strrchr(name, '.') : NULL;
	if (!ext || strlen(ext) > 10 || strspn(ext + 1, "abcdefghijklmnopqrstu"
	    "vwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != strlen(ext + 1))
		ext = "";
	if (!id || !url || strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	    != strlen(id) || strlen(id) > 40)
		att = jv_object_set(att, jv_string("error"),
		    jv_string("no file id or URL"));
	else if (jv_get_kind(sz) == JV_KIND_NUMBER &&
	    jv_number_value(sz) > (double)rx->filemax)
		att = jv_object_set(att, jv_string("error"), jv_string_fmt(
		    "too big: over %zu bytes", rx->filemax));
	else {
		oxi_buf_printf(&dest, "%s/%s%s", rx->filedir, id, ext);
		if (stat(dest.s, &sb) == 0)
			att = jv_object_set(att, jv_string("path"),
			    jv_string(dest.s));
		else if (oxi_mkdirp(rx->filedir, 0700) < 0)
			att = jv_object_set(att, jv_string("error"),
			    jv_string_fmt("unable to make '%s': %s",
			    rx->filedir, strerror(errno)));
		else if (sk_download(&rx->sk, url, rx->filemax, dest.s,
		    &res) < 0) {
			oxi_warn("slack: file %s not fetched: %s", id, res.err);
			att = jv_object_set(att, jv_string("error"),
			    jv_string(res.err));
		} else
			att = jv_object_set(att, jv_string("path"),
			    jv_string(dest.s));
	}
	oxi_buf_free(&dest);
	jv_free(v);
	jv_free(u);
	jv_free(n);
	jv_free(sz);
	return att;
}

/*
 * A click answered (rec, the approval.answer of env; both borrowed): the
 * ask's message shows the choice and who made it instead of its
 * buttons, so that it is not answered twice.  A failure is only warned
 * about: the answer is on its way.
 */
static void
settle(struct skrx *rx, jv env, jv rec)
{
	const char *choice = oxi_msg_peek(rec, "choice"), *ts, *text;
	struct sk_res res;
	jv p = oxi_jget(env, "payload"), m = oxi_jget(p, "message"), b, ctx;

	ts = oxi_msg_peek(m, "ts");
	text = oxi_msg_peek(m, "text");
	if (!ts || !choice) {
		oxi_debug("slack: a click without its message: not settled");
		goto out;
	}
	ctx = jv_object_set(jv_object_set(jv_object(), jv_string("type"),
	    jv_string("mrkdwn")), jv_string("text"), jv_string_fmt("%s by <@%s>",
	    strcmp(choice, "once") == 0 ? "Allowed once" : strcmp(choice,
	    "always") == 0 ? "Always allowed" : strcmp(choice, "deny") == 0 ?
	    "Denied" : "Answered", oxi_msg_peek(rec, "from")));
	b = jv_array();
	if (text && *text)
		b = jv_array_append(b, jv_object_set(jv_object_set(jv_object(),
		    jv_string("type"), jv_string("section")), jv_string("text"),
		    jv_object_set(jv_object_set(jv_object(), jv_string("type"),
		    jv_string("mrkdwn")), jv_string("text"), jv_string(text))));
	b = jv_array_append(b, jv_object_set(jv_object_set(jv_object(),
	    jv_string("type"), jv_string("context")), jv_string("elements"),
	    jv_array_append(jv_array(), ctx)));
	b = jv_object_set(jv_object_set(jv_object_set(jv_object_set(
	    jv_object(), jv_string("channel"), jv_string(oxi_msg_peek(rec,
	    "chat"))), jv_string("ts"), jv_string(ts)), jv_string("text"),
	    jv_string(text && *text ? text : "answered")), jv_string("blocks"),
	    b);
	if (sk_call(&rx->sk, "chat.update", b, 0, &res) < 0)
		oxi_warn("slack: the ask's buttons stay: %s", res.err);
	sk_res_free(&res);
out:
	jv_free(m);
	jv_free(p);
}

int
sk_drain(struct skrx *rx)
{
	long long seq, at;
	jv env, out, r;
	int i, n;

	while (sk_ledger_next(rx, &seq, &env, &at)) {
		out = jv_array();
		rx->ev.at = at;
		if (jv_is_valid(env))
			sk_event(&rx->ev, env, &out);
		n = jv_array_length(jv_copy(out));
		for (i = 0; i < n; i++) {
			r = jv_array_get(jv_copy(out), i);
			if (oxi_nd_write(1, jv_copy(r)) < 0) {
				jv_free(r);
				jv_free(out);
				jv_free(env);
				return -1;
			}
			if (strcmp(oxi_msg_type_peek(r), "approval.answer") == 0)
				settle(rx, env, r);
			jv_free(r);
		}
		jv_free(out);
		jv_free(env);
		sk_ledger_done(rx, seq);
	}
	return 0;
}

/* auth.test: our bot user's id; 0, or 1 if SIGTERM came first */
static int
whoami(struct skrx *rx)
{
	struct sk_res res;
	long ms = BACKOFF_MS;
	jv v;

	while (!oxi_sig_term) {
		if (sk_call(&rx->sk, "auth.test", jv_null(), 0, &res) == 0) {
			v = oxi_jget(res.reply, "user_id");
			if (jv_get_kind(v) == JV_KIND_STRING)
				snprintf(rx->bot, sizeof rx->bot, "%s",
				    jv_string_value(v));
			jv_free(v);
			sk_res_free(&res);
			oxi_debug("slack: the bot is %s", rx->bot);
			return 0;
		}
		if (res.auth || !res.temp)
			oxi_die(OXI_EX_USAGE, "slack: the bot token was refused "
			    "(%s): check SLACK_BOT_TOKEN", res.err);
		oxi_warn("slack: %s; again in %ld s", res.err, ms / 1000);
		sk_res_free(&res);
		sk_pause(&rx->sk, ms);
		ms = ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : ms * 2;
	}
	return 1;
}

/* apps.connections.open: a new socket, NULL if SIGTERM came first */
static struct oxi_ws *
connect_ws(struct skrx *rx, long *ms)
{
	struct oxi_ws_opts wo;
	struct oxi_buf err = OXI_BUF_INIT;
	struct sk_res res;
	struct oxi_ws *ws = NULL;
	jv v;

	memset(&wo, 0, sizeof wo);
	wo.max_msg = rx->o->max;
	while (!oxi_sig_term && !ws) {
		if (sk_call(&rx->sk, "apps.connections.open", jv_null(), 1,
		    &res) < 0) {
			if (res.auth || !res.temp)
				oxi_die(OXI_EX_USAGE, "slack: the app token was "
				    "refused (%s): check SLACK_APP_TOKEN",
				    res.err);
			oxi_warn("slack: %s; again in %ld s", res.err,
			    (*ms + 999) / 1000);
		} else {
			v = oxi_jget(res.reply, "url");
			if (jv_get_kind(v) == JV_KIND_STRING &&
			    !(ws = oxi_ws_open(jv_string_value(v), &wo, &err)))
				oxi_warn("slack: Socket Mode: %s; again in "
				    "%ld s", err.s ? err.s : "unable to "
				    "connect", (*ms + 999) / 1000);
			else if (!ws)
				oxi_warn("slack: apps.connections.open: no "
				    "url");
			jv_free(v);
			oxi_buf_reset(&err);
		}
		sk_res_free(&res);
		if (!ws) {
			sk_pause(&rx->sk, *ms);
			*ms = *ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : *ms * 2;
		}
	}
	oxi_buf_free(&err);
	return ws;
}

/* one envelope (text, the message m): recorded, then acknowledged.
 * 1 to reconnect now, 0 to go on, -1 when the socket failed */
static int
envelope(struct skrx *rx, struct oxi_ws *ws, const struct oxi_ws_msg *m,
    long *ms)
{
	char key[300];
	const char *type, *reason;
	jv env = oxi_json_parse((const char *)m->data, m->len), id, ack;
	int r = 0;

	if (!oxi_jis(env, JV_KIND_OBJECT)) {
		oxi_warn("slack: a frame that is not a JSON object: skipped");
		jv_free(env);
		return 0;
	}
	type = oxi_msg_type_peek(env);
	if (type && strcmp(type, "hello") == 0) {
		oxi_debug("slack: Socket Mode: hello");
		*ms = BACKOFF_MS;
	} else if (type && strcmp(type, "disconnect") == 0) {
		reason = oxi_msg_peek(env, "reason");
		if (reason && strcmp(reason, "link_disabled") == 0)
			oxi_die(OXI_EX_USAGE, "slack: Socket Mode was turned "
			    "off for this app (link_disabled)");
		oxi_debug("slack: Socket Mode: disconnect (%s): a new "
		    "connection", reason ? reason : "no reason");
		r = 1;
	} else if ((id = oxi_jget(env, "envelope_id"), jv_get_kind(id)) ==
	    JV_KIND_STRING) {
		sk_event_key(env, key, sizeof key);
		if (!sk_ledger_put(rx, key, (const char *)m->data, m->len))
			oxi_debug("slack: %s is known: acknowledged again",
			    key);
		ack = jv_dump_string(jv_object_set(jv_object(),
		    jv_string("envelope_id"), jv_copy(id)), 0);
		if (oxi_ws_send(ws, OXI_WS_TEXT, jv_string_value(ack),
		    strlen(jv_string_value(ack))) < 0)
			r = -1;
		jv_free(ack);
		jv_free(id);
	} else {
		jv_free(id);
		oxi_debug("slack: a frame of type %s: skipped",
		    type ? type : "none");
	}
	jv_free(env);
	return r;
}

/* Socket Mode until SIGTERM: 0, or -1 if stdout is gone */
static int
socket_loop(struct skrx *rx)
{
	struct oxi_ws *ws;
	struct oxi_ws_msg m;
	struct pollfd p[2];
	long long heard, pinged, pruned = oxi_clock_ms();
	long ms = BACKOFF_MS, wait;
	int r, again;

	while (!oxi_sig_term) {
		if (sk_drain(rx) < 0)
			return -1;
		if (!(ws = connect_ws(rx, &ms)))
			break;
		heard = oxi_clock_ms();
		pinged = 0;
		for (again = 0; !again && !oxi_sig_term;) {
			while ((r = oxi_ws_recv(ws, &m, 0)) > 0) {
				heard = oxi_clock_ms();
				pinged = 0;
				if (m.op == OXI_WS_CLOSE) {
					oxi_warn("slack: Socket Mode closed "
					    "(%d)", m.close_code);
					again = 2;
					break;
				}
				if (m.op == OXI_WS_TEXT &&
				    (again = envelope(rx, ws, &m, &ms)) != 0)
					break;
			}
			if (r < 0 || again < 0) {
				oxi_warn("slack: Socket Mode lost: %s",
				    oxi_ws_error(ws));
				again = 2;
			}
			if (sk_drain(rx) < 0) {
				oxi_ws_free(ws);
				return -1;
			}
			if (again)
				break;
			if (oxi_clock_ms() - pruned > PRUNE_MS) {
				sk_ledger_prune(rx);
				pruned = oxi_clock_ms();
			}
			/* a silent link: a ping, then a new one */
			if (!pinged && oxi_clock_ms() - heard >= ping_ms) {
				oxi_ws_send(ws, OXI_WS_PING, "oxi", 3);
				pinged = oxi_clock_ms();
			} else if (pinged && oxi_clock_ms() - pinged >= ping_ms) {
				oxi_warn("slack: Socket Mode silent: a new "
				    "connection");
				again = 2;
				break;
			}
			wait = ping_ms - (long)(oxi_clock_ms() - (pinged ?
			    pinged : heard));
			p[0].fd = oxi_ws_fd(ws);
			p[0].events = POLLIN;
			p[1].fd = rx->sk.sigfd;
			p[1].events = POLLIN;
			p[0].revents = p[1].revents = 0;
			if (poll(p, 2, wait < 0 ? 0 : (int)wait) < 0 &&
			    errno != EINTR)
				oxi_diesys(OXI_EX_TEMP, "unable to poll");
			if (p[1].revents)
				oxi_sig_drain();
		}
		if (oxi_sig_term || again == 1)
			oxi_ws_close(ws, 1000, NULL);
		oxi_ws_free(ws);
		if (again == 2 && !oxi_sig_term) {
			sk_pause(&rx->sk, ms);
			ms = ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : ms * 2;
		}
	}
	return 0;
}

/* the Events API's loop, until SIGTERM: 0, or -1 if stdout is gone */
static int
hook_loop(struct skrx *rx, struct skhook *h)
{
	long long pruned = oxi_clock_ms();

	while (!oxi_sig_term) {
		if (sk_drain(rx) < 0)
			return -1;
		if (oxi_clock_ms() - pruned > PRUNE_MS) {
			sk_ledger_prune(rx);
			pruned = oxi_clock_ms();
		}
		if (sk_hook_wait(h, rx->sk.sigfd, 60000) < 0 && errno != EINTR)
			oxi_diesys(OXI_EX_TEMP, "webhook");
	}
	return 0;
}

int
oxi_sk_recv(const struct oxi_chan_opts *o, const char **what)
{
	struct skrx rx;
	struct skhook *h = NULL;
	const char *listen = o->webhook, *v;
	int r = 0;

	if (o->chat || o->thread || o->user || o->first || o->rcptfd >= 0)
		oxi_die(OXI_EX_USAGE, "-c, -t, -u, -m and -r are options of "
		    "the cli channel");
	memset(&rx, 0, sizeof rx);
	rx.o = o;
	if (!listen)
		listen = oxi_getenv("OXI_SLACK_WEBHOOK");
	v = oxi_getenv("OXI_SLACK_CHANNELS");
	if (v && strcmp(v, "all") != 0 && strcmp(v, "mention") != 0)
		oxi_die(OXI_EX_USAGE, "OXI_SLACK_CHANNELS must be mention or "
		    "all");
	rx.ev.all = v && strcmp(v, "all") == 0;
	if (oxi_env_ms("OXI_SLACK_PING_INTERVAL", PING_MS, &ping_ms) < 0 ||
	    ping_ms <= 0)
		oxi_die(OXI_EX_USAGE, "OXI_SLACK_PING_INTERVAL must be a "
		    "number of seconds");
	rx.filemax = SK_FILE_MAX;
	if ((v = oxi_getenv("OXI_SLACK_FILE_MAX")))
		rx.filemax = oxi_sizearg(v, "OXI_SLACK_FILE_MAX");
	sk_open(&rx.sk, o->account, SK_NEED_BOT | (listen ? SK_NEED_SECRET :
	    SK_NEED_APP));
	if ((rx.sk.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	sk_ledger_open(&rx);
	sk_ledger_prune(&rx);
	rx.ev.account = rx.sk.account;
	rx.ev.bot = rx.bot;
	rx.ev.fetch = fetch;
	rx.ev.arg = &rx;
	if (listen)
		h = sk_hook_open(&rx, listen);
	if (whoami(&rx) == 0) {
		oxi_notify(o->notif);
		r = h ? hook_loop(&rx, h) : socket_loop(&rx);
	}
	if (h)
		sk_hook_close(h);
	sk_ledger_close(&rx);
	sk_close(&rx.sk);
	free(rx.filedir);
	if (r < 0) {
		*what = "unable to write to stdout";
		return -1;
	}
	return 0;
}
