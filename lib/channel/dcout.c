/*
 * dcout.c - the deliveries of oxi-send discord: a queue a channel, each
 * with at most one call in flight, all channels at once on the client's
 * http loop
 *
 * A record goes to its thread (a thread is a channel of its own) if it
 * names one, else to its chat.  A job is a record of the sent-ledger: a
 * msg.out (Discord Markdown in parts of 2000 characters, dcmd.c), an
 * approval.ask (its text, then a row of buttons, custom_id
 * "a:<ask id>:<choice>"), an error shown.  Its parts go out in order
 * (POST /channels/C/messages, no mention ever pings), the first answering
 * the message the reply is for, each with a nonce Discord enforces, so
 * that a part sent again after a kill is not shown twice.  Rate limits: a route whose bucket is
 * used up (dcapi.c) or held by a 429 waits for it, the global limit holds
 * every channel; the network and 5xx are retried after a pause doubled
 * up to a minute; a refused token ends the stage (100); any other refusal
 * (a channel gone, no access) fails the job, its receipt says why.
 *
 * Drafts: the newest text of a reply being written, at most every
 * edit_ms: one message sent, then edited in place (PATCH); the reply's
 * first part edits that message, the rest are sent.  Typing: POST
 * /channels/C/typing, at most every typing_ms, when nothing else is due.
 * Jobs come first, then drafts, then typing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

#define BACKOFF_MS	1000	/* the first pause after a failure */
#define BACKOFF_MAX	60000	/* the longest */
#define INFLIGHT_MAX	16	/* calls in flight, all channels */
#define IDLE_MS		600000	/* a channel with nothing to do is forgotten */

enum { J_OUT, J_ASK, J_ERR };		/* what a job delivers */
enum { C_JOB, C_DRAFT, C_TYPING };	/* what a call does */

struct job {
	struct job *next;	/* in its channel's queue */
	char *key;		/* its key in the ledger */
	jv rec;			/* the record */
	int kind;		/* J_* */
	char **parts;		/* its text as messages */
	int nparts;		/* how many */
	int n;			/* the next to go */
	char pid[100];		/* the first one's platform id */
	char edit[DC_ID];	/* a draft message the first part replaces */
	long long until;	/* a pause: nothing before */
	long backoff;		/* the next pause */
};

struct dcchan {
	struct dcchan *next;	/* in tx->chans */
	char id[DC_ID];		/* the channel (or thread) */
	int busy;		/* a call in flight */
	long long until;	/* held: nothing before */
	long long seen;		/* when it last had something to do */
	struct job *head, *tail;	/* its jobs */
	char *did;		/* the msg.out id of the draft shown, or NULL */
	char *dtext;		/* the draft text due, or NULL */
	char *dshown;		/* the draft text shown */
	char dmid[DC_ID];	/* the message that shows it, or "" */
	long long dlast;	/* the last draft call */
	int typing;		/* typing asked for */
	long long tlast;	/* the last typing call */
};

/* a call in flight */
struct call {
	struct dctx *tx;	/* whose */
	struct dcchan *c;	/* for which channel */
	int what;		/* C_* */
	int edit;		/* a PATCH */
	char *text;		/* a draft call: the text it shows */
};

/* where rec goes: its thread, else its chat ("" if neither fits) */
static const char *
target(jv rec, char *buf)
{
	const char *t = oxi_msg_peek(rec, "thread");

	if (!t || !*t)
		t = oxi_msg_peek(rec, "chat");
	buf[0] = '\0';
	if (t && *t && strlen(t) < DC_ID && strspn(t, "0123456789") ==
	    strlen(t))
		snprintf(buf, DC_ID, "%s", t);
	return buf;
}

static struct dcchan *
chan_get(struct dctx *tx, const char *id)
{
	struct dcchan *c;

	for (c = tx->chans; c; c = c->next)
		if (strcmp(c->id, id) == 0)
			break;
	if (!c) {
		c = xcalloc(1, sizeof *c);
		snprintf(c->id, sizeof c->id, "%s", id);
		c->next = tx->chans;
		tx->chans = c;
	}
	c->seen = oxi_clock_ms();
	return c;
}

