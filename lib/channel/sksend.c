/*
 * sksend.c - oxi-send slack: replies, drafts, approval questions and
 * errors delivered through the Web API
 *
 * The hand-off is chsent.c's (ch_sent_take): a msg.out, an approval.ask
 * and an error that names a chat go into the sent-ledger
 * (slack-send-<account>.db) before their bytes are consumed, and a
 * record whose id is there already is not delivered again.  Deliveries
 * go one at a time, in order: the text as mrkdwn (skmd.c) in parts of
 * at most SK_TEXT_MAX units, each a chat.postMessage in the record's
 * thread (in a channel, under the message it answers, whose ts ends
 * the msg.in id); each part in the ledger as it goes.  An approval.ask
 * is a message with Block Kit buttons, each button's value
 * "a:<ask id>:<choice>" (skevent.c makes the click an approval.answer).
 *
 * Drafts: the newest text of a reply being written, at most one call
 * every edit_ms for all chats (chat.update is Tier 3: some 50 a
 * minute): the first draft is posted, the later ones update it, and the
 * reply's first part updates it too.  typing is ignored: Slack has no
 * typing for apps.
 *
 * A 429 waits for its Retry-After, the network, 5xx and ratelimited are
 * retried with a pause doubled up to a minute, a refused token ends the
 * stage (100), any other refusal (channel_not_found) fails the record
 * and its receipt says why.  SIGTERM: the delivery in progress stops
 * between two calls, the rest waits in the ledger for the next start.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/tgmd.h"
#include "channel/sk.h"

#define EDIT_MS		1200		/* drafts: the least time between calls */
#define BACKOFF_MS	1000		/* the first pause after a failure */
#define BACKOFF_MAX	60000		/* the longest */
#define PRUNE_MS	3600000		/* the ledger is pruned so often */

enum { J_OUT, J_ASK, J_ERR };

struct job {
	struct job *next;
	char *key;		/* its key in the ledger */
	jv rec;			/* the record */
};

struct draft {
	struct draft *next;
	char *id;		/* the msg.out's id */
	jv rec;			/* the newest msg.draft */
	int dirty;		/* not shown yet */
	char *shown;		/* the text shown, or NULL */
};

struct sktx {
	struct sk sk;		/* the client */
	struct ch_sent sent;	/* the sent-ledger */
	struct job *head, *tail;	/* to deliver, in order */
	struct draft *drafts;	/* replies being written */
	long edit_ms;		/* drafts: the least time between calls */
	long long next;		/* when the next draft may go */
};

static int
is(jv rec, const char *key, const char *val)
{
	const char *v = oxi_msg_peek(rec, key);

	return v && strcmp(v, val) == 0;
}

/* the labels of the usual choices */
static const char *
label(const char *c)
{
	return !strcmp(c, "once") ? "Allow once" : !strcmp(c, "always") ?
	    "Always allow" : !strcmp(c, "deny") ? "Deny" : c;
}

/*
 * The thread of a reply (rec borrowed) in chat: its own, else in a
 * channel (not a DM, whose ids start with D) the message it answers,
 * from the msg.in id slack:<account>:<chat>:<ts>; into buf, or NULL.
 */
static const char *
threadof(jv rec, const char *chat, char *buf, size_t len)
{
	const char *t = oxi_msg_peek(rec, "thread"), *in;
	size_t n;

	if (t && *t)
		return t;
	in = oxi_msg_peek(rec, "in_reply_to");
	if (!in || chat[0] == 'D' || strncmp(in, "slack:", 6) != 0)
		return NULL;
	if (!(t = strrchr(in, ':')) || (n = strlen(chat)) >= (size_t)(t - in) ||
	    strncmp(t - n, chat, n) != 0 || t[-n - 1] != ':' ||
	    strlen(t + 1) >= len || !*(t + 1))
		return NULL;
	snprintf(buf, len, "%s", t + 1);
	return buf;
}

