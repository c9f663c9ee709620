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
 * is down answers the tools with an error.  This file sends; the
 * answers come back through memreply.c, above turn.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "loop/engine.h"
#include "loop/hist.h"
#include "loop/memory.h"

#define ENDCUT	400	/* bytes of each end of a session's extractive
			 * episode */

static const char *const names[][2] = {
	{ "remember", "mem.remember" }, { "recall", "mem.recall" },
	{ "forget", "mem.forget" }
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

/* a setting of the environment, or dflt; dies 100 if bad */
static long
env(const char *name, long dflt, long max)
{
	long v;

	if (oxi_env_int(name, dflt, max, &v) < 0)
		oxi_die(OXI_EX_USAGE, "bad %s '%s'", name, getenv(name));
	return v;
}

int
oxi_memory_env(struct oxi_memory_cfg *c)
{
	const char *v;

	c->waitms = env("OXI_MEM_WAIT", 5, 3600) * 1000;
	c->budget = env("OXI_MEM_BUDGET", 800, 1000000);
	c->k = (int)env("OXI_MEM_K", 8, 100);
	c->extract = !(v = oxi_getenv("OXI_MEM_EXTRACT")) ||
	    strcmp(v, "off") != 0;
	return 0;
}

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

int
oxi_memory_which(jv call)
{
	const char *name = oxi_msg_peek(call, "name");
	int i;

	for (i = 0; name && i < 3; i++)
		if (strcmp(name, names[i][0]) == 0)
			return i;
	return -1;
}

int
oxi_memory_tool(struct oxi_loop *l, struct turn *t, struct call *c,
    jv call)
{
	char id[OXI_ID_LEN + 1];
	int i;
	jv r;

	if (!l->mem || (i = oxi_memory_which(call)) < 0)
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
	return send(l, r) < 0 ? -1 : 1;
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

/* s cut to ENDCUT bytes, on a character's edge, into b */
static void
end_of(struct oxi_buf *b, const char *s)
{
	size_t n = strlen(s), m = oxi_utf8_cut(s, n, ENDCUT);

	oxi_buf_cat(b, s, m);
	if (m < n)
		oxi_buf_cats(b, "...");
}

void
oxi_memory_close(struct oxi_loop *l, jv in, const char *key,
    const char *session)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char id[OXI_ID_LEN + 1];
	long long upto;
	jv sum, ends, first, last, r;

	if (!l->mem)
		return;
	/* a summary was stored as the episode already */
	sum = oxi_hist_summary(l->db, session, &upto);
	if (jv_get_kind(sum) != JV_KIND_NULL) {
		jv_free(sum);
		return;
	}
	jv_free(sum);
	ends = oxi_hist_ends(l->db, session);
	if (jv_get_kind(ends) != JV_KIND_ARRAY) {
		jv_free(ends);
		return;
	}
	first = jv_array_get(jv_copy(ends), 0);
	last = jv_array_get(ends, 1);
	oxi_buf_cats(&b, "The conversation began: ");
	end_of(&b, jv_string_value(first));
	oxi_buf_cats(&b, "\nThe last answer: ");
	end_of(&b, jv_string_value(last));
	jv_free(first);
	jv_free(last);
	r = request("mem.episode", in, id);
	r = jv_object_set(r, jv_string("conv"), jv_string(key));
	r = jv_object_set(r, jv_string("session"), jv_string(session));
	r = jv_object_set(r, jv_string("text"), jv_string(b.s));
	r = jv_object_set(r, jv_string("source"),
	    jv_string(oxi_msg_peek(in, "id")));
	oxi_buf_free(&b);
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