static void
chan_free(struct dcchan *c)
{
	free(c->did);
	free(c->dtext);
	free(c->dshown);
	free(c);
}

static void
job_free(struct job *j)
{
	dc_md_free(j->parts, j->nparts);
	jv_free(j->rec);
	free(j->key);
	free(j);
}

/* a button: the usual choices named and coloured */
static jv
button(const char *id, const char *choice)
{
	int style = !strcmp(choice, "deny") ? 4 : !strcmp(choice, "once") ||
	    !strcmp(choice, "always") ? 3 : 2;
	const char *label = !strcmp(choice, "once") ? "Allow once" :
	    !strcmp(choice, "always") ? "Always allow" : !strcmp(choice,
	    "deny") ? "Deny" : choice;
	jv b = jv_object_set(jv_object(), jv_string("type"), jv_number(2));

	b = jv_object_set(b, jv_string("style"), jv_number(style));
	b = jv_object_set(b, jv_string("label"), jv_string_fmt("%.80s",
	    label));
	return jv_object_set(b, jv_string("custom_id"), jv_string_fmt("a:%s:%s",
	    id, choice));
}

/* approval.ask's buttons: one action row of at most five */
static jv
buttons(jv rec)
{
	jv ch = oxi_jget(rec, "choices"), row = jv_array(), v;
	const char *id = oxi_msg_peek(rec, "id");
	int i, k = 0, n = oxi_jis(ch, JV_KIND_ARRAY) ?
	    jv_array_length(jv_copy(ch)) : 0;

	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(ch), i);
		/* Discord takes 1 to 100 characters of custom_id */
		if (jv_get_kind(v) == JV_KIND_STRING && k < 5 &&
		    strlen(id) + jv_string_length_bytes(jv_copy(v)) + 3 <= 100) {
			row = jv_array_append(row, button(id,
			    jv_string_value(v)));
			k++;
		} else
			oxi_warn("discord: approval %s: choice %d has no "
			    "button", id, i);
		jv_free(v);
	}
	jv_free(ch);
	return jv_array_append(jv_array(), jv_object_set(jv_object_set(
	    jv_object(), jv_string("type"), jv_number(1)),
	    jv_string("components"), row));
}

/* the message the reply answers: reply_to, else the message id of its
 * msg.in (discord:ACCOUNT:CHANNEL:MID) when that is in this channel */
static const char *
replyto(struct dctx *tx, jv rec, const char *chan, char *buf)
{
	const char *r = oxi_msg_peek(rec, "reply_to"), *p;
	size_t n = strlen(tx->dc.account), m = strlen(chan);

	buf[0] = '\0';
	if (!r && (r = oxi_msg_peek(rec, "in_reply_to")) &&
	    strncmp(r, "discord:", 8) == 0 &&
	    strncmp(r + 8, tx->dc.account, n) == 0 && r[8 + n] == ':' &&
	    strncmp(r + 9 + n, chan, m) == 0 && r[9 + n + m] == ':')
		r += 10 + n + m;
	else if (!oxi_msg_peek(rec, "reply_to"))
		return buf;
	for (p = r; *p >= '0' && *p <= '9'; p++)
		;
	if (p > r && p - r < DC_ID && (*p == '\0' || *p == ':'))
		snprintf(buf, DC_ID, "%.*s", (int)(p - r), r);
	return buf;
}

/* a message's body: content, no pings, a reply reference */
static jv
body(const char *content, const char *ref)
{
	jv p = jv_object_set(jv_object(), jv_string("content"),
	    jv_string(content));

	p = jv_object_set(p, jv_string("allowed_mentions"), jv_object_set(
	    jv_object(), jv_string("parse"), jv_array()));
	if (ref && *ref)
		p = jv_object_set(p, jv_string("message_reference"),
		    jv_object_set(jv_object_set(jv_object(),
		    jv_string("message_id"), jv_string(ref)),
		    jv_string("fail_if_not_exists"), jv_false()));
	return p;
}

