/*
 * dcrecv.c - oxi-recv discord: events of the Discord Gateway as records
 *
 * The Gateway's URL comes from GET /gateway/bot (which checks the token
 * too), or $OXI_DISCORD_GATEWAY.  On a connection: Hello gives the
 * heartbeat interval; we identify (intents GUILDS, GUILD_MESSAGES,
 * DIRECT_MESSAGES and MESSAGE_CONTENT) or, with a session in the ledger,
 * resume it at its resume URL from the sequence number the ledger holds.
 * The first heartbeat goes after interval times a random jitter, then
 * one each interval with the last sequence number; one not acknowledged
 * by the next is a zombie connection: closed and resumed.  A heartbeat
 * asked for (op 1) goes at once; Reconnect (op 7) resumes; Invalid
 * Session (op 9) resumes if it says it may, else identifies anew after 1
 * to 5 s.  Close codes: 4004 (token refused), 4010 to 4014 end us with
 * 100; 4007 and 4009 identify anew; any other, and a dropped connection,
 * resume after a pause doubled from 1 s up to a minute.
 *
 * Every event we take goes into the ledger with its sequence number, in
 * one transaction, before anything else; every other event moves the
 * sequence number alone.  Then each event not yet written becomes its
 * records (dcmsg.c), written to stdout one write(2) each, and is marked.
 * A kill at any point loses nothing: a resume from the ledger's sequence
 * number has Discord send again what followed, and the ledger keeps an
 * event sent twice once.  SIGTERM closes the connection with 4000, which
 * keeps the session for the next start, and exits 0.
 *
 * With -w (or $OXI_DISCORD_WEBHOOK) the HTTP interactions endpoint
 * (dchook.c) is served in the same loop, in every wait and pause.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/dc.h"

#define BACKOFF_MS	1000		/* the first pause after a failure */
#define BACKOFF_MAX	60000		/* the longest */
#define HELLO_MS	15000		/* Hello must come so soon */
#define PRUNE_MS	3600000		/* the ledger is pruned so often */
#define ANSWER_S	2		/* a button read later is not answered */
#define MSG_MAX		(16UL * 1024 * 1024)	/* a payload we read */

enum { GO_RESUME, GO_BACKOFF, GO_GONE };	/* what a session ends in */

/* a connection to the Gateway */
struct gw {
	struct oxi_ws *ws;	/* the socket, or NULL */
	long interval;		/* heartbeat interval, ms */
	long long beat;		/* when the next heartbeat is due */
	int acked;		/* the last one was acknowledged */
	long long seq;		/* the last sequence number seen, or -1 */
	char session[128];	/* the session to resume, or "" */
	char resume[512];	/* its URL, or "" */
	char url[512];		/* the Gateway's URL */
	int notified;		/* readiness said */
	long backoff;		/* the next pause */
};

/*
 * Writes the records of every event in the ledger not yet written:
 * 0, 1 if SIGTERM left some for the next start, or -1 if stdout is gone.
 */
static int
drain(struct dcrx *rx)
{
	long long row, at;
	char t[48];
	jv d, out;

	while (dc_ledger_next(rx, &row, t, sizeof t, &d, &at)) {
		out = jv_array();
		if (jv_is_valid(d) && dc_event(rx, t, d, at,
		    (long long)time(NULL) - at <= ANSWER_S, &out) < 0) {
			jv_free(d);
			jv_free(out);
			return 1;
		}
		jv_free(d);
		if (ch_records(out) < 0)
			return -1;
		dc_ledger_done(rx, row);
	}
	return 0;
}

/*
 * Waits up to ms for the socket fd (or -1) or SIGTERM, serving the
 * interactions endpoint (dchook.c) meanwhile and writing what it took:
 * 0, or -1 if stdout is gone.
 */
