/*
 * llm_anthropic.c - the Anthropic Messages dialect
 *
 * The body: system messages become system blocks, the last one marked
 * for prompt caching; tools carry input_schema, the last one marked too;
 * an assistant message becomes its thinking blocks (sent back as they
 * came, signature included), a text block and tool_use blocks; tool
 * messages become tool_result blocks, and consecutive messages of one
 * role are merged, so the results of a parallel batch share one user
 * message.  max_tokens defaults to 4096; "thinking":{"budget_tokens":N}
 * (or a number) in the request turns extended thinking on.
 *
 * The reply: an event stream (message_start, content_block_start /
 * delta / stop, message_delta, message_stop, ping, error), or one
 * Message object when not streamed.  Tool input arrives as partial JSON
 * and is parsed at the end; a reply without message_stop is truncated.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"

#define MAX_TOKENS	4096	/* Anthropic requires max_tokens */

struct block {
	long index;		/* content block index */
	int kind;		/* B_* */
	struct oxi_buf a;	/* thinking text, or redacted data */
	struct oxi_buf sig;	/* thinking signature */
	jv input;		/* tool_use input given at the start */
};
enum { B_OTHER, B_TEXT, B_TOOL, B_THINK, B_REDACTED };

struct anth {
	struct oxi_sse sse;	/* event stream parser */
	int mode;		/* 0 undecided, 1 event stream, 2 JSON */
	int eof;		/* the reply ended: flushing the last event */
	struct oxi_buf json;	/* a JSON reply, whole */
	struct block *b;	/* content blocks open */
	size_t nb;		/* used */
	size_t capb;		/* allocated */
	struct oxi_llm_reply r;	/* the reply */
	double in;		/* input_tokens: those not cached */
};

static jv
get(jv obj, const char *key)
{
	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return jv_invalid();
	return jv_object_get(jv_copy(obj), jv_string(key));
}

static int
isk(jv v, jv_kind k)
{
	return jv_get_kind(v) == k;
}

static int
is(jv v, const char *s)
{
	return isk(v, JV_KIND_STRING) && strcmp(jv_string_value(v), s) == 0;
}

static jv bad(const char *, ...) OXI_PRINTF(1, 2);

static jv
bad(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return jv_invalid_with_msg(jv_string(buf));
}

static jv
textblock(jv s)
{
	return jv_object_set(jv_object_set(jv_object(), jv_string("type"),
	    jv_string("text")), jv_string("text"), s);
}

/* content (consumed) as blocks appended to out: a string, or an array of
 * parts where OpenAI-style text parts become text blocks */
static jv
blocks(jv out, jv content)
{
	jv p, t;
	int i, n;

	if (isk(content, JV_KIND_STRING)) {
		if (jv_string_length_bytes(jv_copy(content)) > 0)
			return jv_array_append(out, textblock(content));
		jv_free(content);
		return out;
	}
	if (!isk(content, JV_KIND_ARRAY)) {
		jv_free(content);
		return out;
	}
	n = jv_array_length(jv_copy(content));
	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(content), i);
		t = get(p, "type");
		if (is(t, "text") || is(t, "input_text") ||
		    is(t, "output_text")) {
			out = blocks(out, get(p, "text"));
			jv_free(p);
		} else if (isk(p, JV_KIND_STRING))
			out = blocks(out, p);
		else
			out = jv_array_append(out, p);
		jv_free(t);
	}
	jv_free(content);
	return out;
}

/* the text of content (consumed) for a tool result */
static jv
resultcontent(jv c)
{
	if (isk(c, JV_KIND_STRING) || isk(c, JV_KIND_ARRAY))
		return c;
	if (!jv_is_valid(c) || isk(c, JV_KIND_NULL)) {
		jv_free(c);
		return jv_string("");
	}
	return jv_dump_string(c, 0);
}

/* appends a message of role with blocks bl (consumed) to msgs, merged
 * into the last one if it has the same role */
