/*
 * memory.c - the loop's side of oxi-mem: recall before a turn's first
 * request (the memory slot), the model's memory tools, the chat's
 * /memory and /forget, a session's summary as its episode, and each
 * answered exchange handed to the extraction pass (oxi-loop(1), MEMORY;
 * the records are oxi(7)'s mem.*).
 *
 * The scope of every request is the sender of the turn's message,
 * "channel:account:from": the loop never names another, and oxi-mem
 * keeps to it in SQL.  Memory helps and never blocks: a recall that
 * fails or takes longer than waitms leaves the slot empty, a stage that
 * is down answers the tools with an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "loop/engine.h"
#include "loop/memory.h"

static const char *const names[][2] = {
	{ "remember", "mem.remember" }, { "recall", "mem.recall" },
	{ "forget", "mem.forget" }
};

struct oxi_memory {
	int (*send)(void *, jv);
	void *arg;
	const struct oxi_memory_cfg *cfg;
	jv asks;		/* {request id: msg.in} of /memory, /forget */
};

#define TOOLS "[" \
	"{\"name\":\"remember\",\"description\":\"Keep a durable fact about " \
	"the person you are talking to (what they like, the people and " \
	"places in their life, their plans), in the third person. A fact " \
	"with the key of an older one replaces it.\",\"parameters\":{" \
	"\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}," \
	"\"key\":{\"type\":\"string\",\"description\":\"what it is about, " \
	"e.g. home.city\"}},\"required\":[\"text\"]}}," \
	"{\"name\":\"recall\",\"description\":\"Search what you remember of " \
	"the person you are talking to and of earlier conversations in " \
	"this chat.\",\"parameters\":{\"type\":\"object\",\"properties\":" \
	"{\"query\":{\"type\":\"string\"}},\"required\":[\"query\"]}}," \
	"{\"name\":\"forget\",\"description\":\"Forget a fact about the " \
	"person you are talking to: by its fact id, by key, or all.\"," \
	"\"parameters\":{\"type\":\"object\",\"properties\":{\"fact\":" \
	"{\"type\":\"string\"},\"key\":{\"type\":\"string\"},\"all\":" \
	"{\"type\":\"boolean\"}}}}]"

void
oxi_memory_on(struct oxi_loop *l, int (*send)(void *, jv), void *arg,
    const struct oxi_memory_cfg *cfg)
{
	if (!l->mem) {
		l->mem = xcalloc(1, sizeof *l->mem);
		l->mem->asks = jv_object();
	}
	l->mem->send = send;
	l->mem->arg = arg;
	l->mem->cfg = cfg;
}

void
oxi_memory_free(struct oxi_loop *l)
{
	if (!l->mem)
		return;
	jv_free(l->mem->asks);
	free(l->mem);
	l->mem = NULL;
}

jv
oxi_memory_tools(jv tools)
{
	return jv_array_concat(tools, oxi_json_parse(TOOLS, strlen(TOOLS)));
}

/* a mem.* request of type with a new id (in id) and the scope of in */
static jv
request(const char *type, jv in, char *id)
{
	const char *from = oxi_msg_peek(in, "from");
	jv r = oxi_msg_new(type);

	oxi_id_new(id);
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	return jv_object_set(r, jv_string("scope"), jv_string_fmt("%s:%s:%s",
	    oxi_msg_peek(in, "channel"), oxi_msg_peek(in, "account") ?
	    oxi_msg_peek(in, "account") : "", from ? from :
	    oxi_msg_peek(in, "chat")));
}

static int
send(struct oxi_loop *l, jv rec)
{
	return l->mem->send(l->mem->arg, rec);
}

int
oxi_memory_recall(struct oxi_loop *l, struct turn *t)
{
	const char *text = oxi_msg_peek(t->in, "text");
	struct oxi_buf q = OXI_BUF_INIT;
	jv r;

	if (!l->mem || t->recalled || t->rounds > 0)
		return 0;
	t->recalled = 1;
	if (t->heard.len > 0)
		oxi_buf_cat(&q, t->heard.s, t->heard.len);
	oxi_buf_cats(&q, text ? text : "");
	r = request("mem.recall", t->in, t->memid);
	r = jv_object_set(r, jv_string("query"), jv_string(q.s ? q.s : ""));
	oxi_buf_free(&q);
	r = jv_object_set(r, jv_string("conv"), jv_string(t->key));
	r = jv_object_set(r, jv_string("k"), jv_number(l->mem->cfg->k));
	r = jv_object_set(r, jv_string("budget"),
	    jv_number(l->mem->cfg->budget));
	if (send(l, r) < 0)
		return 0;
	t->state = WAIT_MEMORY;
	t->memdue = oxi_clock_ms() + l->mem->cfg->waitms;
	return 1;
}