/* the nonce of part n of key: FNV-1a of both, 16 hex digits; with
 * enforce_nonce Discord creates no second message for it (for a few
 * minutes), which closes the window of a kill between Discord's answer
 * and the sent-ledger's row */
static jv
nonce(jv p, const char *key, int n)
{
	unsigned long long h = 14695981039346656037ULL;
	char buf[24];

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ULL;
	h = (h ^ (unsigned)n) * 1099511628211ULL;
	snprintf(buf, sizeof buf, "%016llx", h);
	p = jv_object_set(p, jv_string("nonce"), jv_string(buf));
	return jv_object_set(p, jv_string("enforce_nonce"), jv_true());
}

static void ondone(void *, struct dc_res *);
static void job_end(struct dctx *, struct dcchan *, const char *);

/* the route of a call, for its rate limit */
static void
route(char *buf, size_t len, const char *verb, const char *chan,
    const char *what)
{
	snprintf(buf, len, "%s /channels/%s/%s", verb, chan, what);
}

/* 1 if route rt of c must wait for its rate limit (c->until set) */
static int
waits(struct dctx *tx, struct dcchan *c, const char *rt)
{
	long w = dc_wait_ms(&tx->dc, rt);

	if (w <= 0)
		return 0;
	c->until = oxi_clock_ms() + w;
	return 1;
}

/* starts a call for channel c: 0, or -1 if it could not start (warned) */
static int
call(struct dctx *tx, struct dcchan *c, const char *verb, const char *path,
    const char *rt, jv p, struct call *k)
{
	struct dc_res res;

	k->tx = tx;
	k->c = c;
	if (dc_start(&tx->dc, verb, path, rt, p, ondone, k, &res) < 0) {
		oxi_warn("discord: %s", res.err);
		free(k->text);
		free(k);
		return -1;
	}
	c->busy = 1;
	tx->inflight++;
	return 0;
}

/* the next part of c's first job */
static void
job_start(struct dctx *tx, struct dcchan *c)
{
	struct job *j = c->head;
	struct oxi_buf path = OXI_BUF_INIT;
	char ref[DC_ID], rt[128];
	struct call *k;
	jv p;

	if (j->nparts == 0 || j->n >= j->nparts || !c->id[0]) {
		job_end(tx, c, j->n >= j->nparts && j->nparts > 0 ? NULL :
		    j->nparts == 0 ? "nothing to send: the text is empty" :
		    "no chat");
		return;
	}
	if (j->n == 0 && j->kind == J_OUT) {
		/* no draft of it any more: its final text is here */
		if (c->did && strcmp(c->did, j->key) == 0) {
			free(c->dtext);
			free(c->did);
			c->dtext = c->did = NULL;
		}
		if (!j->edit[0])
			ch_sent_draft_get(&tx->sent, j->key, j->edit,
			    sizeof j->edit);
	}
	route(rt, sizeof rt, j->n == 0 && j->edit[0] ? "PATCH" : "POST",
	    c->id, "messages");
	if (waits(tx, c, rt))
		return;
	k = xcalloc(1, sizeof *k);
	k->what = C_JOB;
	k->edit = j->n == 0 && j->edit[0];
	p = body(j->parts[j->n], j->n > 0 || k->edit ? NULL : replyto(tx,
	    j->rec, c->id, ref));
	if (!k->edit)
		p = nonce(p, j->key, j->n);
	if (j->kind == J_ASK && j->n == j->nparts - 1)
		p = jv_object_set(p, jv_string("components"), buttons(j->rec));
	else if (k->edit)
		p = jv_object_set(p, jv_string("components"), jv_array());
	oxi_debug("discord: %s %s part %d of %d to %s", k->edit ? "edit" :
	    "create", j->key, j->n + 1, j->nparts, c->id);
	if (k->edit)
		oxi_buf_printf(&path, "/channels/%s/messages/%s", c->id,
		    j->edit);
	else
		oxi_buf_printf(&path, "/channels/%s/messages", c->id);
	if (call(tx, c, k->edit ? "PATCH" : "POST", path.s, rt, p, k) < 0)
		j->until = oxi_clock_ms() + BACKOFF_MS;
	oxi_buf_free(&path);
}

