/*
 * status.c - the one line a status record says about a tool call
 *
 * "read_file notes.txt", "shell make network=true": the tool's name, the
 * first argument's value when it is a string, then the other arguments
 * as key=value.  The line goes to a chat, so it is bounded before it is
 * built (STATUS_VAL bytes of a value, nothing after STATUS_MAX bytes),
 * cut on a UTF-8 boundary, its control, zero-width and bidirectional
 * characters become spaces, and the value of a key that looks secret is
 * "***".  Objects and arrays show as {...} and [...], never their content.
 */
#include <ctype.h>
#include <string.h>

#include "oxi.h"
#include "loop/loop.h"

#define STATUS_MAX	80	/* bytes of the line */
#define STATUS_VAL	120	/* bytes of one value looked at */
#define ELLIPSIS	"\342\200\246"	/* U+2026 */

/* a key whose value is not shown: it may hold a credential */
static int
secretkey(const char *k)
{
	static const char *const words[] = { "key", "token", "passw",
	    "secret", "auth", "cookie", "credential", "private", "session",
	    NULL };
	char low[64];
	size_t i;

	for (i = 0; k[i] && i < sizeof low - 1; i++)
		low[i] = (char)tolower((unsigned char)k[i]);
	low[i] = '\0';
	for (i = 0; words[i]; i++)
		if (strstr(low, words[i]))
			return 1;
	return 0;
}

/* a character a chat line must not carry: C0, DEL, C1, zero-width,
 * line and paragraph separators, bidirectional controls */
static int
invisible(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	if (n == 2)
		return s[0] == 0xc2 && s[1] < 0xa0;
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x80)
		return (s[2] >= 0x8b && s[2] <= 0x8f) ||
		    (s[2] >= 0xa8 && s[2] <= 0xae);
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x81)
		return s[2] >= 0xa6 && s[2] <= 0xa9;
	if (n == 3 && s[0] == 0xef && s[1] == 0xbb)
		return s[2] == 0xbf;
	return 0;
}

/* appends s[0..n) cleaned: runs of spaces and invisible characters
 * become one space, bytes that are not UTF-8 become '?' */
static void
clean(struct oxi_buf *b, const char *s, size_t n)
{
	size_t i, k;

	for (i = 0; i < n && b->len < STATUS_MAX * 2; i += k) {
		if ((k = oxi_utf8_seq(s + i, n - i)) == 0) {
			oxi_buf_putc(b, '?');
			k = 1;
		} else if (s[i] == ' ' ||
		    invisible((const unsigned char *)s + i, k)) {
			if (b->len > 0 && b->s[b->len - 1] != ' ')
				oxi_buf_putc(b, ' ');
		} else
			oxi_buf_cat(b, s + i, k);
	}
}

static void
value(struct oxi_buf *b, jv v)
{
	const char *s;
	size_t n;
	jv d;

	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		s = jv_string_value(v);
		n = (size_t)jv_string_length_bytes(jv_copy(v));
		clean(b, s, oxi_utf8_cut(s, n, STATUS_VAL));
		break;
	case JV_KIND_OBJECT:
		oxi_buf_cats(b, "{...}");
		break;
	case JV_KIND_ARRAY:
		oxi_buf_cats(b, "[...]");
		break;
	default:
		d = jv_dump_string(jv_copy(v), 0);
		oxi_buf_cats(b, jv_string_value(d));
		jv_free(d);
	}
}

jv
oxi_loop_status_text(const char *name, jv args)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *ks;
	int it, first = 1;
	size_t n;
	jv k, v, r;

	clean(&b, name, strlen(name));
	if (jv_get_kind(args) == JV_KIND_OBJECT)
		for (it = jv_object_iter(args); jv_object_iter_valid(args,
		    it) && b.len <= STATUS_MAX; it = jv_object_iter_next(args,
		    it)) {
			k = jv_object_iter_key(args, it);
			v = jv_object_iter_value(args, it);
			ks = jv_string_value(k);
			if (b.len > 0 && b.s[b.len - 1] != ' ')
				oxi_buf_putc(&b, ' ');
			if (secretkey(ks)) {
				clean(&b, ks, strlen(ks));
				oxi_buf_cats(&b, "=***");
			} else if (first && jv_get_kind(v) == JV_KIND_STRING)
				value(&b, v);
			else {
				clean(&b, ks, strlen(ks));
				oxi_buf_putc(&b, '=');
				value(&b, v);
			}
			first = 0;
			jv_free(k);
			jv_free(v);
		}
	while (b.len > 0 && b.s[b.len - 1] == ' ')
		b.len--;
	if (b.len > STATUS_MAX) {
		n = oxi_utf8_cut(b.s, b.len, STATUS_MAX - strlen(ELLIPSIS));
		while (n > 0 && b.s[n - 1] == ' ')
			n--;
		b.len = n;
		oxi_buf_cats(&b, ELLIPSIS);
	}
	r = jv_string_sized(b.s ? b.s : "", (int)b.len);
	oxi_buf_free(&b);
	return r;
}