static jv
push(jv msgs, const char *role, jv bl)
{
	int n = jv_array_length(jv_copy(msgs));
	jv last, r, c;

	if (jv_array_length(jv_copy(bl)) == 0) {
		jv_free(bl);
		return msgs;
	}
	if (n > 0) {
		last = jv_array_get(jv_copy(msgs), n - 1);
		r = get(last, "role");
		if (is(r, role)) {
			c = jv_array_concat(get(last, "content"), bl);
			jv_free(r);
			return jv_array_set(msgs, n - 1, jv_object_set(last,
			    jv_string("content"), c));
		}
		jv_free(r);
		jv_free(last);
	}
	return jv_array_append(msgs, jv_object_set(jv_object_set(jv_object(),
	    jv_string("role"), jv_string(role)), jv_string("content"), bl));
}

static jv
toolcalls(jv bl, jv tcs, int i)
{
	jv tc, id, name, args, b;
	int j, n = jv_array_length(jv_copy(tcs));

	for (j = 0; j < n; j++) {
		tc = jv_array_get(jv_copy(tcs), j);
		id = get(tc, "id");
		name = get(tc, "name");
		if (!isk(id, JV_KIND_STRING) || !isk(name, JV_KIND_STRING)) {
			jv_free(tc);
			jv_free(id);
			jv_free(name);
			jv_free(tcs);
			jv_free(bl);
			return bad("messages[%d]: a tool call needs \"id\" and"
			    " \"name\"", i);
		}
		args = get(tc, "args");
		if (isk(args, JV_KIND_STRING)) {
			b = args;
			args = jv_parse(jv_string_value(b));
			jv_free(b);
		}
		if (!isk(args, JV_KIND_OBJECT)) {
			jv_free(args);
			args = jv_object();
		}
		b = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("tool_use"));
		b = jv_object_set(b, jv_string("id"), id);
		b = jv_object_set(b, jv_string("name"), name);
		b = jv_object_set(b, jv_string("input"), args);
		bl = jv_array_append(bl, b);
		jv_free(tc);
	}
	jv_free(tcs);
	return bl;
}

static jv
ephemeral(jv b)
{
	return jv_object_set(b, jv_string("cache_control"),
	    jv_object_set(jv_object(), jv_string("type"),
	    jv_string("ephemeral")));
}

/* marks the last element of array a for caching */
static jv
cachelast(jv a)
{
	int n = jv_array_length(jv_copy(a));
	jv last;

	if (n == 0)
		return a;
	last = jv_array_get(jv_copy(a), n - 1);
	return jv_array_set(a, n - 1, ephemeral(last));
}

static jv
tools(jv ts)
{
	jv out = jv_array(), t, fn, name, o, v;
	int i, n = jv_array_length(jv_copy(ts));

	for (i = 0; i < n; i++) {
		t = jv_array_get(jv_copy(ts), i);
		fn = get(t, "function");
		if (isk(fn, JV_KIND_OBJECT)) {	/* OpenAI's shape */
			jv_free(t);
			t = fn;
		} else
			jv_free(fn);
		name = get(t, "name");
		if (!isk(name, JV_KIND_STRING)) {
			jv_free(name);
			jv_free(t);
			jv_free(ts);
			jv_free(out);
			return bad("tools[%d] has no \"name\"", i);
		}
		o = jv_object_set(jv_object(), jv_string("name"), name);
		v = get(t, "description");
		if (isk(v, JV_KIND_STRING))
			o = jv_object_set(o, jv_string("description"), v);
		else
			jv_free(v);
		v = get(t, "input_schema");
		if (!isk(v, JV_KIND_OBJECT)) {
			jv_free(v);
			v = get(t, "parameters");
		}
		if (!isk(v, JV_KIND_OBJECT)) {
			jv_free(v);
			v = jv_object_set(jv_object(), jv_string("type"),
			    jv_string("object"));
			v = jv_object_set(v, jv_string("properties"),
			    jv_object());
		}
		o = jv_object_set(o, jv_string("input_schema"), v);
		out = jv_array_append(out, o);
		jv_free(t);
	}
	jv_free(ts);
	return out;
}

