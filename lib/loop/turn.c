/*
 * turn.c - the turn engine of oxi-loop, behind struct oxi_loop_io
 *
 * A turn is one msg.in being answered.  Its states: WAIT_START (queued
 * behind an earlier turn of its session), WAIT_LLM (an llm.request is in
 * flight), WAIT_TOOLS (tool calls are in flight), LOST (its stage died;
 * the turn is about to fail).  The turns live in one list in order of
 * arrival; when a turn ends, the next turn of its session starts.
 *
 * The engine sends records through io (llm.request, tool.call, and
 * typing, msg.draft, msg.out and error records for stdout) and keeps the
 * history and the inbox ledger in db (hist.c).  A database failure is
 * recorded in l->err and every later call returns -1: the command dies
 * with that message, as it did when this code lived in bin/oxi-loop.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/loop.h"

enum { WAIT_START, WAIT_LLM, WAIT_TOOLS, LOST };

struct call {
	char id[OXI_ID_LEN + 1];	/* our tool.call id */
	char *model_id;		/* the model's id for the call */
	int done;		/* its tool.result arrived */
	jv rec;			/* the tool.call, to send again */
	char *held;		/* the approval line of a pending ask */
	char askid[OXI_ID_LEN + 1];	/* its approval.ask */
	long long expires;	/* when the ask ends (oxi_clock_ms) */
	int asked;		/* an ask went out for the call */
};

struct turn {
	struct turn *next;	/* all turns, in arrival order */
	jv in;			/* the msg.in record */
	const char *msgid;	/* borrowed from in */
	char *session;		/* session key */
	int state;		/* WAIT_START, WAIT_LLM, WAIT_TOOLS or LOST */
	int rounds;		/* llm requests made */
	char reqid[OXI_ID_LEN + 1];	/* the llm.request in flight */
	char replyid[OXI_ID_LEN + 1];	/* id of our msg.draft/msg.out */
	struct oxi_buf prev;	/* text of earlier rounds */
	struct oxi_buf text;	/* text of this round so far */
	long long lastdraft;	/* when the last draft went out */
	int dirty;		/* text changed since that draft */
	struct call *calls;	/* tool calls of this round */
	int ncalls;		/* their number */
	int pending;		/* results still awaited */
	jv taint;		/* origins of its inputs (taint.c) */
};

struct oxi_loop {
	sqlite3 *db;			/* borrowed */
	const struct oxi_loop_cfg *cfg;	/* borrowed */
	struct oxi_loop_io io;
	struct turn *turns;
	int failed;			/* a database failure: err says what */
	char err[512];
};

static int run_round(struct oxi_loop *, struct turn *);


/* records a database failure: -1 from here up to the command */
static int
dbfail(struct oxi_loop *l, const char *what, const char *err)
{
	const char *path = sqlite3_db_filename(l->db, "main");

	snprintf(l->err, sizeof l->err, "unable to %s in '%s': %s", what,
	    path ? path : "", err ? err : "?");
	l->failed = 1;
	return -1;
}

static const char *
field(jv rec, const char *key)
{
	return oxi_msg_peek(rec, key);
}

/* copies the routing keys of msg.in into a record of ours */
static jv
reply_rec(struct turn *t, const char *type)
{
	static const char *const keys[] = { "channel", "account", "chat",
	    "thread", NULL };
	jv r = oxi_msg_new(type);
	int i;

	jv v;

	for (i = 0; keys[i]; i++) {
		v = jv_object_get(jv_copy(t->in), jv_string(keys[i]));
		if (!jv_is_valid(v)) {
			jv_free(v);
			v = jv_null();
		}
		r = jv_object_set(r, jv_string(keys[i]), v);
	}
	return r;
}

static void
emit_typing(struct oxi_loop *l, struct turn *t)
{
	jv r = oxi_msg_new("typing");

	r = jv_object_set(r, jv_string("channel"), jv_string(field(t->in,
	    "channel")));
	r = jv_object_set(r, jv_string("chat"), jv_string(field(t->in,
	    "chat")));
	l->io.out(l->io.arg, r);
}

