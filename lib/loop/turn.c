/*
 * turn.c - the turn engine of oxi-loop, behind struct oxi_loop_io
 *
 * A turn is one msg.in being answered; its states are in engine.h.  The
 * turns live in one list in order of arrival; turns of one conversation
 * run one after another, and when a turn ends the next one of its
 * conversation starts.  A round is one llm.request and the tool calls it
 * asks for, all sent at once.  A turn ends with a msg.out, or with an
 * error record for its chat; it never waits for ever: its work has a
 * deadline (cfg->turnms), its rounds a cap (cfg->maxrounds, with a nudge
 * to wrap up at 70%), its tokens a budget (cfg->turntokens), and the same
 * call asked for a third time ends it.  A temporary model failure keeps
 * the turn and tries again with backoff for cfg->retryage, telling the
 * user once.  A message's voice messages are transcribed by the model
 * stage before it joins the history, and a request the model refuses for
 * its attachments is made once more without them (media.c).
 *
 * The engine sends records through io and keeps the history and the
 * inbox ledger in db (hist.c, sess.c).  A database failure is recorded in
 * l->err and every later call returns -1: the command dies with that
 * message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "loop/engine.h"
#include "loop/schedtool.h"

#define REPEATS	3	/* the same call this many times ends a turn */

static const char *
field(jv rec, const char *key)
{
	return oxi_msg_peek(rec, key);
}

#define SAID_MAX	4096	/* bytes of the owner's words in a call */

/* call (consumed) with "said": the words of the turn's message, when
 * they are the owner's, so that the guard of the tools knows a URL the
 * owner wrote from one the turn built (oxi(7), tool.call) */
static jv
said(const struct turn *t, jv call)
{
	const char *trust = field(t->in, "trust"), *text = field(t->in,
	    "text");
	size_t n;

	if (!trust || strcmp(trust, "owner") != 0 || !text || !*text)
		return call;
	n = oxi_utf8_cut(text, strlen(text), SAID_MAX);
	return jv_object_set(call, jv_string("said"), jv_string_sized(text,
	    (int)n));
}

static void
calls_free(struct turn *t)
{
	int i;

	for (i = 0; i < t->ncalls; i++) {
		free(t->calls[i].model_id);
		free(t->calls[i].held);
		free(t->calls[i].src);
		jv_free(t->calls[i].rec);
	}
	free(t->calls);
	t->calls = NULL;
	t->ncalls = 0;
	t->pending = 0;
}

void
oxi_turn_free(struct turn *t)
{
	calls_free(t);
	free(t->key);
	free(t->replyid);
	free(t->session);
	oxi_buf_free(&t->prev);
	oxi_buf_free(&t->text);
	oxi_buf_free(&t->heard);
	jv_free(t->taint);
	jv_free(t->folded);
	jv_free(t->sigs);
	jv_free(t->in);
	free(t);
}

