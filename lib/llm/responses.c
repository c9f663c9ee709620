/*
 * responses.c - the OpenAI Responses dialect (/responses), for the
 * reasoning models
 *
 * The body: system messages become "instructions"; the others become
 * input items: user and assistant messages, function_call items for an
 * assistant's tool calls (after the reasoning items it came with, sent
 * back with their encrypted_content), function_call_output items for
 * tool results; attachments become input_image and input_file parts.
 * Tools are flat.  Nothing is stored on the server ("store": false), so
 * reasoning is asked for encrypted ("include":
 * ["reasoning.encrypted_content"]) unless the request gives its own
 * "include".  "reasoning" passes as it is; "thinking" with an "effort"
 * becomes one.
 *
 * The reply: typed events (response.output_text.delta, function call
 * arguments in deltas and whole at .done, output items, and a terminal
 * response.completed, .incomplete or .failed; no [DONE]), or one
 * response object when not streamed.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

struct resp {
	struct oxi_llm_wire w;	/* JSON or event stream */
	jv reasoning;		/* reasoning items, an array */
	int refused;		/* a refusal came */
	struct oxi_llm_reply r;	/* the reply */
};

/* an input_image or input_file item of our attachment part */
static jv
attachment(const struct oxi_llm_att *a)
{
	jv o = jv_object_set(jv_object(), jv_string("type"),
	    jv_string(a->file ? "input_file" : "input_image"));

	if (!a->file)
		return jv_object_set(o, jv_string("image_url"),
		    oxi_llm_att_url(a));
	if (!a->data)
		return jv_object_set(o, jv_string("file_url"),
		    jv_string(a->url));
	o = jv_object_set(o, jv_string("filename"), jv_string(a->name ?
	    a->name : "file.pdf"));
	return jv_object_set(o, jv_string("file_data"), oxi_llm_att_url(a));
}

/* content (consumed) as a string, or parts of type kind */
static jv
content(jv c, const char *kind)
{
	struct oxi_llm_att a;
	jv out, p, t, v;
	int i, n;

	if (oxi_jis(c, JV_KIND_STRING) || !oxi_jis(c, JV_KIND_ARRAY)) {
		if (!oxi_jis(c, JV_KIND_STRING)) {
			jv_free(c);
			return jv_string("");
		}
		return c;
	}
	out = jv_array();
	n = jv_array_length(jv_copy(c));
	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(c), i);
		if (oxi_llm_att(p, &a)) {
			out = jv_array_append(out, attachment(&a));
			jv_free(p);
			continue;
		}
		t = oxi_jget(p, "type");
		v = oxi_jget(p, "text");
		if (oxi_jis(p, JV_KIND_STRING)) {
			v = p;
			p = jv_null();
		}
		if (oxi_jis(v, JV_KIND_STRING) && (!jv_is_valid(t) ||
		    oxi_jstr_is(t, "text") || oxi_jstr_is(t, "input_text") ||
		    oxi_jstr_is(t, "output_text")))
			out = jv_array_append(out, oxi_llm_textpart(kind, v));
		else {
			jv_free(v);
			if (oxi_jis(p, JV_KIND_OBJECT))
				out = jv_array_append(out, jv_copy(p));
		}
		jv_free(p);
		jv_free(t);
	}
	jv_free(c);
	return out;
}

static int
empty(jv c)
{
	return (oxi_jis(c, JV_KIND_STRING) || oxi_jis(c, JV_KIND_ARRAY)) &&
	    (oxi_jis(c, JV_KIND_STRING) ? jv_string_length_bytes(jv_copy(c)) :
	    jv_array_length(jv_copy(c))) == 0;
}

static jv
message(const char *role, jv c)
{
	return jv_object_set(jv_object_set(jv_object(), jv_string("role"),
	    jv_string(role)), jv_string("content"), c);
}

/* reasoning items worth sending back: those with their encrypted state */
static jv
reasoning(jv items, jv m)
{
	jv th = oxi_llm_thinking(m, "responses"), it, e;
	int i, n = jv_array_length(jv_copy(th));

	for (i = 0; i < n; i++) {
		it = jv_array_get(jv_copy(th), i);
		e = oxi_jget(it, "encrypted_content");
		if (oxi_jis(e, JV_KIND_STRING))
			items = jv_array_append(items, jv_object_delete(it,
			    jv_string("status")));
		else
			jv_free(it);
		jv_free(e);
	}
	jv_free(th);
	return items;
}

