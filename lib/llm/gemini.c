/*
 * gemini.c - the Google Gemini dialect (generateContent)
 *
 * The body: system messages become systemInstruction; the others become
 * contents with roles user and model, consecutive ones of a role merged;
 * tool calls are functionCall parts (with the thoughtSignature the model
 * gave them), tool results functionResponse parts named after the call
 * they answer.  Thought parts that carry a signature are sent back as
 * they came.  "thinking":{"budget_tokens":N} (or a number, or
 * {"effort":E}) in the request sets thinkingConfig.  Attachments become
 * inlineData parts, or fileData for a URL.
 *
 * The reply: an event stream of GenerateContentResponse objects, or one
 * of them (or an array) when not streamed.  Function calls arrive whole.
 * A finishReason or a promptFeedback.blockReason ends the reply; an error
 * object, in an event or as bare JSON lines after the events, fails it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

#define RAWMAX	(64 * 1024)	/* bytes of non-event lines kept */

struct gem {
	struct oxi_llm_wire w;	/* JSON or event stream */
	struct oxi_buf line;	/* the line being read, to spot non-events */
	struct oxi_buf raw;	/* lines that are not event fields */
	struct oxi_buf thought;	/* thought summary text not yet stored */
	long ncall;		/* function calls seen */
	struct oxi_llm_reply r;	/* the reply */
};

/* an inlineData or fileData part of our attachment part */
static jv
attachment(const struct oxi_llm_att *a)
{
	jv d = jv_object();

	if (a->mime)
		d = jv_object_set(d, jv_string("mimeType"), jv_string(a->mime));
	if (a->data)
		return jv_object_set(jv_object(), jv_string("inlineData"),
		    jv_object_set(d, jv_string("data"), jv_string(a->data)));
	return jv_object_set(jv_object(), jv_string("fileData"),
	    jv_object_set(d, jv_string("fileUri"), jv_string(a->url)));
}

/* content (consumed) as parts appended to out */
static jv
parts(jv out, jv content)
{
	struct oxi_llm_att a;
	jv p, t;
	int i, n;

	if (oxi_jis(content, JV_KIND_STRING)) {
		if (jv_string_length_bytes(jv_copy(content)) > 0)
			return jv_array_append(out,
			    oxi_llm_textpart(NULL, content));
		jv_free(content);
		return out;
	}
	if (!oxi_jis(content, JV_KIND_ARRAY)) {
		jv_free(content);
		return out;
	}
	n = jv_array_length(jv_copy(content));
	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(content), i);
		t = oxi_jget(p, "type");
		if (oxi_jis(p, JV_KIND_STRING))
			out = parts(out, p);
		else if (oxi_llm_att(p, &a)) {
			out = jv_array_append(out, attachment(&a));
			jv_free(p);
		} else if (oxi_jis(t, JV_KIND_STRING)) {	/* OpenAI-style parts */
			out = parts(out, oxi_jget(p, "text"));
			jv_free(p);
		} else
			out = jv_array_append(out, p);	/* Gemini parts */
		jv_free(t);
	}
	jv_free(content);
	return out;
}

/* appends a content of role with parts ps (consumed) to cs, merged into
 * the last one if it has the same role */
static jv
push(jv cs, const char *role, jv ps)
{
	return oxi_llm_push(cs, role, "parts", ps);
}

/* the name of the call id in the messages before i, or invalid */
static jv
callname(jv msgs, int i, const char *id)
{
	jv m, tcs, tc, v, name;
	int j, k, n;

	for (j = i - 1; j >= 0; j--) {
		m = jv_array_get(jv_copy(msgs), j);
		tcs = oxi_jget(m, "tool_calls");
		n = oxi_jis(tcs, JV_KIND_ARRAY) ?
		    jv_array_length(jv_copy(tcs)) : 0;
		for (k = 0; k < n; k++) {
			tc = jv_array_get(jv_copy(tcs), k);
			v = oxi_jget(tc, "id");
			if (oxi_jstr_is(v, id)) {
				name = oxi_jget(tc, "name");
				jv_free(v);
				jv_free(tc);
				jv_free(tcs);
				jv_free(m);
				return name;
			}
			jv_free(v);
			jv_free(tc);
		}
		jv_free(tcs);
		jv_free(m);
	}
	return jv_invalid();
}