/* removes t and starts the next waiting turn of its conversation */
static int
turn_end(struct oxi_loop *l, struct turn *t)
{
	struct turn **pp, *u;
	const char *err;

	if (t->stored && oxi_hist_cut(l->db, t->msgid, l->cfg->toolkeep,
	    &err) < 0)
		return oxi_out_dbfail(l, "cut tool results", err);
	for (pp = &l->turns; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	for (u = l->turns; u; u = u->next)
		if (strcmp(u->key, t->key) == 0)
			break;
	oxi_turn_free(t);
	if (u && u->state == WAIT_START)
		return oxi_turn_round(l, u);
	return 0;
}

int
oxi_turn_fail(struct oxi_loop *l, struct turn *t, const char *code,
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
	if (oxi_hist_drop(l->db, t->msgid, &err) < 0 ||
	    oxi_hist_mark(l->db, t->msgid, t->session, retryable ? "retry" :
	    "failed", &err) < 0)
		return oxi_out_dbfail(l, "record a failed turn", err);
	return turn_end(l, t);
}

int
oxi_turn_done(struct oxi_loop *l, struct turn *t, const char *note)
{
	const char *err;
	jv text = oxi_out_full(t);

	if (note)
		text = jv_string_append_str(text, note);
	if (oxi_hist_mark(l->db, t->msgid, t->session, "done", &err) < 0) {
		jv_free(text);
		return oxi_out_dbfail(l, "record a reply", err);
	}
	oxi_out_text(l, t, "msg.out", text);
	oxi_debug("%s: answered after %d rounds", t->msgid, t->rounds);
	return turn_end(l, t);
}

/* ends t with note, storing its unsaved text and the note as the
 * model's last word, so the history reads as it happened */
static int
finish(struct oxi_loop *l, struct turn *t, const char *unsaved,
    const char *note)
{
	const char *err;
	jv m = jv_object(), c = jv_string(unsaved);

	if (*unsaved)
		c = jv_string_append_str(c, "\n\n");
	c = jv_string_append_str(c, note + strspn(note, "\n"));
	m = jv_object_set(m, jv_string("role"), jv_string("assistant"));
	m = jv_object_set(m, jv_string("content"), c);
	if (!t->stored)
		jv_free(m);
	else if (oxi_hist_add(l->db, t->session, t->msgid, m, &err) < 0)
		return oxi_out_dbfail(l, "store a message", err);
	return oxi_turn_done(l, t, note);
}

int
oxi_turn_stop(struct oxi_loop *l, struct turn *t, const char *note)
{
	const char *unsaved = "";
	int i, was = t->state;

	if (was == WAIT_LLM || was == WAIT_SUMMARY || was == WAIT_VOICE)
		oxi_out_cancel(l, t->reqid);
	if (was == WAIT_LLM)
		unsaved = t->text.s ? t->text.s : "";
	t->state = LOST;	/* a result no longer asks the model */
	/* every call the model made gets an answer in the history */
	for (i = 0; was == WAIT_TOOLS && i < t->ncalls; i++)
		if (oxi_turn_result(l, t, &t->calls[i], "[no result: the "
		    "turn was stopped]", 1) < 0)
			return -1;
	return finish(l, t, unsaved, note);
}

/* the transcription of t's voice message came (text), or did not (why):
 * the turn goes on */
static int
voiced(struct oxi_loop *l, struct turn *t, const char *text,
    const char *why)
{
	if (text && !text[strspn(text, " \t\n")]) {
		text = NULL;
		why = "nothing was said in it";
	}
	if (!text)
		oxi_info("%s: voice message not transcribed: %s", t->msgid,
		    why);
	oxi_media_heard(&t->heard, text, why);
	t->state = WAIT_START;
	return oxi_turn_round(l, t);
}

int
oxi_turn_round(struct oxi_loop *l, struct turn *t)
{
	const struct oxi_loop_cfg *cfg = l->cfg;
	const char *err;
	char note[128];
	int summary = 0;
	jv req, m, why;

	if (!t->stored) {
		if (oxi_media_listen(l, t))
			return 0;
		/* the turn begins: its message joins the history now, after
		 * the replies to earlier messages of the session */
		m = oxi_media_user(t->in, t->heard.s, cfg->imagemax);
		m = jv_object_set(m, jv_string("_origin"), jv_string_fmt(
		    "%s:%s", field(t->in, "trust") ? field(t->in, "trust") :
		    "user", field(t->in, "channel")));
		if (oxi_hist_add(l->db, t->session, t->msgid, m, &err) < 0)
			return oxi_out_dbfail(l, "store a message", err);
		t->stored = 1;
		t->deadline = cfg->turnms > 0 ? oxi_clock_ms() + cfg->turnms :
		    0;
	}
	if (t->rounds >= cfg->maxrounds) {
		snprintf(note, sizeof note, "\n\n[stopped: %d rounds of tool "
		    "calls, the most a message may take]", cfg->maxrounds);
		return finish(l, t, "", note);
	}
	req = oxi_ctx_request(l, t, &summary);
	if (!jv_is_valid(req)) {
		if (l->failed) {
			jv_free(req);
			return -1;
		}
		why = jv_invalid_get_msg(req);
		t->state = LOST;
		oxi_turn_fail(l, t, "request_too_large", jv_string_value(why),
		    0);
		jv_free(why);
		return l->failed ? -1 : 0;
	}
	snprintf(t->reqid, sizeof t->reqid, "%s", field(req, "id"));
	if (summary)
		t->state = WAIT_SUMMARY;
	else {
		t->rounds++;
		t->state = WAIT_LLM;
		if (t->text.len > 0) {
			if (t->prev.len > 0)
				oxi_buf_cats(&t->prev, "\n\n");
			oxi_buf_cat(&t->prev, t->text.s, t->text.len);
			oxi_buf_reset(&t->text);
		}
	}
	oxi_out_typing(l, t);
	t->asked = oxi_clock_ms();
	if (l->io.llm(l->io.arg, req) < 0)
		return oxi_turn_fail(l, t, "llm_unavailable",
		    "the model stage is not running", 1);
	return 0;
}

struct turn *
oxi_turn_active(struct oxi_loop *l, const char *key)
{
	struct turn *t;

	for (t = l->turns; t; t = t->next)
		if (strcmp(t->key, key) == 0)
			return t->state == WAIT_START ? NULL : t;
	return NULL;
}

static struct turn *
find_req(struct oxi_loop *l, const char *id)
{
	struct turn *t;

	for (t = l->turns; t && id; t = t->next)
		if ((t->state == WAIT_LLM || t->state == WAIT_SUMMARY ||
		    t->state == WAIT_VOICE) && strcmp(t->reqid, id) == 0)
			return t;
	return NULL;
}

/* counts the calls of a round by name and arguments: 1 if one of them
 * was asked for REPEATS times in this turn */
static int
repeated(struct turn *t, jv calls)
{
	int i, n = jv_array_length(jv_copy(calls)), rep = 0;
	double times;
	jv c, k;

	for (i = 0; i < n; i++) {
		c = jv_array_get(jv_copy(calls), i);
		k = jv_dump_string(JV_ARRAY(oxi_jget(c, "name"),
		    oxi_jget(c, "args")), JV_PRINT_SORTED);
		jv_free(c);
		times = oxi_jnum(t->sigs, jv_string_value(k), 0) + 1;
		if (times >= REPEATS)
			rep = 1;
		t->sigs = jv_object_set(t->sigs, k, jv_number(times));
	}
	return rep;
}

/* the model asked for tools: store its message, send the calls */
static int
start_tools(struct oxi_loop *l, struct turn *t, jv msg, jv calls)
{
	const char *err, *name;
	jv c, call, args;
	int i, n = jv_array_length(jv_copy(calls));

	if (oxi_hist_add(l->db, t->session, t->msgid, msg, &err) < 0) {
		jv_free(calls);
		return oxi_out_dbfail(l, "store a message", err);
	}
	t->calls = xcalloc(n, sizeof *t->calls);
	t->ncalls = n;
	t->pending = n;
	t->state = WAIT_TOOLS;
	oxi_out_typing(l, t);
	for (i = 0; i < n; i++) {
		c = jv_array_get(jv_copy(calls), i);
		oxi_id_new(t->calls[i].id);
		t->calls[i].model_id = xstrdup(field(c, "id") ? field(c, "id")
		    : t->calls[i].id);
		name = field(c, "name") ? field(c, "name") : "";
		args = jv_object_get(jv_copy(c), jv_string("args"));
		if (jv_get_kind(args) != JV_KIND_OBJECT) {
			jv_free(args);
			args = jv_object();
		}
		call = oxi_msg_new("tool.call");
		call = jv_object_set(call, jv_string("id"),
		    jv_string(t->calls[i].id));
		call = jv_object_set(call, jv_string("name"), jv_string(name));
		oxi_out_status(l, t, t->calls[i].id, name, args);
		call = jv_object_set(call, jv_string("args"), args);
		call = jv_object_set(call, jv_string("session"),
		    jv_string(t->session));
		call = jv_object_set(call, jv_string("taint"),
		    jv_copy(t->taint));
		call = said(t, call);
		call = oxi_sched_maker(call, name, t->in);
		t->calls[i].rec = jv_copy(call);
		oxi_debug("%s: tool call %s", t->msgid, name);
		jv_free(c);
		t->calls[i].sent = oxi_clock_ms();
		if (oxi_sched_send(l, call) < 0) {
			jv_free(calls);
			return oxi_turn_fail(l, t, "tool_unavailable",
			    "the tool stage is not running", 1);
		}
	}
	jv_free(calls);
	return 0;
}

int
oxi_turn_result(struct oxi_loop *l, struct turn *t, struct call *c,
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
	/* what the result brought, for the taint of later turns (wrap.c) */
	m = jv_object_set(m, jv_string("_src"), jv_string(c->src ? c->src :
	    ""));
	if (iserr)
		m = jv_object_set(m, jv_string("is_error"), jv_true());
	if (oxi_hist_add(l->db, t->session, t->msgid, m, &err) < 0)
		return oxi_out_dbfail(l, "store a tool result", err);
	if (--t->pending == 0 && t->state == WAIT_TOOLS) {
		calls_free(t);
		return oxi_turn_round(l, t);
	}
	return 0;
}

/* the text of the reply so far is at cfg->replymax: 1, and t->cut */
static int
full(struct oxi_loop *l, struct turn *t, size_t more)
{
	size_t max = l->cfg->replymax;

	if (max > 0 && t->prev.len + t->text.len + more > max)
		t->cut = 1;
	return t->cut;
}

/* books the usage of a model answer (borrowed) to t's session */
static int
book(struct oxi_loop *l, struct turn *t, jv rec)
{
	const char *err;
	long long in, out;
	jv u = oxi_jget(rec, "usage"), cost;
	int r = 0;

	if (jv_get_kind(u) == JV_KIND_OBJECT) {
		in = (long long)oxi_jnum(u, "input", 0);
		out = (long long)oxi_jnum(u, "output", 0);
		cost = oxi_jget(rec, "cost_usd");
		t->tokens += in + out;
		if (oxi_hist_usage(l->db, t->session, in, out,
		    jv_get_kind(cost) == JV_KIND_NUMBER ?
		    jv_number_value(cost) : -1, &err) < 0)
			r = oxi_out_dbfail(l, "book usage", err);
		jv_free(cost);
	}
	jv_free(u);
	return r;
}

/* the model's answer to t's request: tools to call, or the reply */
static int
response(struct oxi_loop *l, struct turn *t, jv rec)
{
	const char *err, *stop;
	char note[160];
	size_t n, room;
	jv msg, calls, content;

	if (book(l, t, rec) < 0)
		return -1;
	msg = jv_object_get(jv_copy(rec), jv_string("message"));
	if (jv_get_kind(msg) != JV_KIND_OBJECT) {
		jv_free(msg);
		return oxi_turn_fail(l, t, "bad_response",
		    "model reply has no message", 0);
	}
	/* the final text is authoritative over the deltas, and bounded */
	content = jv_object_get(jv_copy(msg), jv_string("content"));
	oxi_buf_reset(&t->text);
	t->cut = 0;
	if (jv_get_kind(content) == JV_KIND_STRING) {
		n = (size_t)jv_string_length_bytes(jv_copy(content));
		if (full(l, t, n)) {
			room = l->cfg->replymax > t->prev.len ?
			    l->cfg->replymax - t->prev.len : 0;
			n = oxi_utf8_cut(jv_string_value(content), n, room);
			msg = jv_object_set(msg, jv_string("content"),
			    jv_string_sized(jv_string_value(content), (int)n));
		}
		oxi_buf_cat(&t->text, jv_string_value(content), n);
	}
	jv_free(content);
	msg = jv_object_set(msg, jv_string("role"), jv_string("assistant"));
	calls = jv_object_get(jv_copy(msg), jv_string("tool_calls"));
	if (jv_get_kind(calls) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(calls)) > 0) {
		if (l->cfg->turntokens > 0 && t->tokens > l->cfg->turntokens) {
			snprintf(note, sizeof note, "\n\n[stopped: this message"
			    " took more than %ld tokens]", l->cfg->turntokens);
		} else if (repeated(t, calls)) {
			snprintf(note, sizeof note, "\n\n[stopped: the same tool"
			    " call was asked for %d times]", REPEATS);
		} else {
			if (t->text.len > 0)
				oxi_out_draft(l, t, oxi_clock_ms(), 1);
			return start_tools(l, t, msg, calls);
		}
		jv_free(calls);
		jv_free(msg);
		return finish(l, t, t->text.s ? t->text.s : "", note);
	}
	jv_free(calls);
	if (t->text.len == 0 && t->prev.len == 0)
		return finish(l, t, "", "[the model gave an empty answer]");
	if (oxi_hist_add(l->db, t->session, t->msgid, msg, &err) < 0)
		return oxi_out_dbfail(l, "store a message", err);
	stop = field(rec, "stop");
	if (t->cut)
		snprintf(note, sizeof note, "\n\n[cut: the reply was longer "
		    "than %zu bytes]", l->cfg->replymax);
	return oxi_turn_done(l, t, t->cut ? note : stop && strcmp(stop,
	    "length") == 0 ? "\n\n[cut off: the reply reached its length "
	    "limit]" : NULL);
}

