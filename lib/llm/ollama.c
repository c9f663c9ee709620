/*
 * ollama.c - Ollama's native dialect (/api/chat)
 *
 * The body: messages much as in Chat Completions, but tool call
 * arguments are objects and a tool result names its tool ("tool_name",
 * found from the call it answers); the thinking an assistant message
 * came with goes back as "thinking".  max_tokens, temperature, top_p,
 * top_k, seed and stop go under "options", merged with the request's own
 * "options"; "thinking" in the request sets "think" (true, or an effort
 * such as "high"; "none" is false).  Image attachments go in "images";
 * Ollama takes no files and no URLs.
 *
 * The reply: NDJSON, one object per line ({"message":{...},"done":false}
 * and a last one with "done":true, "done_reason" and the token counts),
 * or that last object alone when not streamed.  Tool calls arrive whole.
 * {"error":"..."} on a line fails the reply; no "done":true is a
 * truncated reply.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

#define LINEMAX	(16 * 1024 * 1024)	/* one line of the reply, at most */

struct oll {
	struct oxi_buf line;	/* the line being read */
	struct oxi_buf thought;	/* thinking text */
	int any;		/* some bytes came */
	long ncall;		/* tool calls seen */
	struct oxi_llm_reply r;	/* the reply */
};

/* content (consumed) as a string: text parts joined */
static jv
text(jv c)
{
	struct oxi_buf b = OXI_BUF_INIT;
	jv t;

	if (oxi_jis(c, JV_KIND_STRING))
		return c;
	oxi_llm_content_cat(&b, c);
	jv_free(c);
	t = jv_string_sized(b.s ? b.s : "", (int)b.len);
	oxi_buf_free(&b);
	return t;
}

/* the images of content c (borrowed) appended to imgs (consumed): our
 * image parts with their data; a file or a URL is an error */
static jv
images(jv imgs, jv c, int i)
{
	struct oxi_llm_att a;
	jv p;
	int j, n;

	n = oxi_jis(c, JV_KIND_ARRAY) ? jv_array_length(jv_copy(c)) : 0;
	for (j = 0; j < n && jv_is_valid(imgs); j++) {
		p = jv_array_get(jv_copy(c), j);
		if (oxi_llm_att(p, &a)) {
			if (a.file || !a.data) {
				jv_free(imgs);
				imgs = oxi_jbad("messages[%d]: Ollama takes"
				    " images as data, not %s", i, a.file ?
				    "files" : "URLs");
			} else
				imgs = jv_array_append(imgs,
				    jv_string(a.data));
		}
		jv_free(p);
	}
	return imgs;
}

/* the name of the call id in the messages before i, or invalid */
static jv
callname(jv msgs, int i, const char *id)
{
	jv m, tcs, tc, v, name = jv_invalid();
	int j, k, n;

	for (j = i - 1; j >= 0 && !jv_is_valid(name); j--) {
		m = jv_array_get(jv_copy(msgs), j);
		tcs = oxi_jget(m, "tool_calls");
		n = oxi_jis(tcs, JV_KIND_ARRAY) ?
		    jv_array_length(jv_copy(tcs)) : 0;
		for (k = 0; k < n && !jv_is_valid(name); k++) {
			tc = jv_array_get(jv_copy(tcs), k);
			v = oxi_jget(tc, "id");
			if (oxi_jstr_is(v, id))
				name = oxi_jget(tc, "name");
			jv_free(v);
			jv_free(tc);
		}
		jv_free(tcs);
		jv_free(m);
	}
	return name;
}

static jv
calls(jv tcs, int i)
{
	jv out = jv_array(), tc, name, args, fn;
	int j, n = jv_array_length(jv_copy(tcs));

	for (j = 0; j < n; j++) {
		tc = jv_array_get(jv_copy(tcs), j);
		name = oxi_jget(tc, "name");
		if (!oxi_jis(name, JV_KIND_STRING)) {
			jv_free(name);
			jv_free(tc);
			jv_free(tcs);
			jv_free(out);
			return oxi_jbad("messages[%d]: a tool call needs"
			    " \"name\"", i);
		}
		args = oxi_llm_call_args(tc);
		fn = jv_object_set(jv_object(), jv_string("name"), name);
		fn = jv_object_set(fn, jv_string("arguments"), args);
		out = jv_array_append(out, jv_object_set(jv_object(),
		    jv_string("function"), fn));
		jv_free(tc);
	}
	jv_free(tcs);
	return out;
}