static jv
calls(jv ps, jv tcs, int i)
{
	jv tc, name, args, fc, p, v;
	int j, n = jv_array_length(jv_copy(tcs));

	for (j = 0; j < n; j++) {
		tc = jv_array_get(jv_copy(tcs), j);
		name = oxi_jget(tc, "name");
		if (!oxi_jis(name, JV_KIND_STRING)) {
			jv_free(name);
			jv_free(tc);
			jv_free(tcs);
			jv_free(ps);
			return oxi_jbad("messages[%d]: a tool call needs"
			    " \"name\"", i);
		}
		args = oxi_llm_call_args(tc);
		fc = jv_object_set(jv_object(), jv_string("name"), name);
		fc = jv_object_set(fc, jv_string("args"), args);
		p = jv_object_set(jv_object(), jv_string("functionCall"), fc);
		v = oxi_jget(tc, "signature");
		if (oxi_jis(v, JV_KIND_STRING))
			p = jv_object_set(p, jv_string("thoughtSignature"), v);
		else
			jv_free(v);
		ps = jv_array_append(ps, p);
		jv_free(tc);
	}
	jv_free(tcs);
	return ps;
}

/* thought parts of an assistant message worth sending back: those with
 * a signature */
static jv
thoughts(jv m)
{
	jv th = oxi_llm_thinking(m, "gemini"), out = jv_array(), p, s;
	int i, n = jv_array_length(jv_copy(th));

	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(th), i);
		s = oxi_jget(p, "thoughtSignature");
		if (oxi_jis(s, JV_KIND_STRING))
			out = jv_array_append(out, p);
		else
			jv_free(p);
		jv_free(s);
	}
	jv_free(th);
	return out;
}

/* a JSON Schema (consumed) without the keys Gemini's schema refuses */
static jv
schema(jv s)
{
	static const char *const drop[] = {
		"$schema", "$id", "additionalProperties", NULL
	};
	jv keys, k;
	int i, n;

	if (oxi_jis(s, JV_KIND_ARRAY)) {
		n = jv_array_length(jv_copy(s));
		for (i = 0; i < n; i++)
			s = jv_array_set(jv_copy(s), i,
			    schema(jv_array_get(s, i)));
		return s;
	}
	if (!oxi_jis(s, JV_KIND_OBJECT))
		return s;
	for (i = 0; drop[i]; i++)
		s = jv_object_delete(s, jv_string(drop[i]));
	keys = jv_keys(jv_copy(s));
	n = jv_array_length(jv_copy(keys));
	for (i = 0; i < n; i++) {
		k = jv_array_get(jv_copy(keys), i);
		s = jv_object_set(s, jv_copy(k),
		    schema(jv_object_get(jv_copy(s), k)));
	}
	jv_free(keys);
	return s;
}

static jv
tools(jv ts)
{
	jv out = jv_array(), t, o, v;
	int i, n = jv_array_length(jv_copy(ts));

	for (i = 0; i < n; i++) {
		t = oxi_llm_tool_fn(jv_array_get(jv_copy(ts), i));
		o = oxi_llm_tool_head(jv_object(), t, i);
		if (!jv_is_valid(o)) {
			jv_free(t);
			jv_free(ts);
			jv_free(out);
			return o;
		}
		v = oxi_jget(t, "parameters");
		if (oxi_jis(v, JV_KIND_OBJECT) &&
		    jv_object_length(jv_copy(v)) > 0)
			o = jv_object_set(o, jv_string("parameters"),
			    schema(v));
		else
			jv_free(v);
		out = jv_array_append(out, o);
		jv_free(t);
	}
	jv_free(ts);
	return jv_array_append(jv_array(), jv_object_set(jv_object(),
	    jv_string("functionDeclarations"), out));
}