/* the summary of t's older turns came back: store it, go on */
static int
summarised(struct oxi_loop *l, struct turn *t, jv rec)
{
	const char *err;
	jv m, c, o;
	int i;

	if (book(l, t, rec) < 0)
		return -1;
	m = oxi_jget(rec, "message");
	c = oxi_jget(m, "content");
	jv_free(m);
	if (jv_get_kind(c) == JV_KIND_STRING &&
	    jv_string_length_bytes(jv_copy(c)) > 0) {
		/* a summary of outside content says so, for the taint of
		 * the turns it serves (wrap.c) */
		if (jv_get_kind(t->folded) == JV_KIND_ARRAY &&
		    jv_array_length(jv_copy(t->folded)) > 0) {
			c = jv_string_append_str(c, OXI_WRAP_FOLDED);
			for (i = 0; i < jv_array_length(jv_copy(t->folded));
			    i++) {
				o = jv_array_get(jv_copy(t->folded), i);
				c = jv_string_append_str(c, i ? ", " : "");
				c = jv_string_concat(c, o);
			}
			c = jv_string_append_str(c, "]");
		}
		if (oxi_hist_summarise(l->db, t->session, t->sumupto,
		    jv_string_value(c), &err) < 0) {
			jv_free(c);
			return oxi_out_dbfail(l, "store a summary", err);
		}
		oxi_info("%s: older turns of the session summarised",
		    t->msgid);
	} else
		oxi_warn("%s: the summary came back empty", t->msgid);
	jv_free(c);
	t->compacts++;
	t->state = WAIT_START;
	return oxi_turn_round(l, t);
}