static int
waitfor(struct dcrx *rx, int fd, long ms)
{
	struct pollfd p[3];
	int n = 0;

	p[n].fd = rx->dc.sigfd;
	p[n++].events = POLLIN;
	if (fd >= 0) {
		p[n].fd = fd;
		p[n++].events = POLLIN;
	}
	if (rx->hook) {
		p[n].fd = dc_hook_fd(rx->hook);
		p[n++].events = POLLIN;
	}
	p[0].revents = 0;
	if (poll(p, n, ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms) < 0 &&
	    errno != EINTR)
		oxi_diesys(OXI_EX_TEMP, "poll");
	if (p[0].revents)
		oxi_sig_drain();
	if (!rx->hook)
		return 0;
	if (dc_hook_serve(rx->hook) < 0)
		oxi_warnsys("discord: the interactions endpoint");
	return drain(rx);
}

/* a pause of ms, cut short by SIGTERM, the endpoint served: 0 or -1 */
static int
rest(struct dcrx *rx, long ms)
{
	long long end = oxi_clock_ms() + ms;

	while (!oxi_sig_term && oxi_clock_ms() < end)
		if (waitfor(rx, -1, end - oxi_clock_ms()) < 0)
			return -1;
	return 0;
}

/* the URL to connect to, with the version and encoding we speak */
static void
withquery(const char *base, char *out, size_t len)
{
	size_t n = strlen(base);

	if (strchr(base, '?'))
		snprintf(out, len, "%s", base);
	else
		snprintf(out, len, "%s%s?v=10&encoding=json", base, n > 0 &&
		    base[n - 1] == '/' ? "" : "/");
}

/* the Gateway's URL: $OXI_DISCORD_GATEWAY, else GET /gateway/bot (a
 * refused token ends us).  0, 1 if SIGTERM came first, -1 if stdout is
 * gone */
static int
gwurl(struct dcrx *rx, struct gw *g)
{
	const char *v = oxi_getenv("OXI_DISCORD_GATEWAY");
	struct dc_res res;
	long ms = BACKOFF_MS;

	if (v) {
		if (strncmp(v, "ws://", 5) && strncmp(v, "wss://", 6))
			oxi_die(OXI_EX_USAGE, "OXI_DISCORD_GATEWAY is not a "
			    "ws(s) URL");
		withquery(v, g->url, sizeof g->url);
		return 0;
	}
	while (!oxi_sig_term) {
		if (dc_call(&rx->dc, "GET", "/gateway/bot", jv_null(),
		    &res) == 0) {
			v = oxi_msg_peek(res.body, "url");
			withquery(v && (!strncmp(v, "ws://", 5) ||
			    !strncmp(v, "wss://", 6)) ? v : DC_GATEWAY, g->url,
			    sizeof g->url);
			dc_res_free(&res);
			return 0;
		}
		dc_res_free(&res);
		if (oxi_sig_term)
			break;
		if (res.status == 401)
			oxi_die(OXI_EX_USAGE, "the bot token was refused (%s): "
			    "check DISCORD_BOT_TOKEN", res.err);
		if (!res.temp) {
			oxi_warn("discord: %s; using %s", res.err, DC_GATEWAY);
			withquery(DC_GATEWAY, g->url, sizeof g->url);
			return 0;
		}
		oxi_warn("discord: %s; again in %ld s", res.err, ms / 1000);
		if (rest(rx, res.retry_ms > 0 ? res.retry_ms : ms) < 0)
			return -1;
		ms = ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : ms * 2;
	}
	return 1;
}

/* the session forgotten: the next connection identifies */
static void
forget(struct dcrx *rx, struct gw *g)
{
	g->session[0] = g->resume[0] = '\0';
	g->seq = -1;
	dc_ledger_setmeta(rx, "session", "");
	dc_ledger_setmeta(rx, "resume", "");
	dc_ledger_setmeta(rx, "seq", "");
}

/* sends payload p (consumed, wiped: it may hold the token) */
static int
gwsend(struct gw *g, jv p)
{
	char *s = (char *)jv_string_value(p);
	size_t n = strlen(s);
	int r = oxi_ws_send(g->ws, OXI_WS_TEXT, s, n);

	oxi_wipe(s, n);
	jv_free(p);
	return r;
}

