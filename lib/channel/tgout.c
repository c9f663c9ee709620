/*
 * tgout.c - the deliveries of oxi-send telegram: a queue a chat, each with
 * one call in flight at most, all chats at once on the client's http loop
 *
 * A job is a record of the sent-ledger: a msg.out (Telegram HTML in
 * parts, tgmd.c), an approval.ask (a button a choice, callback_data
 * "a:<ask id>:<choice>"), an error shown.  Its parts go out in order,
 * sendMessage parse_mode HTML, the first answering reply_to (in a group,
 * else the message it answers), in its thread.  A part Telegram cannot
 * parse goes again as plain text; a 429 holds that chat alone for its
 * retry_after; the network and 5xx are retried after a pause doubled up
 * to a minute; a group that became a supergroup is followed; any other
 * refusal (403: the bot blocked) fails the job, its receipt says why.
 *
 * Drafts: the newest text of a reply being written, at most every edit_ms
 * in a private chat, thrice that in a group: sendMessageDraft in private
 * chats, else one message sent, then edited; the reply's first part
 * edits it, the rest are sent.  Typing: sendChatAction, at most every
 * typing_ms, when nothing else is due.  Jobs, then drafts, then typing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"
#include "channel/tgmd.h"

#define CALL_MS		30000	/* a call's time */
#define BACKOFF_MS	1000	/* the first pause after a failure */
#define BACKOFF_MAX	60000	/* the longest */
#define INFLIGHT_MAX	16	/* calls in flight, all chats */
#define IDLE_MS		600000	/* a chat with nothing to do is forgotten */

enum { J_OUT, J_ASK, J_ERR };		/* what a job delivers */
enum { C_JOB, C_DRAFT, C_TYPING };	/* what a call does */

struct job {
	struct job *next;	/* in its chat's queue */
	char *key;		/* its key in the ledger */
	jv rec;			/* the record */
	int kind;		/* J_* */
	struct oxi_tgmd_part *parts;	/* its text as messages */
	int nparts;		/* how many */
	int n;			/* the next to go */
	char pid[100];		/* the first one's platform id */
	char chat[64];		/* where: a migrated group's new id */
	char edit[32];		/* a draft message the first part replaces */
	int plain;		/* the part in hand goes without markup */
	int nothread;		/* the thread is gone: without it */
	long long until;	/* a pause: nothing before */
	long backoff;		/* the next pause */
};

struct tgchat {
	struct tgchat *next;	/* in tx->chats */
	char *id;		/* the chat */
	int group;		/* not a private chat (its id is negative) */
	int busy;		/* a call in flight */
	long long until;	/* 429: nothing before */
	long long seen;		/* when it last had something to do */
	struct job *head, *tail;	/* its jobs */
	char *did;		/* the msg.out id of the draft shown, or NULL */
	char *dhtml, *dplain;	/* the draft text due, or NULL */
	char *dshown;		/* the draft text shown */
	char *dthread;		/* its thread, or NULL */
	long long dreply;	/* the message it answers, or 0 */
	char dmid[32];		/* the message that shows it, or "" */
	int nonative;		/* sendMessageDraft refused here */
	long long dlast;	/* the last draft call, or its answer */
	int typing;		/* typing asked for */
	char *tthread;		/* its thread, or NULL */
	long long tlast;	/* the last typing call */
};

/* a call in flight */
struct call {
	struct tgtx *tx;	/* whose */
	struct tgchat *c;	/* for which chat */
	int what;		/* C_* */
	int native;		/* a sendMessageDraft */
	int edit;		/* an editMessageText */
	char *html, *plain;	/* a draft call: the text it shows */
};

static int
is(jv rec, const char *key, const char *val)
{
	const char *s = oxi_msg_peek(rec, key);

	return s && strcmp(s, val) == 0;
}

static struct tgchat *
chat_get(struct tgtx *tx, const char *id)
{
	struct tgchat *c;

	for (c = tx->chats; c; c = c->next)
		if (strcmp(c->id, id) == 0)
			break;
	if (!c) {
		c = xcalloc(1, sizeof *c);
		c->id = xstrdup(id);
		c->group = id[0] == '-' || id[0] == '@';
		c->next = tx->chats;
		tx->chats = c;
	}
	c->seen = oxi_clock_ms();
	return c;
}