/* one status record for the call id of tool name with args (borrowed) */
static void
emit_status(struct oxi_loop *l, struct turn *t, const char *id,
    const char *name, jv args)
{
	char sid[OXI_ID_LEN + 1];
	jv r = reply_rec(t, "status");

	oxi_id_new(sid);
	r = jv_object_set(r, jv_string("id"), jv_string(sid));
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("ref"), jv_string(id));
	r = jv_object_set(r, jv_string("text"),
	    oxi_loop_status_text(name, args));
	l->io.out(l->io.arg, r);
}

static jv
fulltext(struct turn *t)
{
	jv s = jv_string(t->prev.s ? t->prev.s : "");

	if (t->prev.len > 0 && t->text.len > 0)
		s = jv_string_append_str(s, "\n\n");
	return jv_string_append_buf(s, t->text.s ? t->text.s : "",
	    (int)t->text.len);
}

static void
emit_text(struct oxi_loop *l, struct turn *t, const char *type, jv text)
{
	jv r = reply_rec(t, type);

	r = jv_object_set(r, jv_string("id"), jv_string(t->replyid));
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("text"), text);
	r = jv_object_set(r, jv_string("format"), jv_string("markdown"));
	l->io.out(l->io.arg, r);
}

static void
emit_draft(struct oxi_loop *l, struct turn *t)
{
	emit_text(l, t, "msg.draft", fulltext(t));
	t->lastdraft = oxi_clock_ms();
	t->dirty = 0;
}

static void
calls_free(struct turn *t)
{
	int i;

	for (i = 0; i < t->ncalls; i++) {
		free(t->calls[i].model_id);
		free(t->calls[i].held);
		jv_free(t->calls[i].rec);
	}
	free(t->calls);
	t->calls = NULL;
	t->ncalls = 0;
}

static void
turn_free(struct turn *t)
{
	calls_free(t);
	free(t->session);
	oxi_buf_free(&t->prev);
	oxi_buf_free(&t->text);
	jv_free(t->taint);
	jv_free(t->in);
	free(t);
}

