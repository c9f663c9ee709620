/*
 * ptools.c - prompt-guided tools, for models without native tool
 * calling (OXI_<PROVIDER>_TOOLS=prompt, or "tool_mode":"prompt" in a
 * request)
 *
 * The request loses its "tools": they are described at the end of the
 * system prompt, with the instruction to call one by writing
 *
 *	<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>
 *
 * An assistant message's earlier calls are written back as such blocks,
 * and tool results become user text in <tool_result> blocks, so any chat
 * model can follow the exchange.
 *
 * The reply passes through the dialect's own reader; its text is watched
 * as it streams: a block is cut out and becomes a tool call, text that
 * may be the start of "<tool_call>" is held back until the next bytes
 * show what it is, so a block never shows as llm.delta text.
 */
#define _GNU_SOURCE

#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

#define OPEN	"<tool_call>"
#define CLOSE	"</tool_call>"
#define BLOCKMAX	(1024 * 1024)	/* bytes of one block, at most */

struct oxi_ptools {
	const struct oxi_llm_dialect *d;	/* the dialect underneath */
	void *rd;		/* its reader */
	oxi_llm_text_fn text;	/* where answer text goes, or NULL */
	void *arg;		/* its argument */
	int in;			/* inside a block */
	struct oxi_buf hold;	/* text held back, or the block so far */
	struct oxi_buf out;	/* the answer's text without the blocks */
	jv calls;		/* the calls found, an array */
	int bad;		/* a block that is not a call: its number */
};

static void
dump(struct oxi_buf *b, jv v)
{
	jv s = jv_dump_string(v, 0);

	oxi_buf_cats(b, jv_string_value(s));
	jv_free(s);
}

/* the tool section of the system prompt */
static void
describe(struct oxi_buf *b, jv tools)
{
	jv t, v;
	int i, n = jv_array_length(jv_copy(tools));

	oxi_buf_cats(b,
	    "# Tools\n\n"
	    "You can call tools. To call one, write a block of this form,"
	    " with the arguments as a JSON object that fits the tool's"
	    " parameters:\n\n"
	    OPEN "{\"name\": \"TOOL_NAME\", \"arguments\":"
	    " {\"ARG\": \"VALUE\"}}"
	    CLOSE "\n\n"
	    "Write one block per call; several blocks call several tools at"
	    " once. After your blocks, stop and wait: the results come back"
	    " in the next message, each in a <tool_result> block. Never"
	    " write a <tool_result> yourself, and only use the tools listed"
	    " here. When you need no tool, answer normally.\n\n"
	    "Available tools:\n");
	for (i = 0; i < n; i++) {
		t = oxi_llm_tool_fn(jv_array_get(jv_copy(tools), i));
		v = oxi_jget(t, "name");
		if (oxi_jis(v, JV_KIND_STRING)) {
			oxi_buf_printf(b, "\n## %s\n", jv_string_value(v));
			jv_free(v);
			v = oxi_jget(t, "description");
			if (oxi_jis(v, JV_KIND_STRING))
				oxi_buf_printf(b, "%s\n", jv_string_value(v));
			jv_free(v);
			v = oxi_jget(t, "parameters");
			if (oxi_jis(v, JV_KIND_OBJECT)) {
				oxi_buf_cats(b, "Parameters (JSON Schema): ");
				dump(b, v);
				oxi_buf_putc(b, '\n');
			} else
				jv_free(v);
		} else
			jv_free(v);
		jv_free(t);
	}
}

/* "<tool_call>{...}</tool_call>" for each call of tcs (borrowed) */
static void
blocks(struct oxi_buf *b, jv tcs)
{
	jv tc, v, o;
	int i, n = jv_array_length(jv_copy(tcs));

	for (i = 0; i < n; i++) {
		tc = jv_array_get(jv_copy(tcs), i);
		v = oxi_jget(tc, "name");
		if (!oxi_jis(v, JV_KIND_STRING)) {
			jv_free(v);
			v = jv_string("");
		}
		o = jv_object_set(jv_object(), jv_string("name"), v);
		o = jv_object_set(o, jv_string("arguments"),
		    oxi_llm_call_args(tc));
		if (b->len > 0)
			oxi_buf_putc(b, '\n');
		oxi_buf_cats(b, OPEN);
		dump(b, o);
		oxi_buf_cats(b, CLOSE);
		jv_free(tc);
	}
}

