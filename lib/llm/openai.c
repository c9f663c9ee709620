/*
 * openai.c - the OpenAI Chat Completions dialect, spoken by OpenAI
 * and by every "OpenAI-compatible" server (Ollama's /v1, vLLM, llama.cpp,
 * OpenRouter, Groq, DeepSeek)
 *
 * chatbody() turns an llm.request into a request body; a reader
 * (reader, feed, result) turns the reply, an event stream of
 * chat.completion.chunk objects or one chat.completion object, into the
 * fields of an llm.response.  Attachments become image_url and file
 * parts, a "thinking" effort becomes reasoning_effort.  Tool calls
 * arrive as fragments keyed by "index": the first fragment names the
 * call, the arguments string is concatenated.  Some servers reuse index
 * 0 for every call of a parallel batch, so a new id at a known index
 * starts a new call.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

struct call {
	int index;		/* "index" of its fragments */
	struct oxi_buf id;	/* call id */
	struct oxi_buf name;	/* function name */
	struct oxi_buf args;	/* arguments, a JSON text */
};

struct oxi_openai {
	struct oxi_sse sse;	/* event stream parser */
	int mode;		/* OXI_LLM_UNSEEN, _SSE or _JSON */
	struct oxi_buf json;	/* a JSON reply, whole */
	struct oxi_buf text;	/* content (and refusal) so far */
	struct call *calls;	/* tool calls in order of appearance */
	size_t ncalls;		/* calls used */
	size_t capcalls;	/* calls allocated */
	char finish[32];	/* finish_reason, "" until one came */
	int done;		/* "data: [DONE]" came */
	int refused;		/* a refusal came */
	jv usage;		/* the last usage object, or null */
	int failed;		/* the reply failed: code, retry, err */
	const char *code;	/* error code for the error record */
	int retry;		/* the error is temporary */
	struct oxi_buf err;	/* error message */
	void (*delta)(void *, const char *, size_t);	/* text callback */
	void *arg;		/* its argument */
};

/* arguments as a JSON text: objects are dumped, strings kept */
static jv
argtext(jv a)
{
	if (oxi_jis(a, JV_KIND_STRING))
		return a;
	if (!jv_is_valid(a) || oxi_jis(a, JV_KIND_NULL)) {
		jv_free(a);
		return jv_string("{}");
	}
	return jv_dump_string(a, 0);
}

/* consumes tcs */
static jv
conv_calls(jv tcs, int i)
{
	jv out = jv_array(), tc, id, name, fn, c;
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
			jv_free(out);
			return oxi_jbad("messages[%d]: a tool call needs"
			    " \"id\" and \"name\"", i);
		}
		fn = jv_object();
		fn = jv_object_set(fn, jv_string("name"), name);
		fn = jv_object_set(fn, jv_string("arguments"),
		    argtext(oxi_jget(tc, "args")));
		c = jv_object();
		c = jv_object_set(c, jv_string("id"), id);
		c = jv_object_set(c, jv_string("type"), jv_string("function"));
		c = jv_object_set(c, jv_string("function"), fn);
		out = jv_array_append(out, c);
		jv_free(tc);
	}
	jv_free(tcs);
	return out;
}

/* content c (consumed) with our attachment parts in OpenAI's shape */
static jv
conv_parts(jv c, int i)
{
	struct oxi_llm_att a;
	jv out, p, o;
	int j, n;

	if (!oxi_jis(c, JV_KIND_ARRAY))
		return c;
	out = jv_array();
	n = jv_array_length(jv_copy(c));
	for (j = 0; j < n; j++) {
		p = jv_array_get(jv_copy(c), j);
		if (!oxi_llm_att(p, &a)) {
			out = jv_array_append(out, p);
			continue;
		}
		if (a.file && !a.data) {
			jv_free(p);
			jv_free(out);
			jv_free(c);
			return oxi_jbad("messages[%d]: Chat Completions takes"
			    " a file as data, not as a URL", i);
		}
		if (a.file)
			o = jv_object_set(jv_object_set(jv_object(),
			    jv_string("filename"), jv_string(a.name ? a.name :
			    "file.pdf")), jv_string("file_data"),
			    oxi_llm_att_url(&a));
		else
			o = jv_object_set(jv_object(), jv_string("url"),
			    oxi_llm_att_url(&a));
		o = jv_object_set(jv_object_set(jv_object(), jv_string("type"),
		    jv_string(a.file ? "file" : "image_url")),
		    jv_string(a.file ? "file" : "image_url"), o);
		out = jv_array_append(out, o);
		jv_free(p);
	}
	jv_free(c);
	return out;
}

