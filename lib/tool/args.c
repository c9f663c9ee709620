/*
 * args.c - what a tool's run() uses of its call: the time left, the
 * taint it learns, error results, the arguments and the output cap
 *
 * Every helper takes the call (struct oxi_tool_call, tooldef.h), so an
 * error message names the tool called without being told, and none of
 * them keeps any state of its own.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "tool/tooldef.h"

long
oxi_tool_left(const struct oxi_tool_call *c, long dflt)
{
	long long left;

	if (c->deadline == 0)
		return dflt;
	left = c->deadline - oxi_clock_ms();
	return left < 1 ? 1 : left > 0x7fffffff ? 0x7fffffff : (long)left;
}

int
oxi_tool_expired(const struct oxi_tool_call *c)
{
	return c->deadline != 0 && oxi_clock_ms() >= c->deadline;
}

void
oxi_tool_taint(struct oxi_tool_call *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->taint, sizeof c->taint, fmt, ap);
	va_end(ap);
}

void
oxi_tool_cap(struct oxi_buf *out, size_t max, size_t total)
{
	size_t n;

	if (total <= max && out->len <= max)
		return;
	n = out->len < max ? out->len : max;
	n = oxi_utf8_cut(out->s, out->len, n);
	out->len = n;
	if (out->s)
		out->s[n] = '\0';
	oxi_buf_printf(out, "\n[output truncated: %zu of %zu bytes shown]",
	    n, total > n ? total : n);
}

int
oxi_tool_fail(struct oxi_tool_call *c, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	oxi_buf_reset(c->out);
	oxi_buf_printf(c->out, "%s: %s", c->name, msg);
	return -1;
}

int
oxi_tool_failpath(struct oxi_tool_call *c, const char *path, int e)
{
	const char *why;
	char *shown;

	switch (e) {
	case EXDEV: why = "is outside the workspace"; break;
	case ELOOP: why = "leads through a symbolic link, not followed"; break;
	case ENOENT: why = "no such file or directory"; break;
	case ENOTDIR: why = "not a directory"; break;
	case EISDIR: why = "is a directory"; break;
	case EACCES: why = "permission denied"; break;
	case ENAMETOOLONG: why = "name too long"; break;
	case ETIME: why = "timed out"; break;
	default: why = strerror(e); break;
	}
	shown = oxi_tool_showname(path);
	oxi_tool_fail(c, "'%s': %s", shown, why);
	free(shown);
	return -1;
}

int
oxi_tool_keys(struct oxi_tool_call *c, const char *keys)
{
	const char *k, *p;
	size_t n;
	int it, ok;
	jv key;

	for (it = jv_object_iter(c->args); jv_object_iter_valid(c->args, it);
	    it = jv_object_iter_next(c->args, it)) {
		key = jv_object_iter_key(c->args, it);
		k = jv_string_value(key);
		n = strlen(k);
		ok = 0;
		for (p = keys; *p; p += strcspn(p, " "), p += *p == ' ')
			if (strncmp(p, k, n) == 0 && (p[n] == ' ' ||
			    p[n] == '\0') && n > 0) {
				ok = 1;
				break;
			}
		if (!ok) {
			oxi_tool_fail(c, "unknown argument '%.100s'", k);
			jv_free(key);
			return -1;
		}
		jv_free(key);
	}
	return 0;
}

int
oxi_tool_argstr(struct oxi_tool_call *c, const char *key, const char **s,
    size_t *len)
{
	jv v = jv_object_get(jv_copy(c->args), jv_string(key));
	jv_kind k = jv_get_kind(v);

	if (k == JV_KIND_INVALID || k == JV_KIND_NULL) {
		jv_free(v);
		return 0;
	}
	if (k != JV_KIND_STRING) {
		jv_free(v);
		return oxi_tool_fail(c, "argument '%s' must be a string", key);
	}
	/* args holds a reference: the bytes outlive v */
	*s = jv_string_value(v);
	*len = (size_t)jv_string_length_bytes(jv_copy(v));
	jv_free(v);
	return 1;
}

