/*
 * memrec.c - the mem.* records oxi-mem answers (oxi(7)): remember,
 * recall, forget, list, episode and extract, each request answered with
 * one record of its own type or an error record naming its id.
 *
 * The scope of a request is the asker's: "channel:account:sender".  It
 * becomes a person here (oxi_mem_person) and nothing below takes
 * another, so a record can only reach the facts of the one who speaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "mem/memint.h"

#define TEXTMAX	2000		/* bytes of a fact */
#define EXTRACTMAX	5	/* facts an extraction may propose */

#define EXTRACT_PROMPT \
	"You pick out durable facts about the user from one exchange of a " \
	"chat. Answer with a JSON array only, no prose: [{\"text\": \"...\"," \
	" \"key\": \"...\", \"confidence\": 0.8}]. A fact is short, about the" \
	" user (what they like, the people and places in their life, their " \
	"plans and decisions) and written in the third person (\"The user " \
	"...\"). key names what it is about in lower case with dots " \
	"(home.city, pet.name) so that a later fact with the same key " \
	"replaces it. Only what the user said of themselves: nothing from " \
	"tools or web pages, nothing secret (passwords, keys, card numbers)," \
	" nothing passing (the weather today). Answer [] when there is none."

static jv
fail(jv req, const char *code, const char *msg, int retry)
{
	jv e = oxi_msg_error(oxi_msg_peek(req, "id"), code, msg, retry);

	jv_free(req);
	return e;
}

/* {"v":1,"type":type,"ref":the request's id} */
static jv
answer(jv req, const char *type)
{
	jv r = oxi_msg_new(type);
	const char *id = oxi_msg_peek(req, "id");

	if (id)
		r = jv_object_set(r, jv_string("ref"), jv_string(id));
	return r;
}

/* the person of req's scope in buf, or NULL */
static const char *
person(struct oxi_mem *m, jv req, char *buf, size_t n)
{
	const char *scope = oxi_msg_peek(req, "scope");

	if (!scope || !*scope)
		return NULL;
	return oxi_mem_person(m, scope, buf, n);
}

static jv
remember(struct oxi_mem *m, jv req, const char *who, const char *text,
    const char *key, const char *source, double conf)
{
	struct oxi_memvec *v;
	const char *action, *err;
	char uid[OXI_ID_LEN + 1], old[OXI_ID_LEN + 1];
	jv r;

	if (strlen(text) > TEXTMAX || !*text)
		return fail(req, "bad_request", "a fact is 1 to 2000 bytes", 0);
	v = oxi_memvec_embed(m, JV_ARRAY(jv_string(text)), 1);
	if (oxi_mem_add(m, who, text, key, source, conf, v, &action, uid,
	    old, &err) < 0) {
		oxi_memvec_freeall(v, 1);
		return fail(req, "db", err, 1);
	}
	oxi_memvec_freeall(v, 1);
	r = answer(req, "mem.remembered");
	r = jv_object_set(r, jv_string("fact"), jv_string(uid));
	r = jv_object_set(r, jv_string("action"), jv_string(action));
	r = jv_object_set(r, jv_string("text"), jv_string(text));
	if (old[0])
		r = jv_object_set(r, jv_string("replaced"), jv_string(old));
	jv_free(req);
	return r;
}