static void
draft_clear(struct tgchat *c)
{
	free(c->dhtml);
	free(c->dplain);
	c->dhtml = c->dplain = NULL;
}

static void
chat_free(struct tgchat *c)
{
	draft_clear(c);
	free(c->did);
	free(c->dshown);
	free(c->dthread);
	free(c->tthread);
	free(c->id);
	free(c);
}

static void
job_free(struct job *j)
{
	oxi_tgmd_free(j->parts, j->nparts);
	jv_free(j->rec);
	free(j->key);
	free(j);
}

/* the labels of the usual choices */
static const char *
label(const char *c)
{
	return !strcmp(c, "once") ? "Allow once" : !strcmp(c, "always") ?
	    "Always allow" : !strcmp(c, "deny") ? "Deny" : c;
}

/* approval.ask's buttons: one row, a button a choice */
static jv
keyboard(jv rec)
{
	jv ch = oxi_jget(rec, "choices"), row = jv_array(), v;
	const char *id = oxi_msg_peek(rec, "id");
	char data[128];
	int i, n = oxi_jis(ch, JV_KIND_ARRAY) ? jv_array_length(jv_copy(ch)) : 0;

	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(ch), i);
		/* Telegram takes 1 to 64 bytes of callback_data */
		if (jv_get_kind(v) == JV_KIND_STRING &&
		    (size_t)snprintf(data, sizeof data, "a:%s:%s", id,
		    jv_string_value(v)) <= 64)
			row = jv_array_append(row, jv_object_set(jv_object_set(
			    jv_object(), jv_string("text"),
			    jv_string(label(jv_string_value(v)))),
			    jv_string("callback_data"), jv_string(data)));
		else
			oxi_warn("telegram: approval %s: choice %d has no "
			    "button (callback data over 64 bytes)", id, i);
		jv_free(v);
	}
	jv_free(ch);
	return jv_object_set(jv_object(), jv_string("inline_keyboard"),
	    jv_array_append(jv_array(), row));
}

/* the message the reply answers: msg.out's reply_to, else in a group
 * the message it answers (its msg.in id, telegram:ACCOUNT:CHAT:MID) */
static long long
replyto(struct tgtx *tx, jv rec, const char *chat)
{
	const char *r = oxi_msg_peek(rec, "reply_to"), *p;
	size_t n = strlen(tx->tg.account), m = strlen(chat);

	if (!r && chat[0] == '-' && (r = oxi_msg_peek(rec, "in_reply_to")) &&
	    strncmp(r, "telegram:", 9) == 0 &&
	    strncmp(r + 9, tx->tg.account, n) == 0 && r[9 + n] == ':' &&
	    strncmp(r + 10 + n, chat, m) == 0 && r[10 + n + m] == ':')
		r += 11 + n + m;
	else if (!r)
		return 0;
	for (p = r; *p >= '0' && *p <= '9'; p++)
		;
	return p > r && p - r < 16 && (*p == '\0' || *p == ':') ?
	    atoll(r) : 0;
}

/* chat_id, message_thread_id if thread is a number, reply_parameters if
 * reply is one */
static jv
where(const char *chat, const char *thread, long long reply)
{
	jv p = jv_object_set(jv_object(), jv_string("chat_id"),
	    jv_string(chat));

	if (reply > 0)
		p = jv_object_set(p, jv_string("reply_parameters"),
		    jv_object_set(jv_object_set(jv_object(),
		    jv_string("message_id"), jv_number((double)reply)),
		    jv_string("allow_sending_without_reply"), jv_true()));
	if (thread && *thread && strspn(thread, "0123456789") ==
	    strlen(thread) && strlen(thread) < 16)
		p = jv_object_set(p, jv_string("message_thread_id"),
		    jv_number((double)atoll(thread)));
	return p;
}

/* text as parse_mode HTML, or plain */
static jv
text(jv p, const char *html, const char *plain, int asplain)
{
	if (asplain)
		return jv_object_set(p, jv_string("text"), jv_string(plain));
	p = jv_object_set(p, jv_string("text"), jv_string(html));
	return jv_object_set(p, jv_string("parse_mode"), jv_string("HTML"));
}

