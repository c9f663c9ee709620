/*
 * anthropic.c - the Anthropic Messages dialect
 *
 * The body: system messages become system blocks, the last one marked
 * for prompt caching; tools carry input_schema, the last one marked too;
 * an assistant message becomes its thinking blocks (sent back as they
 * came, signature included), a text block and tool_use blocks; tool
 * messages become tool_result blocks, and consecutive messages of one
 * role are merged, so the results of a parallel batch share one user
 * message.  max_tokens defaults to 4096; "thinking":{"budget_tokens":N}
 * (or a number, or {"effort":E}) in the request turns extended thinking
 * on.  Attachments become image and document blocks.
 *
 * The reply: an event stream (message_start, content_block_start /
 * delta / stop, message_delta, message_stop, ping, error), or one
 * Message object when not streamed.  Tool input arrives as partial JSON
 * and is parsed at the end; a reply without message_stop is truncated.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

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
	struct oxi_llm_wire w;	/* JSON or event stream */
	struct block *b;	/* content blocks open */
	size_t nb;		/* used */
	size_t capb;		/* allocated */
	struct oxi_llm_reply r;	/* the reply */
	double in;		/* input_tokens: those not cached */
};

/* an image or document block of our attachment part */
static jv
attachment(const struct oxi_llm_att *a)
{
	jv src = jv_object();

	if (a->data) {
		src = jv_object_set(src, jv_string("type"), jv_string("base64"));
		src = jv_object_set(src, jv_string("media_type"),
		    jv_string(a->mime ? a->mime : "image/png"));
		src = jv_object_set(src, jv_string("data"), jv_string(a->data));
	} else {
		src = jv_object_set(src, jv_string("type"), jv_string("url"));
		src = jv_object_set(src, jv_string("url"), jv_string(a->url));
	}
	return jv_object_set(jv_object_set(jv_object(), jv_string("type"),
	    jv_string(a->file ? "document" : "image")), jv_string("source"),
	    src);
}

/* content (consumed) as blocks appended to out: a string, or an array of
 * parts where OpenAI-style text parts become text blocks and our
 * attachments image or document blocks */