/* the recall of t came (text, may be NULL): the turn goes on */
static int
recalled(struct oxi_loop *l, struct turn *t, const char *text)
{
	free(t->memory);
	t->memory = text && *text ? xstrdup(text) : NULL;
	t->state = WAIT_START;
	return oxi_turn_round(l, t);
}

/* the index of a memory tool's name in names, or -1 */
static int
memtool(jv call)
{
	const char *name = oxi_msg_peek(call, "name");
	int i;

	for (i = 0; name && i < 3; i++)
		if (strcmp(name, names[i][0]) == 0)
			return i;
	return -1;
}

int
oxi_memory_tool(struct oxi_loop *l, struct turn *t, struct call *c, jv call)
{
	char id[OXI_ID_LEN + 1];
	int i;
	jv r;

	if (!l->mem || (i = memtool(call)) < 0)
		return 0;
	r = oxi_jget(call, "args");
	if (jv_get_kind(r) != JV_KIND_OBJECT) {
		jv_free(r);
		r = jv_object();
	}
	/* the model cannot choose the scope, the id or the type */
	r = jv_object_merge(r, request(names[i][1], t->in, id));
	r = jv_object_set(r, jv_string("id"), jv_string(c->id));
	if (i == 0)
		r = jv_object_set(r, jv_string("source"), jv_string(t->msgid));
	if (i == 1)
		r = jv_object_set(r, jv_string("conv"), jv_string(t->key));
	if (send(l, r) < 0 && oxi_turn_result(l, t, c, "memory is not "
	    "running", 1) < 0)
		return -1;
	return 1;
}

void
oxi_memory_episode(struct oxi_loop *l, struct turn *t, const char *text)
{
	char id[OXI_ID_LEN + 1];
	jv r;

	if (!l->mem)
		return;
	r = request("mem.episode", t->in, id);
	r = jv_object_set(r, jv_string("conv"), jv_string(t->key));
	r = jv_object_set(r, jv_string("session"), jv_string(t->session));
	r = jv_object_set(r, jv_string("text"), jv_string(text));
	r = jv_object_set(r, jv_string("source"), jv_string(t->msgid));
	(void)send(l, r);
}

