/* t-json.c - oxi_json_check and oxi_json_parse: what libjq may see;
 * oxi_json_dump: what libjq would write */
#include <math.h>
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

/* a pseudo-random value of depth at most d: strings of every kind of
 * byte libjq escapes or passes, numbers of every shape */
static jv
randv(unsigned *seed, int d)
{
	static const char *const bits[] = { "a", "\"", "\\", "/", "\b",
		"\t", "\n", "\r", "\f", "\x01", "\x1f", "\x7f", " ", "~",
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc2\x80",
		"\xef\xbf\xbf", "<", "\x00", "\xff" };
	static const double nums[] = { 0, 1, -1, 7, 100, 1e6, 123456789,
		999999999999999., 1e15, -1e15, 1e17, 1e300, 0.5, -0.25, 1.0 / 3,
		3.14159, 1e-7, -0.0, 2147483648., 4294967296.5 };
	int i, n;
	jv v;

	*seed = *seed * 1103515245 + 12345;
	switch ((*seed >> 16) % (d > 0 ? 7 : 4)) {
	case 0: {
		char s[64];
		size_t len = 0, k;

		n = (int)((*seed >> 8) % 8);
		for (i = 0; i < n; i++) {
			*seed = *seed * 1103515245 + 12345;
			k = (*seed >> 16) % (sizeof bits / sizeof *bits);
			if (bits[k][0] == '\0')
				s[len++] = '\0';
			else {
				memcpy(s + len, bits[k], strlen(bits[k]));
				len += strlen(bits[k]);
			}
		}
		return jv_string_sized(s, (int)len);
	}
	case 1:
		return jv_number(nums[(*seed >> 8) % (sizeof nums /
		    sizeof *nums)]);
	case 2:
		return (*seed >> 8) % 3 == 0 ? jv_null() : (*seed >> 8) % 3 ==
		    1 ? jv_true() : jv_false();
	case 3:
		return jv_number((double)(int)(*seed >> 4) / ((*seed & 1) ? 1 :
		    1000));
	case 4:
	case 5:
		v = jv_array();
		n = (int)((*seed >> 8) % 5);
		for (i = 0; i < n; i++)
			v = jv_array_append(v, randv(seed, d - 1));
		return v;
	default:
		v = jv_object();
		n = (int)((*seed >> 8) % 5);
		for (i = 0; i < n; i++) {
			jv k = randv(seed, 0);

			if (jv_get_kind(k) != JV_KIND_STRING) {
				jv_free(k);
				k = jv_string("k");
			}
			v = jv_object_set(v, k, randv(seed, d - 1));
		}
		return v;
	}
}

/* 1 if oxi_json_dump writes v (consumed) as jv_dump_string does */
static int
same(jv v)
{
	struct oxi_buf b = OXI_BUF_INIT;
	jv s;
	int r;

	oxi_buf_cats(&b, "x");
	oxi_json_dump(&b, v);
	s = jv_dump_string(v, 0);
	r = b.len == (size_t)jv_string_length_bytes(jv_copy(s)) + 1 &&
	    memcmp(b.s + 1, jv_string_value(s), b.len - 1) == 0;
	if (!r)
		printf("#   got      %s\n#   expected %s\n", b.s + 1,
		    jv_string_value(s));
	jv_free(s);
	oxi_buf_free(&b);
	return r;
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
	plan(ngood * 2 + nbad * 2 + 12 + 9);

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

	/* oxi_json_dump against libjq's writer */
	{
		unsigned seed = 1;
		int bad = 0;
		long long k;

		for (i = 0; i < 20000 && !bad; i++)
			bad = !same(randv(&seed, 4));
		ok(!bad, "oxi_json_dump writes 20000 random values as libjq");
		for (k = -100000, bad = 0; k <= 100000 && !bad; k++)
			bad = !same(jv_number((double)k));
		for (k = 1; k < 1000000000000000000LL && !bad; k = k * 3 + 1)
			bad = !same(jv_number((double)k)) ||
			    !same(jv_number(-(double)k)) ||
			    !same(jv_number((double)k + 0.5));
		ok(!bad, "integers and halves as libjq writes them");
		ok(same(jv_number(NAN)) && same(jv_number(INFINITY)) &&
		    same(jv_number(-INFINITY)) && same(jv_number(-0.0)),
		    "NaN, infinities and -0 as libjq writes them");
		ok(same(jv_object()) && same(jv_array()) && same(jv_string("")),
		    "empty object, array and string");
		ok(same(jv_string_sized("\0\x7f\x1b\"\\/", 7)),
		    "NUL, DEL, ESC, quote, backslash, slash");
		s = nest(200);
		v = oxi_json_parse(s, strlen(s));
		ok(same(v), "200 nested arrays");
		free(s);

		/* a large value held twice has its text kept: a change to
		 * a copy of it is still seen */
		v = jv_array();
		for (i = 0; i < 200; i++)
			v = jv_array_append(v, jv_string("0123456789"));
		m = jv_copy(v);
		ok(same(jv_copy(v)) && same(jv_copy(v)),
		    "a shared large array, twice");
		m = jv_array_set(m, 7, jv_string("changed"));
		ok(same(jv_copy(m)) && same(jv_copy(v)),
		    "its changed copy, then itself again");
		jv_free(m);
		m = jv_object_set(jv_object(), jv_string("tools"), jv_copy(v));
		m = jv_object_set(m, jv_string("n"), jv_number(1));
		ok(same(jv_copy(m)) && same(m), "inside an object");
		jv_free(v);
	}
	return done();
}