static jv
blocks(jv out, jv content)
{
	struct oxi_llm_att a;
	jv p, t;
	int i, n;

	if (oxi_jis(content, JV_KIND_STRING)) {
		if (jv_string_length_bytes(jv_copy(content)) > 0)
			return jv_array_append(out,
			    oxi_llm_textpart("text", content));
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
		if (oxi_jstr_is(t, "text") || oxi_jstr_is(t, "input_text") ||
		    oxi_jstr_is(t, "output_text")) {
			out = blocks(out, oxi_jget(p, "text"));
			jv_free(p);
		} else if (oxi_llm_att(p, &a)) {
			out = jv_array_append(out, attachment(&a));
			jv_free(p);
		} else if (oxi_jis(p, JV_KIND_STRING))
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
	if (oxi_jis(c, JV_KIND_STRING) || oxi_jis(c, JV_KIND_ARRAY))
		return c;
	if (!jv_is_valid(c) || oxi_jis(c, JV_KIND_NULL)) {
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
	return oxi_llm_push(msgs, role, "content", bl);
}

static jv
toolcalls(jv bl, jv tcs, int i)
{
	jv tc, id, name, args, b;
	int j, n = jv_array_length(jv_copy(tcs));

	for (j = 0; j < n; j++) {
		tc = jv_array_get(jv_copy(tcs), j);
		id = oxi_jget(tc, "id");
		name = oxi_jget(tc, "name");
		if (!oxi_jis(id, JV_KIND_STRING) ||
		    !oxi_jis(name, JV_KIND_STRING)) {
			jv_free(tc);
			jv_free(id);
			jv_free(name);
			jv_free(tcs);
			jv_free(bl);
			return oxi_jbad("messages[%d]: a tool call needs"
			    " \"id\" and \"name\"", i);
		}
		args = oxi_llm_call_args(tc);
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
		v = oxi_jget(t, "input_schema");
		if (!oxi_jis(v, JV_KIND_OBJECT)) {
			jv_free(v);
			v = oxi_jget(t, "parameters");
		}
		o = jv_object_set(o, jv_string("input_schema"),
		    oxi_llm_params(v));
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
	jv v = oxi_jget(req, "thinking"), b;
	int e;

	*budget = 0;
	if (oxi_jis(v, JV_KIND_NUMBER)) {
		*budget = jv_number_value(v);
		jv_free(v);
		v = jv_object_set(jv_object(), jv_string("budget_tokens"),
		    jv_number(*budget));
	}
	if (oxi_jis(v, JV_KIND_TRUE)) {
		jv_free(v);
		v = jv_object_set(jv_object(), jv_string("budget_tokens"),
		    jv_number(2048));
	}
	if (!oxi_jis(v, JV_KIND_OBJECT)) {
		jv_free(v);
		return jv_null();
	}
	b = oxi_jget(v, "budget_tokens");
	if (oxi_jis(b, JV_KIND_NUMBER))
		*budget = jv_number_value(b);
	else if ((e = oxi_llm_effort(v)) >= 0) {
		v = jv_object_delete(v, jv_string("effort"));
		*budget = e;
		if (e == 0) {
			jv_free(b);
			jv_free(v);
			return jv_null();
		}
		v = jv_object_set(v, jv_string("budget_tokens"), jv_number(e));
	}
	jv_free(b);
	b = oxi_jget(v, "type");
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
			sys = blocks(sys, oxi_jget(m, "content"));
		} else if (strcmp(r, "user") == 0) {
			out = push(out, "user", blocks(jv_array(),
			    oxi_jget(m, "content")));
		} else if (strcmp(r, "assistant") == 0) {
			bl = oxi_llm_thinking(m, "anthropic");
			bl = blocks(bl, oxi_jget(m, "content"));
			v = oxi_jget(m, "tool_calls");
			if (oxi_jis(v, JV_KIND_ARRAY))
				bl = toolcalls(bl, v, i);
			else
				jv_free(v);
			if (!jv_is_valid(bl)) {
				o = bl;
				goto fail;
			}
			out = push(out, "assistant", bl);
		} else if (strcmp(r, "tool") == 0) {
			v = oxi_jget(m, "tool_call_id");
			if (!oxi_jis(v, JV_KIND_STRING)) {
				jv_free(v);
				o = oxi_jbad("messages[%d]: a tool message"
				    " needs \"tool_call_id\"", i);
				goto fail;
			}
			o = jv_object_set(jv_object(), jv_string("type"),
			    jv_string("tool_result"));
			o = jv_object_set(o, jv_string("tool_use_id"), v);
			o = jv_object_set(o, jv_string("content"),
			    resultcontent(oxi_jget(m, "content")));
			v = oxi_jget(m, "is_error");
			if (oxi_jis(v, JV_KIND_TRUE))
				o = jv_object_set(o, jv_string("is_error"), v);
			else
				jv_free(v);
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
	o = jv_object_set(jv_object(), jv_string("model"),
	    jv_string(t->model));
	v = oxi_jget(req, "max_tokens");
	max = oxi_jis(v, JV_KIND_NUMBER) ? jv_number_value(v) : MAX_TOKENS;
	jv_free(v);
	v = thinking(req, &budget);
	if (!oxi_jis(v, JV_KIND_NULL)) {
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
	v = oxi_jget(req, "tools");
	if (oxi_jis(v, JV_KIND_ARRAY) &&
	    jv_array_length(jv_copy(v)) > 0) {
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
	v = oxi_jget(req, "stop");
	if (oxi_jis(v, JV_KIND_STRING))
		v = jv_array_append(jv_array(), v);
	if (oxi_jis(v, JV_KIND_ARRAY))
		o = jv_object_set(o, jv_string("stop_sequences"), v);
	else
		jv_free(v);
	for (i = 0; pass[i]; i++) {
		v = oxi_jget(req, pass[i]);
		if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
			o = jv_object_set(o, jv_string(pass[i]), v);
		else
			jv_free(v);
	}
	return jv_object_set(o, jv_string("stream"),
	    jv_bool(oxi_llm_stream(req)));

fail:
	jv_free(role);
	jv_free(m);
	jv_free(msgs);
	jv_free(sys);
	jv_free(out);
	return o;
}

/* usage (borrowed): the counts it holds replace ours; input counts the
 * cached tokens too */
static void
usage(struct anth *a, jv u)
{
	double d;

	if (!oxi_jis(u, JV_KIND_OBJECT))
		return;
	if ((d = oxi_jnum(u, "input_tokens", -1)) >= 0)
		a->in = d;
	if ((d = oxi_jnum(u, "cache_read_input_tokens", -1)) >= 0)
		a->r.cache_read = d;
	if ((d = oxi_jnum(u, "cache_creation_input_tokens", -1)) >= 0)
		a->r.cache_write = d;
	if ((d = oxi_jnum(u, "output_tokens", -1)) >= 0)
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
	jv type = oxi_jget(cb, "type"), v;
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
	if (oxi_jstr_is(type, "text")) {
		b->kind = B_TEXT;
		v = oxi_jget(cb, "text");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_llm_reply_text(&a->r, jv_string_value(v),
			    jv_string_length_bytes(jv_copy(v)));
		jv_free(v);
	} else if (oxi_jstr_is(type, "tool_use")) {
		b->kind = B_TOOL;
		oxi_llm_reply_call(&a->r, index);
		v = oxi_jget(cb, "id");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&a->r.calls[a->r.ncalls - 1].id,
			    jv_string_value(v));
		jv_free(v);
		v = oxi_jget(cb, "name");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&a->r.calls[a->r.ncalls - 1].name,
			    jv_string_value(v));
		jv_free(v);
		jv_free(b->input);
		b->input = oxi_jget(cb, "input");
	} else if (oxi_jstr_is(type, "thinking") ||
	    oxi_jstr_is(type, "redacted_thinking")) {
		b->kind = oxi_jstr_is(type, "thinking") ? B_THINK : B_REDACTED;
		v = oxi_jget(cb, b->kind == B_THINK ? "thinking" : "data");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&b->a, jv_string_value(v));
		jv_free(v);
		v = oxi_jget(cb, "signature");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&b->sig, jv_string_value(v));
		jv_free(v);
	} else
		b->kind = B_OTHER;	/* server tools, citations: skipped */
	jv_free(type);
}

static void
appendstr(struct oxi_buf *b, jv d, const char *key)
{
	jv v = oxi_jget(d, key);

	if (oxi_jis(v, JV_KIND_STRING))
		oxi_buf_cat(b, jv_string_value(v),
		    jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
}

static void
deltablock(struct anth *a, long index, jv d)
{
	struct block *b = findblock(a, index);
	struct oxi_llm_call *c;
	jv type = oxi_jget(d, "type"), v;

	if (!b) {
		jv_free(type);
		return;
	}
	if (oxi_jstr_is(type, "text_delta") && b->kind == B_TEXT) {
		v = oxi_jget(d, "text");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_llm_reply_text(&a->r, jv_string_value(v),
			    jv_string_length_bytes(jv_copy(v)));
		jv_free(v);
	} else if (oxi_jstr_is(type, "input_json_delta") && b->kind == B_TOOL &&
	    (c = oxi_llm_reply_find(&a->r, index)))
		appendstr(&c->args, d, "partial_json");
	else if (oxi_jstr_is(type, "thinking_delta") && b->kind == B_THINK)
		appendstr(&b->a, d, "thinking");
	else if (oxi_jstr_is(type, "signature_delta") && b->kind == B_THINK)
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
	    c->args.len == 0 && oxi_jis(b->input, JV_KIND_OBJECT) &&
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

/* one event's data (consumed): 0, or -1 once failed */
static int
event(struct anth *a, jv e)
{
	jv type = oxi_jget(e, "type"), v, d;

	if (!oxi_jis(e, JV_KIND_OBJECT) || !oxi_jis(type, JV_KIND_STRING)) {
		jv_free(type);
		jv_free(e);
		oxi_llm_reply_fail(&a->r, "bad_reply", 1, "an event without a"
		    " type in the reply stream");
		return -1;
	}
	if (a->r.ended) {
		;	/* nothing counts after message_stop */
	} else if (oxi_jstr_is(type, "message_start")) {
		v = oxi_jget(e, "message");
		d = oxi_jget(v, "usage");
		usage(a, d);
		jv_free(d);
		jv_free(v);
	} else if (oxi_jstr_is(type, "content_block_start")) {
		v = oxi_jget(e, "content_block");
		startblock(a, oxi_llm_index(e, "index", -1), v);
		jv_free(v);
	} else if (oxi_jstr_is(type, "content_block_delta")) {
		v = oxi_jget(e, "delta");
		deltablock(a, oxi_llm_index(e, "index", -1), v);
		jv_free(v);
	} else if (oxi_jstr_is(type, "content_block_stop")) {
		stopblock(a, oxi_llm_index(e, "index", -1));
	} else if (oxi_jstr_is(type, "message_delta")) {
		v = oxi_jget(e, "delta");
		d = oxi_jget(v, "stop_reason");
		if (oxi_jis(d, JV_KIND_STRING))
			a->r.stop = stopword(jv_string_value(d));
		jv_free(d);
		jv_free(v);
		v = oxi_jget(e, "usage");
		usage(a, v);
		jv_free(v);
	} else if (oxi_jstr_is(type, "message_stop")) {
		a->r.ended = 1;
	} else if (oxi_jstr_is(type, "error")) {
		oxi_llm_reply_perror(&a->r, oxi_jget(e, "error"));
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
	e = oxi_json_parse(data, len);
	if (!jv_is_valid(e)) {
		jv_free(e);
		oxi_llm_wire_badevent(&a->w, &a->r);
		return 1;
	}
	return event(a, e) < 0;
}

/* a whole Message (consumed) */
static void
whole(struct anth *a, jv m)
{
	jv type = oxi_jget(m, "type"), c, b, v;
	int i, n;

	if (oxi_jstr_is(type, "error")) {
		oxi_llm_reply_perror(&a->r, oxi_jget(m, "error"));
	} else if (!oxi_jstr_is(type, "message")) {
		oxi_llm_reply_fail(&a->r, "bad_reply", 1, "the reply is not a"
		    " message");
	} else {
		v = oxi_jget(m, "usage");
		usage(a, v);
		jv_free(v);
		c = oxi_jget(m, "content");
		n = oxi_jis(c, JV_KIND_ARRAY) ? jv_array_length(jv_copy(c)) : 0;
		for (i = 0; i < n; i++) {
			b = jv_array_get(jv_copy(c), i);
			startblock(a, i, b);
			v = oxi_jget(b, "type");
			if (oxi_jstr_is(v, "thinking") ||
			    oxi_jstr_is(v, "redacted_thinking") ||
			    oxi_jstr_is(v, "tool_use"))
				stopblock(a, i);
			else if (findblock(a, i))
				dropblock(a, findblock(a, i));
			jv_free(v);
			jv_free(b);
		}
		jv_free(c);
		v = oxi_jget(m, "stop_reason");
		if (oxi_jis(v, JV_KIND_STRING))
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

	oxi_llm_wire_init(&a->w, onevent, a);
	oxi_llm_reply_init(&a->r, text, arg);
	return a;
}

static int
feed(void *rd, const char *p, size_t n)
{
	struct anth *a = rd;

	return oxi_llm_wire_feed(&a->w, &a->r, "{", p, n);
}

static jv
result(void *rd, const char **code, int *retry)
{
	struct anth *a = rd;
	jv m;

	if (a->w.mode == OXI_LLM_JSON && !a->r.failed && !a->r.ended) {
		m = oxi_json_parse(a->w.json.s, a->w.json.len);
		if (!jv_is_valid(m)) {
			jv_free(m);
			oxi_llm_reply_fail(&a->r, "truncated", 1, "the reply"
			    " is not valid JSON");
		} else
			whole(a, m);
	}
	oxi_llm_wire_end(&a->w, &a->r);
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
	oxi_llm_wire_free(&a->w);
	oxi_llm_reply_free(&a->r);
	free(a);
}

static const char *const hdrs[] = { "anthropic-version: 2023-06-01", NULL };

const struct oxi_llm_dialect oxi_dialect_anthropic = {
	.name = "anthropic",
	.auth = "x-api-key: %s",
	.hdrs = hdrs,
	.accept = "Accept: text/event-stream",
	.path = "/messages",
	.body = body,
	.reader = reader, .feed = feed, .result = result,
	.complete = complete, .free = rfree,
};
