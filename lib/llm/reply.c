/*
 * reply.c - a model's reply as it is assembled, shared by the dialects
 *
 * A dialect's reader parses its wire format and tells the reply what
 * came: text (passed on at once to the text callback), tool calls (id,
 * name, and the arguments as a JSON text, in pieces), thinking blocks,
 * token counts, the stop reason, the terminal event, or a failure.
 * oxi_llm_reply_result() then makes the {"message","stop","usage"} of an
 * llm.response, or the error: a reply without its terminal event is
 * "truncated", never a short success.
 *
 * Also shared: reading a reply that is one JSON document or an event
 * stream (struct oxi_llm_wire), small pieces of request bodies, the
 * message of an error body, and embeddings: the vectors of a reply, and
 * OpenAI's /embeddings, which two dialects speak.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

void
oxi_llm_reply_init(struct oxi_llm_reply *r, oxi_llm_text_fn text, void *arg)
{
	memset(r, 0, sizeof *r);
	r->thinking = jv_array();
	r->delta = text;
	r->arg = arg;
}

void
oxi_llm_reply_free(struct oxi_llm_reply *r)
{
	size_t i;

	oxi_buf_free(&r->text);
	oxi_buf_free(&r->err);
	for (i = 0; i < r->ncalls; i++) {
		oxi_buf_free(&r->calls[i].id);
		oxi_buf_free(&r->calls[i].name);
		oxi_buf_free(&r->calls[i].args);
		jv_free(r->calls[i].extra);
	}
	free(r->calls);
	jv_free(r->thinking);
	memset(r, 0, sizeof *r);
}

void
oxi_llm_reply_text(struct oxi_llm_reply *r, const char *s, size_t n)
{
	if (n == 0 || r->failed)
		return;
	oxi_buf_cat(&r->text, s, n);
	if (r->delta)
		r->delta(r->arg, s, n);
}

struct oxi_llm_call *
oxi_llm_reply_call(struct oxi_llm_reply *r, long index)
{
	struct oxi_llm_call *c;

	if (r->ncalls == r->capcalls) {
		r->capcalls = r->capcalls ? r->capcalls * 2 : 4;
		r->calls = xrealloc(r->calls, r->capcalls * sizeof *r->calls);
	}
	c = &r->calls[r->ncalls++];
	memset(c, 0, sizeof *c);
	c->index = index;
	c->extra = jv_null();
	return c;
}

struct oxi_llm_call *
oxi_llm_reply_find(struct oxi_llm_reply *r, long index)
{
	size_t i;

	for (i = r->ncalls; i > 0; i--)
		if (r->calls[i - 1].index == index)
			return &r->calls[i - 1];
	return NULL;
}

void
oxi_llm_reply_fail(struct oxi_llm_reply *r, const char *code, int retry,
    const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (r->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	r->failed = 1;
	r->code = code;
	r->retry = retry;
	oxi_buf_reset(&r->err);
	oxi_buf_cats(&r->err, buf);
}

/* v (borrowed) as an int: an integral number in [0, INT_MAX], else -1 */
static int
intval(jv v)
{
	double d = jv_number_value(v);

	return d >= 0 && d <= INT_MAX && d == (double)(int)d ? (int)d : -1;
}

int
oxi_llm_index(jv obj, const char *key, int dflt)
{
	jv v = oxi_jget(obj, key);
	int i = jv_get_kind(v) == JV_KIND_NUMBER ? intval(v) : dflt;

	jv_free(v);
	return i;
}