void
oxi_memory_extract(struct oxi_loop *l, struct turn *t, const char *reply)
{
	const char *trust = oxi_msg_peek(t->in, "trust");
	char id[OXI_ID_LEN + 1];
	jv r;

	if (!l->mem || !l->mem->cfg->extract)
		return;
	r = request("mem.extract", t->in, id);
	r = jv_object_set(r, jv_string("text"), jv_string(t->heard.len ?
	    t->heard.s : oxi_msg_peek(t->in, "text")));
	r = jv_object_set(r, jv_string("reply"), jv_string(reply));
	r = jv_object_set(r, jv_string("source"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("trust"), jv_string(trust ? trust :
	    "user"));
	(void)send(l, r);
}

int
oxi_memory_slash(struct oxi_loop *l, jv in)
{
	const char *text = oxi_msg_peek(in, "text"), *arg;
	char id[OXI_ID_LEN + 1];
	jv r;

	if (!l->mem || !text)
		return 0;
	text += strspn(text, " ");
	if (strcmp(text, "/memory") == 0)
		r = request("mem.list", in, id);
	else if (strncmp(text, "/forget ", 8) == 0) {
		arg = text + 8 + strspn(text + 8, " ");
		r = request("mem.forget", in, id);
		if (strcmp(arg, "all") == 0)
			r = jv_object_set(r, jv_string("all"), jv_true());
		else if (strspn(arg, "0123456789") == strlen(arg) && *arg)
			r = jv_object_set(r, jv_string("fact"), jv_string(arg));
		else
			r = jv_object_set(r, jv_string("key"), jv_string(arg));
	} else
		return 0;
	if (send(l, r) < 0)
		oxi_out_note(l, in, "note", "Memory is not running.");
	else
		l->mem->asks = jv_object_set(l->mem->asks, jv_string(id),
		    jv_copy(in));
	return 1;
}

/* the text of /memory's answer: a numbered line per fact */
static jv
listing(jv rec)
{
	jv facts = oxi_jget(rec, "facts"), f, s;
	int i, n = jv_get_kind(facts) == JV_KIND_ARRAY ?
	    jv_array_length(jv_copy(facts)) : 0;

	if (n == 0) {
		jv_free(facts);
		return jv_string("I remember nothing about you.");
	}
	s = jv_string("What I remember about you (/forget N, /forget all):");
	for (i = 0; i < n; i++) {
		f = jv_array_get(jv_copy(facts), i);
		s = jv_string_concat(s, jv_string_fmt("\n%d. %s",
		    (int)oxi_jnum(f, "n", 0), oxi_msg_peek(f, "text") ?
		    oxi_msg_peek(f, "text") : ""));
		jv_free(f);
	}
	jv_free(facts);
	return s;
}

/* the answer to a /memory or /forget of the chat */
static void
answered(struct oxi_loop *l, jv in, jv rec)
{
	const char *type = oxi_msg_type_peek(rec);
	jv s;

	if (strcmp(type, "mem.facts") == 0)
		s = listing(rec);
	else if (strcmp(type, "mem.forgot") == 0)
		s = jv_string_fmt("Forgotten: %d.", (int)oxi_jnum(rec, "n", 0));
	else
		s = jv_string("Memory failed; nothing changed.");
	oxi_out_note(l, in, "memory", jv_string_value(s));
	jv_free(s);
}

/* the content a memory tool's answer gives the model */
static jv
content(jv rec, int *iserr)
{
	const char *type = oxi_msg_type_peek(rec);

	*iserr = strcmp(type, "error") == 0;
	if (*iserr)
		return jv_string_fmt("memory: %s", oxi_msg_peek(rec, "message") ?
		    oxi_msg_peek(rec, "message") : "failed");
	if (strcmp(type, "mem.recalled") == 0)
		return jv_string(oxi_msg_peek(rec, "text") && *oxi_msg_peek(rec,
		    "text") ? oxi_msg_peek(rec, "text") : "nothing found");
	rec = jv_object_delete(jv_copy(rec), jv_string("v"));
	rec = jv_object_delete(rec, jv_string("ref"));
	return jv_dump_string(rec, 0);
}

int
oxi_loop_mem(struct oxi_loop *l, jv rec)
{
	const char *ref = oxi_msg_peek(rec, "ref"), *text;
	struct turn *t;
	jv in, c;
	int i, iserr, r = 0;

	if (l->failed || !l->mem || !ref) {
		jv_free(rec);
		return l->failed ? -1 : 0;
	}
	in = jv_object_get(jv_copy(l->mem->asks), jv_string(ref));
	if (jv_is_valid(in)) {
		l->mem->asks = jv_object_delete(l->mem->asks, jv_string(ref));
		answered(l, in, rec);
		jv_free(in);
		jv_free(rec);
		return 0;
	}
	jv_free(in);
	for (t = l->turns; t; t = t->next) {
		if (t->state == WAIT_MEMORY && strcmp(t->memid, ref) == 0) {
			text = strcmp(oxi_msg_type_peek(rec), "mem.recalled") ==
			    0 ? oxi_msg_peek(rec, "text") : NULL;
			if (!text)
				oxi_warn("%s: no memory for this turn: %s",
				    t->msgid, oxi_msg_peek(rec, "message") ?
				    oxi_msg_peek(rec, "message") : "?");
			r = recalled(l, t, text);
			break;
		}
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (strcmp(t->calls[i].id, ref) == 0) {
				c = content(rec, &iserr);
				r = oxi_turn_result(l, t, &t->calls[i],
				    jv_string_value(c), iserr);
				jv_free(c);
				jv_free(rec);
				return r;
			}
	}
	jv_free(rec);
	return r;
}

int
oxi_memory_lost(struct oxi_loop *l)
{
	struct turn *t;
	int i;

again:
	for (t = l->turns; t; t = t->next) {
		if (t->state == WAIT_MEMORY) {
			if (recalled(l, t, NULL) < 0)
				return -1;
			goto again;
		}
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (!t->calls[i].done && memtool(t->calls[i].rec) >= 0) {
				if (oxi_turn_result(l, t, &t->calls[i], "memory "
				    "stopped before it answered", 1) < 0)
					return -1;
				goto again;
			}
	}
	return l->failed ? -1 : 0;
}

int
oxi_memory_timeout(const struct oxi_loop *l)
{
	struct turn *t;
	long long now = oxi_clock_ms(), best = -1, due;

	for (t = l->turns; t; t = t->next)
		if (t->state == WAIT_MEMORY) {
			due = t->memdue > now ? t->memdue - now : 0;
			if (best < 0 || due < best)
				best = due;
		}
	return best > 86400000 ? 86400000 : (int)best;
}

int
oxi_memory_tick(struct oxi_loop *l)
{
	struct turn *t;
	long long now = oxi_clock_ms();

again:
	for (t = l->turns; t; t = t->next)
		if (t->state == WAIT_MEMORY && now >= t->memdue) {
			oxi_warn("%s: memory did not answer in time: the turn "
			    "goes on without it", t->msgid);
			if (recalled(l, t, NULL) < 0)
				return -1;
			goto again;
		}
	return 0;
}