static jv
gencfg(jv req)
{
	static const char *const map[][2] = {
		{ "max_tokens", "maxOutputTokens" },
		{ "temperature", "temperature" },
		{ "top_p", "topP" },
		{ "top_k", "topK" },
		{ "seed", "seed" },
		{ NULL, NULL }
	};
	jv g = jv_object(), v, b;
	int i, e;

	for (i = 0; map[i][0]; i++) {
		v = oxi_jget(req, map[i][0]);
		if (oxi_jis(v, JV_KIND_NUMBER))
			g = jv_object_set(g, jv_string(map[i][1]), v);
		else
			jv_free(v);
	}
	v = oxi_jget(req, "stop");
	if (oxi_jis(v, JV_KIND_STRING))
		v = jv_array_append(jv_array(), v);
	if (oxi_jis(v, JV_KIND_ARRAY))
		g = jv_object_set(g, jv_string("stopSequences"), v);
	else
		jv_free(v);
	v = oxi_jget(req, "thinking");
	b = oxi_jis(v, JV_KIND_NUMBER) ? jv_copy(v) :
	    oxi_jget(v, "budget_tokens");
	if (!oxi_jis(b, JV_KIND_NUMBER) && (e = oxi_llm_effort(v)) >= 0) {
		jv_free(b);
		b = jv_number(e);
	}
	if (oxi_jis(v, JV_KIND_TRUE) || oxi_jis(b, JV_KIND_NUMBER)) {
		jv_free(v);
		v = jv_object_set(jv_object(), jv_string("includeThoughts"),
		    jv_bool(!oxi_jis(b, JV_KIND_NUMBER) ||
		    jv_number_value(b) > 0));
		if (oxi_jis(b, JV_KIND_NUMBER))
			v = jv_object_set(v, jv_string("thinkingBudget"),
			    jv_copy(b));
		g = jv_object_set(g, jv_string("thinkingConfig"), v);
	} else
		jv_free(v);
	jv_free(b);
	return g;
}

static jv
body(jv req, const struct oxi_llm_target *t)
{
	jv msgs, m, role, sys = jv_array(), out = jv_array(), ps, v, o, name;
	const char *r;
	int i, n;

	(void)t;
	msgs = oxi_llm_messages(req);
	if (!jv_is_valid(msgs)) {
		jv_free(sys);
		jv_free(out);
		return msgs;
	}
	n = jv_array_length(jv_copy(msgs));
	for (i = 0; i < n; i++) {
		m = jv_array_get(jv_copy(msgs), i);
		role = oxi_jget(m, "role");
		r = oxi_jis(role, JV_KIND_STRING) ? jv_string_value(role) :
		    NULL;
		if (!oxi_jis(m, JV_KIND_OBJECT) || !r) {
			o = oxi_jbad("messages[%d] has no \"role\"", i);
			goto fail;
		}
		if (strcmp(r, "system") == 0 || strcmp(r, "developer") == 0) {
			sys = parts(sys, oxi_jget(m, "content"));
		} else if (strcmp(r, "user") == 0) {
			out = push(out, "user", parts(jv_array(),
			    oxi_jget(m, "content")));
		} else if (strcmp(r, "assistant") == 0) {
			ps = parts(thoughts(m), oxi_jget(m, "content"));
			v = oxi_jget(m, "tool_calls");
			if (oxi_jis(v, JV_KIND_ARRAY))
				ps = calls(ps, v, i);
			else
				jv_free(v);
			if (!jv_is_valid(ps)) {
				o = ps;
				goto fail;
			}
			out = push(out, "model", ps);
		} else if (strcmp(r, "tool") == 0) {
			v = oxi_jget(m, "tool_call_id");
			name = oxi_jis(v, JV_KIND_STRING) ? callname(msgs, i,
			    jv_string_value(v)) : jv_invalid();
			jv_free(v);
			if (!oxi_jis(name, JV_KIND_STRING)) {
				jv_free(name);
				name = oxi_jget(m, "name");
			}
			if (!oxi_jis(name, JV_KIND_STRING)) {
				jv_free(name);
				o = oxi_jbad("messages[%d]: a tool message"
				    " needs the \"tool_call_id\" of an earlier"
				    " call", i);
				goto fail;
			}
			v = oxi_jget(m, "content");
			if (oxi_jis(v, JV_KIND_NULL) || !jv_is_valid(v)) {
				jv_free(v);
				v = jv_string("");
			} else if (!oxi_jis(v, JV_KIND_STRING))
				v = jv_dump_string(v, 0);
			o = oxi_jget(m, "is_error");
			v = jv_object_set(jv_object(), jv_string(oxi_jis(o,
			    JV_KIND_TRUE) ? "error" : "output"), v);
			jv_free(o);
			o = jv_object_set(jv_object(), jv_string("name"), name);
			o = jv_object_set(o, jv_string("response"), v);
			o = jv_object_set(jv_object(),
			    jv_string("functionResponse"), o);
			out = push(out, "user", jv_array_append(jv_array(), o));
		} else {
			o = oxi_jbad("messages[%d] has an unknown role"
			    " '%.40s'", i, r);
			goto fail;
		}
		jv_free(role);
		jv_free(m);
	}
	jv_free(msgs);
	if (jv_array_length(jv_copy(out)) == 0) {
		jv_free(sys);
		jv_free(out);
		return oxi_jbad("no user or assistant message to send");
	}
	o = jv_object();
	if (jv_array_length(jv_copy(sys)) > 0)
		o = jv_object_set(o, jv_string("systemInstruction"),
		    jv_object_set(jv_object(), jv_string("parts"), sys));
	else
		jv_free(sys);
	o = jv_object_set(o, jv_string("contents"), out);
	v = oxi_jget(req, "tools");
	if (oxi_jis(v, JV_KIND_ARRAY) &&
	    jv_array_length(jv_copy(v)) > 0) {
		v = tools(v);
		if (!jv_is_valid(v)) {
			jv_free(o);
			return v;
		}
		o = jv_object_set(o, jv_string("tools"), v);
	} else
		jv_free(v);
	v = gencfg(req);
	if (jv_object_length(jv_copy(v)) > 0)
		o = jv_object_set(o, jv_string("generationConfig"), v);
	else
		jv_free(v);
	return o;

fail:
	jv_free(role);
	jv_free(m);
	jv_free(msgs);
	jv_free(sys);
	jv_free(out);
	return o;
}