void
oxi_llm_reply_perror(struct oxi_llm_reply *r, jv e)
{
	jv msg, type, code, status;
	const char *c = "provider";
	int retry = 0, k;

	if (jv_get_kind(e) == JV_KIND_STRING) {
		msg = jv_copy(e);
		type = code = status = jv_invalid();
	} else {
		msg = oxi_jget(e, "message");
		type = oxi_jget(e, "type");
		code = oxi_jget(e, "code");
		status = oxi_jget(e, "status");
	}
	for (k = 0; k < 3; k++) {
		jv v = k == 0 ? type : k == 1 ? code : status;

		if (oxi_jstr_has(v, "rate_limit") ||
		    oxi_jstr_has(v, "RESOURCE_EXHAUSTED")) {
			c = "rate_limit";
			retry = 1;
			break;
		}
		if (oxi_jstr_has(v, "overloaded") ||
		    oxi_jstr_has(v, "server_error") ||
		    oxi_jstr_has(v, "api_error") ||
		    oxi_jstr_has(v, "timeout") ||
		    oxi_jstr_has(v, "unavailable") ||
		    oxi_jstr_has(v, "UNAVAILABLE") ||
		    oxi_jstr_has(v, "INTERNAL") ||
		    oxi_jstr_has(v, "DEADLINE_EXCEEDED") ||
		    oxi_jstr_has(v, "CANCELLED")) {
			c = "server";
			retry = 1;
			break;
		}
		if (oxi_jstr_has(v, "authentication") ||
		    oxi_jstr_has(v, "permission") ||
		    oxi_jstr_has(v, "invalid_api_key") ||
		    oxi_jstr_has(v, "UNAUTHENTICATED") ||
		    oxi_jstr_has(v, "PERMISSION_DENIED")) {
			c = "auth";
			break;
		}
	}
	if (jv_get_kind(code) == JV_KIND_NUMBER && !retry &&
	    (oxi_http_temp(intval(code)) || intval(code) == 499)) {
		c = jv_number_value(code) == 429 ? "rate_limit" : "server";
		retry = 1;
	}
	if (jv_get_kind(msg) == JV_KIND_STRING)
		oxi_llm_reply_fail(r, c, retry, "%s", jv_string_value(msg));
	else if (jv_get_kind(type) == JV_KIND_STRING)
		oxi_llm_reply_fail(r, c, retry, "%s", jv_string_value(type));
	else
		oxi_llm_reply_fail(r, c, retry, "the provider reported an"
		    " error");
	jv_free(msg);
	jv_free(type);
	jv_free(code);
	jv_free(status);
	jv_free(e);
}

void
oxi_llm_reply_think(struct oxi_llm_reply *r, const char *dialect, jv block)
{
	if (jv_get_kind(block) != JV_KIND_OBJECT) {
		jv_free(block);
		return;
	}
	block = jv_object_set(block, jv_string("dialect"),
	    jv_string(dialect));
	r->thinking = jv_array_append(r->thinking, block);
}

/* the tool calls with parsed arguments; invalid (and r failed) on a bad
 * one */
static jv
calls(struct oxi_llm_reply *r)
{
	jv out = jv_array(), args, c, k, v;
	char id[OXI_ID_LEN + 6];
	struct oxi_llm_call *p;
	size_t i;
	int j, n;

	for (i = 0; i < r->ncalls; i++) {
		p = &r->calls[i];
		args = p->args.len > 0 ?
		    oxi_json_parse(p->args.s, p->args.len) : jv_object();
		if (jv_get_kind(args) != JV_KIND_OBJECT) {
			jv_free(args);
			jv_free(out);
			oxi_llm_reply_fail(r, "bad_tool_args", 0, "tool call"
			    " %zu (%.60s): arguments are not a JSON object%s",
			    i + 1, p->name.len ? p->name.s : "no name",
			    r->stop && strcmp(r->stop, "length") == 0 ?
			    " (reply cut at the token limit)" : "");
			return jv_invalid();
		}
		if (p->name.len == 0) {
			jv_free(args);
			jv_free(out);
			oxi_llm_reply_fail(r, "bad_tool_args", 0, "tool call"
			    " %zu has no name", i + 1);
			return jv_invalid();
		}
		if (p->id.len == 0) {
			memcpy(id, "call_", 5);
			oxi_id_new(id + 5);
			oxi_buf_cats(&p->id, id);
		}
		c = jv_object_set(jv_object(), jv_string("id"),
		    jv_string(p->id.s));
		c = jv_object_set(c, jv_string("name"), jv_string(p->name.s));
		c = jv_object_set(c, jv_string("args"), args);
		if (jv_get_kind(p->extra) == JV_KIND_OBJECT) {
			k = jv_keys(jv_copy(p->extra));
			n = jv_array_length(jv_copy(k));
			for (j = 0; j < n; j++) {
				v = jv_array_get(jv_copy(k), j);
				c = jv_object_set(c, jv_copy(v), jv_object_get(
				    jv_copy(p->extra), v));
			}
			jv_free(k);
		}
		out = jv_array_append(out, c);
	}
	return out;
}

jv
oxi_llm_reply_usage(const struct oxi_llm_reply *r)
{
	jv u = jv_object();

	u = jv_object_set(u, jv_string("input"), jv_number(r->input));
	u = jv_object_set(u, jv_string("output"), jv_number(r->output));
	u = jv_object_set(u, jv_string("cache_read"),
	    jv_number(r->cache_read));
	u = jv_object_set(u, jv_string("cache_write"),
	    jv_number(r->cache_write));
	return jv_object_set(u, jv_string("reasoning"),
	    jv_number(r->reasoning));
}