/* removes t and starts the next waiting turn of its session */
static int
turn_end(struct oxi_loop *l, struct turn *t)
{
	struct turn **pp, *u;

	for (pp = &l->turns; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	for (u = l->turns; u; u = u->next)
		if (strcmp(u->session, t->session) == 0)
			break;
	turn_free(t);
	if (u && u->state == WAIT_START)
		return run_round(l, u);
	return 0;
}

static int
turn_fail(struct oxi_loop *l, struct turn *t, const char *code,
    const char *msg, int retryable)
{
	const char *err;
	jv r;

	oxi_warn("%s: %s: %s", t->msgid, code, msg);
	r = oxi_msg_error(t->msgid, code, msg, retryable);
	r = jv_object_set(r, jv_string("channel"), jv_string(field(t->in,
	    "channel")));
	r = jv_object_set(r, jv_string("chat"), jv_string(field(t->in,
	    "chat")));
	l->io.out(l->io.arg, r);
	if (oxi_hist_mark(l->db, t->msgid, t->session, "failed", NULL,
	    &err) < 0)
		return dbfail(l, "record a failed turn", err);
	return turn_end(l, t);
}

static int
turn_done(struct oxi_loop *l, struct turn *t, const char *note)
{
	const char *err;
	jv text = fulltext(t);

	if (note)
		text = jv_string_append_str(text, note);
	if (oxi_hist_mark(l->db, t->msgid, t->session, "done",
	    jv_string_value(text), &err) < 0) {
		jv_free(text);
		return dbfail(l, "record a reply", err);
	}
	emit_text(l, t, "msg.out", text);
	oxi_debug("%s: answered after %d rounds", t->msgid, t->rounds);
	return turn_end(l, t);
}

static int
run_round(struct oxi_loop *l, struct turn *t)
{
	const struct oxi_loop_cfg *cfg = l->cfg;
	const char *err;
	jv req, msgs, sys, m;

	if (t->rounds == 0) {
		/* the turn begins: its message joins the history now, after
		 * the replies to earlier messages of the session */
		m = jv_object();
		m = jv_object_set(m, jv_string("role"), jv_string("user"));
		m = jv_object_set(m, jv_string("content"),
		    jv_string(field(t->in, "text")));
		if (oxi_hist_add(l->db, t->session, t->msgid, m, &err) < 0)
			return dbfail(l, "store a message", err);
	}
	if (t->rounds >= cfg->maxrounds)
		return turn_done(l, t, "\n\n[stopped: too many tool rounds]");
	msgs = oxi_hist_load(l->db, t->session, cfg->maxhist);
	if (!jv_is_valid(msgs)) {
		jv m = jv_invalid_get_msg(msgs);
		int r = dbfail(l, "load history", jv_get_kind(m) ==
		    JV_KIND_STRING ? jv_string_value(m) : NULL);

		jv_free(m);
		return r;
	}
	sys = jv_object();
	sys = jv_object_set(sys, jv_string("role"), jv_string("system"));
	sys = jv_object_set(sys, jv_string("content"),
	    jv_string(cfg->system ? cfg->system : ""));
	msgs = jv_array_concat(JV_ARRAY(sys), msgs);
	oxi_id_new(t->reqid);
	req = jv_object();
	req = jv_object_set(req, jv_string("v"), jv_number(1));
	req = jv_object_set(req, jv_string("type"), jv_string("llm.request"));
	req = jv_object_set(req, jv_string("id"), jv_string(t->reqid));
	if (cfg->model)
		req = jv_object_set(req, jv_string("model"),
		    jv_string(cfg->model));
	req = jv_object_set(req, jv_string("messages"), msgs);
	if (jv_get_kind(cfg->tools) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(cfg->tools)) > 0)
		req = jv_object_set(req, jv_string("tools"),
		    jv_copy(cfg->tools));
	req = jv_object_set(req, jv_string("session"),
	    jv_string(t->session));
	req = jv_object_set(req, jv_string("stream"), jv_true());
	t->rounds++;
	t->state = WAIT_LLM;
	if (t->text.len > 0) {
		if (t->prev.len > 0)
			oxi_buf_cats(&t->prev, "\n\n");
		oxi_buf_cat(&t->prev, t->text.s, t->text.len);
		oxi_buf_reset(&t->text);
	}
	emit_typing(l, t);
	if (l->io.llm(l->io.arg, req) < 0)
		return turn_fail(l, t, "llm_unavailable",
		    "the model stage is not running", 1);
	return 0;
}

struct oxi_loop *
oxi_loop_new(sqlite3 *db, const struct oxi_loop_cfg *cfg,
    const struct oxi_loop_io *io)
{
	struct oxi_loop *l = xcalloc(1, sizeof *l);

	l->db = db;
	l->cfg = cfg;
	l->io = *io;
	return l;
}

int
oxi_loop_msg(struct oxi_loop *l, jv in)
{
	struct turn *t, *u, **pp;
	struct oxi_buf key = OXI_BUF_INIT;
	const char *thread, *err, *st;
	char buf[16];
	int busy = 0;

	if (l->failed) {
		jv_free(in);
		return -1;
	}
	t = xcalloc(1, sizeof *t);
	t->in = in;
	t->msgid = field(in, "id");
	oxi_buf_printf(&key, "%s:%s:%s", field(in, "channel"),
	    field(in, "account") ? field(in, "account") : "",
	    field(in, "chat"));
	if ((thread = field(in, "thread")))
		oxi_buf_printf(&key, ":%s", thread);
	t->session = key.s;
	oxi_id_new(t->replyid);
	t->taint = oxi_loop_taint_new(field(in, "trust"), field(in, "channel"));

	for (u = l->turns; u; u = u->next)
		if (strcmp(u->msgid, t->msgid) == 0) {
			oxi_info("%s: duplicate of a message in progress",
			    t->msgid);
			turn_free(t);
			return 0;
		}
	st = oxi_hist_state(l->db, t->msgid, buf, sizeof buf);
	if (st && strcmp(st, "working") != 0) {
		oxi_info("%s: already %s, not answered again", t->msgid, st);
		turn_free(t);
		return 0;
	}
	if (st && oxi_hist_forget(l->db, t->msgid, &err) < 0) {
		dbfail(l, "redo an interrupted turn", err);
		turn_free(t);
		return -1;
	}
	if (oxi_hist_mark(l->db, t->msgid, t->session, "working", NULL,
	    &err) < 0) {
		dbfail(l, "record a message", err);
		turn_free(t);
		return -1;
	}

	for (pp = &l->turns; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->session, t->session) == 0)
			busy = 1;
	*pp = t;
	t->state = WAIT_START;
	if (!busy)
		return run_round(l, t);
	return 0;
}