/* one message of ours (borrowed) as an OpenAI message */
static jv
conv_msg(jv m, int i)
{
	jv o, role, content, v;
	const char *r;

	if (!oxi_jis(m, JV_KIND_OBJECT))
		return oxi_jbad("messages[%d] is not an object", i);
	role = oxi_jget(m, "role");
	if (!oxi_jis(role, JV_KIND_STRING)) {
		jv_free(role);
		return oxi_jbad("messages[%d] has no \"role\"", i);
	}
	r = jv_string_value(role);
	if (strcmp(r, "system") != 0 && strcmp(r, "user") != 0 &&
	    strcmp(r, "assistant") != 0 && strcmp(r, "tool") != 0 &&
	    strcmp(r, "developer") != 0) {
		o = oxi_jbad("messages[%d] has an unknown role '%.40s'", i, r);
		jv_free(role);
		return o;
	}
	content = oxi_jget(m, "content");
	switch (jv_get_kind(content)) {
	case JV_KIND_STRING: case JV_KIND_ARRAY: case JV_KIND_NULL:
		break;
	case JV_KIND_INVALID:
		content = strcmp(r, "assistant") == 0 ? jv_null() :
		    jv_string("");
		break;
	default:
		jv_free(content);
		jv_free(role);
		return oxi_jbad("messages[%d]: \"content\" must be a string",
		    i);
	}
	content = conv_parts(content, i);
	if (!jv_is_valid(content)) {
		jv_free(role);
		return content;
	}
	o = jv_object_set(jv_object(), jv_string("role"), jv_copy(role));
	if (strcmp(r, "tool") == 0) {
		v = oxi_jget(m, "tool_call_id");
		if (!oxi_jis(v, JV_KIND_STRING)) {
			jv_free(v);
			jv_free(content);
			jv_free(role);
			jv_free(o);
			return oxi_jbad("messages[%d]: a tool message needs"
			    " \"tool_call_id\"", i);
		}
		if (oxi_jis(content, JV_KIND_NULL)) {
			jv_free(content);
			content = jv_string("");
		}
		o = jv_object_set(o, jv_string("tool_call_id"), v);
	} else if (strcmp(r, "assistant") == 0) {
		v = oxi_jget(m, "tool_calls");
		if (oxi_jis(v, JV_KIND_ARRAY) &&
		    jv_array_length(jv_copy(v)) > 0) {
			v = conv_calls(v, i);
			if (!jv_is_valid(v)) {
				jv_free(content);
				jv_free(role);
				jv_free(o);
				return v;
			}
			o = jv_object_set(o, jv_string("tool_calls"), v);
		} else
			jv_free(v);
	} else if (oxi_jis(content, JV_KIND_NULL)) {
		jv_free(content);
		content = jv_string("");
	}
	o = jv_object_set(o, jv_string("content"), content);
	v = oxi_jget(m, "name");
	if (oxi_jis(v, JV_KIND_STRING) && strcmp(r, "tool") != 0)
		o = jv_object_set(o, jv_string("name"), v);
	else
		jv_free(v);
	jv_free(role);
	return o;
}

/* consumes tools */
static jv
conv_tools(jv tools)
{
	jv out = jv_array(), t, fn, v;
	int i, n = jv_array_length(jv_copy(tools));

	for (i = 0; i < n; i++) {
		t = jv_array_get(jv_copy(tools), i);
		v = oxi_jget(t, "function");
		/* a tool in OpenAI's shape already passes as it is */
		if (oxi_jis(v, JV_KIND_OBJECT)) {
			jv_free(v);
			out = jv_array_append(out, t);
			continue;
		}
		jv_free(v);
		fn = oxi_llm_tool_head(jv_object(), t, i);
		if (!jv_is_valid(fn)) {
			jv_free(t);
			jv_free(tools);
			jv_free(out);
			return fn;
		}
		fn = jv_object_set(fn, jv_string("parameters"),
		    oxi_llm_params(oxi_jget(t, "parameters")));
		v = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("function"));
		v = jv_object_set(v, jv_string("function"), fn);
		out = jv_array_append(out, v);
		jv_free(t);
	}
	jv_free(tools);
	return out;
}