static jv
calls(jv items, jv tcs, int i)
{
	jv tc, id, name, args, o;
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
			jv_free(items);
			return oxi_jbad("messages[%d]: a tool call needs"
			    " \"id\" and \"name\"", i);
		}
		args = oxi_jget(tc, "args");
		if (!oxi_jis(args, JV_KIND_STRING) &&
		    !oxi_jis(args, JV_KIND_OBJECT)) {
			jv_free(args);
			args = jv_object();
		}
		if (oxi_jis(args, JV_KIND_OBJECT))
			args = jv_dump_string(args, 0);
		o = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("function_call"));
		o = jv_object_set(o, jv_string("call_id"), id);
		o = jv_object_set(o, jv_string("name"), name);
		o = jv_object_set(o, jv_string("arguments"), args);
		items = jv_array_append(items, o);
		jv_free(tc);
	}
	jv_free(tcs);
	return items;
}

static jv
tools(jv ts)
{
	jv out = jv_array(), t, o;
	int i, n = jv_array_length(jv_copy(ts));

	for (i = 0; i < n; i++) {
		t = oxi_llm_tool_fn(jv_array_get(jv_copy(ts), i));
		o = oxi_llm_tool_head(jv_object_set(jv_object(),
		    jv_string("type"), jv_string("function")), t, i);
		if (!jv_is_valid(o)) {
			jv_free(t);
			jv_free(ts);
			jv_free(out);
			return o;
		}
		o = jv_object_set(o, jv_string("parameters"),
		    oxi_llm_params(oxi_jget(t, "parameters")));
		out = jv_array_append(out, o);
		jv_free(t);
	}
	jv_free(ts);
	return out;
}

static jv
body(jv req, const struct oxi_llm_target *t)
{
	static const char *const pass[][2] = {
		{ "max_tokens", "max_output_tokens" },
		{ "temperature", "temperature" },
		{ "top_p", "top_p" },
		{ "reasoning", "reasoning" },
		{ "tool_choice", "tool_choice" },
		{ "include", "include" },
		{ NULL, NULL }
	};
	struct oxi_buf sys = OXI_BUF_INIT;
	jv msgs, m, role, items = jv_array(), c, v, o;
	const char *r;
	int i, n;

	msgs = oxi_llm_messages(req);
	if (!jv_is_valid(msgs)) {
		jv_free(items);
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
			c = content(oxi_jget(m, "content"), "input_text");
			if (oxi_jis(c, JV_KIND_STRING) && !empty(c)) {
				if (sys.len > 0)
					oxi_buf_cats(&sys, "\n\n");
				oxi_buf_cats(&sys, jv_string_value(c));
				jv_free(c);
			} else if (!empty(c))
				items = jv_array_append(items,
				    message("developer", c));
			else
				jv_free(c);
		} else if (strcmp(r, "user") == 0) {
			items = jv_array_append(items, message("user",
			    content(oxi_jget(m, "content"), "input_text")));
		} else if (strcmp(r, "assistant") == 0) {
			items = reasoning(items, m);
			c = content(oxi_jget(m, "content"), "output_text");
			if (!empty(c))
				items = jv_array_append(items,
				    message("assistant", c));
			else
				jv_free(c);
			v = oxi_jget(m, "tool_calls");
			if (oxi_jis(v, JV_KIND_ARRAY))
				items = calls(items, v, i);
			else
				jv_free(v);
			if (!jv_is_valid(items)) {
				o = items;
				items = jv_null();
				goto fail;
			}
		} else if (strcmp(r, "tool") == 0) {
			v = oxi_jget(m, "tool_call_id");
			if (!oxi_jis(v, JV_KIND_STRING)) {
				jv_free(v);
				o = oxi_jbad("messages[%d]: a tool message"
				    " needs \"tool_call_id\"", i);
				goto fail;
			}
			c = oxi_jget(m, "content");
			if (!oxi_jis(c, JV_KIND_STRING)) {
				if (oxi_jis(c, JV_KIND_NULL) ||
				    !jv_is_valid(c)) {
					jv_free(c);
					c = jv_string("");
				} else
					c = jv_dump_string(c, 0);
			}
			o = jv_object_set(jv_object(), jv_string("type"),
			    jv_string("function_call_output"));
			o = jv_object_set(o, jv_string("call_id"), v);
			o = jv_object_set(o, jv_string("output"), c);
			items = jv_array_append(items, o);
		} else {
			o = oxi_jbad("messages[%d] has an unknown role"
			    " '%.40s'", i, r);
			goto fail;
		}
		jv_free(role);
		jv_free(m);
	}
	jv_free(msgs);
	o = jv_object_set(jv_object(), jv_string("model"),
	    jv_string(t->model));
	if (sys.len > 0)
		o = jv_object_set(o, jv_string("instructions"),
		    jv_string_sized(sys.s, (int)sys.len));
	oxi_buf_free(&sys);
	o = jv_object_set(o, jv_string("input"), items);
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
	o = jv_object_set(o, jv_string("store"), jv_false());
	o = jv_object_set(o, jv_string("include"), jv_array_append(jv_array(),
	    jv_string("reasoning.encrypted_content")));
	c = oxi_jget(req, "thinking");
	v = oxi_jget(c, "effort");
	jv_free(c);
	if (oxi_jis(v, JV_KIND_STRING))
		o = jv_object_set(o, jv_string("reasoning"),
		    jv_object_set(jv_object(), jv_string("effort"), v));
	else
		jv_free(v);
	for (i = 0; pass[i][0]; i++) {
		v = oxi_jget(req, pass[i][0]);
		if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
			o = jv_object_set(o, jv_string(pass[i][1]), v);
		else
			jv_free(v);
	}
	return jv_object_set(o, jv_string("stream"),
	    jv_bool(oxi_llm_stream(req)));