/* READY or RESUMED: the session is live */
static void
live(struct dcrx *rx, struct gw *g, const char *t, jv d)
{
	const char *v;
	jv u;

	if (strcmp(t, "READY") == 0) {
		v = oxi_msg_peek(d, "session_id");
		snprintf(g->session, sizeof g->session, "%s", v ? v : "");
		v = oxi_msg_peek(d, "resume_gateway_url");
		g->resume[0] = '\0';
		if (v && (!strncmp(v, "ws://", 5) || !strncmp(v, "wss://", 6)))
			withquery(v, g->resume, sizeof g->resume);
		u = oxi_jget(d, "user");
		dc_id(u, "id", rx->botid);
		v = oxi_jis(u, JV_KIND_OBJECT) ? oxi_msg_peek(u, "username") :
		    NULL;
		snprintf(rx->botname, sizeof rx->botname, "%s", v ? v : "");
		jv_free(u);
		dc_ledger_setmeta(rx, "session", g->session);
		dc_ledger_setmeta(rx, "resume", g->resume);
		dc_ledger_setmeta(rx, "botid", rx->botid);
		dc_ledger_setmeta(rx, "botname", rx->botname);
		oxi_debug("discord: ready as %s (%s)", rx->botname, rx->botid);
	} else
		oxi_debug("discord: resumed at %lld", g->seq);
	g->backoff = BACKOFF_MS;
	if (!g->notified) {
		oxi_notify(rx->o->notif);
		g->notified = 1;
	}
}

/* the threads of a guild or a thread event: their channels kept */
static void
threads(struct dcrx *rx, const char *t, jv d)
{
	char id[DC_ID], parent[DC_ID];
	jv list, th;
	int i, n;

	if (strcmp(t, "THREAD_CREATE") == 0 || strcmp(t, "THREAD_UPDATE") == 0) {
		if (*dc_id(d, "id", id) && *dc_id(d, "parent_id", parent))
			dc_ledger_thread(rx, id, parent);
		return;
	}
	list = oxi_jget(d, "threads");
	n = oxi_jis(list, JV_KIND_ARRAY) ? jv_array_length(jv_copy(list)) : 0;
	for (i = 0; i < n; i++) {
		th = jv_array_get(jv_copy(list), i);
		if (*dc_id(th, "id", id) && *dc_id(th, "parent_id", parent))
			dc_ledger_thread(rx, id, parent);
		jv_free(th);
	}
	jv_free(list);
}

/* a dispatch: recorded, then written.  0, or -1 if stdout is gone */
static int
dispatch(struct dcrx *rx, struct gw *g, struct dc_gw *p)
{
	char key[DC_ID + 4], id[DC_ID];

	if (p->s >= 0)
		g->seq = p->s;
	if (!strcmp(p->t, "READY") || !strcmp(p->t, "RESUMED"))
		live(rx, g, p->t, p->d);
	else if (!strcmp(p->t, "GUILD_CREATE") || !strncmp(p->t, "THREAD_", 7))
		threads(rx, p->t, p->d);
	if (dc_event_kept(p->t) && *dc_id(p->d, "id", id)) {
		snprintf(key, sizeof key, "%c:%s", p->t[0], id);
		dc_ledger_put(rx, key, p->t, jv_copy(p->d), p->s);
	} else if (p->s >= 0)
		dc_ledger_put(rx, NULL, p->t, jv_null(), p->s);
	return drain(rx) < 0 ? -1 : 0;
}

/* one payload: 0 go on, else what the session ends in */
static int
payload(struct dcrx *rx, struct gw *g, const unsigned char *s, size_t n,
    int *go)
{
	struct dc_gw p;
	const char *why;
	int r = 0;

	if (dc_gw_read((const char *)s, n, &p, &why) < 0) {
		oxi_warn("discord: %s: skipped", why);
		return 0;
	}
	switch (p.op) {
	case DC_OP_DISPATCH:
		if (dispatch(rx, g, &p) < 0) {
			*go = GO_GONE;
			r = 1;
		}
		break;
	case DC_OP_HEARTBEAT:
		if (gwsend(g, dc_gw_heartbeat(g->seq)) < 0) {
			*go = GO_BACKOFF;
			r = 1;
		}
		break;
	case DC_OP_ACK:
		g->acked = 1;
		break;
	case DC_OP_RECONNECT:
		oxi_info("discord: the Gateway asks for a reconnect");
		*go = GO_RESUME;
		r = 1;
		break;
	case DC_OP_INVALID:
		if (jv_get_kind(p.d) != JV_KIND_TRUE) {
			oxi_warn("discord: the session is invalid: identifying "
			    "anew");
			forget(rx, g);
			if (rest(rx, 1000 + (long)randombytes_uniform(4000)) < 0) {
				*go = GO_GONE;
				r = 1;
				break;
			}
		} else
			oxi_info("discord: the session is invalid: resuming");
		*go = GO_RESUME;
		r = 1;
		break;
	default:
		break;
	}
	jv_free(p.d);
	return r;
}

