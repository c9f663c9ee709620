/* t-json.c - oxi_json_check and oxi_json_parse: what libjq may see */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "tap.h"

static int
check(const char *s)
{
	const char *why = NULL;
	int r = oxi_json_check(s, strlen(s), &why);

	if (r < 0 && (!why || !*why))
		return -2;	/* a refusal must say why */
	return r;
}

/* s for a test's name: control characters as '.' */
static const char *
shown(const char *s)
{
	static char buf[128];
	size_t i;

	for (i = 0; s[i] && i < sizeof buf - 1; i++)
		buf[i] = (unsigned char)s[i] < 0x20 ? '.' : s[i];
	buf[i] = '\0';
	return buf;
}

/* n nested arrays: "[[...]]" */
static char *
nest(int n)
{
	char *s = xmalloc(2 * n + 1);
	int i;

	for (i = 0; i < n; i++) {
		s[i] = '[';
		s[2 * n - 1 - i] = ']';
	}
	s[2 * n] = '\0';
	return s;
}

int
main(void)
{
	static const char *const good[] = {
		"{}", "[]", "\"\"", "0", "-0", "1", "-12.5e+3", "1E-2", "0.5",
		"true", "false", "null",
		" \t\r\n{ \"a\" : [1, 2.0, \"x\"] } \n",
		"{\"a\":{\"b\":[{},[],null,true,false]}}", "\"\\u00e9\"",
		"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\xc3\xa9\"",
		"\"\\udc00x\"", "[\"\\uDBFF\\uDFFF\"]",
		NULL
	};
	static const char *const bad[] = {
		"", "   ", "{\"a\" \"b\"}", "[1 2]", "{\"a\":1}x", "{} {}",
		"1 2", "[1,]", "{\"a\":1,}", "{,}", "{\"a\"}", "{1:2}",
		"[", "{\"a\":", "\"abc", "tru", "nul", "True", "'a'",
		"\"\\x\"", "\"\\u12\"", "\"\\u12g4\"", "\"\\\"",
		"\"a\tb\"", "\"a\nb\"", "\"\x01\"", "\"\x1f\"",
		"01", "1.", ".5", "-", "-.5", "+1", "1e", "1e+", "0x10",
		NULL
	};
	const char *why;
	char *s;
	jv v, m;
	int i, ngood, nbad;

	for (ngood = 0; good[ngood]; ngood++)
		;
	for (nbad = 0; bad[nbad]; nbad++)
		;
	plan(ngood * 2 + nbad * 2 + 12);

	for (i = 0; good[i]; i++) {
		is_int(check(good[i]), 0, "valid: %s", shown(good[i]));
		v = oxi_json_parse(good[i], strlen(good[i]));
		ok(jv_is_valid(v), "parsed: %s", shown(good[i]));
		jv_free(v);
	}
	for (i = 0; bad[i]; i++) {
		is_int(check(bad[i]), -1, "refused, with a reason: '%s'",
		    shown(bad[i]));
		v = oxi_json_parse(bad[i], strlen(bad[i]));
		ok(!jv_is_valid(v) && jv_invalid_has_msg(jv_copy(v)),
		    "parse gives an invalid jv with a message: '%s'",
		    shown(bad[i]));
		jv_free(v);
	}

	/* the leak of libjq 1.6: never reached through oxi_json_parse */
	v = oxi_json_parse("{\"a\" \"b\"}", 9);
	m = jv_invalid_get_msg(v);
	ok(jv_get_kind(m) == JV_KIND_STRING &&
	    strstr(jv_string_value(m), "\"b\"") == NULL,
	    "{\"a\" \"b\"}: the reason does not quote the text");
	jv_free(m);

	/* NUL inside a string, and a length that stops before the end */
	is_int(oxi_json_check("\"a\0b\"", 5, &why), -1, "NUL in a string");
	is_int(oxi_json_check("[1]xyz", 3, &why), 0, "only n bytes are read");
	is_int(oxi_json_check("[1, 2]", 4, &why), -1,
	    "a text cut by n is unfinished");

	s = nest(OXI_JSON_DEPTH);
	is_int(check(s), 0, "depth %d accepted", OXI_JSON_DEPTH);
	v = oxi_json_parse(s, strlen(s));
	ok(jv_is_valid(v), "depth %d parsed", OXI_JSON_DEPTH);
	jv_free(v);
	free(s);
	s = nest(OXI_JSON_DEPTH + 1);
	is_int(check(s), -1, "depth %d refused", OXI_JSON_DEPTH + 1);
	oxi_json_check(s, strlen(s), &why);
	is_str(why, "JSON nested too deeply", "the reason names the depth");
	free(s);
	s = nest(100000);
	is_int(check(s), -1, "depth 100000 refused without recursion");
	free(s);
	/* a high surrogate escape wants a low one after it, as libjq does
	 * (whose own error would quote the text) */
	is_int(check("\"\\ud800\""), -1,
	    "a lone high surrogate is refused by the check");
	is_int(check("{\"a\":\"\\ud800\"}"), -1,
	    "a lone high surrogate in an object is refused by the check");
	v = oxi_json_parse("{\"a\":\"\\ud800\"}", 14);
	ok(!jv_is_valid(v),
	    "libjq refuses a lone high surrogate at a string's end");
	jv_free(v);
	return done();
}