static struct turn *
find_req(struct oxi_loop *l, const char *id)
{
	struct turn *t;

	for (t = l->turns; t && id; t = t->next)
		if (t->state == WAIT_LLM && strcmp(t->reqid, id) == 0)
			return t;
	return NULL;
}

static struct turn *
find_call(struct oxi_loop *l, const char *id, struct call **cp)
{
	struct turn *t;
	int i;

	for (t = l->turns; t && id; t = t->next)
		if (t->state == WAIT_TOOLS)
			for (i = 0; i < t->ncalls; i++)
				if (strcmp(t->calls[i].id, id) == 0 &&
				    !t->calls[i].held) {
					*cp = &t->calls[i];
					return t;
				}
	return NULL;
}

/* the model asked for tools: store its message, send the calls */
static int
start_tools(struct oxi_loop *l, struct turn *t, jv msg, jv calls)
{
	const char *err;
	jv c, call, args;
	int i, n = jv_array_length(jv_copy(calls));

	if (oxi_hist_add(l->db, t->session, t->msgid, msg, &err) < 0) {
		jv_free(calls);
		return dbfail(l, "store a message", err);
	}
	t->calls = xcalloc(n, sizeof *t->calls);
	t->ncalls = n;
	t->pending = n;
	t->state = WAIT_TOOLS;
	emit_typing(l, t);
	for (i = 0; i < n; i++) {
		c = jv_array_get(jv_copy(calls), i);
		oxi_id_new(t->calls[i].id);
		t->calls[i].model_id = xstrdup(field(c, "id") ? field(c, "id")
		    : t->calls[i].id);
		args = jv_object_get(jv_copy(c), jv_string("args"));
		if (jv_get_kind(args) != JV_KIND_OBJECT) {
			jv_free(args);
			args = jv_object();
		}
		call = oxi_msg_new("tool.call");
		call = jv_object_set(call, jv_string("id"),
		    jv_string(t->calls[i].id));
		call = jv_object_set(call, jv_string("name"),
		    jv_string(field(c, "name") ? field(c, "name") : ""));
		emit_status(l, t, t->calls[i].id, field(c, "name") ?
		    field(c, "name") : "", args);
		call = jv_object_set(call, jv_string("args"), args);
		call = jv_object_set(call, jv_string("session"),
		    jv_string(t->session));
		call = jv_object_set(call, jv_string("taint"),
		    jv_copy(t->taint));
		t->calls[i].rec = jv_copy(call);
		oxi_debug("%s: tool call %s", t->msgid,
		    field(c, "name") ? field(c, "name") : "?");
		jv_free(c);
		if (l->io.tool(l->io.arg, call) < 0) {
			jv_free(calls);
			return turn_fail(l, t, "tool_unavailable",
			    "the tool stage is not running", 1);
		}
	}
	jv_free(calls);
	return 0;
}

static int
tool_result(struct oxi_loop *l, struct turn *t, struct call *c,
    const char *content, int iserr)
{
	const char *err;
	jv m;

	if (c->done)
		return 0;
	c->done = 1;
	m = jv_object();
	m = jv_object_set(m, jv_string("role"), jv_string("tool"));
	m = jv_object_set(m, jv_string("tool_call_id"),
	    jv_string(c->model_id));
	m = jv_object_set(m, jv_string("content"),
	    oxi_loop_tilde(jv_string(content)));
	if (iserr)
		m = jv_object_set(m, jv_string("is_error"), jv_true());
	if (oxi_hist_add(l->db, t->session, t->msgid, m, &err) < 0)
		return dbfail(l, "store a tool result", err);
	if (--t->pending == 0) {
		calls_free(t);
		return run_round(l, t);
	}
	return 0;
}