/* the model failed t's request: wait and try again, or give up */
static int
llm_error(struct oxi_loop *l, struct turn *t, jv rec)
{
	const struct oxi_loop_cfg *cfg = l->cfg;
	const char *code = field(rec, "code"), *m = field(rec, "message");
	long long now = oxi_clock_ms();
	char why[400];
	jv rt = jv_object_get(jv_copy(rec), jv_string("retryable"));
	int retry = jv_get_kind(rt) == JV_KIND_TRUE;

	jv_free(rt);
	if (!code)
		code = "llm_error";
	if (!m)
		m = "model request failed";
	/* refused for what it shows? once more without it */
	if (t->state == WAIT_LLM && t->media > 0 && !t->nomedia && !retry &&
	    (strcmp(code, "bad_request") == 0 || strcmp(code, "invalid") ==
	    0)) {
		oxi_info("%s: %s: %s; asking again without the attachments",
		    t->msgid, code, m);
		t->nomedia = 1;
		t->rounds--;
		t->state = WAIT_START;
		oxi_buf_reset(&t->text);
		return oxi_turn_round(l, t);
	}
	if (!retry || cfg->retryage <= 0 || l->stopping)
		return oxi_turn_fail(l, t, code, m, retry);
	snprintf(t->errcode, sizeof t->errcode, "%s", code);
	snprintf(t->errmsg, sizeof t->errmsg, "%s", m);
	if (!t->firstfail)
		t->firstfail = now;
	if (now - t->firstfail >= cfg->retryage) {
		snprintf(why, sizeof why, "the model was unreachable for %ld "
		    "s; giving up (%s: %s)", cfg->retryage / 1000, code, m);
		return oxi_turn_fail(l, t, code, why, 1);
	}
	t->backoff = t->backoff ? t->backoff * 2 : cfg->retryms;
	if (t->backoff > cfg->retrymaxms && cfg->retrymaxms > 0)
		t->backoff = cfg->retrymaxms;
	if (t->backoff < 1)
		t->backoff = 1;
	t->retryat = now + t->backoff;
	if (t->state == WAIT_LLM)
		t->rounds--;
	t->state = WAIT_RETRY;
	oxi_buf_reset(&t->text);
	t->dirty = 0;
	oxi_info("%s: %s: %s; trying again in %ld ms", t->msgid, code, m,
	    t->backoff);
	if (!t->told) {
		t->told = 1;
		oxi_out_note(l, t->in, "wait", "The model is unreachable; I will "
		    "answer when it is back.");
	}
	return 0;
}