static jv
chatbody(jv req, const struct oxi_llm_target *t)
{
	static const char *const pass[] = {
		"max_tokens", "temperature", "top_p", "stop", "seed", NULL
	};
	jv msgs, out, body, v;
	int i, n, stream;

	msgs = oxi_llm_messages(req);
	if (!jv_is_valid(msgs))
		return msgs;
	out = jv_array();
	n = jv_array_length(jv_copy(msgs));
	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(msgs), i);
		body = conv_msg(v, i);
		jv_free(v);
		if (!jv_is_valid(body)) {
			jv_free(out);
			jv_free(msgs);
			return body;
		}
		out = jv_array_append(out, body);
	}
	jv_free(msgs);
	body = jv_object_set(jv_object(), jv_string("model"),
	    jv_string(t->model));
	body = jv_object_set(body, jv_string("messages"), out);
	v = oxi_jget(req, "tools");
	if (oxi_jis(v, JV_KIND_ARRAY) &&
	    jv_array_length(jv_copy(v)) > 0) {
		v = conv_tools(v);
		if (!jv_is_valid(v)) {
			jv_free(body);
			return v;
		}
		body = jv_object_set(body, jv_string("tools"), v);
	} else
		jv_free(v);
	stream = oxi_llm_stream(req);
	body = jv_object_set(body, jv_string("stream"), jv_bool(stream));
	if (stream)
		body = jv_object_set(body, jv_string("stream_options"),
		    jv_object_set(jv_object(), jv_string("include_usage"),
		    jv_true()));
	for (i = 0; pass[i]; i++) {
		v = oxi_jget(req, pass[i]);
		if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
			body = jv_object_set(body, jv_string(pass[i]), v);
		else
			jv_free(v);
	}
	msgs = oxi_jget(req, "thinking");
	v = oxi_jget(msgs, "effort");
	jv_free(msgs);
	if (oxi_jis(v, JV_KIND_STRING))
		body = jv_object_set(body, jv_string("reasoning_effort"), v);
	else
		jv_free(v);
	return body;
}

static void
fail(struct oxi_openai *o, const char *code, int retry, const char *msg,
    size_t len)
{
	if (o->failed)
		return;
	o->failed = 1;
	o->code = code;
	o->retry = retry;
	oxi_buf_reset(&o->err);
	oxi_buf_cat(&o->err, msg, len);
}

static void
failz(struct oxi_openai *o, const char *code, int retry, const char *msg)
{
	fail(o, code, retry, msg, strlen(msg));
}

/* an "error" inside a 200 reply (consumed) */
static void
provider_error(struct oxi_openai *o, jv e)
{
	jv msg = oxi_jis(e, JV_KIND_STRING) ? jv_copy(e) :
	    oxi_jget(e, "message");
	jv type = oxi_jget(e, "type"), code = oxi_jget(e, "code");
	const char *c = "provider";
	int retry = 0;

	if (oxi_jstr_has(type, "rate_limit") ||
	    oxi_jstr_has(code, "rate_limit")) {
		c = "rate_limit";
		retry = 1;
	} else if (oxi_jstr_has(type, "server_error") ||
	    oxi_jstr_has(type, "overloaded") ||
	    oxi_jstr_has(code, "server_error") ||
	    oxi_jstr_has(code, "overloaded") ||
	    oxi_jstr_has(type, "timeout") ||
	    oxi_jstr_has(type, "unavailable")) {
		c = "server";
		retry = 1;
	}
	if (oxi_jis(msg, JV_KIND_STRING))
		fail(o, c, retry, jv_string_value(msg),
		    jv_string_length_bytes(jv_copy(msg)));
	else
		failz(o, c, retry, "the provider reported an error");
	jv_free(msg);
	jv_free(type);
	jv_free(code);
	jv_free(e);
}