/* waits for Hello: 0 with the interval, else -1 */
static int
hello(struct dcrx *rx, struct gw *g)
{
	long long end = oxi_clock_ms() + HELLO_MS;
	struct oxi_ws_msg m;
	struct dc_gw p;
	const char *why;
	int r;

	while (!oxi_sig_term && oxi_clock_ms() < end) {
		if (rx->hook && waitfor(rx, -1, 0) < 0)
			return -1;
		if ((r = oxi_ws_recv(g->ws, &m, 200)) < 0)
			return -1;
		if (r == 0 || m.op != OXI_WS_TEXT) {
			if (r == 1 && m.op == OXI_WS_CLOSE)
				return -1;
			continue;
		}
		if (dc_gw_read((const char *)m.data, m.len, &p, &why) == 0 &&
		    p.op == DC_OP_HELLO) {
			g->interval = (long)oxi_jnum(p.d, "heartbeat_interval",
			    41250);
			jv_free(p.d);
			if (g->interval < 100)
				g->interval = 100;
			return 0;
		}
		jv_free(p.d);
	}
	return -1;
}

/* a close frame's code: fatal ones end us */
static int
closed(struct dcrx *rx, struct gw *g, int code)
{
	const char *why;

	switch (dc_gw_close(code, &why)) {
	case 1:
		oxi_die(OXI_EX_USAGE, "discord: %s", why);
	case 2:
		oxi_warn("discord: the Gateway closed the session (%d): "
		    "identifying anew", code);
		forget(rx, g);
		return GO_RESUME;
	default:
		oxi_warn("discord: the Gateway closed the connection (%d)",
		    code);
		return GO_BACKOFF;
	}
}

/* one connection, until it ends: GO_* */
static int
session(struct dcrx *rx, struct gw *g)
{
	struct oxi_ws_opts wo = { .max_msg = MSG_MAX };
	struct oxi_buf err = OXI_BUF_INIT;
	struct oxi_ws_msg m;
	long long now, pruned = oxi_clock_ms();
	int r, go = GO_BACKOFF, resuming = g->session[0] != '\0';
	const char *url = resuming && g->resume[0] ? g->resume : g->url;

	if (!(g->ws = oxi_ws_open(url, &wo, &err))) {
		oxi_warn("discord: unable to reach the Gateway: %s", err.s ?
		    err.s : "failed");
		oxi_buf_free(&err);
		return GO_BACKOFF;
	}
	if (hello(rx, g) < 0) {
		if (!oxi_sig_term)
			oxi_warn("discord: no Hello from the Gateway");
		goto out;
	}
	if (gwsend(g, resuming ? dc_gw_resume(rx->dc.token, g->session,
	    g->seq) : dc_gw_identify(rx->dc.token, DC_INTENTS)) < 0)
		goto lost;
	g->acked = 1;
	g->beat = oxi_clock_ms() + dc_gw_jitter(g->interval);
	while (!oxi_sig_term) {
		while ((r = oxi_ws_recv(g->ws, &m, 0)) == 1) {
			if (m.op == OXI_WS_CLOSE) {
				go = closed(rx, g, m.close_code);
				goto out;
			}
			if (m.op == OXI_WS_TEXT &&
			    payload(rx, g, m.data, m.len, &go))
				goto out;
		}
		if (r < 0)
			goto lost;
		now = oxi_clock_ms();
		if (now >= g->beat) {
			if (!g->acked) {
				oxi_warn("discord: no heartbeat ACK: a zombie "
				    "connection, resuming");
				go = GO_RESUME;
				goto out;
			}
			if (gwsend(g, dc_gw_heartbeat(g->seq)) < 0)
				goto lost;
			g->acked = 0;
			g->beat = now + g->interval;
		}
		if (now - pruned > PRUNE_MS) {
			dc_ledger_prune(rx);
			pruned = now;
		}
		if (waitfor(rx, oxi_ws_fd(g->ws), g->beat - now) < 0) {
			go = GO_GONE;
			goto out;
		}
	}
	go = GO_RESUME;
	goto out;
lost:
	oxi_warn("discord: the Gateway connection is lost: %s",
	    oxi_ws_error(g->ws));
	go = GO_BACKOFF;
	oxi_ws_free(g->ws);
	g->ws = NULL;
	oxi_buf_free(&err);
	return go;
out:
	/* not 1000 or 1001, which would end the session: 4000 keeps it */
	oxi_ws_close(g->ws, 4000, "reconnecting");
	oxi_ws_free(g->ws);
	g->ws = NULL;
	oxi_buf_free(&err);
	return go;
}