static void ondone(void *, struct tg_res *);
static void job_end(struct tgtx *, struct tgchat *, const char *);

/* starts method for chat c; 0, or -1 (warned) if it could not start */
static int
call(struct tgtx *tx, struct tgchat *c, const char *method, jv p,
    struct call *k)
{
	struct tg_res res;

	k->tx = tx;
	k->c = c;
	if (tg_start(&tx->tg, method, p, CALL_MS, ondone, k, &res) < 0) {
		oxi_warn("telegram: %s", res.err);
		free(k->html);
		free(k->plain);
		free(k);
		return -1;
	}
	c->busy = 1;
	tx->inflight++;
	return 0;
}

/* the next part of c's first job */
static void
job_start(struct tgtx *tx, struct tgchat *c)
{
	struct job *j = c->head;
	const struct oxi_tgmd_part *pt;
	struct call *k;
	jv p;

	/* nothing to show, all out before a restart, or no chat */
	if (j->nparts == 0 || j->n >= j->nparts || !j->chat[0]) {
		job_end(tx, c, j->n >= j->nparts && j->nparts > 0 ? NULL :
		    j->nparts == 0 ? "nothing to send: the text is empty" :
		    "no chat");
		return;
	}
	pt = &j->parts[j->n];
	k = xcalloc(1, sizeof *k);
	if (j->n == 0 && j->kind == J_OUT) {
		/* no draft of it any more: its final text is here */
		if (c->did && strcmp(c->did, j->key) == 0) {
			draft_clear(c);
			free(c->did);
			c->did = NULL;
		}
		if (!j->edit[0])
			ch_sent_draft_get(&tx->sent, j->key, j->edit,
			    sizeof j->edit);
	}
	k->what = C_JOB;
	k->edit = j->n == 0 && j->edit[0];
	p = where(j->chat, j->nothread ? NULL : oxi_msg_peek(j->rec,
	    "thread"), j->n > 0 || k->edit ? 0 : replyto(tx, j->rec, j->chat));
	if (k->edit)
		p = jv_object_set(p, jv_string("message_id"),
		    jv_number(atof(j->edit)));
	p = text(p, pt->html, pt->plain, j->plain || j->kind == J_ERR);
	if (j->kind == J_ASK && j->n == j->nparts - 1)
		p = jv_object_set(p, jv_string("reply_markup"),
		    keyboard(j->rec));
	oxi_debug("telegram: %s %s part %d of %d to %s", k->edit ?
	    "editMessageText" : "sendMessage", j->key, j->n + 1, j->nparts,
	    j->chat);
	if (call(tx, c, k->edit ? "editMessageText" : "sendMessage", p, k) < 0)
		j->until = oxi_clock_ms() + BACKOFF_MS;
}

/* FNV-1a of the reply's id: its draft_id, never 0 */
static long
draft_id(const char *s)
{
	unsigned long h = 2166136261UL;

	for (; *s; s++)
		h = ((h ^ (unsigned char)*s) * 16777619UL) & 0xffffffffUL;
	return (long)((h & 0x7fffffffUL) | 1);
}

static void
draft_start(struct tgtx *tx, struct tgchat *c)
{
	struct call *k = xcalloc(1, sizeof *k);
	const char *method;
	jv p = where(c->id, c->dthread, c->dmid[0] || !c->group ? 0 :
	    c->dreply);

	k->what = C_DRAFT;
	k->html = c->dhtml;
	k->plain = c->dplain;
	p = text(p, c->dhtml, c->dplain, 0);
	c->dhtml = c->dplain = NULL;
	c->dlast = oxi_clock_ms();
	if (!c->group && !c->nonative) {
		k->native = 1;
		method = "sendMessageDraft";
		p = jv_object_set(p, jv_string("draft_id"),
		    jv_number((double)draft_id(c->did)));
	} else if (c->dmid[0]) {
		k->edit = 1;
		method = "editMessageText";
		p = jv_object_set(p, jv_string("message_id"),
		    jv_number(atof(c->dmid)));
	} else
		method = "sendMessage";
	(void)call(tx, c, method, p, k);
}