static void
text(struct oxi_openai *o, jv s)
{
	size_t n = jv_string_length_bytes(jv_copy(s));

	if (n > 0) {
		oxi_buf_cat(&o->text, jv_string_value(s), n);
		if (o->delta)
			o->delta(o->arg, jv_string_value(s), n);
	}
}

static struct call *
newcall(struct oxi_openai *o, int index)
{
	struct call *c;

	if (o->ncalls == o->capcalls) {
		o->capcalls = o->capcalls ? o->capcalls * 2 : 4;
		o->calls = xrealloc(o->calls, o->capcalls * sizeof *o->calls);
	}
	c = &o->calls[o->ncalls++];
	memset(c, 0, sizeof *c);
	c->index = index;
	return c;
}

/* one tool call fragment (borrowed), pos its place in the array */
static void
toolfrag(struct oxi_openai *o, jv tc, int pos)
{
	jv id = oxi_jget(tc, "id"), fn = oxi_jget(tc, "function");
	jv name = oxi_jget(fn, "name"), args = oxi_jget(fn, "arguments");
	struct call *c = NULL;
	int index = oxi_llm_index(tc, "index", pos);
	const char *ids = oxi_jis(id, JV_KIND_STRING) &&
	    jv_string_length_bytes(jv_copy(id)) > 0 ?
	    jv_string_value(id) : NULL;
	size_t i;

	for (i = o->ncalls; i > 0; i--)
		if (o->calls[i - 1].index == index) {
			c = &o->calls[i - 1];
			break;
		}
	if (!c || (ids && c->id.len > 0 && strcmp(c->id.s, ids) != 0))
		c = newcall(o, index);
	if (ids && c->id.len == 0)
		oxi_buf_cats(&c->id, ids);
	if (oxi_jis(name, JV_KIND_STRING) &&
	    jv_string_length_bytes(jv_copy(name)) > 0) {
		/* some servers repeat the whole name in every fragment */
		if (c->name.len == 0 || strcmp(c->name.s,
		    jv_string_value(name)) != 0)
			oxi_buf_cats(&c->name, jv_string_value(name));
	}
	if (jv_is_valid(args) && !oxi_jis(args, JV_KIND_NULL)) {
		args = argtext(args);	/* a string, or an object dumped */
		oxi_buf_cat(&c->args, jv_string_value(args),
		    jv_string_length_bytes(jv_copy(args)));
	}
	jv_free(id);
	jv_free(fn);
	jv_free(name);
	jv_free(args);
}

/* one chunk, or a whole completion if whole (consumed); 0 or -1 */
static int
chunk(struct oxi_openai *o, jv c, int whole)
{
	jv e, v, ch, c0, d, tcs;
	int i, n;

	if (!oxi_jis(c, JV_KIND_OBJECT)) {
		jv_free(c);
		failz(o, "bad_reply", 1, "a reply chunk is not an object");
		return -1;
	}
	e = oxi_jget(c, "error");
	if (jv_is_valid(e) && !oxi_jis(e, JV_KIND_NULL)) {
		jv_free(c);
		provider_error(o, e);
		return -1;
	}
	jv_free(e);
	v = oxi_jget(c, "usage");
	if (oxi_jis(v, JV_KIND_OBJECT)) {
		jv_free(o->usage);
		o->usage = v;
	} else
		jv_free(v);
	ch = oxi_jget(c, "choices");
	c0 = jv_invalid();
	if (oxi_jis(ch, JV_KIND_ARRAY)) {
		n = jv_array_length(jv_copy(ch));
		for (i = 0; i < n && !jv_is_valid(c0); i++) {
			c0 = jv_array_get(jv_copy(ch), i);
			v = oxi_jget(c0, "index");
			if (oxi_jis(v, JV_KIND_NUMBER) &&
			    jv_number_value(v) != 0) {
				jv_free(c0);	/* only the first choice */
				c0 = jv_invalid();
			}
			jv_free(v);
		}
	}
	d = oxi_jget(c0, whole ? "message" : "delta");
	v = oxi_jget(d, "content");
	if (oxi_jis(v, JV_KIND_STRING))
		text(o, v);
	jv_free(v);
	v = oxi_jget(d, "refusal");
	if (oxi_jis(v, JV_KIND_STRING) &&
	    jv_string_length_bytes(jv_copy(v)) > 0) {
		o->refused = 1;
		text(o, v);
	}
	jv_free(v);
	tcs = oxi_jget(d, "tool_calls");
	if (oxi_jis(tcs, JV_KIND_ARRAY)) {
		n = jv_array_length(jv_copy(tcs));
		for (i = 0; i < n; i++) {
			v = jv_array_get(jv_copy(tcs), i);
			if (oxi_jis(v, JV_KIND_OBJECT))
				toolfrag(o, v, i);
			jv_free(v);
		}
	}
	jv_free(tcs);
	v = oxi_jget(c0, "finish_reason");
	if (oxi_jis(v, JV_KIND_STRING))
		snprintf(o->finish, sizeof o->finish, "%s", jv_string_value(v));
	jv_free(v);
	jv_free(d);
	jv_free(c0);
	jv_free(ch);
	jv_free(c);
	return 0;
}