static void
draft_start(struct dctx *tx, struct dcchan *c)
{
	struct oxi_buf path = OXI_BUF_INIT;
	struct call *k;
	char rt[128];
	jv p;

	route(rt, sizeof rt, c->dmid[0] ? "PATCH" : "POST", c->id, "messages");
	if (waits(tx, c, rt))
		return;
	k = xcalloc(1, sizeof *k);
	p = body(c->dtext, NULL);
	k->what = C_DRAFT;
	k->text = c->dtext;
	c->dtext = NULL;
	c->dlast = oxi_clock_ms();
	k->edit = c->dmid[0] != '\0';
	if (k->edit)
		oxi_buf_printf(&path, "/channels/%s/messages/%s", c->id,
		    c->dmid);
	else
		oxi_buf_printf(&path, "/channels/%s/messages", c->id);
	(void)call(tx, c, k->edit ? "PATCH" : "POST", path.s, rt, p, k);
	oxi_buf_free(&path);
}

static void
typing_start(struct dctx *tx, struct dcchan *c)
{
	struct oxi_buf path = OXI_BUF_INIT;
	struct call *k;
	char rt[128];

	route(rt, sizeof rt, "POST", c->id, "typing");
	if (waits(tx, c, rt))
		return;
	k = xcalloc(1, sizeof *k);
	k->what = C_TYPING;
	c->typing = 0;
	c->tlast = oxi_clock_ms();
	oxi_buf_printf(&path, "/channels/%s/typing", c->id);
	(void)call(tx, c, "POST", path.s, rt, jv_null(), k);
	oxi_buf_free(&path);
}

/* the job done or failed: ledger, receipt, next */
static void
job_end(struct dctx *tx, struct dcchan *c, const char *error)
{
	struct job *j = c->head;
	const char *ref = j->kind == J_ASK ? NULL : j->kind == J_ERR ?
	    oxi_msg_peek(j->rec, "ref") : j->key;
	const char *inreply = j->kind == J_ERR ? ref :
	    oxi_msg_peek(j->rec, "in_reply_to");

	if (error)
		oxi_warn("discord: %s %s to %s not delivered: %s",
		    oxi_msg_type_peek(j->rec), j->key, c->id, error);
	ch_sent_done(&tx->sent, j->key, ref, inreply, error ? NULL : j->pid,
	    error);
	if (j->kind == J_OUT)
		ch_sent_draft(&tx->sent, j->key, NULL, NULL);
	c->head = j->next;
	if (!c->head)
		c->tail = NULL;
	job_free(j);
}

/* a failed call: a refused token ends the stage; a 429 holds the
 * channel (dcapi.c holds its route, or all of them): 1 then */
static int
held(struct dcchan *c, const struct dc_res *res)
{
	if (res->status == 401)
		oxi_die(OXI_EX_USAGE, "the bot token was refused (%s): check "
		    "DISCORD_BOT_TOKEN", res->err);
	if (res->status != 429)
		return 0;
	c->until = oxi_clock_ms() + (res->retry_ms > 0 ? res->retry_ms :
	    BACKOFF_MS);
	return 1;
}