/* "thinking" of the request (borrowed): null, or the API's object */
static jv
thinking(jv req, double *budget)
{
	jv v = get(req, "thinking"), b;

	*budget = 0;
	if (isk(v, JV_KIND_NUMBER)) {
		*budget = jv_number_value(v);
		jv_free(v);
		v = jv_object_set(jv_object(), jv_string("budget_tokens"),
		    jv_number(*budget));
	}
	if (isk(v, JV_KIND_TRUE)) {
		jv_free(v);
		v = jv_object_set(jv_object(), jv_string("budget_tokens"),
		    jv_number(2048));
	}
	if (!isk(v, JV_KIND_OBJECT)) {
		jv_free(v);
		return jv_null();
	}
	b = get(v, "budget_tokens");
	if (isk(b, JV_KIND_NUMBER))
		*budget = jv_number_value(b);
	jv_free(b);
	b = get(v, "type");
	if (!jv_is_valid(b))
		v = jv_object_set(v, jv_string("type"), jv_string("enabled"));
	jv_free(b);
	return v;
}

static jv
body(jv req, const struct oxi_llm_target *t)
{
	static const char *const pass[] = {
		"temperature", "top_p", "top_k", "tool_choice", "metadata", NULL
	};
	jv msgs, m, role, sys = jv_array(), out = jv_array(), bl, v, o;
	const char *r;
	double budget, max;
	int i, n;

	msgs = get(req, "messages");
	if (!isk(msgs, JV_KIND_ARRAY) || jv_array_length(jv_copy(msgs)) == 0) {
		jv_free(msgs);
		jv_free(sys);
		jv_free(out);
		return bad("\"messages\" must be a non-empty array");
	}
	n = jv_array_length(jv_copy(msgs));
	for (i = 0; i < n; i++) {
		m = jv_array_get(jv_copy(msgs), i);
		role = get(m, "role");
		r = isk(role, JV_KIND_STRING) ? jv_string_value(role) : NULL;
		if (!isk(m, JV_KIND_OBJECT) || !r) {
			o = bad("messages[%d] has no \"role\"", i);
			goto fail;
		}
		if (strcmp(r, "system") == 0 || strcmp(r, "developer") == 0) {
			sys = blocks(sys, get(m, "content"));
		} else if (strcmp(r, "user") == 0) {
			out = push(out, "user", blocks(jv_array(),
			    get(m, "content")));
		} else if (strcmp(r, "assistant") == 0) {
			bl = oxi_llm_thinking(m, "anthropic");
			bl = blocks(bl, get(m, "content"));
			v = get(m, "tool_calls");
			if (isk(v, JV_KIND_ARRAY))
				bl = toolcalls(bl, v, i);
			else
				jv_free(v);
			if (!jv_is_valid(bl)) {
				o = bl;
				goto fail;
			}
			out = push(out, "assistant", bl);
		} else if (strcmp(r, "tool") == 0) {
			v = get(m, "tool_call_id");
			if (!isk(v, JV_KIND_STRING)) {
				jv_free(v);
				o = bad("messages[%d]: a tool message needs"
				    " \"tool_call_id\"", i);
				goto fail;
			}
			o = jv_object_set(jv_object(), jv_string("type"),
			    jv_string("tool_result"));
			o = jv_object_set(o, jv_string("tool_use_id"), v);
			o = jv_object_set(o, jv_string("content"),
			    resultcontent(get(m, "content")));
			v = get(m, "is_error");
			if (isk(v, JV_KIND_TRUE))
				o = jv_object_set(o, jv_string("is_error"), v);
			else
				jv_free(v);
			out = push(out, "user", jv_array_append(jv_array(), o));
		} else {
			o = bad("messages[%d] has an unknown role '%.40s'", i,
			    r);
			goto fail;
		}
		jv_free(role);
		jv_free(m);
	}
	jv_free(msgs);
	if (jv_array_length(jv_copy(out)) == 0) {
		jv_free(sys);
		jv_free(out);
		return bad("no user or assistant message to send");
	}
	o = jv_object_set(jv_object(), jv_string("model"),
	    jv_string(t->model));
	v = get(req, "max_tokens");
	max = isk(v, JV_KIND_NUMBER) ? jv_number_value(v) : MAX_TOKENS;
	jv_free(v);
	v = thinking(req, &budget);
	if (!isk(v, JV_KIND_NULL)) {
		if (budget > 0 && max <= budget)
			max = budget + MAX_TOKENS;
		o = jv_object_set(o, jv_string("thinking"), v);
	} else
		jv_free(v);
	o = jv_object_set(o, jv_string("max_tokens"), jv_number(max));
	if (jv_array_length(jv_copy(sys)) > 0)
		o = jv_object_set(o, jv_string("system"), cachelast(sys));
	else
		jv_free(sys);
	v = get(req, "tools");
	if (isk(v, JV_KIND_ARRAY) && jv_array_length(jv_copy(v)) > 0) {
		v = tools(v);
		if (!jv_is_valid(v)) {
			jv_free(o);
			jv_free(out);
			return v;
		}
		o = jv_object_set(o, jv_string("tools"), cachelast(v));
	} else
		jv_free(v);
	o = jv_object_set(o, jv_string("messages"), out);
	v = get(req, "stop");
	if (isk(v, JV_KIND_STRING))
		v = jv_array_append(jv_array(), v);
	if (isk(v, JV_KIND_ARRAY))
		o = jv_object_set(o, jv_string("stop_sequences"), v);
	else
		jv_free(v);
	for (i = 0; pass[i]; i++) {
		v = get(req, pass[i]);
		if (jv_is_valid(v) && !isk(v, JV_KIND_NULL))
			o = jv_object_set(o, jv_string(pass[i]), v);
		else
			jv_free(v);
	}
	v = get(req, "stream");
	o = jv_object_set(o, jv_string("stream"),
	    jv_bool(!isk(v, JV_KIND_FALSE)));
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
	(void)t;
	(void)stream;
	oxi_buf_cats(u, "/messages");
}