static void
typing_start(struct tgtx *tx, struct tgchat *c)
{
	struct call *k = xcalloc(1, sizeof *k);
	jv p = where(c->id, c->tthread, 0);

	k->what = C_TYPING;
	c->typing = 0;
	c->tlast = oxi_clock_ms();
	p = jv_object_set(p, jv_string("action"), jv_string("typing"));
	(void)call(tx, c, "sendChatAction", p, k);
}

/* the job done or failed: ledger, receipt, next */
static void
job_end(struct tgtx *tx, struct tgchat *c, const char *error)
{
	struct job *j = c->head;
	const char *ref = j->kind == J_ASK ? NULL : j->kind == J_ERR ?
	    oxi_msg_peek(j->rec, "ref") : j->key;
	const char *inreply = j->kind == J_ERR ? ref :
	    oxi_msg_peek(j->rec, "in_reply_to");

	if (error)
		oxi_warn("telegram: %s %s to %s not delivered: %s",
		    oxi_msg_type_peek(j->rec), j->key, j->chat, error);
	ch_sent_done(&tx->sent, j->key, ref, inreply, j->pid, error);
	if (j->kind == J_OUT)
		ch_sent_draft(&tx->sent, j->key, NULL, NULL);
	c->head = j->next;
	if (!c->head)
		c->tail = NULL;
	job_free(j);
}

/* a message's id from a sendMessage result, in buf ("" if none) */
static const char *
mid(jv result, char *buf, size_t len)
{
	jv v = oxi_jget(result, "message_id");

	tg_idstr(v, buf, len);
	jv_free(v);
	return buf;
}

/*
 * A failed call: a refused token ends the stage (a supervisor must not
 * start it again); a 429 holds the chat for retry_after (1 if none
 * says): 1 then
 */
static int
held(struct tgchat *c, const struct tg_res *res)
{
	if (res->code == 401 || res->code == 404)
		oxi_die(OXI_EX_USAGE, "the bot token was refused (%s): check "
		    "TELEGRAM_BOT_TOKEN", res->err);
	if (res->code != 429)
		return 0;
	c->until = oxi_clock_ms() + (res->retry_after > 0 ?
	    res->retry_after * 1000 : BACKOFF_MS);
	return 1;
}

/* Telegram's answer to a part of c's first job */
static void
job_answer(struct tgtx *tx, struct call *k, struct tg_res *res)
{
	struct tgchat *c = k->c;
	struct job *j = c->head;
	char m[32];

	if (res->ok || (k->edit && strstr(res->desc, "not modified"))) {
		if (k->edit)
			snprintf(m, sizeof m, "%s", j->edit);
		else
			mid(res->result, m, sizeof m);
		ch_sent_part(&tx->sent, j->key, j->n, j->chat, m);
		if (j->n == 0)
			snprintf(j->pid, sizeof j->pid, "%s:%s", j->chat, m);
		j->plain = 0;
		j->backoff = 0;
		if (++j->n == j->nparts)
			job_end(tx, c, NULL);
		return;
	}
	if (held(c, res))
		oxi_info("telegram: %s: chat %s waits %ld s", res->err, c->id,
		    res->retry_after > 0 ? res->retry_after : 1);
	else if (res->migrate[0]) {
		oxi_info("telegram: chat %s is now %s", j->chat, res->migrate);
		snprintf(j->chat, sizeof j->chat, "%s", res->migrate);
	} else if (res->code == 400 && strstr(res->desc, "can't parse") &&
	    !j->plain) {
		oxi_warn("telegram: %s: %s part %d goes as plain text",
		    res->err, j->key, j->n + 1);
		j->plain = 1;
	} else if (res->temp) {
		j->backoff = j->backoff ? j->backoff * 2 : BACKOFF_MS;
		if (j->backoff > BACKOFF_MAX)
			j->backoff = BACKOFF_MAX;
		j->until = oxi_clock_ms() + j->backoff;
		oxi_warn("telegram: %s; %s again in %ld s", res->err, j->key,
		    (j->backoff + 999) / 1000);
	} else if (k->edit) {
		/* the draft message is gone or cannot change: a new one */
		oxi_debug("telegram: %s: sending anew", res->err);
		j->edit[0] = '\0';
		ch_sent_draft(&tx->sent, j->key, NULL, NULL);
	} else if (res->code == 400 && strstr(res->desc, "thread not found") &&
	    !j->nothread) {
		oxi_warn("telegram: %s: %s goes without its thread", res->err,
		    j->key);
		j->nothread = 1;
	} else
		job_end(tx, c, res->desc[0] ? res->desc : res->err);
}