int
oxi_loop_llm(struct oxi_loop *l, jv rec)
{
	const char *type = oxi_msg_type_peek(rec), *text;
	struct turn *t;
	int r = 0;

	if (l->failed) {
		jv_free(rec);
		return -1;
	}
	if (strcmp(type, "llm.delta") == 0) {
		if ((t = find_req(l, field(rec, "id"))) &&
		    t->state == WAIT_LLM && (text = field(rec, "text")) &&
		    !full(l, t, strlen(text))) {
			oxi_buf_cats(&t->text, text);
			t->dirty = 1;
			oxi_out_draft(l, t, oxi_clock_ms(), 0);
		}
	} else if (strcmp(type, "llm.response") == 0) {
		if (!(t = find_req(l, field(rec, "id"))) ||
		    t->state == WAIT_VOICE)
			oxi_debug("llm.response for no request in flight %s",
			    field(rec, "id") ? field(rec, "id") : "?");
		else if (t->state == WAIT_SUMMARY)
			r = summarised(l, t, rec);
		else
			r = response(l, t, rec);
	} else if (strcmp(type, "transcription") == 0) {
		if ((t = find_req(l, field(rec, "id"))) &&
		    t->state == WAIT_VOICE)
			r = book(l, t, rec) < 0 ? -1 : voiced(l, t,
			    field(rec, "text"), "no text");
	} else if (strcmp(type, "error") == 0) {
		if ((t = find_req(l, field(rec, "ref"))) &&
		    t->state == WAIT_VOICE)
			r = voiced(l, t, NULL, field(rec, "message") ?
			    field(rec, "message") : "failed");
		else if (t)
			r = llm_error(l, t, rec);
		else
			oxi_warn("llm stage error: %s", field(rec, "message") ?
			    field(rec, "message") : "?");
	} else
		oxi_debug("ignored %s record from the llm stage", type);
	jv_free(rec);
	return r;
}