fail:
	oxi_buf_free(&sys);
	jv_free(role);
	jv_free(m);
	jv_free(msgs);
	jv_free(items);
	return o;
}

static void
usage(struct resp *s, jv u)
{
	jv d;

	if (!oxi_jis(u, JV_KIND_OBJECT))
		return;
	s->r.input = oxi_jnum(u, "input_tokens", 0);
	s->r.output = oxi_jnum(u, "output_tokens", 0);
	d = oxi_jget(u, "input_tokens_details");
	s->r.cache_read = oxi_jnum(d, "cached_tokens", 0);
	jv_free(d);
	d = oxi_jget(u, "output_tokens_details");
	s->r.reasoning = oxi_jnum(d, "reasoning_tokens", 0);
	jv_free(d);
}

static void
setstr(struct oxi_buf *b, jv v)
{
	if (oxi_jis(v, JV_KIND_STRING) &&
	    jv_string_length_bytes(jv_copy(v)) > 0) {
		oxi_buf_reset(b);
		oxi_buf_cat(b, jv_string_value(v),
		    jv_string_length_bytes(jv_copy(v)));
	}
	jv_free(v);
}

/* an output item at index (borrowed), as added or done */
static void
item(struct resp *s, long index, jv it, int done)
{
	jv type = oxi_jget(it, "type"), cs, c, t, v;
	struct oxi_llm_call *k;
	int i, n;

	if (oxi_jstr_is(type, "function_call")) {
		if (!(k = oxi_llm_reply_find(&s->r, index)))
			k = oxi_llm_reply_call(&s->r, index);
		setstr(&k->id, oxi_jget(it, "call_id"));
		setstr(&k->name, oxi_jget(it, "name"));
		if (done)
			setstr(&k->args, oxi_jget(it, "arguments"));
	} else if (oxi_jstr_is(type, "reasoning") && done) {
		s->reasoning = jv_array_append(s->reasoning, jv_copy(it));
	} else if (oxi_jstr_is(type, "message") && done &&
	    s->w.mode == OXI_LLM_JSON) {
		cs = oxi_jget(it, "content");
		n = oxi_jis(cs, JV_KIND_ARRAY) ?
		    jv_array_length(jv_copy(cs)) : 0;
		for (i = 0; i < n; i++) {
			c = jv_array_get(jv_copy(cs), i);
			t = oxi_jget(c, "type");
			v = oxi_jget(c, oxi_jstr_is(t, "refusal") ? "refusal" :
			    "text");
			if (oxi_jstr_is(t, "refusal"))
				s->refused = 1;
			if (oxi_jis(v, JV_KIND_STRING))
				oxi_llm_reply_text(&s->r, jv_string_value(v),
				    jv_string_length_bytes(jv_copy(v)));
			jv_free(v);
			jv_free(t);
			jv_free(c);
		}
		jv_free(cs);
	}
	jv_free(type);
}