static void
url(struct oxi_buf *u, const struct oxi_llm_target *t, int stream)
{
	const char *m = t->model;

	if (strncmp(m, "models/", 7) == 0)
		m += 7;
	oxi_buf_cats(u, "/models/");
	for (; *m; m++)
		if (isalnum((unsigned char)*m) || strchr("-._~", *m))
			oxi_buf_putc(u, *m);
		else
			oxi_buf_printf(u, "%%%02X", (unsigned char)*m);
	oxi_buf_cats(u, stream ? ":streamGenerateContent?alt=sse" :
	    ":generateContent");
}

static void
usage(struct gem *g, jv u)
{
	double th;

	if (!oxi_jis(u, JV_KIND_OBJECT))
		return;
	th = oxi_jnum(u, "thoughtsTokenCount", 0);
	g->r.input = oxi_jnum(u, "promptTokenCount", 0) +
	    oxi_jnum(u, "toolUsePromptTokenCount", 0);
	g->r.output = oxi_jnum(u, "candidatesTokenCount", 0) + th;
	g->r.reasoning = th;
	g->r.cache_read = oxi_jnum(u, "cachedContentTokenCount", 0);
}

/* stores thought text gathered so far as one thought part */
static void
flushthought(struct gem *g, jv sig)
{
	jv p;

	if (g->thought.len == 0 && !oxi_jis(sig, JV_KIND_STRING)) {
		jv_free(sig);
		return;
	}
	p = jv_object_set(jv_object(), jv_string("text"),
	    jv_string_sized(g->thought.s ? g->thought.s : "",
	    (int)g->thought.len));
	if (g->thought.len > 0)
		p = jv_object_set(p, jv_string("thought"), jv_true());
	if (oxi_jis(sig, JV_KIND_STRING))
		p = jv_object_set(p, jv_string("thoughtSignature"), sig);
	else
		jv_free(sig);
	oxi_llm_reply_think(&g->r, "gemini", p);
	oxi_buf_reset(&g->thought);
}

