/*
 * json.c - small accessors for jq's jv values, shared by the modules that
 * read and build JSON (the LLM dialects first of all)
 *
 * They only look at the value they are given: the jv argument is
 * borrowed, not consumed, and a jv they return is the caller's.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oxi.h"

jv
oxi_jget(jv obj, const char *key)
{
	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return jv_invalid();
	return jv_object_get(jv_copy(obj), jv_string(key));
}

int
oxi_jis(jv v, jv_kind k)
{
	return jv_get_kind(v) == k;
}

int
oxi_jstr_is(jv v, const char *s)
{
	return oxi_jis(v, JV_KIND_STRING) && strcmp(jv_string_value(v), s) == 0;
}

int
oxi_jstr_has(jv v, const char *word)
{
	return oxi_jis(v, JV_KIND_STRING) &&
	    strstr(jv_string_value(v), word) != NULL;
}

double
oxi_jnum(jv obj, const char *key, double dflt)
{
	jv v = oxi_jget(obj, key);
	double d = oxi_jis(v, JV_KIND_NUMBER) ? jv_number_value(v) : dflt;

	jv_free(v);
	return d;
}

jv
oxi_jbad(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return jv_invalid_with_msg(jv_string(buf));
}

/* the value of the 4 hex digits after s[i] == 'u', or -1 */
static long
hex4(const char *s, size_t n, size_t i)
{
	long v = 0;
	int k;

	for (k = 1; k <= 4; k++) {
		if (i + k >= n || !s[i + k] ||
		    !strchr("0123456789abcdefABCDEF", s[i + k]))
			return -1;
		v = v * 16 + (s[i + k] <= '9' ? s[i + k] - '0' :
		    (s[i + k] | 0x20) - 'a' + 10);
	}
	return v;
}

/*
 * The end of the string that starts at s[i] == '"', or 0 if it is bad.
 * A high surrogate escape must be followed by a low one, as libjq 1.6
 * wants (else its error message quotes the text); a lone low one is
 * taken (libjq makes it U+FFFD).
 */