/* the name of call id in msgs before i, or "" */
static const char *
callname(jv msgs, int i, const char *id, struct oxi_buf *name)
{
	jv m, tcs, tc, v;
	int j, k, n;

	oxi_buf_reset(name);
	for (j = i - 1; j >= 0 && name->len == 0; j--) {
		m = jv_array_get(jv_copy(msgs), j);
		tcs = oxi_jget(m, "tool_calls");
		n = oxi_jis(tcs, JV_KIND_ARRAY) ?
		    jv_array_length(jv_copy(tcs)) : 0;
		for (k = 0; k < n && name->len == 0; k++) {
			tc = jv_array_get(jv_copy(tcs), k);
			v = oxi_jget(tc, "id");
			if (oxi_jstr_is(v, id)) {
				jv_free(v);
				v = oxi_jget(tc, "name");
				if (oxi_jis(v, JV_KIND_STRING))
					oxi_buf_cats(name, jv_string_value(v));
			}
			jv_free(v);
			jv_free(tc);
		}
		jv_free(tcs);
		jv_free(m);
	}
	return name->s ? name->s : "";
}

static jv
msg(const char *role, struct oxi_buf *b)
{
	return jv_object_set(jv_object_set(jv_object(), jv_string("role"),
	    jv_string(role)), jv_string("content"),
	    jv_string_sized(b->s ? b->s : "", (int)b->len));
}