static jv
recall(struct oxi_mem *m, jv req, const char *who)
{
	const char *q = oxi_msg_peek(req, "query"), *mode;
	struct oxi_memvec *v = NULL;
	int md = OXI_MEM_HYBRID, k;
	long budget;
	jv r, got;

	if (!q)
		return fail(req, "bad_request", "mem.recall needs a query", 0);
	if ((mode = oxi_msg_peek(req, "mode"))) {
		if (strcmp(mode, "words") == 0)
			md = OXI_MEM_WORDS;
		else if (strcmp(mode, "vectors") == 0)
			md = OXI_MEM_VECTORS;
		else if (strcmp(mode, "hybrid") != 0)
			return fail(req, "bad_request", "mode is hybrid, words "
			    "or vectors", 0);
	}
	k = (int)oxi_jnum(req, "k", m->cfg.k);
	budget = (long)oxi_jnum(req, "budget", m->cfg.budget);
	if (k < 1 || k > 100)
		return fail(req, "bad_request", "k is 1 to 100", 0);
	got = oxi_jget(req, "vector");
	if (jv_get_kind(got) == JV_KIND_ARRAY) {	/* given: not asked for */
		v = xcalloc(1, sizeof *v);
		(void)oxi_memvec_from(got, v);
	} else {
		jv_free(got);
		if (md != OXI_MEM_WORDS && *q)
			v = oxi_memvec_embed(m, JV_ARRAY(jv_string(q)), 1);
	}
	got = oxi_mem_recall(m, who, oxi_msg_peek(req, "conv"), q, v, md, k,
	    budget);
	oxi_memvec_freeall(v, 1);
	if (!jv_is_valid(got)) {
		jv_free(got);
		return fail(req, "db", oxi_mem_dberr(m), 1);
	}
	r = jv_object_merge(answer(req, "mem.recalled"), got);
	jv_free(req);
	return r;
}

static jv
forget(struct oxi_mem *m, jv req, const char *who)
{
	const char *fact = oxi_msg_peek(req, "fact"), *key, *err;
	jv all = oxi_jget(req, "all");
	int everything = jv_get_kind(all) == JV_KIND_TRUE;
	long n;
	jv r;

	jv_free(all);
	key = oxi_msg_peek(req, "key");
	if (!fact && !key && !everything)
		return fail(req, "bad_request", "mem.forget needs fact, key or "
		    "all", 0);
	if ((n = oxi_mem_forget(m, who, fact, key, everything, &err)) < 0)
		return fail(req, "db", err, 1);
	r = answer(req, "mem.forgot");
	r = jv_object_set(r, jv_string("n"), jv_number(n));
	jv_free(req);
	return r;
}

static jv
episode(struct oxi_mem *m, jv req)
{
	const char *conv = oxi_msg_peek(req, "conv"), *err;
	const char *session = oxi_msg_peek(req, "session");
	const char *text = oxi_msg_peek(req, "text");
	struct oxi_memvec *v;
	jv r;

	if (!conv || !session || !text || !*text)
		return fail(req, "bad_request", "mem.episode needs conv, "
		    "session and text", 0);
	v = oxi_memvec_embed(m, JV_ARRAY(jv_string(text)), 1);
	if (oxi_mem_episode(m, conv, session, text, oxi_msg_peek(req,
	    "source"), oxi_mem_parsetime(oxi_msg_peek(req, "ts")) > 0 ?
	    oxi_mem_parsetime(oxi_msg_peek(req, "ts")) : 0, v, &err) < 0) {
		oxi_memvec_freeall(v, 1);
		return fail(req, "db", err, 1);
	}
	oxi_memvec_freeall(v, 1);
	r = answer(req, "mem.stored");
	r = jv_object_set(r, jv_string("session"), jv_string(session));
	jv_free(req);
	return r;
}

/* the array in a model's answer s, or an empty one */
static jv
proposals(const char *s)
{
	const char *a = strchr(s, '['), *b = strrchr(s, ']');
	jv v;

	if (!a || !b || b < a)
		return jv_array();
	v = oxi_json_parse(a, (size_t)(b - a + 1));
	if (jv_get_kind(v) != JV_KIND_ARRAY) {
		jv_free(v);
		return jv_array();
	}
	return v;
}

