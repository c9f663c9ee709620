/*
 * human.c - the pieces of oxi-llm's human mode: the -o options as fields
 * of an llm.request, the messages of a logged conversation, the user
 * message with its attachments, the default model kept in the
 * configuration directory, and the fenced code block of a reply (-x);
 * the efforts of reasoning_effort as thinking budgets, for the dialects
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

enum { O_NUM, O_INT, O_STR, O_EFFORT };

static const struct {
	const char *key;	/* -o KEY, and the request's field */
	int kind;		/* O_* */
	double min, max;	/* a number's bounds */
} opts[] = {
	{ "temperature", O_NUM, 0, 2 },
	{ "top_p", O_NUM, 0, 1 },
	{ "top_k", O_INT, 1, 1e9 },
	{ "max_tokens", O_INT, 1, 1e9 },
	{ "seed", O_INT, 0, 2147483647 },
	{ "stop", O_STR, 0, 0 },
	{ "reasoning_effort", O_EFFORT, 0, 0 },
	{ NULL, 0, 0, 0 }
};

int
oxi_llm_effort(jv th)
{
	static const struct {
		const char *name;	/* an effort */
		int tokens;		/* its thinking budget */
	} e[] = {
		{ "none", 0 }, { "minimal", 1024 }, { "low", 2048 },
		{ "medium", 8192 }, { "high", 24576 }, { NULL, -1 }
	};
	jv v = oxi_jget(th, "effort");
	int i;

	for (i = 0; e[i].name && !oxi_jstr_is(v, e[i].name); i++)
		;
	jv_free(v);
	return e[i].tokens;
}

jv
oxi_llm_option(jv o, const char *key, const char *val)
{
	char *end;
	double d;
	jv v;
	int i;

	for (i = 0; opts[i].key && strcmp(opts[i].key, key) != 0; i++)
		;
	if (!opts[i].key) {
		jv_free(o);
		return oxi_jbad("unknown option '%.40s': temperature, top_p,"
		    " top_k, max_tokens, seed, stop or reasoning_effort", key);
	}
	switch (opts[i].kind) {
	case O_NUM: case O_INT:
		errno = 0;
		d = strtod(val, &end);
		if (end == val || *end || errno || !isfinite(d) ||
		    d < opts[i].min || d > opts[i].max ||
		    (opts[i].kind == O_INT && d != floor(d))) {
			jv_free(o);
			return oxi_jbad("bad %s '%.40s': %s from %.0f to %.*f"
			    " expected", key, val, opts[i].kind == O_INT ?
			    "a whole number" : "a number", opts[i].min, 0,
			    opts[i].max);
		}
		return jv_object_set(o, jv_string(key), jv_number(d));
	case O_STR:
		if (!*val) {
			jv_free(o);
			return oxi_jbad("bad %s: an empty string", key);
		}
		v = oxi_jget(o, key);	/* more than one: an array */
		if (oxi_jis(v, JV_KIND_STRING))
			v = jv_array_append(jv_array(), v);
		if (oxi_jis(v, JV_KIND_ARRAY))
			v = jv_array_append(v, jv_string(val));
		else {
			jv_free(v);
			v = jv_string(val);
		}
		return jv_object_set(o, jv_string(key), v);
	}
	v = jv_object_set(jv_object(), jv_string("effort"), jv_string(val));
	if (oxi_llm_effort(v) < 0) {
		jv_free(v);
		jv_free(o);
		return oxi_jbad("bad %s '%.40s': none, minimal, low, medium or"
		    " high expected", key, val);
	}
	return jv_object_set(o, jv_string("thinking"), v);
}

jv
oxi_llm_user(const char *text, size_t len, jv parts)
{
	jv c;

	if (jv_array_length(jv_copy(parts)) == 0) {
		jv_free(parts);
		c = jv_string_sized(text, (int)len);
	} else if (len > 0)
		c = jv_array_concat(jv_array_append(jv_array(),
		    jv_object_set(jv_object_set(jv_object(), jv_string("type"),
		    jv_string("text")), jv_string("text"),
		    jv_string_sized(text, (int)len))), parts);
	else
		c = parts;
	return jv_object_set(jv_object_set(jv_object(), jv_string("role"),
	    jv_string("user")), jv_string("content"), c);
}

static jv
message(const char *role, const char *text)
{
	return jv_object_set(jv_object_set(jv_object(), jv_string("role"),
	    jv_string(role)), jv_string("content"), jv_string(text));
}