/* Discord's answer to a part of c's first job */
static void
job_answer(struct dctx *tx, struct call *k, struct dc_res *res)
{
	struct dcchan *c = k->c;
	struct job *j = c->head;
	char m[DC_ID];

	if (res->ok) {
		if (k->edit)
			snprintf(m, sizeof m, "%s", j->edit);
		else
			dc_id(res->body, "id", m);
		ch_sent_part(&tx->sent, j->key, j->n, c->id, m);
		if (j->n == 0)
			snprintf(j->pid, sizeof j->pid, "%s:%s", c->id, m);
		j->backoff = 0;
		if (++j->n == j->nparts)
			job_end(tx, c, NULL);
		return;
	}
	if (held(c, res))
		oxi_info("discord: %s: channel %s waits %ld ms", res->err,
		    c->id, res->retry_ms);
	else if (res->temp) {
		j->backoff = j->backoff ? j->backoff * 2 : BACKOFF_MS;
		if (j->backoff > BACKOFF_MAX)
			j->backoff = BACKOFF_MAX;
		j->until = oxi_clock_ms() + j->backoff;
		oxi_warn("discord: %s; %s again in %ld s", res->err, j->key,
		    (j->backoff + 999) / 1000);
	} else if (k->edit) {
		/* the draft message is gone: a new one */
		oxi_debug("discord: %s: sending anew", res->err);
		j->edit[0] = '\0';
		ch_sent_draft(&tx->sent, j->key, NULL, NULL);
	} else
		job_end(tx, c, res->msg[0] ? res->msg : res->err);
}

static void
draft_answer(struct dctx *tx, struct call *k, struct dc_res *res)
{
	struct dcchan *c = k->c;

	if (res->ok) {
		if (!k->edit && c->did) {
			dc_id(res->body, "id", c->dmid);
			ch_sent_draft(&tx->sent, c->did, c->id, c->dmid);
		}
		free(c->dshown);
		c->dshown = k->text;
		k->text = NULL;
		return;
	}
	if (held(c, res))
		;
	else if (k->edit && !res->temp)
		c->dmid[0] = '\0';
	else if (!res->temp) {
		oxi_debug("discord: %s: a draft dropped", res->err);
		return;
	}
	/* the text again, unless a newer one is due */
	if (!c->dtext && c->did) {
		c->dtext = k->text;
		k->text = NULL;
	}
}

static void
ondone(void *arg, struct dc_res *res)
{
	struct call *k = arg;
	struct dctx *tx = k->tx;

	k->c->busy = 0;
	tx->inflight--;
	if (k->what == C_JOB)
		job_answer(tx, k, res);
	else if (k->what == C_DRAFT)
		draft_answer(tx, k, res);
	else if (!res->ok && !held(k->c, res))
		oxi_debug("discord: %s", res->err);
	free(k->text);
	free(k);
}

void
dc_out_job(void *arg, const char *key, jv rec)
{
	struct dctx *tx = arg;
	struct oxi_buf t = OXI_BUF_INIT;
	struct job *j = xcalloc(1, sizeof *j);
	const char *type = oxi_msg_type_peek(rec), *f;
	struct dcchan *c;
	char pid[100], chan[DC_ID];

	j->key = xstrdup(key);
	j->rec = rec;
	j->kind = strcmp(type, "approval.ask") == 0 ? J_ASK :
	    strcmp(type, "error") == 0 ? J_ERR : J_OUT;
	if (j->kind == J_ERR)
		oxi_buf_printf(&t, "\xe2\x9a\xa0 %s",	/* U+26A0 */
		    oxi_msg_peek(rec, "message"));
	else
		oxi_buf_cats(&t, oxi_msg_peek(rec, "text"));
	f = oxi_msg_peek(rec, "format");
	j->nparts = dc_md_render(t.s, t.len, j->kind == J_OUT && !(f &&
	    strcmp(f, "text") == 0), DC_TEXT_MAX, &j->parts);
	oxi_buf_free(&t);
	if (j->nparts < 0) {
		j->nparts = 0;
		oxi_diesys(OXI_EX_TEMP, "unable to render %s", key);
	}
	/* the parts delivered before a restart */
	j->n = ch_sent_parts(&tx->sent, key, pid, sizeof pid);
	snprintf(j->pid, sizeof j->pid, "%s", pid);
	c = chan_get(tx, *target(rec, chan) ? chan : "");
	if (c->tail)
		c->tail->next = j;
	else
		c->head = j;
	c->tail = j;
	c->typing = 0;		/* the message ends "typing..." */
	if (c->did && strcmp(c->did, key) == 0) {
		free(c->dtext);
		c->dtext = NULL;
	}
}