/* the thinking text an assistant message came with */
static jv
thinking(jv m)
{
	jv th = oxi_llm_thinking(m, "ollama"), b, t;
	struct oxi_buf s = OXI_BUF_INIT;
	int i, n = jv_array_length(jv_copy(th));

	for (i = 0; i < n; i++) {
		b = jv_array_get(jv_copy(th), i);
		t = oxi_jget(b, "thinking");
		if (oxi_jis(t, JV_KIND_STRING))
			oxi_buf_cats(&s, jv_string_value(t));
		jv_free(t);
		jv_free(b);
	}
	jv_free(th);
	t = s.len ? jv_string_sized(s.s, (int)s.len) : jv_invalid();
	oxi_buf_free(&s);
	return t;
}

static jv
tools(jv ts)
{
	jv out = jv_array(), t, o;
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
		o = jv_object_set(o, jv_string("parameters"),
		    oxi_llm_params(oxi_jget(t, "parameters")));
		out = jv_array_append(out, jv_object_set(jv_object_set(
		    jv_object(), jv_string("type"), jv_string("function")),
		    jv_string("function"), o));
		jv_free(t);
	}
	jv_free(ts);
	return out;
}

static jv
options(jv req)
{
	static const char *const map[][2] = {
		{ "max_tokens", "num_predict" },
		{ "temperature", "temperature" },
		{ "top_p", "top_p" },
		{ "top_k", "top_k" },
		{ "seed", "seed" },
		{ NULL, NULL }
	};
	jv o = oxi_jget(req, "options"), v;
	int i;

	if (!oxi_jis(o, JV_KIND_OBJECT)) {
		jv_free(o);
		o = jv_object();
	}
	for (i = 0; map[i][0]; i++) {
		v = oxi_jget(req, map[i][0]);
		if (oxi_jis(v, JV_KIND_NUMBER))
			o = jv_object_set(o, jv_string(map[i][1]), v);
		else
			jv_free(v);
	}
	v = oxi_jget(req, "stop");
	if (oxi_jis(v, JV_KIND_STRING))
		v = jv_array_append(jv_array(), v);
	if (oxi_jis(v, JV_KIND_ARRAY))
		o = jv_object_set(o, jv_string("stop"), v);
	else
		jv_free(v);
	return o;
}

static jv
body(jv req, const struct oxi_llm_target *t)
{
	jv msgs, m, role, out = jv_array(), o, v, name;
	const char *r;
	int i, n;

	msgs = oxi_llm_messages(req);
	if (!jv_is_valid(msgs)) {
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
		if (strcmp(r, "developer") == 0)
			r = "system";
		if (strcmp(r, "system") != 0 && strcmp(r, "user") != 0 &&
		    strcmp(r, "assistant") != 0 && strcmp(r, "tool") != 0) {
			o = oxi_jbad("messages[%d] has an unknown role"
			    " '%.40s'", i, r);
			goto fail;
		}
		o = jv_object_set(jv_object(), jv_string("role"),
		    jv_string(r));
		v = oxi_jget(m, "content");
		o = jv_object_set(o, jv_string("content"), text(jv_copy(v)));
		name = oxi_jget(m, "images");
		if (!oxi_jis(name, JV_KIND_ARRAY)) {
			jv_free(name);
			name = jv_array();
		}
		name = images(name, v, i);
		jv_free(v);
		if (!jv_is_valid(name)) {
			jv_free(o);
			o = name;
			goto fail;
		}
		if (jv_array_length(jv_copy(name)) > 0)
			o = jv_object_set(o, jv_string("images"), name);
		else
			jv_free(name);
		if (strcmp(r, "assistant") == 0) {
			v = thinking(m);
			if (jv_is_valid(v))
				o = jv_object_set(o, jv_string("thinking"), v);
			v = oxi_jget(m, "tool_calls");
			if (oxi_jis(v, JV_KIND_ARRAY) &&
			    jv_array_length(jv_copy(v)) > 0) {
				v = calls(v, i);
				if (!jv_is_valid(v)) {
					jv_free(o);
					o = v;
					goto fail;
				}
				o = jv_object_set(o, jv_string("tool_calls"),
				    v);
			} else
				jv_free(v);
		} else if (strcmp(r, "tool") == 0) {
			v = oxi_jget(m, "tool_call_id");
			name = oxi_jis(v, JV_KIND_STRING) ? callname(msgs, i,
			    jv_string_value(v)) : jv_invalid();
			jv_free(v);
			if (!oxi_jis(name, JV_KIND_STRING)) {
				jv_free(name);
				name = oxi_jget(m, "name");
			}
			if (oxi_jis(name, JV_KIND_STRING))
				o = jv_object_set(o, jv_string("tool_name"),
				    name);
			else
				jv_free(name);
		}
		out = jv_array_append(out, o);
		jv_free(role);
		jv_free(m);
	}
	jv_free(msgs);
	o = jv_object_set(jv_object(), jv_string("model"),
	    jv_string(t->model));
	o = jv_object_set(o, jv_string("messages"), out);
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
	v = options(req);
	if (jv_object_length(jv_copy(v)) > 0)
		o = jv_object_set(o, jv_string("options"), v);
	else
		jv_free(v);
	v = oxi_jget(req, "thinking");
	if (oxi_jis(v, JV_KIND_OBJECT)) {
		m = oxi_jget(v, "effort");
		jv_free(v);
		v = m;
		if (oxi_jstr_is(v, "none")) {
			jv_free(v);
			v = jv_false();
		} else if (oxi_jstr_is(v, "minimal")) {
			jv_free(v);
			v = jv_string("low");
		}
		if (!oxi_jis(v, JV_KIND_STRING) && !oxi_jis(v, JV_KIND_FALSE)) {
			jv_free(v);
			v = jv_true();
		}
	} else if (oxi_jis(v, JV_KIND_NUMBER)) {
		jv_free(v);
		v = jv_true();
	}
	if (oxi_jis(v, JV_KIND_TRUE) || oxi_jis(v, JV_KIND_FALSE) ||
	    oxi_jis(v, JV_KIND_STRING))
		o = jv_object_set(o, jv_string("think"), v);
	else
		jv_free(v);
	v = oxi_jget(req, "keep_alive");
	if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
		o = jv_object_set(o, jv_string("keep_alive"), v);
	else
		jv_free(v);
	return jv_object_set(o, jv_string("stream"),
	    jv_bool(oxi_llm_stream(req)));

fail:
	jv_free(role);
	jv_free(m);
	jv_free(msgs);
	jv_free(out);
	return o;
}