jv
oxi_llm_reply_result(struct oxi_llm_reply *r, const char **code, int *retry)
{
	jv tc, msg, res;
	const char *stop;

	if (!r->failed && !r->ended)
		oxi_llm_reply_fail(r, "truncated", 1, "the reply stream ended"
		    " early");
	tc = r->failed ? jv_invalid() : calls(r);
	if (r->failed) {
		jv_free(tc);
		*code = r->code;
		*retry = r->retry;
		return jv_invalid_with_msg(jv_string_sized(r->err.s ?
		    r->err.s : "", (int)r->err.len));
	}
	stop = r->stop ? r->stop : "end";
	if (strcmp(stop, "end") == 0 && r->ncalls > 0)
		stop = "tool_use";
	msg = jv_object_set(jv_object(), jv_string("role"),
	    jv_string("assistant"));
	msg = jv_object_set(msg, jv_string("content"), r->text.len > 0 ||
	    r->ncalls == 0 ? jv_string_sized(r->text.s ? r->text.s : "",
	    (int)r->text.len) : jv_null());
	msg = jv_object_set(msg, jv_string("tool_calls"), tc);
	if (jv_array_length(jv_copy(r->thinking)) > 0)
		msg = jv_object_set(msg, jv_string("thinking"),
		    jv_copy(r->thinking));
	res = jv_object_set(jv_object(), jv_string("message"), msg);
	res = jv_object_set(res, jv_string("stop"), jv_string(stop));
	res = jv_object_set(res, jv_string("usage"), oxi_llm_reply_usage(r));
	*code = NULL;
	*retry = 0;
	return res;
}

jv
oxi_llm_thinking(jv msg, const char *dialect)
{
	jv th = oxi_jget(msg, "thinking"), out = jv_array(), b, d;
	int i, n;

	if (jv_get_kind(th) != JV_KIND_ARRAY) {
		jv_free(th);
		return out;
	}
	n = jv_array_length(jv_copy(th));
	for (i = 0; i < n; i++) {
		b = jv_array_get(jv_copy(th), i);
		d = oxi_jget(b, "dialect");
		if (jv_get_kind(d) == JV_KIND_STRING &&
		    strcmp(jv_string_value(d), dialect) == 0)
			out = jv_array_append(out, jv_object_delete(b,
			    jv_string("dialect")));
		else
			jv_free(b);
		jv_free(d);
	}
	jv_free(th);
	return out;
}

void
oxi_llm_wire_init(struct oxi_llm_wire *w, oxi_sse_fn fn, void *arg)
{
	memset(w, 0, sizeof *w);
	oxi_sse_init(&w->sse, fn, arg);
}

void
oxi_llm_wire_free(struct oxi_llm_wire *w)
{
	oxi_sse_free(&w->sse);
	oxi_buf_free(&w->json);
}

int
oxi_llm_sniff(int *mode, const char *json, const char **p, size_t *n)
{
	while (*mode == OXI_LLM_UNSEEN && *n > 0) {
		if (isspace((unsigned char)**p)) {
			(*p)++;
			(*n)--;
		} else
			*mode = **p != '\0' && strchr(json, **p) ?
			    OXI_LLM_JSON : OXI_LLM_SSE;
	}
	return *n > 0 ? *mode : 0;
}

int
oxi_llm_wire_feed(struct oxi_llm_wire *w, struct oxi_llm_reply *r,
    const char *json, const char *p, size_t n)
{
	if (r->failed)
		return -1;
	switch (oxi_llm_sniff(&w->mode, json, &p, &n)) {
	case 0:
		return 0;
	case OXI_LLM_JSON:
		oxi_buf_cat(&w->json, p, n);
		return 0;
	}
	if (oxi_sse_feed(&w->sse, p, n) < 0) {
		if (w->sse.over)
			oxi_llm_reply_fail(r, "bad_reply", 0, "an event over"
			    " the size cap");
		return -1;
	}
	return 0;
}

void
oxi_llm_wire_badevent(const struct oxi_llm_wire *w, struct oxi_llm_reply *r)
{
	if (w->eof)
		oxi_llm_reply_fail(r, "truncated", 1, "the reply stream ended"
		    " inside an event");
	else
		oxi_llm_reply_fail(r, "bad_reply", 1, "invalid JSON in the"
		    " reply stream");
}