/* the end: a response object (borrowed) with its status */
static void
end(struct resp *s, jv rs, const char *status)
{
	jv out, it, t, v;
	int i, n, fresh = 0;

	v = oxi_jget(rs, "usage");
	usage(s, v);
	jv_free(v);
	if (strcmp(status, "failed") == 0) {
		v = oxi_jget(rs, "error");
		if (oxi_jis(v, JV_KIND_OBJECT))
			oxi_llm_reply_perror(&s->r, v);
		else {
			jv_free(v);
			oxi_llm_reply_fail(&s->r, "provider", 0, "the response"
			    " failed");
		}
		return;
	}
	if (strcmp(status, "incomplete") == 0) {
		it = oxi_jget(rs, "incomplete_details");
		v = oxi_jget(it, "reason");
		s->r.stop = oxi_jstr_is(v, "content_filter") ? "refusal" :
		    "length";
		jv_free(v);
		jv_free(it);
	} else if (strcmp(status, "completed") != 0) {
		oxi_llm_reply_fail(&s->r, "bad_reply", 1, "the response ended"
		    " with status '%.40s'", status);
		return;
	}
	/* the final output's reasoning items are the ones to keep */
	out = oxi_jget(rs, "output");
	n = oxi_jis(out, JV_KIND_ARRAY) ? jv_array_length(jv_copy(out)) : 0;
	for (i = 0; i < n; i++) {
		it = jv_array_get(jv_copy(out), i);
		t = oxi_jget(it, "type");
		if (oxi_jstr_is(t, "reasoning") && !fresh++) {
			jv_free(s->reasoning);
			s->reasoning = jv_array();
		}
		if (oxi_jstr_is(t, "reasoning") || s->w.mode == OXI_LLM_JSON)
			item(s, i, it, 1);
		jv_free(t);
		jv_free(it);
	}
	jv_free(out);
	if (s->refused && (!s->r.stop || strcmp(s->r.stop, "end") == 0))
		s->r.stop = "refusal";
	s->r.ended = 1;
}

/* the "output_index" of event e, -1 if it is not an index */
static long
outindex(jv e)
{
	return oxi_llm_index(e, "output_index", -1);
}

/* one event (consumed): 0, or -1 once failed */
static int
event(struct resp *s, jv e)
{
	jv type = oxi_jget(e, "type"), v;
	struct oxi_llm_call *k;
	const char *t;

	if (!oxi_jis(type, JV_KIND_STRING)) {
		jv_free(type);
		jv_free(e);
		oxi_llm_reply_fail(&s->r, "bad_reply", 1, "an event without a"
		    " type in the reply stream");
		return -1;
	}
	t = jv_string_value(type);
	if (s->r.ended)
		;
	else if (strcmp(t, "response.output_text.delta") == 0 ||
	    strcmp(t, "response.refusal.delta") == 0) {
		if (t[9] == 'r')
			s->refused = 1;
		v = oxi_jget(e, "delta");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_llm_reply_text(&s->r, jv_string_value(v),
			    jv_string_length_bytes(jv_copy(v)));
		jv_free(v);
	} else if (strcmp(t, "response.function_call_arguments.delta") == 0) {
		if ((k = oxi_llm_reply_find(&s->r, outindex(e)))) {
			v = oxi_jget(e, "delta");
			if (oxi_jis(v, JV_KIND_STRING))
				oxi_buf_cat(&k->args, jv_string_value(v),
				    jv_string_length_bytes(jv_copy(v)));
			jv_free(v);
		}
	} else if (strcmp(t, "response.function_call_arguments.done") == 0) {
		if ((k = oxi_llm_reply_find(&s->r, outindex(e))))
			setstr(&k->args, oxi_jget(e, "arguments"));
	} else if (strcmp(t, "response.output_item.added") == 0 ||
	    strcmp(t, "response.output_item.done") == 0) {
		v = oxi_jget(e, "item");
		item(s, outindex(e), v, t[21] == 'd');
		jv_free(v);
	} else if (strcmp(t, "response.completed") == 0 ||
	    strcmp(t, "response.incomplete") == 0 ||
	    strcmp(t, "response.failed") == 0) {
		v = oxi_jget(e, "response");
		end(s, v, t + 9);
		jv_free(v);
	} else if (strcmp(t, "error") == 0) {
		v = oxi_jget(e, "error");
		if (!oxi_jis(v, JV_KIND_OBJECT) &&
		    !oxi_jis(v, JV_KIND_STRING)) {
			jv_free(v);
			v = jv_copy(e);
		}
		oxi_llm_reply_perror(&s->r, v);
	}
	jv_free(type);
	jv_free(e);
	return s->r.failed ? -1 : 0;
}