/* approval.ask's blocks: its text, then a row of buttons (rec borrowed) */
static jv
blocks(jv rec, const char *text)
{
	jv ch = oxi_jget(rec, "choices"), row = jv_array(), b, v;
	const char *id = oxi_msg_peek(rec, "id"), *c;
	int i, n = oxi_jis(ch, JV_KIND_ARRAY) ? jv_array_length(jv_copy(ch)) : 0;

	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(ch), i);
		if (jv_get_kind(v) != JV_KIND_STRING || strlen(id) +
		    jv_string_length_bytes(jv_copy(v)) > 1900) {
			oxi_warn("slack: approval %s: choice %d has no button",
			    id, i);
			jv_free(v);
			continue;
		}
		c = jv_string_value(v);
		b = jv_parse("{\"type\":\"button\"}");
		b = jv_object_set(b, jv_string("text"), jv_object_set(
		    jv_parse("{\"type\":\"plain_text\"}"), jv_string("text"),
		    jv_string(label(c))));
		b = jv_object_set(b, jv_string("action_id"),
		    jv_string_fmt("a:%d", i));
		b = jv_object_set(b, jv_string("value"),
		    jv_string_fmt("a:%s:%s", id, c));
		if (strcmp(c, "deny") == 0 || strcmp(c, "once") == 0)
			b = jv_object_set(b, jv_string("style"), jv_string(
			    *c == 'd' ? "danger" : "primary"));
		row = jv_array_append(row, b);
		jv_free(v);
	}
	jv_free(ch);
	b = jv_object_set(jv_parse("{\"type\":\"section\"}"), jv_string("text"),
	    jv_object_set(jv_parse("{\"type\":\"mrkdwn\"}"), jv_string("text"),
	    jv_string(text)));
	return jv_array_append(jv_array_append(jv_array(), b), jv_object_set(
	    jv_object_set(jv_parse("{\"type\":\"actions\"}"),
	    jv_string("block_id"), jv_string_fmt("oxi-%.200s", id)),
	    jv_string("elements"), row));
}

/*
 * A call, again while it fails for a while: 0, -1 refused (res->err),
 * or 1 if SIGTERM came first.  A refused token dies 100.
 */
static int
call(struct sktx *tx, const char *method, jv params, struct sk_res *res)
{
	long ms = BACKOFF_MS, wait;

	for (;;) {
		if (sk_call(&tx->sk, method, jv_copy(params), 0, res) == 0)
			break;
		if (res->auth)
			oxi_die(OXI_EX_USAGE, "slack: the bot token was refused "
			    "(%s): check SLACK_BOT_TOKEN", res->err);
		if (!res->temp) {
			jv_free(params);
			return -1;
		}
		wait = ms;
		if (res->retry_after > 0)
			wait = res->retry_after * 1000;
		else
			ms = ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : ms * 2;
		oxi_warn("slack: %s; again in %ld s", res->err,
		    (wait + 999) / 1000);
		sk_res_free(res);
		sk_pause(&tx->sk, wait);
		if (oxi_sig_term) {
			jv_free(params);
			return 1;
		}
	}
	jv_free(params);
	return 0;
}

/* the ts of a message a call made or updated, into buf */
static void
tsof(struct sk_res *res, char *buf, size_t len)
{
	jv v = oxi_jget(res->reply, "ts");

	snprintf(buf, len, "%s", jv_get_kind(v) == JV_KIND_STRING ?
	    jv_string_value(v) : "");
	jv_free(v);
}

static struct draft **
draft_find(struct sktx *tx, const char *id)
{
	struct draft **d;

	for (d = &tx->drafts; *d && strcmp((*d)->id, id) != 0; d = &(*d)->next)
		;
	return d;
}

static void
draft_drop(struct sktx *tx, const char *id)
{
	struct draft **dp = draft_find(tx, id), *d = *dp;

	if (!d)
		return;
	*dp = d->next;
	jv_free(d->rec);
	free(d->shown);
	free(d->id);
	free(d);
}