static void
part(struct gem *g, jv p)
{
	jv text = oxi_jget(p, "text"), th = oxi_jget(p, "thought"), sig, fc, v;
	struct oxi_llm_call *c;

	sig = oxi_jget(p, "thoughtSignature");
	fc = oxi_jget(p, "functionCall");
	if (oxi_jis(fc, JV_KIND_OBJECT)) {
		flushthought(g, jv_null());
		c = oxi_llm_reply_call(&g->r, g->ncall++);
		v = oxi_jget(fc, "id");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&c->id, jv_string_value(v));
		jv_free(v);
		v = oxi_jget(fc, "name");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&c->name, jv_string_value(v));
		jv_free(v);
		v = oxi_jget(fc, "args");
		if (oxi_jis(v, JV_KIND_OBJECT)) {
			v = jv_dump_string(v, 0);
			oxi_buf_cats(&c->args, jv_string_value(v));
		} else if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
			oxi_buf_cats(&c->args, "[]");	/* not an object */
		jv_free(v);
		if (oxi_jis(sig, JV_KIND_STRING)) {
			jv_free(c->extra);
			c->extra = jv_object_set(jv_object(),
			    jv_string("signature"), jv_copy(sig));
		}
	} else if (oxi_jis(text, JV_KIND_STRING) && oxi_jis(th, JV_KIND_TRUE)) {
		oxi_buf_cat(&g->thought, jv_string_value(text),
		    jv_string_length_bytes(jv_copy(text)));
		if (oxi_jis(sig, JV_KIND_STRING))
			flushthought(g, jv_copy(sig));
	} else if (oxi_jis(text, JV_KIND_STRING)) {
		flushthought(g, jv_null());
		oxi_llm_reply_text(&g->r, jv_string_value(text),
		    jv_string_length_bytes(jv_copy(text)));
		/* a signature is kept as an empty part */
		if (oxi_jis(sig, JV_KIND_STRING))
			flushthought(g, jv_copy(sig));
	}
	jv_free(text);
	jv_free(th);
	jv_free(sig);
	jv_free(fc);
}

static const char *
finish(struct gem *g, const char *f)
{
	static const char *const refuse[] = {
		"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
		"SPII", "IMAGE_SAFETY", "LANGUAGE", "IMAGE_PROHIBITED_CONTENT",
		"IMAGE_RECITATION", NULL
	};
	int i;

	if (strcmp(f, "STOP") == 0)
		return "end";
	if (strcmp(f, "MAX_TOKENS") == 0)
		return "length";
	for (i = 0; refuse[i]; i++)
		if (strcmp(f, refuse[i]) == 0)
			return "refusal";
	if (strstr(f, "TOOL_CALL") || strstr(f, "FUNCTION_CALL"))
		oxi_llm_reply_fail(&g->r, "bad_tool_args", 0, "the model made"
		    " a bad tool call (%.60s)", f);
	else
		oxi_llm_reply_fail(&g->r, "provider", 0, "the model stopped"
		    " (%.60s)", f);
	return NULL;
}