static int
onevent(void *arg, const char *type, const char *data, size_t len)
{
	struct resp *s = arg;
	jv e;

	(void)type;
	if (len == 6 && memcmp(data, "[DONE]", 6) == 0)
		return 0;
	e = oxi_json_parse(data, len);
	if (!jv_is_valid(e) || !oxi_jis(e, JV_KIND_OBJECT)) {
		jv_free(e);
		oxi_llm_wire_badevent(&s->w, &s->r);
		return 1;
	}
	return event(s, e) < 0;
}

static void *
reader(oxi_llm_text_fn text, void *arg)
{
	struct resp *s = xcalloc(1, sizeof *s);

	oxi_llm_wire_init(&s->w, onevent, s);
	oxi_llm_reply_init(&s->r, text, arg);
	s->reasoning = jv_array();
	return s;
}

static int
feed(void *rd, const char *p, size_t n)
{
	struct resp *s = rd;

	return oxi_llm_wire_feed(&s->w, &s->r, "{", p, n);
}

static jv
result(void *rd, const char **code, int *retry)
{
	struct resp *s = rd;
	jv o, v;
	int i, n;

	if (s->w.mode == OXI_LLM_JSON && !s->r.failed && !s->r.ended) {
		o = oxi_json_parse(s->w.json.s, s->w.json.len);
		v = oxi_jget(o, "status");
		if (!jv_is_valid(o)) {
			oxi_llm_reply_fail(&s->r, "truncated", 1, "the reply"
			    " is not valid JSON");
		} else if (jv_object_has(jv_copy(o), jv_string("error")) &&
		    !oxi_jis(v, JV_KIND_STRING)) {
			oxi_llm_reply_perror(&s->r, oxi_jget(o, "error"));
		} else if (oxi_jis(v, JV_KIND_STRING))
			end(s, o, jv_string_value(v));
		else
			oxi_llm_reply_fail(&s->r, "bad_reply", 0, "the reply"
			    " is not a response");
		jv_free(v);
		jv_free(o);
	}
	oxi_llm_wire_end(&s->w, &s->r);
	if (!s->r.failed && s->r.ended) {
		n = jv_array_length(jv_copy(s->reasoning));
		for (i = 0; i < n; i++)
			oxi_llm_reply_think(&s->r, "responses",
			    jv_array_get(jv_copy(s->reasoning), i));
		jv_free(s->reasoning);
		s->reasoning = jv_array();
	}
	return oxi_llm_reply_result(&s->r, code, retry);
}

static int
complete(const void *rd)
{
	const struct resp *s = rd;

	return s->r.ended && !s->r.failed;
}

static void
rfree(void *rd)
{
	struct resp *s = rd;

	if (!s)
		return;
	oxi_llm_wire_free(&s->w);
	jv_free(s->reasoning);
	oxi_llm_reply_free(&s->r);
	free(s);
}

const struct oxi_llm_dialect oxi_dialect_responses = {
	.name = "responses",
	.auth = "Authorization: Bearer %s",
	.accept = "Accept: text/event-stream",
	.path = "/responses",
	.body = body,
	.reader = reader, .feed = feed, .result = result,
	.complete = complete, .free = rfree,
	.embed = &oxi_llm_embed_openai,	/* the same /embeddings */
	.transcribe = "/audio/transcriptions",
};