/* 1 if s occurs in line[0..n) */
static int
contains(const char *line, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; k > 0 && i + k <= n; i++)
		if (line[i] == s[0] && memcmp(line + i, s, k) == 0)
			return 1;
	return 0;
}

int
oxi_loop_bad(struct oxi_loop *l, int stage, const char *line, size_t n)
{
	struct turn *t;
	int i;

	if (l->failed)
		return -1;
	for (t = l->turns; t; t = t->next) {
		if (stage == OXI_LOOP_LLM && t->state == WAIT_VOICE &&
		    contains(line, n, t->reqid))
			return voiced(l, t, NULL, "the transcription could "
			    "not be read");
		if (stage == OXI_LOOP_LLM && (t->state == WAIT_LLM ||
		    t->state == WAIT_SUMMARY) && contains(line, n, t->reqid)) {
			if (t->state == WAIT_LLM)
				oxi_out_cancel(l, t->reqid);
			t->state = LOST;
			return oxi_turn_fail(l, t, "reply_unreadable", "the "
			    "model's reply could not be read (too large, or "
			    "not a record)", 0);
		}
		for (i = 0; stage == OXI_LOOP_TOOL && t->state == WAIT_TOOLS &&
		    i < t->ncalls; i++)
			if (!t->calls[i].done && contains(line, n,
			    t->calls[i].id))
				return oxi_turn_result(l, t, &t->calls[i],
				    "the tool's result could not be read "
				    "(too large, or not a record)", 1);
	}
	oxi_warn("a record from the %s stage could not be read and names no "
	    "turn in flight", stage == OXI_LOOP_LLM ? "llm" : "tool");
	return 0;
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
		if (t->state == waitstate || (stage == OXI_LOOP_LLM &&
		    (t->state == WAIT_SUMMARY || t->state == WAIT_VOICE)))
			t->state = LOST;
	for (;;) {
		for (t = l->turns; t && t->state != LOST; t = t->next)
			;
		if (!t)
			break;
		if (oxi_turn_fail(l, t, waitstate == WAIT_LLM ? "llm_exited" :
		    "tool_exited", "a pipeline stage exited", 1) < 0)
			return -1;
	}
	return 0;
}