void
oxi_llm_wire_end(struct oxi_llm_wire *w, struct oxi_llm_reply *r)
{
	if (w->mode == OXI_LLM_SSE && !w->eof && !r->failed) {
		/* an event the stream ended without its blank line */
		w->eof = 1;
		oxi_sse_feed(&w->sse, "\n\n", 2);
	}
	if (!r->failed && w->mode == OXI_LLM_UNSEEN)
		oxi_llm_reply_fail(r, "truncated", 1, "the reply was empty");
}

jv
oxi_llm_textpart(const char *type, jv text)
{
	jv p = jv_object();

	if (type)
		p = jv_object_set(p, jv_string("type"), jv_string(type));
	return jv_object_set(p, jv_string("text"), text);
}

void
oxi_llm_content_cat(struct oxi_buf *b, jv c)
{
	jv p, t;
	int i, n;

	if (oxi_jis(c, JV_KIND_STRING)) {
		oxi_buf_cats(b, jv_string_value(c));
		return;
	}
	if (!oxi_jis(c, JV_KIND_ARRAY))
		return;
	n = jv_array_length(jv_copy(c));
	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(c), i);
		t = oxi_jis(p, JV_KIND_STRING) ? jv_copy(p) :
		    oxi_jget(p, "text");
		if (oxi_jis(t, JV_KIND_STRING))
			oxi_buf_cats(b, jv_string_value(t));
		jv_free(t);
		jv_free(p);
	}
}

jv
oxi_llm_call_args(jv tc)
{
	jv args = oxi_jget(tc, "args"), s;

	if (oxi_jis(args, JV_KIND_STRING)) {
		s = args;
		args = oxi_json_parse(jv_string_value(s),
		    strlen(jv_string_value(s)));
		jv_free(s);
	}
	if (!oxi_jis(args, JV_KIND_OBJECT)) {
		jv_free(args);
		args = jv_object();
	}
	return args;
}

jv
oxi_llm_tool_fn(jv t)
{
	jv fn = oxi_jget(t, "function");

	if (oxi_jis(fn, JV_KIND_OBJECT)) {
		jv_free(t);
		return fn;
	}
	jv_free(fn);
	return t;
}

jv
oxi_llm_params(jv v)
{
	if (oxi_jis(v, JV_KIND_OBJECT))
		return v;
	jv_free(v);
	v = jv_object_set(jv_object(), jv_string("type"), jv_string("object"));
	return jv_object_set(v, jv_string("properties"), jv_object());
}

jv
oxi_llm_messages(jv req)
{
	jv msgs = oxi_jget(req, "messages");

	if (!oxi_jis(msgs, JV_KIND_ARRAY) ||
	    jv_array_length(jv_copy(msgs)) == 0) {
		jv_free(msgs);
		return oxi_jbad("\"messages\" must be a non-empty array");
	}
	return msgs;
}

int
oxi_llm_stream(jv req)
{
	jv v = oxi_jget(req, "stream");
	int on = !oxi_jis(v, JV_KIND_FALSE);

	jv_free(v);
	return on;
}

jv
oxi_llm_push(jv msgs, const char *role, const char *key, jv items)
{
	int n = jv_array_length(jv_copy(msgs));
	jv last, r, c;

	if (jv_array_length(jv_copy(items)) == 0) {
		jv_free(items);
		return msgs;
	}
	if (n > 0) {
		last = jv_array_get(jv_copy(msgs), n - 1);
		r = oxi_jget(last, "role");
		if (oxi_jstr_is(r, role)) {
			c = jv_array_concat(oxi_jget(last, key), items);
			jv_free(r);
			return jv_array_set(msgs, n - 1, jv_object_set(last,
			    jv_string(key), c));
		}
		jv_free(r);
		jv_free(last);
	}
	return jv_array_append(msgs, jv_object_set(jv_object_set(jv_object(),
	    jv_string("role"), jv_string(role)), jv_string(key), items));
}

jv
oxi_llm_tool_head(jv o, jv t, int i)
{
	jv name = oxi_jget(t, "name"), v;

	if (!oxi_jis(name, JV_KIND_STRING)) {
		jv_free(name);
		jv_free(o);
		return oxi_jbad("tools[%d] has no \"name\"", i);
	}
	o = jv_object_set(o, jv_string("name"), name);
	v = oxi_jget(t, "description");
	if (oxi_jis(v, JV_KIND_STRING))
		o = jv_object_set(o, jv_string("description"), v);
	else
		jv_free(v);
	return o;
}