static void
draft_answer(struct tgtx *tx, struct call *k, struct tg_res *res)
{
	struct tgchat *c = k->c;
	char m[32];

	c->dlast = oxi_clock_ms();	/* a late call is no closer to the next */
	if (res->ok || (k->edit && strstr(res->desc, "not modified"))) {
		if (!k->native && !k->edit && c->did) {
			snprintf(c->dmid, sizeof c->dmid, "%s",
			    mid(res->result, m, sizeof m));
			ch_sent_draft(&tx->sent, c->did, c->id, c->dmid);
		}
		free(c->dshown);
		c->dshown = k->html;
		k->html = NULL;
		return;
	}
	if (held(c, res))
		;
	else if (res->code == 400 && strstr(res->desc, "can't parse")) {
		/* drafts pass; the reply itself has its plain fallback */
		oxi_debug("telegram: %s: a draft dropped", res->err);
		return;
	} else if (k->native && !res->temp) {
		/* this chat takes no drafts: edit a message instead */
		oxi_info("telegram: %s: chat %s gets drafts by editing",
		    res->err, c->id);
		c->nonative = 1;
		c->dlast = 0;
	} else if (k->edit && !res->temp)
		c->dmid[0] = '\0';
	else if (!res->temp) {
		oxi_debug("telegram: %s: a draft dropped", res->err);
		return;
	}
	/* the text again, unless a newer one is due */
	if (!c->dhtml && c->did) {
		c->dhtml = k->html;
		c->dplain = k->plain;
		k->html = k->plain = NULL;
	}
}

static void
ondone(void *arg, struct tg_res *res)
{
	struct call *k = arg;
	struct tgtx *tx = k->tx;

	k->c->busy = 0;
	tx->inflight--;
	if (k->what == C_JOB)
		job_answer(tx, k, res);
	else if (k->what == C_DRAFT)
		draft_answer(tx, k, res);
	else if (!res->ok)
		oxi_debug("telegram: %s", res->err);
	free(k->html);
	free(k->plain);
	free(k);
}

void
tg_out_job(struct tgtx *tx, const char *key, jv rec)
{
	struct oxi_buf t = OXI_BUF_INIT;
	struct job *j = xcalloc(1, sizeof *j);
	const char *type = oxi_msg_type_peek(rec), *chat;
	struct tgchat *c;
	char pid[100];

	j->key = xstrdup(key);
	j->rec = rec;
	j->kind = strcmp(type, "approval.ask") == 0 ? J_ASK :
	    strcmp(type, "error") == 0 ? J_ERR : J_OUT;
	chat = oxi_msg_peek(rec, "chat");
	/* a chat id is a number or an @name: one too long is none */
	if (chat && strlen(chat) < sizeof j->chat)
		snprintf(j->chat, sizeof j->chat, "%s", chat);
	if (j->kind == J_ERR)
		oxi_buf_printf(&t, "\xe2\x9a\xa0 %s",	/* U+26A0 */
		    oxi_msg_peek(rec, "message"));
	else
		oxi_buf_cats(&t, oxi_msg_peek(rec, "text"));
	j->nparts = oxi_tgmd_render(t.s, t.len, j->kind == J_OUT &&
	    !is(rec, "format", "text"), OXI_TG_TEXT_MAX, &j->parts);
	oxi_buf_free(&t);
	if (j->nparts < 0) {
		j->nparts = 0;
		oxi_diesys(OXI_EX_TEMP, "unable to render %s", key);
	}
	/* the parts delivered before a restart */
	j->n = ch_sent_parts(&tx->sent, key, pid, sizeof pid);
	snprintf(j->pid, sizeof j->pid, "%s", pid);
	c = chat_get(tx, j->chat[0] ? j->chat : "?");
	if (c->tail)
		c->tail->next = j;
	else
		c->head = j;
	c->tail = j;
	c->typing = 0;		/* the message ends "typing..." */
	if (c->did && strcmp(c->did, key) == 0)
		draft_clear(c);
}