static int
onevent(void *arg, const char *type, const char *data, size_t len)
{
	struct oxi_openai *o = arg;
	jv c;

	if (strcmp(type, "message") != 0 && strcmp(type, "error") != 0)
		return 0;	/* "ping" and other events */
	if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
		o->done = 1;
		return 0;
	}
	c = oxi_json_parse(data, len);
	if (!jv_is_valid(c)) {
		jv_free(c);
		if (strcmp(type, "error") == 0)
			fail(o, "provider", 0, data, len);
		else
			failz(o, "bad_reply", 1, "invalid JSON in the reply"
			    " stream");
		return 1;
	}
	if (strcmp(type, "error") == 0 && !(oxi_jis(c, JV_KIND_OBJECT) &&
	    jv_object_has(jv_copy(c), jv_string("error")))) {
		provider_error(o, c);
		return 1;
	}
	return chunk(o, c, 0) < 0 ? 1 : 0;
}

static void *
reader(oxi_llm_text_fn delta, void *arg)
{
	struct oxi_openai *o = xcalloc(1, sizeof *o);

	oxi_sse_init(&o->sse, onevent, o);
	o->usage = jv_null();
	o->delta = delta;
	o->arg = arg;
	return o;
}

static void
rfree(void *rd)
{
	struct oxi_openai *o = rd;
	size_t i;

	if (!o)
		return;
	oxi_sse_free(&o->sse);
	oxi_buf_free(&o->json);
	oxi_buf_free(&o->text);
	oxi_buf_free(&o->err);
	for (i = 0; i < o->ncalls; i++) {
		oxi_buf_free(&o->calls[i].id);
		oxi_buf_free(&o->calls[i].name);
		oxi_buf_free(&o->calls[i].args);
	}
	free(o->calls);
	jv_free(o->usage);
	free(o);
}

static int
complete(const void *rd)
{
	const struct oxi_openai *o = rd;

	return !o->failed && o->done;
}

static int
feed(void *rd, const char *p, size_t n)
{
	struct oxi_openai *o = rd;

	if (o->failed)
		return -1;
	if (oxi_llm_sniff(&o->mode, "{", &p, &n) == 0)
		return 0;
	if (o->mode == OXI_LLM_JSON) {
		oxi_buf_cat(&o->json, p, n);
		return 0;
	}
	if (oxi_sse_feed(&o->sse, p, n) < 0) {
		if (o->sse.over)
			failz(o, "bad_reply", 0, "an event over the size cap");
		return -1;
	}
	return 0;
}

static jv
usage(jv u)
{
	jv d = oxi_jget(u, "prompt_tokens_details"), r = jv_object();
	double cached = oxi_jnum(d, "cached_tokens", 0);

	if (cached == 0)	/* DeepSeek */
		cached = oxi_jnum(u, "prompt_cache_hit_tokens", 0);
	r = jv_object_set(r, jv_string("input"),
	    jv_number(oxi_jnum(u, "prompt_tokens", 0)));
	r = jv_object_set(r, jv_string("output"),
	    jv_number(oxi_jnum(u, "completion_tokens", 0)));
	r = jv_object_set(r, jv_string("cache_read"), jv_number(cached));
	r = jv_object_set(r, jv_string("cache_write"), jv_number(0));
	jv_free(d);
	d = oxi_jget(u, "completion_tokens_details");
	r = jv_object_set(r, jv_string("reasoning"),
	    jv_number(oxi_jnum(d, "reasoning_tokens", 0)));
	jv_free(d);
	return r;
}