static double
num(jv obj, const char *key)
{
	jv v = get(obj, key);
	double d = isk(v, JV_KIND_NUMBER) ? jv_number_value(v) : -1;

	jv_free(v);
	return d;
}

/* usage (borrowed): the counts it holds replace ours; input counts the
 * cached tokens too */
static void
usage(struct anth *a, jv u)
{
	double d;

	if (!isk(u, JV_KIND_OBJECT))
		return;
	if ((d = num(u, "input_tokens")) >= 0)
		a->in = d;
	if ((d = num(u, "cache_read_input_tokens")) >= 0)
		a->r.cache_read = d;
	if ((d = num(u, "cache_creation_input_tokens")) >= 0)
		a->r.cache_write = d;
	if ((d = num(u, "output_tokens")) >= 0)
		a->r.output = d;
	a->r.input = a->in + a->r.cache_read + a->r.cache_write;
}

static const char *
stopword(const char *s)
{
	if (strcmp(s, "max_tokens") == 0 ||
	    strcmp(s, "model_context_window_exceeded") == 0)
		return "length";
	if (strcmp(s, "tool_use") == 0)
		return "tool_use";
	if (strcmp(s, "refusal") == 0)
		return "refusal";
	return "end";	/* end_turn, stop_sequence, pause_turn */
}