/* one GenerateContentResponse (consumed): 0, or -1 once failed */
static int
response(struct gem *g, jv o)
{
	jv e, c, c0, ps, p, v, fb;
	int i, n;

	if (!oxi_jis(o, JV_KIND_OBJECT)) {
		jv_free(o);
		oxi_llm_reply_fail(&g->r, "bad_reply", 0, "a reply chunk is"
		    " not an object");
		return -1;
	}
	e = oxi_jget(o, "error");
	if (jv_is_valid(e) && !oxi_jis(e, JV_KIND_NULL)) {
		jv_free(o);
		oxi_llm_reply_perror(&g->r, e);
		return -1;
	}
	jv_free(e);
	c = oxi_jget(o, "candidates");
	fb = oxi_jget(o, "promptFeedback");
	v = oxi_jget(o, "usageMetadata");
	if (!oxi_jis(c, JV_KIND_ARRAY) && !oxi_jis(fb, JV_KIND_OBJECT) &&
	    !oxi_jis(v, JV_KIND_OBJECT)) {
		jv_free(c);
		jv_free(fb);
		jv_free(v);
		jv_free(o);
		oxi_llm_reply_fail(&g->r, "bad_reply", 0, "a reply chunk is"
		    " not a Gemini response");
		return -1;
	}
	usage(g, v);
	jv_free(v);
	v = oxi_jget(fb, "blockReason");
	if (oxi_jis(v, JV_KIND_STRING)) {
		g->r.stop = "refusal";
		g->r.ended = 1;
	}
	jv_free(v);
	jv_free(fb);
	c0 = oxi_jis(c, JV_KIND_ARRAY) && jv_array_length(jv_copy(c)) > 0 ?
	    jv_array_get(jv_copy(c), 0) : jv_null();
	v = oxi_jget(c0, "content");
	ps = oxi_jget(v, "parts");
	jv_free(v);
	n = oxi_jis(ps, JV_KIND_ARRAY) ? jv_array_length(jv_copy(ps)) : 0;
	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(ps), i);
		part(g, p);
		jv_free(p);
	}
	jv_free(ps);
	v = oxi_jget(c0, "finishReason");
	if (oxi_jis(v, JV_KIND_STRING) && !g->r.failed) {
		flushthought(g, jv_null());
		if (!g->r.stop || strcmp(g->r.stop, "end") == 0)
			g->r.stop = finish(g, jv_string_value(v));
		g->r.ended = 1;
	}
	jv_free(v);
	jv_free(c0);
	jv_free(c);
	jv_free(o);
	return g->r.failed ? -1 : 0;
}

static int
onevent(void *arg, const char *type, const char *data, size_t len)
{
	struct gem *g = arg;
	jv o;

	(void)type;
	if (len == 6 && memcmp(data, "[DONE]", 6) == 0)
		return 0;
	o = oxi_json_parse(data, len);
	if (!jv_is_valid(o)) {
		jv_free(o);
		oxi_llm_wire_badevent(&g->w, &g->r);
		return 1;
	}
	return response(g, o) < 0;
}

/* is this line a part of an event stream? */
static int
eventline(const char *s, size_t n)
{
	static const char *const f[] = { "data", "event", "id", "retry", NULL };
	size_t k;
	int i;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	if (n == 0 || s[0] == ':')
		return 1;
	for (i = 0; f[i]; i++) {
		k = strlen(f[i]);
		if (n >= k && memcmp(s, f[i], k) == 0 && (n == k ||
		    s[k] == ':'))
			return 1;
	}
	return 0;
}

/* keeps the lines that are not event fields, for a bare error object */
static void
rawlines(struct gem *g, const char *p, size_t n)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl ? (size_t)(nl - p) + 1 : n;
		if (g->line.len < RAWMAX)
			oxi_buf_cat(&g->line, p, k);
		p += k;
		n -= k;
		if (!nl)
			break;
		if (!eventline(g->line.s, g->line.len) &&
		    g->raw.len < RAWMAX)
			oxi_buf_cat(&g->raw, g->line.s, g->line.len);
		oxi_buf_reset(&g->line);
	}
}

static void *
reader(oxi_llm_text_fn text, void *arg)
{
	struct gem *g = xcalloc(1, sizeof *g);

	oxi_llm_wire_init(&g->w, onevent, g);
	oxi_llm_reply_init(&g->r, text, arg);
	return g;
}

static int
feed(void *rd, const char *p, size_t n)
{
	struct gem *g = rd;

	/* an event stream's lines that are not event fields are kept too */
	if (!g->r.failed && oxi_llm_sniff(&g->w.mode, "{[", &p, &n) ==
	    OXI_LLM_SSE)
		rawlines(g, p, n);
	return oxi_llm_wire_feed(&g->w, &g->r, "{[", p, n);
}

/* the bare JSON (consumed): an error object, or an array of responses */
static void
bare(struct gem *g, jv o)
{
	int i, n;

	if (oxi_jis(o, JV_KIND_ARRAY)) {
		n = jv_array_length(jv_copy(o));
		for (i = 0; i < n && !g->r.failed; i++)
			response(g, jv_array_get(jv_copy(o), i));
		jv_free(o);
		if (n == 0)
			oxi_llm_reply_fail(&g->r, "bad_reply", 0, "the reply"
			    " is an empty array");
	} else
		response(g, o);
}