static void
toolcalls(struct oll *o, jv tcs)
{
	struct oxi_llm_call *c;
	jv tc, fn, v;
	int i, n;

	n = oxi_jis(tcs, JV_KIND_ARRAY) ? jv_array_length(jv_copy(tcs)) : 0;
	for (i = 0; i < n; i++) {
		tc = jv_array_get(jv_copy(tcs), i);
		fn = oxi_jget(tc, "function");
		c = oxi_llm_reply_call(&o->r, o->ncall++);
		v = oxi_jget(tc, "id");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&c->id, jv_string_value(v));
		jv_free(v);
		v = oxi_jget(fn, "name");
		if (oxi_jis(v, JV_KIND_STRING))
			oxi_buf_cats(&c->name, jv_string_value(v));
		jv_free(v);
		v = oxi_jget(fn, "arguments");
		if (oxi_jis(v, JV_KIND_STRING))	/* some versions: a JSON text */
			oxi_buf_cats(&c->args, jv_string_value(v));
		else if (oxi_jis(v, JV_KIND_OBJECT)) {
			v = jv_dump_string(v, 0);
			oxi_buf_cats(&c->args, jv_string_value(v));
		} else if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
			oxi_buf_cats(&c->args, "[]");	/* not an object */
		jv_free(v);
		jv_free(fn);
		jv_free(tc);
	}
}

/* one line's object (consumed) */
static void
chunk(struct oll *o, jv c)
{
	jv e, m, v;

	if (!oxi_jis(c, JV_KIND_OBJECT)) {
		jv_free(c);
		oxi_llm_reply_fail(&o->r, "bad_reply", 0, "a reply line is not"
		    " an object");
		return;
	}
	e = oxi_jget(c, "error");
	if (jv_is_valid(e) && !oxi_jis(e, JV_KIND_NULL)) {
		jv_free(c);
		oxi_llm_reply_perror(&o->r, e);
		return;
	}
	jv_free(e);
	if (o->r.ended) {
		jv_free(c);
		return;
	}
	m = oxi_jget(c, "message");
	v = oxi_jget(m, "thinking");
	if (oxi_jis(v, JV_KIND_STRING))
		oxi_buf_cat(&o->thought, jv_string_value(v),
		    jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
	v = oxi_jget(m, "content");
	if (oxi_jis(v, JV_KIND_STRING))
		oxi_llm_reply_text(&o->r, jv_string_value(v),
		    jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
	v = oxi_jget(m, "tool_calls");
	toolcalls(o, v);
	jv_free(v);
	jv_free(m);
	v = oxi_jget(c, "done");
	if (oxi_jis(v, JV_KIND_TRUE)) {
		o->r.ended = 1;
		o->r.input = oxi_jnum(c, "prompt_eval_count", 0);
		o->r.output = oxi_jnum(c, "eval_count", 0);
		jv_free(v);
		v = oxi_jget(c, "done_reason");
		if (oxi_jstr_is(v, "length"))
			o->r.stop = "length";
	}
	jv_free(v);
	jv_free(c);
}

static void
line(struct oll *o, const char *s, size_t n, int last)
{
	jv c;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
	    s[n - 1] == ' '))
		n--;
	if (n == 0)
		return;
	c = oxi_json_parse(s, n);
	if (!jv_is_valid(c)) {
		jv_free(c);
		if (last)
			oxi_llm_reply_fail(&o->r, "truncated", 1, "the reply"
			    " ended inside a line");
		else
			oxi_llm_reply_fail(&o->r, "bad_reply", 1, "invalid"
			    " JSON in the reply");
		return;
	}
	chunk(o, c);
}