/* 1 if a call of t waits for the owner: its time is the ask's */
static int
asking(const struct turn *t)
{
	int i;

	for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
		if (t->calls[i].held)
			return 1;
	return 0;
}

static int
working(const struct turn *t)
{
	return t->state == WAIT_LLM || t->state == WAIT_TOOLS ||
	    t->state == WAIT_SUMMARY || t->state == WAIT_VOICE;
}

int
oxi_turn_overdue(const struct turn *t, long long now)
{
	return working(t) && t->deadline && now >= t->deadline && !asking(t);
}

int
oxi_loop_timeout(const struct oxi_loop *l)
{
	struct turn *t;
	long long now = oxi_clock_ms(), due, best = -1;
	int i;

#define SOONER(d) do { due = (d) > now ? (d) - now : 0; \
	if (best < 0 || due < best) best = due; } while (0)
	for (t = l->turns; t; t = t->next) {
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (t->calls[i].held)
				SOONER(t->calls[i].expires);
		if (t->state == WAIT_RETRY)
			SOONER(t->retryat);
		if (working(t) && t->deadline && !asking(t))
			SOONER(t->deadline);
		if ((due = oxi_out_draftdue(l, t, now)) >= 0)
			SOONER(now + due);
	}
#undef SOONER
	return best > 86400000 ? 86400000 : (int)best;
}

/*
 * No answer can come once input has stopped: a turn waiting for the
 * owner, and the turns of its conversation queued behind it, leave
 * without a word.  They stay "working" in the inbox, so the next start
 * takes them up again (oxi_loop_resume) and asks anew.
 */
void
oxi_turn_shelve(struct oxi_loop *l)
{
	struct turn **pp, *t;
	jv keys = jv_object(), k;
	int gone;

	/* turns come in order of arrival: the one asking before its queue */
	for (pp = &l->turns; (t = *pp);) {
		k = jv_object_get(jv_copy(keys), jv_string(t->key));
		gone = asking(t) || (t->state == WAIT_START && jv_is_valid(k));
		jv_free(k);
		if (!gone) {
			pp = &t->next;
			continue;
		}
		keys = jv_object_set(keys, jv_string(t->key), jv_true());
		oxi_info("%s: left for the next start: it waits for the "
		    "owner's answer", t->msgid);
		*pp = t->next;
		oxi_turn_free(t);
	}
	jv_free(keys);
}

int
oxi_loop_stop(struct oxi_loop *l)
{
	struct turn *t;

	if (l->failed)
		return -1;
	l->stopping = 1;
again:
	for (t = l->turns; t; t = t->next)
		if (t->state == WAIT_RETRY) {
			if (oxi_turn_fail(l, t, t->errcode, t->errmsg, 1) < 0)
				return -1;
			goto again;
		}
	oxi_turn_shelve(l);
	return 0;
}