/* the text of a job, rendered: the number of parts */
static int
render(jv rec, int k, struct oxi_tgmd_part **parts)
{
	struct oxi_buf t = OXI_BUF_INIT;
	int n;

	if (k == J_ERR)
		oxi_buf_printf(&t, ":warning: %s", oxi_msg_peek(rec, "message"));
	else
		oxi_buf_cats(&t, oxi_msg_peek(rec, "text"));
	n = oxi_tgmd_render_as(t.s, t.len, k == J_OUT && !is(rec, "format",
	    "text"), SK_TEXT_MAX, &sk_mrkdwn, parts);
	oxi_buf_free(&t);
	if (n < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to render a reply");
	return n;
}

/* delivers j: 0 delivered or failed (its receipt written), 1 SIGTERM */
static int
deliver(struct sktx *tx, struct job *j)
{
	const char *type = oxi_msg_type_peek(j->rec), *chat, *thread;
	const char *error = NULL, *ref, *inreply;
	struct oxi_tgmd_part *parts = NULL;
	struct sk_res res;
	char pid[160], dts[40], ts[40], tb[40];
	int k, n, i, r = 0;
	jv p;

	k = strcmp(type, "approval.ask") == 0 ? J_ASK :
	    strcmp(type, "error") == 0 ? J_ERR : J_OUT;
	chat = oxi_msg_peek(j->rec, "chat");
	thread = threadof(j->rec, chat, tb, sizeof tb);
	n = render(j->rec, k, &parts);
	i = ch_sent_parts(&tx->sent, j->key, pid, sizeof pid);
	dts[0] = '\0';
	if (k == J_OUT && i == 0)
		ch_sent_draft_get(&tx->sent, j->key, dts, sizeof dts);
	if (n == 0)
		error = "nothing to show";
	for (; i < n && !error; i++) {
		p = jv_object_set(jv_object(), jv_string("channel"),
		    jv_string(chat));
		p = jv_object_set(p, jv_string("text"), jv_string(parts[i].html));
		if (k == J_ASK && i == n - 1)
			p = jv_object_set(p, jv_string("blocks"),
			    blocks(j->rec, parts[i].html));
		if (i == 0 && dts[0])
			p = jv_object_set(p, jv_string("ts"), jv_string(dts));
		else if (thread)
			p = jv_object_set(p, jv_string("thread_ts"),
			    jv_string(thread));
		r = call(tx, i == 0 && dts[0] ? "chat.update" :
		    "chat.postMessage", p, &res);
		if (r > 0)
			goto out;
		if (r < 0 && i == 0 && dts[0]) {
			/* the draft is gone: the reply is a new message */
			oxi_debug("slack: %s: the draft of %s is gone", res.err,
			    j->key);
			sk_res_free(&res);
			dts[0] = '\0';
			i--;
			r = 0;
			continue;
		}
		if (r < 0) {
			error = res.err;
			break;
		}
		tsof(&res, ts, sizeof ts);
		sk_res_free(&res);
		ch_sent_part(&tx->sent, j->key, i, chat, ts);
		if (i == 0)
			snprintf(pid, sizeof pid, "%s:%s", chat, ts);
	}
	ref = k == J_ASK ? NULL : k == J_ERR ? oxi_msg_peek(j->rec, "ref") :
	    j->key;
	inreply = k == J_ERR ? ref : oxi_msg_peek(j->rec, "in_reply_to");
	if (error)
		oxi_warn("slack: %s %s to %s not delivered: %s", type, j->key,
		    chat, error);
	ch_sent_done(&tx->sent, j->key, ref, inreply, pid, error);
	if (error == res.err)
		sk_res_free(&res);
	if (k == J_OUT) {
		ch_sent_draft(&tx->sent, j->key, NULL, NULL);
		draft_drop(tx, j->key);
	}
out:
	oxi_tgmd_free(parts, n);
	return r > 0;
}

/* a record of the ledger to deliver (new, or left undelivered) */
static void
job(void *arg, const char *key, jv rec)
{
	struct sktx *tx = arg;
	struct job *j = xcalloc(1, sizeof *j);

	j->key = xstrdup(key);
	j->rec = rec;
	if (tx->tail)
		tx->tail->next = j;
	else
		tx->head = j;
	tx->tail = j;
}

static void
draft(void *arg, jv rec)
{
	struct sktx *tx = arg;
	const char *id = oxi_msg_peek(rec, "id");
	struct draft **dp, *d;

	/* a reply delivered, or on its way, has no draft any more */
	if (!id || ch_sent_state(&tx->sent, id) >= 0)
		return;
	if (!*(dp = draft_find(tx, id))) {
		*dp = d = xcalloc(1, sizeof *d);
		d->id = xstrdup(id);
		d->rec = jv_null();
	}
	d = *dp;
	jv_free(d->rec);
	d->rec = jv_copy(rec);
	d->dirty = 1;
}

static void
typing(void *arg, jv rec)
{
	(void)arg;
	(void)rec;
	oxi_debug("slack: typing ignored: Slack has none for apps");
}

/* the newest dirty draft shown when one may go: ms until the next may */
static long
drafts_due(struct sktx *tx)
{
	struct oxi_tgmd_part *parts;
	struct sk_res res;
	struct draft *d;
	const char *chat, *thread;
	char ts[40], tb[40];
	long long now = oxi_clock_ms();
	int n;
	jv p;

	for (d = tx->drafts; d && !d->dirty; d = d->next)
		;
	if (!d)
		return -1;
	if (now < tx->next)
		return (long)(tx->next - now);
	d->dirty = 0;
	n = render(d->rec, J_OUT, &parts);
	if (n <= 0 || (d->shown && strcmp(d->shown, parts[0].html) == 0)) {
		oxi_tgmd_free(parts, n);
		return 0;
	}
	chat = oxi_msg_peek(d->rec, "chat");
	ch_sent_draft_get(&tx->sent, d->id, ts, sizeof ts);
	p = jv_object_set(jv_object(), jv_string("channel"), jv_string(chat));
	p = jv_object_set(p, jv_string("text"), jv_string(parts[0].html));
	if (ts[0])
		p = jv_object_set(p, jv_string("ts"), jv_string(ts));
	else if ((thread = threadof(d->rec, chat, tb, sizeof tb)))
		p = jv_object_set(p, jv_string("thread_ts"), jv_string(thread));
	tx->next = now + tx->edit_ms;
	if (sk_call(&tx->sk, ts[0] ? "chat.update" : "chat.postMessage", p, 0,
	    &res) == 0) {
		if (!ts[0]) {
			tsof(&res, ts, sizeof ts);
			ch_sent_draft(&tx->sent, d->id, chat, ts);
		}
		free(d->shown);
		d->shown = xstrdup(parts[0].html);
	} else {
		if (res.auth)
			oxi_die(OXI_EX_USAGE, "slack: the bot token was refused "
			    "(%s): check SLACK_BOT_TOKEN", res.err);
		if (res.retry_after > 0)
			tx->next = now + res.retry_after * 1000;
		oxi_debug("slack: a draft not shown: %s", res.err);
	}
	sk_res_free(&res);
	oxi_tgmd_free(parts, n);
	return 0;
}

/* the token, checked before readiness (auth.test): a refused one ends
 * the stage with 100 at once; a network that is down is only warned */
static void
checktoken(struct sktx *tx)
{
	struct sk_res res;

	if (sk_call(&tx->sk, "auth.test", jv_null(), 0, &res) == 0) {
		sk_res_free(&res);
		return;
	}
	if (res.auth)
		oxi_die(OXI_EX_USAGE, "slack: the bot token was refused (%s): "
		    "check SLACK_BOT_TOKEN", res.err);
	oxi_warn("slack: %s; replies wait for it", res.err);
	sk_res_free(&res);
}

int
oxi_sk_send(const struct oxi_chan_opts *o, const char **what)
{
	struct sktx tx;
	const struct ch_sink sink = { job, draft, typing, &tx };
	struct oxi_nd in;
	struct pollfd pfd[2];
	struct job *j;
	long long pruned;
	long wait;
	int status = 0, n;

	(void)what;
	if (o->chat || o->thread || o->user || o->first || o->drafts ||
	    o->errfd >= 0 || o->webhook)
		oxi_die(OXI_EX_USAGE, "-c, -t, -u, -m, -D, -e and -w are not "
		    "options of the slack sender");
	memset(&tx, 0, sizeof tx);
	if (oxi_env_ms("OXI_SLACK_EDIT_INTERVAL", EDIT_MS, &tx.edit_ms) < 0)
		oxi_die(OXI_EX_USAGE, "OXI_SLACK_EDIT_INTERVAL must be a "
		    "number of seconds");
	sk_open(&tx.sk, o->account, SK_NEED_BOT);
	if ((tx.sk.sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	ch_sent_open(&tx.sent, "slack", tx.sk.account, o->rcptfd >= 0 ?
	    o->rcptfd : 1);
	ch_sent_prune(&tx.sent);
	pruned = oxi_clock_ms();
	oxi_nd_init(&in, 0, "stdin");
	in.max = o->max;
	if (oxi_nd_peek(&in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	ch_sent_load(&tx.sent, job, &tx);
	checktoken(&tx);
	oxi_notify(o->notif);
	while (!oxi_sig_term) {
		status |= ch_sent_take(&tx.sent, &in, &sink);
		while ((j = tx.head) && !oxi_sig_term) {
			if (deliver(&tx, j))
				break;
			if (!(tx.head = j->next))
				tx.tail = NULL;
			jv_free(j->rec);
			free(j->key);
			free(j);
			/* what came meanwhile, before the next */
			status |= ch_sent_take(&tx.sent, &in, &sink);
		}
		if (oxi_sig_term || (in.eof && !tx.head))
			break;
		while ((wait = drafts_due(&tx)) == 0)
			;
		if (oxi_clock_ms() - pruned > PRUNE_MS) {
			ch_sent_prune(&tx.sent);
			pruned = oxi_clock_ms();
		}
		n = 0;
		pfd[n].fd = tx.sk.sigfd;
		pfd[n++].events = POLLIN;
		if (!in.eof) {
			pfd[n].fd = in.fd;
			pfd[n++].events = POLLIN;
		}
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, n, (int)wait) < 0 && errno != EINTR)
			oxi_diesys(OXI_EX_TEMP, "unable to poll");
		if (pfd[0].revents)
			oxi_sig_drain();
		if (n > 1 && pfd[1].revents && oxi_nd_fill(&in) < 0 &&
		    errno != EINTR && errno != EAGAIN)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	}
	while ((j = tx.head)) {
		tx.head = j->next;
		jv_free(j->rec);
		free(j->key);
		free(j);
	}
	while (tx.drafts)
		draft_drop(&tx, tx.drafts->id);
	oxi_nd_free(&in);
	ch_sent_close(&tx.sent);
	sk_close(&tx.sk);
	return status;
}