static void *
reader(oxi_llm_text_fn text, void *arg)
{
	struct oll *o = xcalloc(1, sizeof *o);

	oxi_llm_reply_init(&o->r, text, arg);
	return o;
}

static int
feed(void *rd, const char *p, size_t n)
{
	struct oll *o = rd;
	const char *nl;
	size_t k;

	while (n > 0 && !o->r.failed) {
		o->any = 1;
		nl = memchr(p, '\n', n);
		k = nl ? (size_t)(nl - p) + 1 : n;
		if (o->line.len + k > LINEMAX) {
			oxi_llm_reply_fail(&o->r, "bad_reply", 0, "a reply"
			    " line over the size cap");
			break;
		}
		oxi_buf_cat(&o->line, p, k);
		p += k;
		n -= k;
		if (nl) {
			line(o, o->line.s, o->line.len, 0);
			oxi_buf_reset(&o->line);
		}
	}
	return o->r.failed ? -1 : 0;
}

static jv
result(void *rd, const char **code, int *retry)
{
	struct oll *o = rd;
	jv b;

	if (!o->r.failed && o->line.len > 0) {
		line(o, o->line.s, o->line.len, 1);
		oxi_buf_reset(&o->line);
	}
	if (!o->r.failed && !o->any)
		oxi_llm_reply_fail(&o->r, "truncated", 1, "the reply was"
		    " empty");
	if (!o->r.failed && o->thought.len > 0) {
		b = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("thinking"));
		b = jv_object_set(b, jv_string("thinking"),
		    jv_string_sized(o->thought.s, (int)o->thought.len));
		oxi_llm_reply_think(&o->r, "ollama", b);
		oxi_buf_reset(&o->thought);
	}
	return oxi_llm_reply_result(&o->r, code, retry);
}

static int
complete(const void *rd)
{
	const struct oll *o = rd;

	return o->r.ended && !o->r.failed;
}

static void
rfree(void *rd)
{
	struct oll *o = rd;

	if (!o)
		return;
	oxi_buf_free(&o->line);
	oxi_buf_free(&o->thought);
	oxi_llm_reply_free(&o->r);
	free(o);
}

/* embeddings: the native /api/embed */

static void
embedurl(struct oxi_buf *u, const struct oxi_llm_target *t)
{
	(void)t;
	oxi_buf_cats(u, "/api/embed");
}

static jv
embedbody(const struct oxi_llm_target *t, jv texts, jv dims)
{
	jv b = jv_object();

	jv_free(dims);		/* not asked for here */
	b = jv_object_set(b, jv_string("model"), jv_string(t->model));
	return jv_object_set(b, jv_string("input"), texts);
}

static jv
vectors(jv reply, int n, jv *tokens)
{
	jv v = oxi_jget(reply, "prompt_eval_count");

	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		jv_free(*tokens);
		*tokens = v;
	} else
		jv_free(v);
	return oxi_llm_vectors(oxi_jget(reply, "embeddings"), n, NULL, NULL);
}

static const struct oxi_llm_embed embed = {
	.url = embedurl,
	.body = embedbody,
	.vectors = vectors,
};

const struct oxi_llm_dialect oxi_dialect_ollama = {
	.name = "ollama",
	.auth = "Authorization: Bearer %s",
	.accept = "Accept: application/x-ndjson",
	.path = "/api/chat",
	.body = body,
	.reader = reader, .feed = feed, .result = result,
	.complete = complete, .free = rfree,
	.embed = &embed,
};