/* the parts of logged attachments (consumed), each made whole again */
static jv
again(jv refs)
{
	jv out = jv_array(), p, r;
	int i, n;

	n = oxi_jis(refs, JV_KIND_ARRAY) ? jv_array_length(jv_copy(refs)) : 0;
	for (i = 0; i < n; i++) {
		r = jv_array_get(jv_copy(refs), i);
		p = oxi_llm_attach_again(r);
		if (jv_is_valid(p)) {
			out = jv_array_append(out, p);
			continue;
		}
		r = jv_invalid_get_msg(p);
		oxi_warn("an attachment of an earlier prompt is left out: %s",
		    jv_string_value(r));
		jv_free(r);
	}
	jv_free(refs);
	return out;
}

jv
oxi_llm_turns(jv entries, const char *sys)
{
	jv msgs = jv_array(), e, last = jv_null(), s;
	const char *p;
	int i, n = jv_array_length(jv_copy(entries));

	for (i = 0; i < n; i++) {
		e = jv_array_get(jv_copy(entries), i);
		p = oxi_msg_peek(e, "prompt");
		msgs = jv_array_append(msgs, oxi_llm_user(p ? p : "",
		    p ? strlen(p) : 0, again(oxi_jget(e, "attachments"))));
		p = oxi_msg_peek(e, "reply");
		msgs = jv_array_append(msgs, message("assistant", p ? p : ""));
		s = oxi_jget(e, "system");
		if (oxi_jis(s, JV_KIND_STRING)) {
			jv_free(last);
			last = s;
		} else
			jv_free(s);
		jv_free(e);
	}
	jv_free(entries);
	if (sys) {
		jv_free(last);
		last = jv_string(sys);
	}
	if (oxi_jis(last, JV_KIND_STRING))
		msgs = jv_array_concat(jv_array_append(jv_array(),
		    message("system", jv_string_value(last))), msgs);
	jv_free(last);
	return msgs;
}

const char *
oxi_llm_path(char *buf, size_t len, const char *dir, const char *name)
{
	if (!dir)
		return NULL;
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

static const char *
modelfile(void)
{
	static char path[4096];

	return oxi_llm_path(path, sizeof path, oxi_config_dir(),
	    "default-model");
}

const char *
oxi_llm_default_model(void)
{
	static struct oxi_buf b = OXI_BUF_INIT;
	const char *f = modelfile();

	oxi_buf_reset(&b);
	if (!f || oxi_readfile(f, &b, 4096) < 0)
		return NULL;
	while (b.len > 0 && strchr(" \t\r\n", b.s[b.len - 1]))
		b.s[--b.len] = '\0';
	return b.len > 0 ? b.s : NULL;
}

int
oxi_llm_set_default_model(const char *model)
{
	const char *f = modelfile();
	FILE *fp;

	if (!f || !(fp = fopen(f, "w")))
		return -1;
	fprintf(fp, "%s\n", model);
	return fclose(fp) == 0 ? 0 : -1;
}

/* the length of the fence of backticks at s (at least 3), or 0 */
static size_t
fence(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && *p == '`')
		p++;
	return p - s >= 3 ? (size_t)(p - s) : 0;
}

int
oxi_llm_fenced(const char *s, size_t n, int last, size_t *off, size_t *len)
{
	const char *end = s + n, *p, *q, *code, *nl;
	size_t f;
	int found = 0;

	for (p = s; p < end; p = nl < end ? nl + 1 : end) {
		if (!(nl = memchr(p, '\n', end - p)))
			break;
		if (!(f = fence(p, nl)))
			continue;
		for (q = p + f; q < nl && (q[0] == '_' || (q[0] >= '0' &&
		    q[0] <= '9') || ((q[0] | 32) >= 'a' && (q[0] | 32) <=
		    'z')); q++)
			;
		if (q != nl)
			continue;	/* not a fence: text after the word */
		code = nl + 1;
		for (q = code; q < end; q = nl < end ? nl + 1 : end) {
			if (!(nl = memchr(q, '\n', end - q)))
				nl = end;
			if (fence(q, nl) == f && q + f == nl)
				break;
		}
		if (q >= end)
			break;	/* never closed */
		*off = code - s;
		*len = q - code;
		found = 1;
		if (!last)
			break;
	}
	return found;
}
