/*
 * taint.c - where the inputs of a turn came from
 *
 * A turn's taint is an array of origins, in order of first appearance:
 * first its message's own (TRUST:CHANNEL, "user:cli"), then those of
 * each tool.result it receives ("workspace", "web:https://a.org", ...,
 * see oxi(7)).  oxi-loop sends it on every later tool.call of the turn so
 * that the stages after it know who each input came from.
 *
 * At most TAINT_MAX origins are kept whole; past that an origin is kept
 * as its kind alone (the text before its first ':', "web" for
 * "web:https://a.org"), up to TAINT_KINDS more, so that the list stays
 * bounded and no kind of input is ever lost from it.
 */
#include <string.h>

#include "oxi.h"
#include "loop/loop.h"

#define TAINT_MAX	32
#define TAINT_KINDS	8
#define TAINT_LEN	256	/* bytes kept of one origin */

static int
has(jv a, const char *s, size_t n)
{
	int i, len = jv_array_length(jv_copy(a)), r = 0;
	jv v;

	for (i = 0; i < len && !r; i++) {
		v = jv_array_get(jv_copy(a), i);
		r = (size_t)jv_string_length_bytes(jv_copy(v)) == n &&
		    memcmp(jv_string_value(v), s, n) == 0;
		jv_free(v);
	}
	return r;
}

jv
oxi_loop_taint_add(jv taint, const char *s)
{
	size_t n = strlen(s);
	const char *colon;
	int len = jv_array_length(jv_copy(taint));

	if (n == 0)
		return taint;
	n = oxi_utf8_cut(s, n, TAINT_LEN);
	if (has(taint, s, n))
		return taint;
	if (len >= TAINT_MAX) {
		if ((colon = memchr(s, ':', n)))
			n = (size_t)(colon - s);
		if (n == 0 || len >= TAINT_MAX + TAINT_KINDS ||
		    has(taint, s, n))
			return taint;
	}
	return jv_array_append(taint, jv_string_sized(s, (int)n));
}

jv
oxi_loop_taint_merge(jv taint, jv v)
{
	jv x;
	int i, n;

	if (jv_get_kind(v) == JV_KIND_STRING)
		taint = oxi_loop_taint_add(taint, jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_ARRAY) {
		n = jv_array_length(jv_copy(v));
		for (i = 0; i < n; i++) {
			x = jv_array_get(jv_copy(v), i);
			if (jv_get_kind(x) == JV_KIND_STRING)
				taint = oxi_loop_taint_add(taint,
				    jv_string_value(x));
			jv_free(x);
		}
	}
	jv_free(v);
	return taint;
}

jv
oxi_loop_taint_new(const char *trust, const char *channel)
{
	struct oxi_buf b = OXI_BUF_INIT;
	jv t;

	oxi_buf_printf(&b, "%s:%s", trust && *trust ? trust : "user",
	    channel ? channel : "");
	t = oxi_loop_taint_add(jv_array(), b.s);
	oxi_buf_free(&b);
	return t;
}