/* the tool calls with parsed arguments; invalid on a bad one */
static jv
calls(struct oxi_openai *o)
{
	jv out = jv_array(), args, c;
	char id[OXI_ID_LEN + 6], msg[200];
	struct call *k;
	size_t i;

	for (i = 0; i < o->ncalls; i++) {
		k = &o->calls[i];
		args = k->args.len > 0 ?
		    oxi_json_parse(k->args.s, k->args.len) : jv_object();
		if (!oxi_jis(args, JV_KIND_OBJECT)) {
			jv_free(args);
			jv_free(out);
			snprintf(msg, sizeof msg, "tool call %zu (%.60s):"
			    " arguments are not a JSON object%s", i + 1,
			    k->name.len ? k->name.s : "no name",
			    strcmp(o->finish, "length") == 0 ?
			    " (reply cut at the token limit)" : "");
			fail(o, "bad_tool_args", 0, msg, strlen(msg));
			return jv_invalid();
		}
		if (k->name.len == 0) {
			jv_free(args);
			jv_free(out);
			failz(o, "bad_tool_args", 0, "a tool call has no name");
			return jv_invalid();
		}
		if (k->id.len == 0) {
			memcpy(id, "call_", 5);
			oxi_id_new(id + 5);
			oxi_buf_cats(&k->id, id);
		}
		c = jv_object_set(jv_object(), jv_string("id"),
		    jv_string(k->id.s));
		c = jv_object_set(c, jv_string("name"), jv_string(k->name.s));
		c = jv_object_set(c, jv_string("args"), args);
		out = jv_array_append(out, c);
	}
	return out;
}

static jv
result(void *rd, const char **code, int *retry)
{
	struct oxi_openai *o = rd;
	jv tc, msg, r, c;
	const char *stop;

	if (o->mode == OXI_LLM_JSON && !o->failed) {
		c = oxi_json_parse(o->json.s, o->json.len);
		if (!jv_is_valid(c)) {
			jv_free(c);
			failz(o, "truncated", 1, "the reply is not valid JSON");
		} else if (chunk(o, c, 1) == 0)
			o->done = 1;
	}
	if (!o->failed && o->mode == OXI_LLM_UNSEEN)
		failz(o, "truncated", 1, "the reply was empty");
	if (!o->failed && !o->finish[0] && !o->done)
		failz(o, "truncated", 1, "the reply stream ended early");
	tc = o->failed ? jv_invalid() : calls(o);
	if (o->failed) {
		jv_free(tc);
		*code = o->code;
		*retry = o->retry;
		return jv_invalid_with_msg(jv_string_sized(o->err.s ? o->err.s :
		    "", (int)o->err.len));
	}
	if (strcmp(o->finish, "length") == 0)
		stop = "length";
	else if (strcmp(o->finish, "content_filter") == 0 || o->refused)
		stop = "refusal";
	else if (o->ncalls > 0)
		stop = "tool_use";
	else
		stop = "end";
	msg = jv_object_set(jv_object(), jv_string("role"),
	    jv_string("assistant"));
	msg = jv_object_set(msg, jv_string("content"), o->text.len > 0 ||
	    o->ncalls == 0 ? jv_string_sized(o->text.s ? o->text.s : "",
	    (int)o->text.len) : jv_null());
	msg = jv_object_set(msg, jv_string("tool_calls"), tc);
	r = jv_object_set(jv_object(), jv_string("message"), msg);
	r = jv_object_set(r, jv_string("stop"), jv_string(stop));
	r = jv_object_set(r, jv_string("usage"), usage(o->usage));
	*code = NULL;
	*retry = 0;
	return r;
}

const struct oxi_llm_dialect oxi_dialect_openai = {
	.name = "openai",
	.auth = "Authorization: Bearer %s",
	.accept = "Accept: text/event-stream",
	.path = "/chat/completions",
	.body = chatbody,
	.reader = reader, .feed = feed, .result = result,
	.complete = complete, .free = rfree,
	.embed = &oxi_llm_embed_openai,
	.transcribe = "/audio/transcriptions",
};