jv
oxi_ptools_request(jv req)
{
	struct oxi_buf b = OXI_BUF_INIT, res = OXI_BUF_INIT, nm = OXI_BUF_INIT;
	jv msgs, out = jv_array(), m, role, v, tools, r;
	int i, n, sys = -1;

	msgs = oxi_jget(req, "messages");
	if (!oxi_jis(msgs, JV_KIND_ARRAY)) {
		jv_free(msgs);
		jv_free(out);
		return jv_invalid_with_msg(jv_string("\"messages\" must be a"
		    " non-empty array"));
	}
	n = jv_array_length(jv_copy(msgs));
	for (i = 0; i < n; i++) {
		m = jv_array_get(jv_copy(msgs), i);
		role = oxi_jget(m, "role");
		if (oxi_jstr_is(role, "tool")) {
			v = oxi_jget(m, "tool_call_id");
			oxi_buf_printf(&res, "%s<tool_result name=\"%s\">\n",
			    res.len ? "\n" : "", oxi_jis(v, JV_KIND_STRING) ?
			    callname(msgs, i, jv_string_value(v), &nm) : "");
			jv_free(v);
			v = oxi_jget(m, "content");
			if (oxi_jis(v, JV_KIND_STRING) ||
			    oxi_jis(v, JV_KIND_ARRAY))
				oxi_llm_content_cat(&res, v);
			else if (jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
				dump(&res, jv_copy(v));
			jv_free(v);
			oxi_buf_cats(&res, "\n</tool_result>");
			jv_free(role);
			jv_free(m);
			continue;
		}
		if (res.len > 0) {
			out = jv_array_append(out, msg("user", &res));
			oxi_buf_reset(&res);
		}
		if (oxi_jstr_is(role, "assistant")) {
			v = oxi_jget(m, "tool_calls");
			if (oxi_jis(v, JV_KIND_ARRAY) &&
			    jv_array_length(jv_copy(v)) > 0) {
				oxi_buf_reset(&b);
				r = oxi_jget(m, "content");
				oxi_llm_content_cat(&b, r);
				jv_free(r);
				blocks(&b, v);
				m = jv_object_delete(m,
				    jv_string("tool_calls"));
				m = jv_object_set(m, jv_string("content"),
				    jv_string_sized(b.s, (int)b.len));
			}
			jv_free(v);
		} else if (sys < 0 && (oxi_jstr_is(role, "system") ||
		    oxi_jstr_is(role, "developer")))
			sys = jv_array_length(jv_copy(out));
		out = jv_array_append(out, m);
		jv_free(role);
	}
	if (res.len > 0)
		out = jv_array_append(out, msg("user", &res));
	jv_free(msgs);
	tools = oxi_jget(req, "tools");
	if (oxi_jis(tools, JV_KIND_ARRAY) &&
	    jv_array_length(jv_copy(tools)) > 0) {
		oxi_buf_reset(&b);
		if (sys >= 0) {
			m = jv_array_get(jv_copy(out), sys);
			v = oxi_jget(m, "content");
			oxi_llm_content_cat(&b, v);
			jv_free(v);
			if (b.len > 0)
				oxi_buf_cats(&b, "\n\n");
			describe(&b, tools);
			m = jv_object_set(m, jv_string("content"),
			    jv_string_sized(b.s, (int)b.len));
			out = jv_array_set(out, sys, m);
		} else {
			describe(&b, tools);
			out = jv_array_concat(jv_array_append(jv_array(),
			    msg("system", &b)), out);
		}
	}
	jv_free(tools);
	r = jv_object_delete(jv_copy(req), jv_string("tools"));
	r = jv_object_delete(r, jv_string("tool_mode"));
	r = jv_object_delete(r, jv_string("tool_choice"));
	r = jv_object_set(r, jv_string("messages"), out);
	oxi_buf_free(&b);
	oxi_buf_free(&res);
	oxi_buf_free(&nm);
	return r;
}

static void
emit(struct oxi_ptools *p, const char *s, size_t n)
{
	if (n == 0)
		return;
	oxi_buf_cat(&p->out, s, n);
	if (p->text)
		p->text(p->arg, s, n);
}

/* a block's text (between the tags) as a call */
static void
call(struct oxi_ptools *p, const char *s, size_t n)
{
	jv c, name, args, v, o;
	char id[OXI_ID_LEN + 6];

	while (n > 0 && strchr(" \t\r\n", *s)) {
		s++;
		n--;
	}
	while (n > 0 && strchr(" \t\r\n", s[n - 1]))
		n--;
	if (n >= 3 && memcmp(s, "```", 3) == 0) {	/* a code fence */
		while (n > 0 && *s != '\n') {
			s++;
			n--;
		}
		while (n > 0 && (s[n - 1] == '`' || strchr(" \t\r\n",
		    s[n - 1])))
			n--;
	}
	c = n > 0 ? oxi_json_parse(s, n) : jv_invalid();
	name = oxi_jget(c, "name");
	args = oxi_jget(c, "arguments");
	if (!jv_is_valid(args)) {
		jv_free(args);
		args = oxi_jget(c, "args");
	}
	if (!jv_is_valid(args)) {
		jv_free(args);
		args = oxi_jget(c, "parameters");
	}
	if (oxi_jis(args, JV_KIND_STRING)) {
		v = args;
		args = oxi_json_parse(jv_string_value(v),
		    strlen(jv_string_value(v)));
		jv_free(v);
	}
	if (!jv_is_valid(args) || oxi_jis(args, JV_KIND_NULL)) {
		jv_free(args);
		args = jv_object();
	}
	jv_free(c);
	if (!oxi_jis(name, JV_KIND_STRING) || !oxi_jis(args, JV_KIND_OBJECT)) {
		jv_free(name);
		jv_free(args);
		if (!p->bad)
			p->bad = jv_array_length(jv_copy(p->calls)) + 1;
		return;
	}
	memcpy(id, "call_", 5);
	oxi_id_new(id + 5);
	o = jv_object_set(jv_object(), jv_string("id"), jv_string(id));
	o = jv_object_set(o, jv_string("name"), name);
	o = jv_object_set(o, jv_string("args"), args);
	p->calls = jv_array_append(p->calls, o);
}

/* the length of the longest end of s[0..n) that begins tag */
static size_t
partial(const char *s, size_t n, const char *tag)
{
	size_t k, t = strlen(tag);

	for (k = n < t - 1 ? n : t - 1; k > 0; k--)
		if (memcmp(s + n - k, tag, k) == 0)
			return k;
	return 0;
}

/* the text filter, fed by the dialect's reader */
static void
ontext(void *arg, const char *s, size_t n)
{
	struct oxi_ptools *p = arg;
	char *at;
	size_t k, keep;

	oxi_buf_cat(&p->hold, s, n);
	for (;;) {
		if (!p->in) {
			at = memmem(p->hold.s, p->hold.len, OPEN,
			    strlen(OPEN));
			if (!at) {
				keep = partial(p->hold.s, p->hold.len, OPEN);
				emit(p, p->hold.s, p->hold.len - keep);
				oxi_buf_consume(&p->hold, p->hold.len - keep);
				return;
			}
			k = at - p->hold.s;
			emit(p, p->hold.s, k);
			oxi_buf_consume(&p->hold, k + strlen(OPEN));
			p->in = 1;
		} else {
			at = memmem(p->hold.s, p->hold.len, CLOSE,
			    strlen(CLOSE));
			if (!at) {
				if (p->hold.len > BLOCKMAX && !p->bad)
					p->bad = jv_array_length(
					    jv_copy(p->calls)) + 1;
				return;
			}
			k = at - p->hold.s;
			call(p, p->hold.s, k);
			oxi_buf_consume(&p->hold, k + strlen(CLOSE));
			p->in = 0;
		}
	}
}

struct oxi_ptools *
oxi_ptools_new(const struct oxi_llm_dialect *d, oxi_llm_text_fn text,
    void *arg)
{
	struct oxi_ptools *p = xcalloc(1, sizeof *p);

	p->d = d;
	p->text = text;
	p->arg = arg;
	p->calls = jv_array();
	p->rd = d->reader(ontext, p);
	return p;
}

int
oxi_ptools_feed(struct oxi_ptools *p, const char *s, size_t n)
{
	return p->d->feed(p->rd, s, n);
}

int
oxi_ptools_complete(const struct oxi_ptools *p)
{
	return p->d->complete(p->rd);
}

jv
oxi_ptools_result(struct oxi_ptools *p, const char **code, int *retry)
{
	jv r, m, tc, stop;
	char buf[120];
	size_t n;
	int i, k;

	r = p->d->result(p->rd, code, retry);
	if (!jv_is_valid(r))
		return r;
	if (p->in) {
		/* a last block without its end tag: a call if it parses */
		k = jv_array_length(jv_copy(p->calls));
		call(p, p->hold.s ? p->hold.s : "", p->hold.len);
		if (p->bad == k + 1) {
			stop = oxi_jget(r, "stop");
			snprintf(buf, sizeof buf, "an unfinished <tool_call>"
			    " block%s", oxi_jstr_is(stop, "length") ?
			    " (reply cut at the token limit)" : "");
			jv_free(stop);
			jv_free(r);
			*code = "bad_tool_args";
			*retry = 0;
			return jv_invalid_with_msg(jv_string(buf));
		}
		oxi_buf_reset(&p->hold);
		p->in = 0;
	} else {
		emit(p, p->hold.s ? p->hold.s : "", p->hold.len);
		oxi_buf_reset(&p->hold);
	}
	if (p->bad) {
		jv_free(r);
		snprintf(buf, sizeof buf, "<tool_call> block %d is not"
		    " {\"name\": ..., \"arguments\": {...}}", p->bad);
		*code = "bad_tool_args";
		*retry = 0;
		return jv_invalid_with_msg(jv_string(buf));
	}
	m = oxi_jget(r, "message");
	tc = oxi_jget(m, "tool_calls");
	if (!oxi_jis(tc, JV_KIND_ARRAY)) {
		jv_free(tc);
		tc = jv_array();
	}
	k = jv_array_length(jv_copy(p->calls));
	for (i = 0; i < k; i++)
		tc = jv_array_append(tc, jv_array_get(jv_copy(p->calls), i));
	n = p->out.len;
	m = jv_object_set(m, jv_string("content"), n > 0 || (k == 0 &&
	    jv_array_length(jv_copy(tc)) == 0) ?
	    jv_string_sized(p->out.s ? p->out.s : "", (int)n) : jv_null());
	k = jv_array_length(jv_copy(tc));
	m = jv_object_set(m, jv_string("tool_calls"), tc);
	r = jv_object_set(r, jv_string("message"), m);
	stop = oxi_jget(r, "stop");
	if (k > 0 && oxi_jstr_is(stop, "end"))
		r = jv_object_set(r, jv_string("stop"), jv_string("tool_use"));
	jv_free(stop);
	return r;
}

void
oxi_ptools_free(struct oxi_ptools *p)
{
	if (!p)
		return;
	p->d->free(p->rd);
	oxi_buf_free(&p->hold);
	oxi_buf_free(&p->out);
	jv_free(p->calls);
	free(p);
}