/* the call c of t is held: ask the owner in the turn's chat */
static void
ask(struct oxi_loop *l, struct turn *t, struct call *c, char *line)
{
	long ms = l->cfg->approvalms > 0 ? l->cfg->approvalms : 300000;
	char when[40];
	struct tm tm;
	time_t now;
	jv r = reply_rec(t, "approval.ask");

	c->held = line;
	c->asked = 1;
	oxi_id_new(c->askid);
	c->expires = oxi_clock_ms() + ms;
	now = time(NULL) + ms / 1000;
	if (!gmtime_r(&now, &tm) || !strftime(when, sizeof when,
	    "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof when, "1970-01-01T00:00:00Z");
	r = jv_object_set(r, jv_string("id"), jv_string(c->askid));
	r = jv_object_set(r, jv_string("ref"), jv_string(c->id));
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("text"), oxi_loop_ask_text(line));
	r = jv_object_set(r, jv_string("choices"), JV_ARRAY(jv_string("once"),
	    jv_string("always"), jv_string("deny")));
	r = jv_object_set(r, jv_string("expires"), jv_string(when));
	oxi_info("%s: tool call %s held, asked %s", t->msgid, c->id,
	    c->askid);
	l->io.out(l->io.arg, r);
}

/* the ask of c ends: choice "once" or "always" sends the call again,
 * anything else gives the model the outcome alone */
static int
decide(struct oxi_loop *l, struct turn *t, struct call *c,
    const char *choice)
{
	int always = strcmp(choice, "always") == 0;
	char *line = c->held;

	c->held = NULL;
	c->askid[0] = '\0';
	if (always || strcmp(choice, "once") == 0) {
		if (oxi_loop_store(line, always) < 0) {
			oxi_warnsys("%s: unable to record the approval",
			    t->msgid);
			free(line);
			return tool_result(l, t, c, "the approval could not "
			    "be recorded; nothing was run", 1);
		}
		free(line);
		oxi_info("%s: tool call %s approved %s", t->msgid, c->id,
		    choice);
		if (l->io.tool(l->io.arg, jv_copy(c->rec)) < 0)
			return turn_fail(l, t, "tool_unavailable",
			    "the tool stage is not running", 1);
		return 0;
	}
	free(line);
	oxi_info("%s: tool call %s %s", t->msgid, c->id, choice);
	return tool_result(l, t, c, strcmp(choice, "expired") == 0 ?
	    "the approval expired; nothing was run" :
	    "the owner declined; nothing was run", 1);
}

/* 1 if answer a comes from the owner of turn t */
static int
owner(struct turn *t, jv a)
{
	const char *trust = field(a, "trust"), *from = field(a, "from"),
	    *tfrom = field(t->in, "from");

	if (trust)
		return strcmp(trust, "owner") == 0;
	return from && tfrom && strcmp(from, tfrom) == 0;
}

static int
same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int
oxi_loop_answer(struct oxi_loop *l, jv a)
{
	const char *ref = field(a, "ref"), *choice = field(a, "choice");
	struct turn *t, *bt = NULL;
	struct call *bc = NULL;
	long long best = 0;
	int i, r = 0;

	if (l->failed) {
		jv_free(a);
		return -1;
	}
	for (t = l->turns; t && ref; t = t->next)
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++) {
			struct call *c = &t->calls[i];

			if (!c->held || !same(field(t->in, "channel"),
			    field(a, "channel")) || !same(field(t->in, "chat"),
			    field(a, "chat")))
				continue;
			if (strcmp(ref, c->askid) == 0 ||
			    (strcmp(ref, "last") == 0 && c->expires > best)) {
				bt = t;
				bc = c;
				best = c->expires;
			}
		}
	if (!bc)
		oxi_info("approval.answer for no pending ask of its chat: "
		    "ignored");
	else if (!owner(bt, a))
		oxi_info("%s: approval.answer not from the owner: ignored",
		    bt->msgid);
	else if (!choice || (strcmp(choice, "once") != 0 && strcmp(choice,
	    "always") != 0 && strcmp(choice, "deny") != 0))
		oxi_info("%s: approval.answer with an unknown choice: ignored",
		    bt->msgid);
	else if (oxi_clock_ms() >= bc->expires)
		r = decide(l, bt, bc, "expired");
	else
		r = decide(l, bt, bc, choice);
	jv_free(a);
	return r;
}