static struct block *
findblock(struct anth *a, long index)
{
	size_t i;

	for (i = 0; i < a->nb; i++)
		if (a->b[i].index == index)
			return &a->b[i];
	return NULL;
}

static void
dropblock(struct anth *a, struct block *b)
{
	oxi_buf_free(&b->a);
	oxi_buf_free(&b->sig);
	jv_free(b->input);
	*b = a->b[--a->nb];
}

static void
startblock(struct anth *a, long index, jv cb)
{
	jv type = get(cb, "type"), v;
	struct block *b;

	if ((b = findblock(a, index)))
		dropblock(a, b);
	if (a->nb == a->capb) {
		a->capb = a->capb ? a->capb * 2 : 4;
		a->b = xrealloc(a->b, a->capb * sizeof *a->b);
	}
	b = &a->b[a->nb++];
	memset(b, 0, sizeof *b);
	b->index = index;
	b->input = jv_null();
	if (is(type, "text")) {
		b->kind = B_TEXT;
		v = get(cb, "text");
		if (isk(v, JV_KIND_STRING))
			oxi_llm_reply_text(&a->r, jv_string_value(v),
			    jv_string_length_bytes(jv_copy(v)));
		jv_free(v);
	} else if (is(type, "tool_use")) {
		b->kind = B_TOOL;
		oxi_llm_reply_call(&a->r, index);
		v = get(cb, "id");
		if (isk(v, JV_KIND_STRING))
			oxi_buf_cats(&a->r.calls[a->r.ncalls - 1].id,
			    jv_string_value(v));
		jv_free(v);
		v = get(cb, "name");
		if (isk(v, JV_KIND_STRING))
			oxi_buf_cats(&a->r.calls[a->r.ncalls - 1].name,
			    jv_string_value(v));
		jv_free(v);
		jv_free(b->input);
		b->input = get(cb, "input");
	} else if (is(type, "thinking") || is(type, "redacted_thinking")) {
		b->kind = is(type, "thinking") ? B_THINK : B_REDACTED;
		v = get(cb, b->kind == B_THINK ? "thinking" : "data");
		if (isk(v, JV_KIND_STRING))
			oxi_buf_cats(&b->a, jv_string_value(v));
		jv_free(v);
		v = get(cb, "signature");
		if (isk(v, JV_KIND_STRING))
			oxi_buf_cats(&b->sig, jv_string_value(v));
		jv_free(v);
	} else
		b->kind = B_OTHER;	/* server tools, citations: skipped */
	jv_free(type);
}

static void
appendstr(struct oxi_buf *b, jv d, const char *key)
{
	jv v = get(d, key);

	if (isk(v, JV_KIND_STRING))
		oxi_buf_cat(b, jv_string_value(v),
		    jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
}

static void
deltablock(struct anth *a, long index, jv d)
{
	struct block *b = findblock(a, index);
	struct oxi_llm_call *c;
	jv type = get(d, "type"), v;

	if (!b) {
		jv_free(type);
		return;
	}
	if (is(type, "text_delta") && b->kind == B_TEXT) {
		v = get(d, "text");
		if (isk(v, JV_KIND_STRING))
			oxi_llm_reply_text(&a->r, jv_string_value(v),
			    jv_string_length_bytes(jv_copy(v)));
		jv_free(v);
	} else if (is(type, "input_json_delta") && b->kind == B_TOOL &&
	    (c = oxi_llm_reply_find(&a->r, index)))
		appendstr(&c->args, d, "partial_json");
	else if (is(type, "thinking_delta") && b->kind == B_THINK)
		appendstr(&b->a, d, "thinking");
	else if (is(type, "signature_delta") && b->kind == B_THINK)
		appendstr(&b->sig, d, "signature");
	jv_free(type);
}

static void
stopblock(struct anth *a, long index)
{
	struct block *b = findblock(a, index);
	struct oxi_llm_call *c;
	jv o, s;

	if (!b)
		return;
	if (b->kind == B_TOOL && (c = oxi_llm_reply_find(&a->r, index)) &&
	    c->args.len == 0 && isk(b->input, JV_KIND_OBJECT) &&
	    jv_object_length(jv_copy(b->input)) > 0) {
		s = jv_dump_string(jv_copy(b->input), 0);
		oxi_buf_cats(&c->args, jv_string_value(s));
		jv_free(s);
	} else if (b->kind == B_THINK) {
		o = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("thinking"));
		o = jv_object_set(o, jv_string("thinking"),
		    jv_string_sized(b->a.s ? b->a.s : "", (int)b->a.len));
		o = jv_object_set(o, jv_string("signature"),
		    jv_string_sized(b->sig.s ? b->sig.s : "",
		    (int)b->sig.len));
		oxi_llm_reply_think(&a->r, "anthropic", o);
	} else if (b->kind == B_REDACTED) {
		o = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("redacted_thinking"));
		o = jv_object_set(o, jv_string("data"),
		    jv_string_sized(b->a.s ? b->a.s : "", (int)b->a.len));
		oxi_llm_reply_think(&a->r, "anthropic", o);
	}
	dropblock(a, b);
}