static void
settings(struct dcrx *rx, const struct oxi_chan_opts *o)
{
	static const char *const guilds[] = { "mention", "all", NULL };
	const char *v;

	if (o->chat || o->thread || o->user || o->first || o->rcptfd >= 0)
		oxi_die(OXI_EX_USAGE, "-c, -t, -u, -m and -r are options of "
		    "the cli channel");
	rx->o = o;
	rx->guilds_all = ch_choose("OXI_DISCORD_GUILDS", "mention",
	    guilds);
	rx->filemax = DC_FILE_MAX;
	if ((v = oxi_getenv("OXI_DISCORD_FILE_MAX")))
		rx->filemax = oxi_sizearg(v, "OXI_DISCORD_FILE_MAX");
}

int
oxi_dc_recv(const struct oxi_chan_opts *o, const char **what)
{
	struct dcrx rx;
	struct gw g;
	const char *listen;
	char n[24];
	int r, go = GO_RESUME;

	memset(&rx, 0, sizeof rx);
	memset(&g, 0, sizeof g);
	settings(&rx, o);
	if (sodium_init() < 0)
		oxi_die(OXI_EX_TEMP, "unable to start libsodium");
	dc_open(&rx.dc, o->account);
	if ((rx.dc.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	rx.dc.termstop = 1;
	dc_ledger_open(&rx);
	dc_ledger_prune(&rx);
	dc_ledger_meta(&rx, "session", g.session, sizeof g.session);
	dc_ledger_meta(&rx, "resume", g.resume, sizeof g.resume);
	dc_ledger_meta(&rx, "botid", rx.botid, sizeof rx.botid);
	dc_ledger_meta(&rx, "botname", rx.botname, sizeof rx.botname);
	dc_ledger_meta(&rx, "seq", n, sizeof n);
	g.seq = n[0] ? atoll(n) : -1;
	if (g.seq < 0)
		g.session[0] = '\0';
	g.backoff = BACKOFF_MS;
	if (!(listen = o->webhook))
		listen = oxi_getenv("OXI_DISCORD_WEBHOOK");
	if (listen)
		rx.hook = dc_hook_open(&rx, listen);
	if ((r = drain(&rx)) < 0 || (r = gwurl(&rx, &g)) != 0)
		go = r < 0 ? GO_GONE : GO_RESUME;
	while (!oxi_sig_term && go != GO_GONE) {
		go = session(&rx, &g);
		if (go == GO_BACKOFF && !oxi_sig_term) {
			oxi_info("discord: connecting again in %ld s",
			    (g.backoff + 999) / 1000);
			if (rest(&rx, g.backoff) < 0)
				go = GO_GONE;
			g.backoff = g.backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX :
			    g.backoff * 2;
		}
	}
	dc_hook_close(rx.hook);
	dc_ledger_close(&rx);
	dc_close(&rx.dc);
	free(rx.filedir);
	if (go == GO_GONE) {
		*what = "unable to write to stdout";
		errno = EPIPE;
		return -1;
	}
	return 0;
}
