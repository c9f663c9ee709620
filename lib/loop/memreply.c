/*
 * memreply.c - the memory stage's answers (memory.c sends the requests):
 * a recall fills the memory slot of the turn that waited for it and the
 * turn goes on; a memory tool's answer is the call's result; /memory
 * and /forget are answered in their chat.  Above turn.c: it moves turns
 * on, as engine.c does.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "loop/engine.h"
#include "loop/memory.h"

/* the recall of t came (text, may be NULL): the turn goes on */
static int
recalled(struct oxi_loop *l, struct turn *t, const char *text)
{
	free(t->memory);
	t->memory = text && *text ? xstrdup(text) : NULL;
	t->state = WAIT_START;
	return oxi_turn_round(l, t);
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
oxi_memory_lost(struct oxi_loop *l, long long up)
{
	struct turn *t;
	int i;

again:
	for (t = l->turns; t; t = t->next) {
		if (t->state == WAIT_MEMORY && (!up || t->memdue -
		    l->mem->cfg->waitms <= up)) {
			if (recalled(l, t, NULL) < 0)
				return -1;
			goto again;
		}
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (!t->calls[i].done && (!up || t->calls[i].sent <=
			    up) && oxi_memory_which(t->calls[i].rec) >= 0) {
				if (oxi_turn_result(l, t, &t->calls[i], "memory "
				    "stopped before it answered", 1) < 0)
					return -1;
				goto again;
			}
	}
	return l->failed ? -1 : 0;
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