static long
lnum(jv obj, const char *key)
{
	jv v = get(obj, key);
	long n = isk(v, JV_KIND_NUMBER) ? (long)jv_number_value(v) : -1;

	jv_free(v);
	return n;
}

/* one event's data (consumed): 0, or -1 once failed */
static int
event(struct anth *a, jv e)
{
	jv type = get(e, "type"), v, d;

	if (!isk(e, JV_KIND_OBJECT) || !isk(type, JV_KIND_STRING)) {
		jv_free(type);
		jv_free(e);
		oxi_llm_reply_fail(&a->r, "bad_reply", 1, "an event without a"
		    " type in the reply stream");
		return -1;
	}
	if (a->r.ended) {
		;	/* nothing counts after message_stop */
	} else if (is(type, "message_start")) {
		v = get(e, "message");
		d = get(v, "usage");
		usage(a, d);
		jv_free(d);
		jv_free(v);
	} else if (is(type, "content_block_start")) {
		v = get(e, "content_block");
		startblock(a, lnum(e, "index"), v);
		jv_free(v);
	} else if (is(type, "content_block_delta")) {
		v = get(e, "delta");
		deltablock(a, lnum(e, "index"), v);
		jv_free(v);
	} else if (is(type, "content_block_stop")) {
		stopblock(a, lnum(e, "index"));
	} else if (is(type, "message_delta")) {
		v = get(e, "delta");
		d = get(v, "stop_reason");
		if (isk(d, JV_KIND_STRING))
			a->r.stop = stopword(jv_string_value(d));
		jv_free(d);
		jv_free(v);
		v = get(e, "usage");
		usage(a, v);
		jv_free(v);
	} else if (is(type, "message_stop")) {
		a->r.ended = 1;
	} else if (is(type, "error")) {
		oxi_llm_reply_perror(&a->r, get(e, "error"));
	}
	jv_free(type);
	jv_free(e);
	return a->r.failed ? -1 : 0;
}

static int
onevent(void *arg, const char *type, const char *data, size_t len)
{
	struct anth *a = arg;
	jv e;

	(void)type;	/* the data's own "type" says the same */
	e = jv_parse_sized(data, (int)len);
	if (!jv_is_valid(e)) {
		jv_free(e);
		if (a->eof)
			oxi_llm_reply_fail(&a->r, "truncated", 1, "the reply"
			    " stream ended inside an event");
		else
			oxi_llm_reply_fail(&a->r, "bad_reply", 1, "invalid"
			    " JSON in the reply stream");
		return 1;
	}
	return event(a, e) < 0;
}