void
dc_out_draft(void *arg, jv rec)
{
	struct dctx *tx = arg;
	const char *id = oxi_msg_peek(rec, "id"), *text, *f;
	struct dcchan *c;
	char **p, chan[DC_ID];
	int n;

	/* a draft of a reply here already, or delivered, is stale */
	if (!id || ch_sent_state(&tx->sent, id) >= 0 || !*target(rec, chan))
		return;
	c = chan_get(tx, chan);
	text = oxi_msg_peek(rec, "text");
	f = oxi_msg_peek(rec, "format");
	n = dc_md_render(text, strlen(text), !(f && strcmp(f, "text") == 0),
	    DC_TEXT_MAX, &p);
	if (n <= 0)
		return;
	if (!c->did || strcmp(c->did, id) != 0) {
		free(c->did);
		free(c->dshown);
		c->did = xstrdup(id);
		c->dshown = NULL;
		c->dmid[0] = '\0';
	}
	free(c->dtext);
	c->dtext = NULL;
	c->typing = 0;
	/* only the first part: the rest shows when the reply is done */
	if (!c->dshown || strcmp(c->dshown, p[0]) != 0) {
		c->dtext = p[0];
		p[0] = NULL;
	}
	dc_md_free(p, n);
}

void
dc_out_typing(void *arg, jv rec)
{
	struct dctx *tx = arg;
	char chan[DC_ID];

	if (*target(rec, chan))
		chan_get(tx, chan)->typing = 1;
}

/* when c may start its next call: a time, or -1 for nothing to do */
static long long
due(const struct dctx *tx, const struct dcchan *c)
{
	long long t;

	if (c->busy)
		return -1;
	if (c->head)
		t = c->head->until;
	else if (c->dtext)
		t = c->dlast + tx->edit_ms;
	else if (c->typing)
		t = c->tlast + tx->typing_ms;
	else
		return -1;
	if (t < tx->dc.global_until)
		t = tx->dc.global_until;
	return t > c->until ? t : c->until;
}

long
dc_out_due(struct dctx *tx)
{
	struct dcchan *c, **pc;
	long long now = oxi_clock_ms(), t, next = -1;

	for (pc = &tx->chans; (c = *pc);) {
		t = due(tx, c);
		/* a job may end at once (nothing to send): the next starts */
		while (t >= 0 && t <= now && !tx->stopping &&
		    tx->inflight < INFLIGHT_MAX) {
			if (c->head)
				job_start(tx, c);
			else if (c->dtext)
				draft_start(tx, c);
			else
				typing_start(tx, c);
			c->seen = now;
			t = due(tx, c);
		}
		if (t >= 0 && (next < 0 || t < next))
			next = t;
		if (t < 0 && !c->busy && now - c->seen > IDLE_MS) {
			*pc = c->next;
			chan_free(c);
			continue;
		}
		pc = &c->next;
	}
	if (next < 0 || tx->stopping || tx->inflight >= INFLIGHT_MAX)
		return -1;
	return next > now ? (long)(next - now) : 0;
}

int
dc_out_busy(const struct dctx *tx)
{
	const struct dcchan *c;

	if (tx->inflight > 0)
		return 1;
	for (c = tx->chans; c; c = c->next)
		if (c->head)
			return 1;
	return 0;
}

void
dc_out_free(struct dctx *tx)
{
	struct dcchan *c;
	struct job *j;

	while ((c = tx->chans)) {
		tx->chans = c->next;
		while ((j = c->head)) {
			c->head = j->next;
			job_free(j);
		}
		chan_free(c);
	}
}