static size_t
jstring(const char *s, size_t n, size_t i)
{
	long v, w;

	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		if (++i >= n)
			return 0;
		switch (s[i]) {
		case '"': case '\\': case '/': case 'b': case 'f':
		case 'n': case 'r': case 't':
			break;
		case 'u':
			if ((v = hex4(s, n, i)) < 0)
				return 0;
			i += 4;
			if (v < 0xd800 || v > 0xdbff)
				break;
			if (i + 2 >= n || s[i + 1] != '\\' || s[i + 2] != 'u' ||
			    (w = hex4(s, n, i + 2)) < 0xdc00 || w > 0xdfff)
				return 0;
			i += 6;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

static size_t
digits(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* the end of the number at s[i], or 0 if it is bad */
static size_t
jnumber(const char *s, size_t n, size_t i)
{
	size_t j;

	if (s[i] == '-')
		i++;
	if (i >= n)
		return 0;
	if (s[i] == '0')
		i++;
	else if ((j = digits(s, n, i)) > i)
		i = j;
	else
		return 0;
	if (i < n && s[i] == '.') {
		if ((j = digits(s, n, i + 1)) == i + 1)
			return 0;
		i = j;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((j = digits(s, n, i)) == i)
			return 0;
		i = j;
	}
	return i;
}

static size_t
blanks(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return i;
}

int
oxi_json_check(const char *s, size_t n, const char **why)
{
	char stack[OXI_JSON_DEPTH];
	size_t i = 0, j, depth = 0;
	int key;

	*why = "invalid JSON text";
value:
	if ((i = blanks(s, n, i)) >= n) {
		*why = depth ? "unfinished JSON text" : "empty JSON text";
		return -1;
	}
	switch (s[i]) {
	case '{':
	case '[':
		if (depth == OXI_JSON_DEPTH) {
			*why = "JSON nested too deeply";
			return -1;
		}
		stack[depth++] = s[i++];
		i = blanks(s, n, i);
		if (i < n && s[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
			depth--;
			i++;
			goto after;
		}
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	case '"':
		if ((j = jstring(s, n, i)) == 0) {
			*why = "bad string in JSON text";
			return -1;
		}
		i = j;
		goto after;
	case 't':
		key = n - i >= 4 && memcmp(s + i, "true", 4) == 0;
		i += 4;
		break;
	case 'f':
		key = n - i >= 5 && memcmp(s + i, "false", 5) == 0;
		i += 5;
		break;
	case 'n':
		key = n - i >= 4 && memcmp(s + i, "null", 4) == 0;
		i += 4;
		break;
	default:
		if (s[i] != '-' && (s[i] < '0' || s[i] > '9'))
			return -1;
		if ((j = jnumber(s, n, i)) == 0) {
			*why = "bad number in JSON text";
			return -1;
		}
		i = j;
		goto after;
	}
	if (!key)
		return -1;
after:
	i = blanks(s, n, i);
	if (depth == 0) {
		if (i == n)
			return 0;
		*why = "more than one value in JSON text";
		return -1;
	}
	if (i >= n) {
		*why = "unfinished JSON text";
		return -1;
	}
	if (s[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
		depth--;
		i++;
		goto after;
	}
	if (s[i] != ',') {
		*why = "expected a separator in JSON text";
		return -1;
	}
	i++;
	if (stack[depth - 1] == '[')
		goto value;
key:
	i = blanks(s, n, i);
	if (i >= n || s[i] != '"' || (j = jstring(s, n, i)) == 0) {
		*why = "expected an object key in JSON text";
		return -1;
	}
	i = blanks(s, n, j);
	if (i >= n || s[i] != ':') {
		*why = "expected a colon in JSON text";
		return -1;
	}
	i++;
	goto value;
}

jv
oxi_json_parse(const char *s, size_t n)
{
	const char *why;

	if (n > INT_MAX)
		return jv_invalid_with_msg(jv_string("JSON text too long"));
	if (oxi_json_check(s, n, &why) < 0)
		return jv_invalid_with_msg(jv_string(why));
	return jv_parse_sized(s, (int)n);
}

/* s[0..n) as a JSON string, escaped as libjq escapes (jv strings are
 * valid UTF-8: other bytes pass as they are) */
static void
dumpstr(struct oxi_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i, from = 0;
	char e[6];
	int k;

	oxi_buf_grow(b, n + 2);
	b->s[b->len++] = '"';
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] != '"' && p[i] != '\\' &&
		    p[i] != 0x7f)
			continue;
		oxi_buf_cat(b, s + from, i - from);
		from = i + 1;
		e[0] = '\\';
		k = 2;
		switch (p[i]) {
		case '"': case '\\': e[1] = (char)p[i]; break;
		case '\b': e[1] = 'b'; break;
		case '\t': e[1] = 't'; break;
		case '\r': e[1] = 'r'; break;
		case '\n': e[1] = 'n'; break;
		case '\f': e[1] = 'f'; break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[p[i] >> 4];
			e[5] = hex[p[i] & 15];
			k = 6;
		}
		oxi_buf_cat(b, e, (size_t)k);
	}
	oxi_buf_cat(b, s + from, n - from);
	oxi_buf_putc(b, '"');
}

/*
 * The texts of the last large values written that libjq shares with
 * another holder (the tool definitions of every request): the same
 * value is the same text.  Holding a reference keeps it so, for libjq
 * changes in place only a value nobody else holds.
 */
#define MEMO		4
#define MEMO_MIN	1024	/* bytes of a text worth keeping */
#define MEMO_MAX	65536	/* and at most: what it holds stays small */
static struct {
	jv v;
	struct oxi_buf text;
} memo[MEMO];
static int memonext;

static void dump(struct oxi_buf *, jv, int);

/* an array or object v: its text, kept if shared (refs: the references
 * the caller and its walk hold) */
static void
dumpkept(struct oxi_buf *b, jv v, int refs)
{
	size_t start = b->len;
	int i, it, first = 1, shared = jv_get_refcnt(v) > refs;
	jv k, x;

	for (i = 0; shared && i < MEMO; i++)
		if (memo[i].text.s && jv_identical(jv_copy(memo[i].v),
		    jv_copy(v))) {
			oxi_buf_cat(b, memo[i].text.s, memo[i].text.len);
			return;
		}
	if (jv_get_kind(v) == JV_KIND_ARRAY) {
		oxi_buf_putc(b, '[');
		jv_array_foreach(v, n, e) {
			if (n > 0)
				oxi_buf_putc(b, ',');
			dump(b, e, 1);
			jv_free(e);
		}
		oxi_buf_putc(b, ']');
	} else {
		oxi_buf_putc(b, '{');
		for (it = jv_object_iter(v); jv_object_iter_valid(v, it);
		    it = jv_object_iter_next(v, it), first = 0) {
			if (!first)
				oxi_buf_putc(b, ',');
			k = jv_object_iter_key(v, it);
			dump(b, k, 1);
			jv_free(k);
			oxi_buf_putc(b, ':');
			x = jv_object_iter_value(v, it);
			dump(b, x, 1);
			jv_free(x);
		}
		oxi_buf_putc(b, '}');
	}
	if (!shared || b->len - start < MEMO_MIN || b->len - start > MEMO_MAX)
		return;
	i = memonext;
	memonext = (memonext + 1) % MEMO;
	if (memo[i].text.s)
		jv_free(memo[i].v);
	memo[i].v = jv_copy(v);
	oxi_buf_reset(&memo[i].text);
	oxi_buf_cat(&memo[i].text, b->s + start, b->len - start);
}

/* v (borrowed); nested: v is an element its container's walk copied */
static void
dump(struct oxi_buf *b, jv v, int nested)
{
	double d;
	jv x;

	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		dumpstr(b, jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));
		return;
	case JV_KIND_ARRAY:
	case JV_KIND_OBJECT:
		dumpkept(b, v, nested ? 2 : 1);
		return;
	case JV_KIND_NULL:
		oxi_buf_cat(b, "null", 4);
		return;
	case JV_KIND_TRUE:
		oxi_buf_cat(b, "true", 4);
		return;
	case JV_KIND_FALSE:
		oxi_buf_cat(b, "false", 5);
		return;
	case JV_KIND_NUMBER:
		/* small integers, the most of them, as libjq writes them */
		d = jv_number_value(v);
		if (d > -1e15 && d < 1e15 && d == (double)(long long)d &&
		    (d != 0 || !signbit(d))) {
			oxi_buf_printf(b, "%lld", (long long)d);
			return;
		}
		/* FALLTHROUGH */
	default:
		x = jv_dump_string(jv_copy(v), 0);
		oxi_buf_cat(b, jv_string_value(x),
		    (size_t)jv_string_length_bytes(jv_copy(x)));
		jv_free(x);
	}
}

/*
 * What jv_dump_string(v, 0) writes, at a fraction of its cost: libjq
 * appends a string character by character, and the requests of oxi-loop
 * (the history, the tool definitions) went through it on every turn.
 * Numbers, and anything else rare, are still libjq's own text.
 */
void
oxi_json_dump(struct oxi_buf *b, jv v)
{
	dump(b, v, 0);
}