/* error bodies and embeddings */

jv
oxi_llm_errmsg(const char *body, size_t len)
{
	jv v, e, m;

	if (len == 0)
		return jv_invalid();
	v = oxi_json_parse(body, len);
	if (oxi_jis(v, JV_KIND_ARRAY) && jv_array_length(jv_copy(v)) > 0)
		v = jv_array_get(v, 0);
	if (!oxi_jis(v, JV_KIND_OBJECT)) {
		jv_free(v);
		return jv_invalid();
	}
	e = oxi_jget(v, "error");
	if (oxi_jis(e, JV_KIND_STRING)) {
		jv_free(v);
		return e;
	}
	m = oxi_jget(e, "message");
	jv_free(e);
	if (!oxi_jis(m, JV_KIND_STRING)) {
		jv_free(m);
		m = oxi_jget(v, "message");
	}
	if (!oxi_jis(m, JV_KIND_STRING)) {
		jv_free(m);
		m = oxi_jget(v, "detail");
	}
	jv_free(v);
	if (!oxi_jis(m, JV_KIND_STRING)) {
		jv_free(m);
		return jv_invalid();
	}
	return m;
}

/* 1 if v is a non-empty array of numbers */
static int
isvec(jv v)
{
	int i, n;

	if (jv_get_kind(v) != JV_KIND_ARRAY ||
	    (n = jv_array_length(jv_copy(v))) == 0)
		return 0;
	for (i = 0; i < n; i++) {
		jv x = jv_array_get(jv_copy(v), i);
		int ok = jv_get_kind(x) == JV_KIND_NUMBER;

		jv_free(x);
		if (!ok)
			return 0;
	}
	return 1;
}

jv
oxi_llm_vectors(jv list, int n, const char *key, const char *idx)
{
	jv out = jv_array(), v, e;
	int i, k;

	if (jv_get_kind(list) != JV_KIND_ARRAY ||
	    jv_array_length(jv_copy(list)) != n) {
		jv_free(list);
		jv_free(out);
		return jv_invalid_with_msg(jv_string_fmt("the reply does not"
		    " hold %d vector%s", n, n == 1 ? "" : "s"));
	}
	for (i = 0; i < n; i++)
		out = jv_array_append(out, jv_null());
	for (i = 0; i < n; i++) {
		e = jv_array_get(jv_copy(list), i);
		k = idx ? oxi_llm_index(e, idx, i) : i;
		v = key ? oxi_jget(e, key) : jv_copy(e);
		jv_free(e);
		if (k < 0 || k >= n || !isvec(v)) {
			jv_free(v);
			jv_free(list);
			jv_free(out);
			return jv_invalid_with_msg(jv_string_fmt("vector %d of"
			    " the reply is not an array of numbers", i));
		}
		out = jv_array_set(out, k, v);
	}
	jv_free(list);
	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(out), i);
		k = jv_get_kind(v) == JV_KIND_NULL;
		jv_free(v);
		if (k) {
			jv_free(out);
			return jv_invalid_with_msg(jv_string("the reply gives"
			    " one vector twice"));
		}
	}
	return out;
}

static void
embedurl(struct oxi_buf *url, const struct oxi_llm_target *t)
{
	(void)t;
	oxi_buf_cats(url, "/embeddings");
}

static jv
embedbody(const struct oxi_llm_target *t, jv texts, jv dims)
{
	jv b = jv_object();

	b = jv_object_set(b, jv_string("model"), jv_string(t->model));
	b = jv_object_set(b, jv_string("input"), texts);
	if (jv_get_kind(dims) == JV_KIND_NUMBER)
		b = jv_object_set(b, jv_string("dimensions"), dims);
	else
		jv_free(dims);
	return b;
}

static jv
vectors(jv reply, int n, jv *tokens)
{
	jv u = oxi_jget(reply, "usage"), v = oxi_jget(u, "prompt_tokens");

	jv_free(u);
	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		jv_free(*tokens);
		*tokens = v;
	} else
		jv_free(v);
	return oxi_llm_vectors(oxi_jget(reply, "data"), n, "embedding",
	    "index");
}

const struct oxi_llm_embed oxi_llm_embed_openai = {
	.url = embedurl,
	.body = embedbody,
	.vectors = vectors,
};