static jv
result(void *rd, const char **code, int *retry)
{
	struct gem *g = rd;
	jv o;

	if (g->w.mode == OXI_LLM_JSON && !g->r.failed && g->w.json.len > 0) {
		o = oxi_json_parse(g->w.json.s, g->w.json.len);
		oxi_buf_reset(&g->w.json);
		if (!jv_is_valid(o)) {
			jv_free(o);
			oxi_llm_reply_fail(&g->r, "truncated", 1, "the reply"
			    " is not valid JSON");
		} else
			bare(g, o);
	}
	if (g->w.mode == OXI_LLM_SSE && !g->w.eof && !g->r.failed &&
	    g->line.len > 0)
		rawlines(g, "\n", 1);	/* a last line without its newline */
	oxi_llm_wire_end(&g->w, &g->r);
	if (g->w.mode == OXI_LLM_SSE && !g->r.failed && g->raw.len > 0) {
		/* JSON lines outside the events: an error after a 200 */
		o = oxi_json_parse(g->raw.s, g->raw.len);
		oxi_buf_reset(&g->raw);
		if (oxi_jis(o, JV_KIND_OBJECT) || oxi_jis(o, JV_KIND_ARRAY))
			bare(g, o);
		else {
			jv_free(o);
			oxi_llm_reply_fail(&g->r, "bad_reply", 0, "text that is"
			    " not an event in the reply stream");
		}
	}
	if (!g->r.failed)
		flushthought(g, jv_null());
	return oxi_llm_reply_result(&g->r, code, retry);
}

static int
complete(const void *rd)
{
	const struct gem *g = rd;

	return g->r.ended && !g->r.failed && g->raw.len == 0;
}

static void
rfree(void *rd)
{
	struct gem *g = rd;

	if (!g)
		return;
	oxi_llm_wire_free(&g->w);
	oxi_buf_free(&g->line);
	oxi_buf_free(&g->raw);
	oxi_buf_free(&g->thought);
	oxi_llm_reply_free(&g->r);
	free(g);
}

/* embeddings: models/M:batchEmbedContents */

static void
embedurl(struct oxi_buf *u, const struct oxi_llm_target *t)
{
	oxi_buf_printf(u, "/models/%s:batchEmbedContents", t->model);
}

static jv
embedbody(const struct oxi_llm_target *t, jv texts, jv dims)
{
	jv reqs = jv_array(), r;
	int i, n = jv_array_length(jv_copy(texts));

	for (i = 0; i < n; i++) {
		r = jv_object_set(jv_object(), jv_string("model"),
		    jv_string_fmt("models/%s", t->model));
		r = jv_object_set(r, jv_string("content"),
		    jv_object_set(jv_object(), jv_string("parts"),
		    jv_array_append(jv_array(), jv_object_set(jv_object(),
		    jv_string("text"), jv_array_get(jv_copy(texts), i)))));
		if (jv_get_kind(dims) == JV_KIND_NUMBER)
			r = jv_object_set(r, jv_string("outputDimensionality"),
			    jv_copy(dims));
		reqs = jv_array_append(reqs, r);
	}
	jv_free(texts);
	jv_free(dims);
	return jv_object_set(jv_object(), jv_string("requests"), reqs);
}

static jv
vectors(jv reply, int n, jv *tokens)
{
	(void)tokens;		/* not counted */
	return oxi_llm_vectors(oxi_jget(reply, "embeddings"), n, "values",
	    NULL);
}

static const struct oxi_llm_embed embed = {
	.url = embedurl,
	.body = embedbody,
	.vectors = vectors,
};

const struct oxi_llm_dialect oxi_dialect_gemini = {
	.name = "gemini",
	.auth = "x-goog-api-key: %s",
	.accept = "Accept: text/event-stream",
	.url = url,
	.body = body,
	.reader = reader, .feed = feed, .result = result,
	.complete = complete, .free = rfree,
	.embed = &embed,
};