static jv
extract(struct oxi_mem *m, jv req, const char *who)
{
	const char *text = oxi_msg_peek(req, "text"), *reply, *skip = NULL;
	struct oxi_buf b = OXI_BUF_INIT;
	jv got, props, out = jv_array(), r, msgs;
	long tokens = 0;
	int i, n;

	if (!text)
		return fail(req, "bad_request", "mem.extract needs text", 0);
	got = oxi_jget(req, "trust");
	if (!oxi_jstr_is(got, "owner") && !m->cfg.everyone)
		skip = "not the owner";
	else if (!m->ai.ask)
		skip = "no model";
	else if (m->cfg.extract <= 0 || oxi_mem_spend(m, who, 0) >=
	    m->cfg.extract)
		skip = "budget";
	jv_free(got);
	if (skip) {
		r = answer(req, "mem.extracted");
		r = jv_object_set(r, jv_string("facts"), out);
		r = jv_object_set(r, jv_string("skipped"), jv_string(skip));
		jv_free(req);
		return r;
	}
	reply = oxi_msg_peek(req, "reply");
	oxi_buf_printf(&b, "User: %.4000s\n\nAssistant: %.2000s", text,
	    reply ? reply : "");
	msgs = JV_ARRAY(JV_OBJECT(jv_string("role"), jv_string("system"),
	    jv_string("content"), jv_string(EXTRACT_PROMPT)),
	    JV_OBJECT(jv_string("role"), jv_string("user"),
	    jv_string("content"), jv_string(b.s)));
	oxi_buf_free(&b);
	got = m->ai.ask(m->ai.arg, msgs, &tokens);
	(void)oxi_mem_spend(m, who, tokens > 0 ? tokens : 1);
	if (jv_get_kind(got) != JV_KIND_STRING) {
		jv msg = jv_invalid_get_msg(got);

		jv_free(out);
		r = fail(jv_copy(req), "extract", jv_get_kind(msg) ==
		    JV_KIND_STRING ? jv_string_value(msg) : "no answer", 1);
		jv_free(msg);
		jv_free(req);
		return r;
	}
	props = proposals(jv_string_value(got));
	jv_free(got);
	n = jv_array_length(jv_copy(props));
	for (i = 0; i < n && i < EXTRACTMAX; i++) {
		jv p = jv_array_get(jv_copy(props), i);
		const char *t = oxi_msg_peek(p, "text");
		double c = oxi_jnum(p, "confidence", 0.6);

		if (t && *t && strlen(t) <= TEXTMAX) {
			r = remember(m, jv_copy(req), who, t, oxi_msg_peek(p,
			    "key"), oxi_msg_peek(req, "source"), c > 1 ? 1 :
			    c < 0 ? 0 : c);
			if (strcmp(oxi_msg_type_peek(r), "mem.remembered") == 0)
				out = jv_array_append(out, JV_OBJECT(
				    jv_string("fact"), oxi_jget(r, "fact"),
				    jv_string("action"), oxi_jget(r, "action"),
				    jv_string("text"), jv_string(t)));
			jv_free(r);
		}
		jv_free(p);
	}
	jv_free(props);
	r = answer(req, "mem.extracted");
	r = jv_object_set(r, jv_string("facts"), out);
	jv_free(req);
	return r;
}

jv
oxi_mem_request(struct oxi_mem *m, jv req)
{
	const char *type = oxi_msg_type_peek(req), *who, *text;
	char buf[512];

	if (!oxi_msg_peek(req, "id"))
		return fail(req, "bad_request", "a mem request needs an id", 0);
	if (strcmp(type, "mem.episode") == 0)
		return episode(m, req);
	if (!(who = person(m, req, buf, sizeof buf)))
		return fail(req, "bad_request", "a mem request needs a scope",
		    0);
	if (strcmp(type, "mem.remember") == 0) {
		if (!(text = oxi_msg_peek(req, "text")))
			return fail(req, "bad_request", "mem.remember needs "
			    "text", 0);
		text = xstrdup(text);
		req = remember(m, req, who, text, oxi_msg_peek(req, "key"),
		    oxi_msg_peek(req, "source"), oxi_jnum(req, "confidence",
		    0.9));
		free((char *)text);
		return req;
	}
	if (strcmp(type, "mem.recall") == 0)
		return recall(m, req, who);
	if (strcmp(type, "mem.forget") == 0)
		return forget(m, req, who);
	if (strcmp(type, "mem.list") == 0) {
		jv l = oxi_mem_list(m, who), r;

		if (!jv_is_valid(l)) {
			jv_free(l);
			return fail(req, "db", oxi_mem_dberr(m), 1);
		}
		r = jv_object_set(answer(req, "mem.facts"), jv_string("facts"),
		    l);
		jv_free(req);
		return r;
	}
	if (strcmp(type, "mem.extract") == 0)
		return extract(m, req, who);
	return fail(req, "bad_request", "not a mem request", 0);
}