void
tg_out_draft(struct tgtx *tx, jv rec)
{
	const char *id = oxi_msg_peek(rec, "id"), *text;
	struct oxi_tgmd_part *p;
	struct tgchat *c;
	int n;

	/* a draft of a reply here already, or delivered, is stale */
	if (!id || ch_sent_state(&tx->sent, id) >= 0)
		return;
	c = chat_get(tx, oxi_msg_peek(rec, "chat"));
	text = oxi_msg_peek(rec, "text");
	n = oxi_tgmd_render(text, strlen(text), !is(rec, "format", "text"),
	    OXI_TG_TEXT_MAX, &p);
	if (n <= 0)
		return;
	if (!c->did || strcmp(c->did, id) != 0) {
		free(c->did);
		free(c->dshown);
		c->did = xstrdup(id);
		c->dshown = NULL;
		c->dmid[0] = '\0';
		free(c->dthread);
		c->dthread = oxi_msg_peek(rec, "thread") ?
		    xstrdup(oxi_msg_peek(rec, "thread")) : NULL;
		c->dreply = replyto(tx, rec, c->id);
	}
	draft_clear(c);
	c->typing = 0;
	/* only the first part: the rest shows when the reply is done */
	if (!c->dshown || strcmp(c->dshown, p[0].html) != 0) {
		c->dhtml = p[0].html;
		c->dplain = p[0].plain;
		p[0].html = p[0].plain = NULL;
	}
	oxi_tgmd_free(p, n);
}

void
tg_out_typing(struct tgtx *tx, jv rec)
{
	struct tgchat *c = chat_get(tx, oxi_msg_peek(rec, "chat"));

	c->typing = 1;
	free(c->tthread);
	c->tthread = oxi_msg_peek(rec, "thread") ?
	    xstrdup(oxi_msg_peek(rec, "thread")) : NULL;
}

/* when c may start its next call: a time, or -1 for nothing to do */
static long long
due(const struct tgtx *tx, const struct tgchat *c)
{
	long long t;

	if (c->busy)
		return -1;
	if (c->head)
		t = c->head->until;
	else if (c->dhtml)
		t = c->dlast + tx->edit_ms * (c->group ? 3 : 1);
	else if (c->typing)
		t = c->tlast + tx->typing_ms;
	else
		return -1;
	return t > c->until ? t : c->until;
}

long
tg_out_due(struct tgtx *tx)
{
	struct tgchat *c, **pc;
	long long now = oxi_clock_ms(), t, next = -1;

	for (pc = &tx->chats; (c = *pc);) {
		t = due(tx, c);
		/* a job may end at once (nothing to send): the next starts */
		while (t >= 0 && t <= now && !tx->stopping &&
		    tx->inflight < INFLIGHT_MAX) {
			if (c->head)
				job_start(tx, c);
			else if (c->dhtml)
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
			chat_free(c);
			continue;
		}
		pc = &c->next;
	}
	if (next < 0 || tx->stopping)
		return -1;
	/* a full pipe of calls: the next one ends first */
	if (tx->inflight >= INFLIGHT_MAX)
		return -1;
	return next > now ? (long)(next - now) : 0;
}

int
tg_out_busy(const struct tgtx *tx)
{
	const struct tgchat *c;

	if (tx->inflight > 0)
		return 1;
	for (c = tx->chats; c; c = c->next)
		if (c->head)
			return 1;
	return 0;
}

void
tg_out_free(struct tgtx *tx)
{
	struct tgchat *c;
	struct job *j;

	while ((c = tx->chats)) {
		tx->chats = c->next;
		while ((j = c->head)) {
			c->head = j->next;
			job_free(j);
		}
		chat_free(c);
	}
}