int
oxi_tool_needstr(struct oxi_tool_call *c, const char *key, const char **s,
    size_t *len)
{
	int r = oxi_tool_argstr(c, key, s, len);

	if (r == 0)
		return oxi_tool_fail(c, "missing argument '%s'", key);
	return r;
}

int
oxi_tool_argpath(struct oxi_tool_call *c, const char *key, const char **s)
{
	size_t len;
	int r;

	if ((r = oxi_tool_argstr(c, key, s, &len)) <= 0)
		return r;
	if (len == 0)
		return oxi_tool_fail(c, "argument '%s' is empty", key);
	if (strlen(*s) != len)
		return oxi_tool_fail(c, "argument '%s' holds a NUL byte", key);
	return 1;
}

int
oxi_tool_argint(struct oxi_tool_call *c, const char *key, long long min,
    long long *val)
{
	jv v = jv_object_get(jv_copy(c->args), jv_string(key));
	jv_kind k = jv_get_kind(v);
	double d;

	if (k == JV_KIND_INVALID || k == JV_KIND_NULL) {
		jv_free(v);
		return 0;
	}
	d = k == JV_KIND_NUMBER ? jv_number_value(v) : -1e300;
	jv_free(v);
	if (k != JV_KIND_NUMBER || d != (double)(long long)d || d < min ||
	    d > 9e15)
		return oxi_tool_fail(c, "argument '%s' must be an integer "
		    ">= %lld", key, min);
	*val = (long long)d;
	return 1;
}

int
oxi_tool_argbool(struct oxi_tool_call *c, const char *key, int *val)
{
	jv v = jv_object_get(jv_copy(c->args), jv_string(key));
	jv_kind k = jv_get_kind(v);

	jv_free(v);
	if (k == JV_KIND_INVALID || k == JV_KIND_NULL)
		return 0;
	if (k != JV_KIND_TRUE && k != JV_KIND_FALSE)
		return oxi_tool_fail(c, "argument '%s' must be true or "
		    "false", key);
	*val = k == JV_KIND_TRUE;
	return 1;
}

/* a code point that moves or hides text: C1 controls, zero widths,
 * line separators, bidirectional embeddings and isolates, BOM */
static int
hides(unsigned long u)
{
	return (u >= 0x80 && u < 0xa0) || (u >= 0x200b && u <= 0x200f) ||
	    (u >= 0x2028 && u <= 0x202e) || (u >= 0x2060 && u <= 0x206f) ||
	    u == 0xfeff;
}

void
oxi_tool_catname(struct oxi_buf *b, const char *name, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)name;
	unsigned long u;
	size_t i, k;
	char e[8];

	for (i = 0; i < n; i += k) {
		k = 1;
		if (s[i] == '\\')
			oxi_buf_cats(b, "\\\\");
		else if (s[i] == '\n')
			oxi_buf_cats(b, "\\n");
		else if (s[i] == '\t')
			oxi_buf_cats(b, "\\t");
		else if (s[i] == '\r')
			oxi_buf_cats(b, "\\r");
		else if (s[i] >= 0x20 && s[i] < 0x7f)
			oxi_buf_putc(b, s[i]);
		else if (s[i] < 0x80 ||
		    !(k = oxi_utf8_seq(name + i, n - i))) {
			k = 1;
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[s[i] >> 4];
			e[3] = hex[s[i] & 15];
			oxi_buf_cat(b, e, 4);
		} else {
			u = k == 2 ? (s[i] & 0x1fUL) << 6 | (s[i + 1] & 0x3f) :
			    k == 3 ? (s[i] & 0x0fUL) << 12 |
			    (s[i + 1] & 0x3fUL) << 6 | (s[i + 2] & 0x3f) : 0;
			if (hides(u))
				oxi_buf_printf(b, "\\u%04lx", u);
			else
				oxi_buf_cat(b, name + i, k);
		}
	}
	oxi_buf_cats(b, "");
}

char *
oxi_tool_showname(const char *name)
{
	struct oxi_buf b = OXI_BUF_INIT;

	oxi_tool_catname(&b, name, strlen(name));
	return b.s;
}