/* the model's answer to t's request: tools to call, or the reply */
static int
response(struct oxi_loop *l, struct turn *t, jv rec)
{
	const char *err, *stop;
	jv msg, calls, content;

	msg = jv_object_get(jv_copy(rec), jv_string("message"));
	if (jv_get_kind(msg) != JV_KIND_OBJECT) {
		jv_free(msg);
		return turn_fail(l, t, "bad_response",
		    "model reply has no message", 0);
	}
	/* the final text is authoritative over the deltas */
	content = jv_object_get(jv_copy(msg), jv_string("content"));
	oxi_buf_reset(&t->text);
	if (jv_get_kind(content) == JV_KIND_STRING)
		oxi_buf_cats(&t->text, jv_string_value(content));
	jv_free(content);
	msg = jv_object_set(msg, jv_string("role"), jv_string("assistant"));
	calls = jv_object_get(jv_copy(msg), jv_string("tool_calls"));
	if (jv_get_kind(calls) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(calls)) > 0) {
		if (t->text.len > 0)
			emit_draft(l, t);
		return start_tools(l, t, msg, calls);
	}
	jv_free(calls);
	if (oxi_hist_add(l->db, t->session, t->msgid, msg, &err) < 0)
		return dbfail(l, "store a message", err);
	stop = field(rec, "stop");
	return turn_done(l, t, stop && strcmp(stop, "length") == 0 ?
	    "\n\n[cut off: the reply reached its length limit]" : NULL);
}

int
oxi_loop_llm(struct oxi_loop *l, jv rec)
{
	const char *type = oxi_msg_type_peek(rec), *text, *code, *m;
	struct turn *t;
	int r = 0;
	jv rt;

	if (l->failed) {
		jv_free(rec);
		return -1;
	}
	if (strcmp(type, "llm.delta") == 0) {
		if ((t = find_req(l, field(rec, "id"))) &&
		    (text = field(rec, "text"))) {
			oxi_buf_cats(&t->text, text);
			t->dirty = 1;
			if (oxi_clock_ms() - t->lastdraft >= l->cfg->draftms)
				emit_draft(l, t);
		}
	} else if (strcmp(type, "llm.response") == 0) {
		if ((t = find_req(l, field(rec, "id"))))
			r = response(l, t, rec);
		else
			oxi_warn("llm.response for unknown request %s",
			    field(rec, "id") ? field(rec, "id") : "?");
	} else if (strcmp(type, "error") == 0) {
		code = field(rec, "code");
		m = field(rec, "message");
		rt = jv_object_get(jv_copy(rec), jv_string("retryable"));
		if ((t = find_req(l, field(rec, "ref"))))
			r = turn_fail(l, t, code ? code : "llm_error",
			    m ? m : "model request failed",
			    jv_get_kind(rt) == JV_KIND_TRUE);
		else
			oxi_warn("llm stage error: %s", m ? m : "?");
		jv_free(rt);
	} else
		oxi_debug("ignored %s record from the llm stage", type);
	jv_free(rec);
	return r;
}