/* a whole Message (consumed) */
static void
whole(struct anth *a, jv m)
{
	jv type = get(m, "type"), c, b, v;
	int i, n;

	if (is(type, "error")) {
		oxi_llm_reply_perror(&a->r, get(m, "error"));
	} else if (!is(type, "message")) {
		oxi_llm_reply_fail(&a->r, "bad_reply", 1, "the reply is not a"
		    " message");
	} else {
		v = get(m, "usage");
		usage(a, v);
		jv_free(v);
		c = get(m, "content");
		n = isk(c, JV_KIND_ARRAY) ? jv_array_length(jv_copy(c)) : 0;
		for (i = 0; i < n; i++) {
			b = jv_array_get(jv_copy(c), i);
			startblock(a, i, b);
			v = get(b, "type");
			if (is(v, "thinking") || is(v, "redacted_thinking") ||
			    is(v, "tool_use"))
				stopblock(a, i);
			else if (findblock(a, i))
				dropblock(a, findblock(a, i));
			jv_free(v);
			jv_free(b);
		}
		jv_free(c);
		v = get(m, "stop_reason");
		if (isk(v, JV_KIND_STRING))
			a->r.stop = stopword(jv_string_value(v));
		jv_free(v);
		a->r.ended = 1;
	}
	jv_free(type);
	jv_free(m);
}

static void *
reader(oxi_llm_text_fn text, void *arg)
{
	struct anth *a = xcalloc(1, sizeof *a);

	oxi_sse_init(&a->sse, onevent, a);
	oxi_llm_reply_init(&a->r, text, arg);
	return a;
}

static int
feed(void *rd, const char *p, size_t n)
{
	struct anth *a = rd;

	if (a->r.failed)
		return -1;
	while (a->mode == 0 && n > 0) {
		if (isspace((unsigned char)*p)) {
			p++;
			n--;
		} else
			a->mode = *p == '{' ? 2 : 1;
	}
	if (n == 0)
		return 0;
	if (a->mode == 2) {
		oxi_buf_cat(&a->json, p, n);
		return 0;
	}
	if (oxi_sse_feed(&a->sse, p, n) < 0) {
		if (a->sse.over)
			oxi_llm_reply_fail(&a->r, "bad_reply", 0, "an event"
			    " over the size cap");
		return -1;
	}
	return 0;
}

static jv
result(void *rd, const char **code, int *retry)
{
	struct anth *a = rd;
	jv m;

	if (a->mode == 2 && !a->r.failed && !a->r.ended) {
		m = jv_parse_sized(a->json.s, (int)a->json.len);
		if (!jv_is_valid(m)) {
			jv_free(m);
			oxi_llm_reply_fail(&a->r, "truncated", 1, "the reply"
			    " is not valid JSON");
		} else
			whole(a, m);
	}
	if (a->mode == 1 && !a->eof && !a->r.failed) {
		/* an event the stream ended without its blank line */
		a->eof = 1;
		oxi_sse_feed(&a->sse, "\n\n", 2);
	}
	if (!a->r.failed && a->mode == 0)
		oxi_llm_reply_fail(&a->r, "truncated", 1, "the reply was"
		    " empty");
	return oxi_llm_reply_result(&a->r, code, retry);
}

static int
complete(const void *rd)
{
	const struct anth *a = rd;

	return a->r.ended && !a->r.failed;
}

static void
rfree(void *rd)
{
	struct anth *a = rd;

	if (!a)
		return;
	while (a->nb > 0)
		dropblock(a, &a->b[0]);
	free(a->b);
	oxi_sse_free(&a->sse);
	oxi_buf_free(&a->json);
	oxi_llm_reply_free(&a->r);
	free(a);
}

static const char *const hdrs[] = { "anthropic-version: 2023-06-01", NULL };

const struct oxi_llm_dialect oxi_dialect_anthropic = {
	"anthropic", "x-api-key: %s", hdrs, "Accept: text/event-stream",
	body, url, reader, feed, result, complete, rfree
};