int
oxi_loop_tool(struct oxi_loop *l, jv rec)
{
	const char *type = oxi_msg_type_peek(rec), *ref, *content;
	struct turn *t;
	struct call *c;
	char *line;
	int r;
	jv iserr;

	if (l->failed) {
		jv_free(rec);
		return -1;
	}
	if (strcmp(type, "tool.result") == 0)
		ref = field(rec, "id");
	else if (strcmp(type, "error") == 0)
		ref = field(rec, "ref");
	else {
		oxi_debug("ignored %s record from the tool stage", type);
		jv_free(rec);
		return 0;
	}
	if (!(t = find_call(l, ref, &c))) {
		oxi_warn("%s for unknown tool call %s", type, ref ? ref : "?");
		jv_free(rec);
		return 0;
	}
	if (strcmp(type, "error") == 0) {
		content = field(rec, "message");
		r = tool_result(l, t, c, content ? content : "tool failed", 1);
	} else {
		content = field(rec, "content");
		t->taint = oxi_loop_taint_merge(t->taint, jv_object_get(
		    jv_copy(rec), jv_string("taint")));
		iserr = jv_object_get(jv_copy(rec), jv_string("is_error"));
		line = jv_get_kind(iserr) == JV_KIND_TRUE && !c->done ?
		    oxi_loop_held(field(c->rec, "name"), content) : NULL;
		if (line && !c->asked) {
			ask(l, t, c, line);
			r = 0;
		} else if (line) {
			/* held again after an approval: say no more */
			free(line);
			r = tool_result(l, t, c, "the approval did not take "
			    "effect; nothing was run", 1);
		} else
			r = tool_result(l, t, c, content ? content : "",
			    jv_get_kind(iserr) == JV_KIND_TRUE);
		jv_free(iserr);
	}
	jv_free(rec);
	return r;
}

int
oxi_loop_lost(struct oxi_loop *l, int stage)
{
	struct turn *t;
	int waitstate = stage == OXI_LOOP_LLM ? WAIT_LLM : WAIT_TOOLS;

	if (l->failed)
		return -1;
	/* mark first: failing one turn may start the next of its session */
	for (t = l->turns; t; t = t->next)
		if (t->state == waitstate)
			t->state = LOST;
	for (;;) {
		for (t = l->turns; t && t->state != LOST; t = t->next)
			;
		if (!t)
			break;
		if (turn_fail(l, t, waitstate == WAIT_LLM ? "llm_exited" :
		    "tool_exited", "a pipeline stage exited", 1) < 0)
			return -1;
	}
	return 0;
}

int
oxi_loop_timeout(const struct oxi_loop *l)
{
	struct turn *t;
	long long now = oxi_clock_ms(), due, best = -1;
	int i;

	for (t = l->turns; t; t = t->next) {
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (t->calls[i].held && (best < 0 ||
			    t->calls[i].expires - now < best))
				best = t->calls[i].expires > now ?
				    t->calls[i].expires - now : 0;
		if (!t->dirty || t->state != WAIT_LLM)
			continue;
		due = t->lastdraft + l->cfg->draftms - now;
		if (due < 0)
			due = 0;
		if (best < 0 || due < best)
			best = due;
	}
	return (int)best;
}

int
oxi_loop_tick(struct oxi_loop *l)
{
	struct turn *t;
	long long now = oxi_clock_ms();
	int i;

	if (l->failed)
		return -1;
	for (t = l->turns; t; t = t->next)
		if (t->dirty && t->state == WAIT_LLM &&
		    now - t->lastdraft >= l->cfg->draftms)
			emit_draft(l, t);
again:	/* deciding may end a turn and start another: look again */
	for (t = l->turns; t; t = t->next)
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (t->calls[i].held && now >= t->calls[i].expires) {
				if (decide(l, t, &t->calls[i], "expired") < 0)
					return -1;
				goto again;
			}
	return 0;
}

int
oxi_loop_busy(const struct oxi_loop *l)
{
	struct turn *t;
	int n = 0;

	for (t = l->turns; t; t = t->next)
		n++;
	return n;
}

const char *
oxi_loop_err(const struct oxi_loop *l)
{
	return l->failed ? l->err : NULL;
}

void
oxi_loop_free(struct oxi_loop *l)
{
	struct turn *t;

	if (!l)
		return;
	while ((t = l->turns)) {
		l->turns = t->next;
		turn_free(t);
	}
	free(l);
}
