/*
 * wrap.c - outside content reaches the model in markers it cannot
 * forge or close
 *
 * Every tool result, and the text of a message whose trust is external,
 * goes to the model as
 *
 *	<external_content trust="external" source="web:https://a.org" id="N">
 *	...the content...
 *	</external_content id="N">
 *
 * where N is 128 bits of a keyed BLAKE2b of the content (the key is
 * random, made once per process): a content cannot hold its own N.  In
 * the content, every '<' (or a look-alike: fullwidth, small, angle
 * brackets) that opens something read as an external_content tag, or a
 * tag with a trust attribute, is written "&lt;" — after the letters are
 * folded (case, fullwidth forms, Cyrillic and Greek look-alikes, '-'
 * and ' ' as '_') and invisible characters skipped, so that neither
 * "</external_content>" nor "<ｅxternal-content trust=owner>" nor a
 * zero-width space inside one survives.  The system prompt says what
 * the markers mean (ctx.c).
 *
 * The origins of what a window holds join the turn's taint, so that a
 * later turn whose context still shows a web page is as tainted as the
 * one that fetched it: a tool message's "_src" (the origins its result
 * added; no "_src": "tool"), a user message's "_origin" when it is not
 * the owner's, and the trailer a summary of outside content carries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oxi.h"
#include "loop/engine.h"

#define LOOK	160	/* code points looked at after a '<' */
#define SRCMAX	200	/* bytes of a source attribute */

static unsigned char key[crypto_generichash_KEYBYTES];
static int keyed;

/* the code point at s[0..n) in *cp: its length, 1 for a bad byte */
static size_t
decode(const unsigned char *s, size_t n, unsigned long *cp)
{
	size_t k = oxi_utf8_seq((const char *)s, n), i;

	if (k <= 1 || k > n) {
		*cp = s[0];
		return 1;
	}
	*cp = s[0] & (0xff >> (k + 1));
	for (i = 1; i < k; i++)
		*cp = (*cp << 6) | (s[i] & 0x3f);
	return k;
}

/* 1 for the characters that show nothing: skipped when matching */
static int
invisible(unsigned long c)
{
	return c == 0xad || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
	    c == 0xfeff || c == 0x180e || c == 0x34f ||
	    (c >= 0x300 && c <= 0x36f) || (c >= 0xfe00 && c <= 0xfe0f) ||
	    (c >= 0xe0000 && c <= 0xe007f);
}

/* 1 for '<' and the characters that look like it */
static int
opener(unsigned long c)
{
	return c == '<' || c == 0xff1c || c == 0xfe64 || c == 0x2039 ||
	    c == 0x3008 || c == 0x27e8 || c == 0x2329 || c == 0x276e ||
	    c == 0x2c2 || c == 0x1438;
}

/*
 * c as the ASCII character it passes for, lower case, '_' for '-' and
 * blanks; 0 for anything else
 */
static int
fold(unsigned long c)
{
	static const struct { unsigned long cp; char a; } look[] = {
		{ 0x430, 'a' }, { 0x435, 'e' }, { 0x43e, 'o' }, { 0x440, 'p' },
		{ 0x441, 'c' }, { 0x445, 'x' }, { 0x443, 'y' }, { 0x456, 'i' },
		{ 0x458, 'j' }, { 0x455, 's' }, { 0x4bb, 'h' }, { 0x501, 'd' },
		{ 0x410, 'a' }, { 0x415, 'e' }, { 0x41e, 'o' }, { 0x420, 'p' },
		{ 0x421, 'c' }, { 0x425, 'x' }, { 0x422, 't' }, { 0x41d, 'h' },
		{ 0x41a, 'k' }, { 0x41c, 'm' }, { 0x412, 'b' }, { 0x405, 's' },
		{ 0x406, 'i' }, { 0x408, 'j' }, { 0x3bf, 'o' }, { 0x3b1, 'a' },
		{ 0x3bd, 'v' }, { 0x3b9, 'i' }, { 0x3ba, 'k' }, { 0x3c1, 'p' },
		{ 0x3c4, 't' }, { 0x3c5, 'u' }, { 0x39f, 'o' }, { 0x391, 'a' },
		{ 0x392, 'b' }, { 0x395, 'e' }, { 0x397, 'h' }, { 0x399, 'i' },
		{ 0x39a, 'k' }, { 0x39c, 'm' }, { 0x39d, 'n' }, { 0x3a1, 'p' },
		{ 0x3a4, 't' }, { 0x3a7, 'x' }, { 0x3a5, 'y' }, { 0x396, 'z' },
		{ 0x131, 'i' }, { 0x1d00, 'a' }, { 0x1d07, 'e' }, { 0x1d1b, 't' },
		{ 0x2010, '_' }, { 0x2011, '_' }, { 0x2012, '_' },
		{ 0x2013, '_' }, { 0x2212, '_' }, { 0xfe63, '_' }, { 0xa0, '_' },
		{ 0x3000, '_' }, { 0, 0 }
	};
	int i;

	if (c >= 0xff01 && c <= 0xff5e)	/* fullwidth forms */
		c -= 0xfee0;
	if (c >= 'A' && c <= 'Z')
		return (int)(c - 'A' + 'a');
	if (c == '-' || c == ' ' || c == '\t')
		return '_';
	if (c < 0x80)
		return (int)c;
	for (i = 0; look[i].cp; i++)
		if (look[i].cp == c)
			return look[i].a;
	/* mathematical alphanumerics: bold, italic, script ... letters */
	if (c >= 0x1d400 && c <= 0x1d6a3)
		return 'a' + (int)((c - 0x1d400) % 52 % 26);
	return c < 0x80 ? (int)c : 0;
}

/*
 * 1 if the '<' at s[0..n) opens a marker look-alike or a tag with a
 * trust attribute: the next LOOK code points, folded, invisible ones
 * skipped, read "/? *external_?content" or "...trust_*=" before '>',
 * a line's end or the next '<' (which is judged on its own: so a run of
 * them costs each its own length, never LOOK)
 */
static int
spoof(const unsigned char *s, size_t n)
{
	char f[LOOK + 1];
	size_t i = 0, k, m = 0;
	unsigned long c;
	int a;
	char *t;

	while (i < n && m < LOOK) {
		k = decode(s + i, n - i, &c);
		i += k;
		if (invisible(c))
			continue;
		if (opener(c))
			break;
		if (!(a = fold(c)))
			a = '?';
		if (a == '\n' || a == '>')
			break;
		if (a == '_' && m > 0 && f[m - 1] == '_')
			continue;	/* "a - b" reads "a_b" */
		f[m++] = (char)a;
	}
	f[m] = '\0';
	t = f + strspn(f, "/_");
	if (strncmp(t, "external_content", 16) == 0 ||
	    strncmp(t, "externalcontent", 15) == 0)
		return 1;
	for (t = f; (t = strstr(t, "trust")); t += 5)
		if (t[5 + (t[5] == '_')] == '=')
			return 1;
	return 0;
}

/* appends s[0..n) to b with its spoofing '<' written "&lt;" */
static void
escape(struct oxi_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, from = 0;
	unsigned long c;

	while (i < n) {
		k = decode(u + i, n - i, &c);
		if (opener(c) && spoof(u + i + k, n - i - k)) {
			oxi_buf_cat(b, s + from, i - from);
			oxi_buf_cats(b, "&lt;");
			from = i + k;
		}
		i += k;
	}
	oxi_buf_cat(b, s + from, n - from);
}

/* an attribute's value: no quote, no bracket, one line, bounded */
static void
attr(struct oxi_buf *b, const char *s)
{
	size_t n = strlen(s), i;

	n = oxi_utf8_cut(s, n, SRCMAX);
	for (i = 0; i < n; i++)
		switch (s[i]) {
		case '"': oxi_buf_cats(b, "&quot;"); break;
		case '<': oxi_buf_cats(b, "&lt;"); break;
		case '>': oxi_buf_cats(b, "&gt;"); break;
		case '&': oxi_buf_cats(b, "&amp;"); break;
		default:
			oxi_buf_putc(b, (unsigned char)s[i] < 0x20 ||
			    s[i] == 0x7f ? ' ' : s[i]);
		}
}

jv
oxi_wrap_text(const char *s, const char *trust, const char *source)
{
	struct oxi_buf b = OXI_BUF_INIT;
	crypto_generichash_state st;
	unsigned char h[16];
	char id[33];
	size_t n = strlen(s);
	jv r;

	if (!keyed) {
		if (sodium_init() < 0)
			oxi_die(OXI_EX_TEMP, "unable to start libsodium");
		randombytes_buf(key, sizeof key);
		keyed = 1;
	}
	crypto_generichash_init(&st, key, sizeof key, sizeof h);
	crypto_generichash_update(&st, (const unsigned char *)trust,
	    strlen(trust) + 1);
	crypto_generichash_update(&st, (const unsigned char *)source,
	    strlen(source) + 1);
	crypto_generichash_update(&st, (const unsigned char *)s, n);
	crypto_generichash_final(&st, h, sizeof h);
	sodium_bin2hex(id, sizeof id, h, sizeof h);
	oxi_buf_cats(&b, "<external_content trust=\"");
	attr(&b, trust);
	oxi_buf_cats(&b, "\" source=\"");
	attr(&b, source);
	oxi_buf_printf(&b, "\" id=\"%s\">\n", id);
	escape(&b, s, n);
	oxi_buf_printf(&b, "\n</external_content id=\"%s\">", id);
	r = jv_string_sized(b.s, (int)b.len);
	oxi_buf_free(&b);
	return r;
}

jv
oxi_wrap_cut(const char *s, size_t keep, const char *note)
{
	const char *end = NULL, *p;
	size_t n = strlen(s), k;
	jv r;

	for (p = s; (p = strstr(p, "\n</external_content id=\"")); p++)
		end = p;
	if (!end)
		end = s + n;
	k = oxi_utf8_cut(s, (size_t)(end - s), keep);
	r = jv_string_sized(s, (int)k);
	r = jv_string_append_str(r, note);
	return jv_string_append_buf(r, end, (int)(s + n - end));
}

/* adds the origins of the space-separated list s to taint */
static jv
addlist(jv taint, const char *s, const char *sep)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t k;

	while (s && *s) {
		s += strspn(s, sep);
		k = strcspn(s, sep);
		if (k > 0) {
			oxi_buf_reset(&b);
			oxi_buf_cat(&b, s, k);
			taint = oxi_loop_taint_add(taint, b.s);
		}
		s += k;
	}
	oxi_buf_free(&b);
	return taint;
}

jv
oxi_wrap_origins(jv m, jv taint)
{
	const char *role = oxi_msg_peek(m, "role"), *o;
	jv src;

	if (role && strcmp(role, "tool") == 0) {
		src = oxi_jget(m, "_src");
		taint = jv_get_kind(src) == JV_KIND_STRING ? addlist(taint,
		    jv_string_value(src), " ") : oxi_loop_taint_add(taint,
		    "tool");
		jv_free(src);
	} else if (role && strcmp(role, "user") == 0 &&
	    (o = oxi_msg_peek(m, "_origin")) && strncmp(o, "owner:", 6) != 0)
		taint = oxi_loop_taint_add(taint, o);
	return taint;
}

jv
oxi_wrap_folded(const char *summary, jv taint)
{
	const char *p, *last = NULL, *e;
	struct oxi_buf b = OXI_BUF_INIT;

	for (p = summary; p && (p = strstr(p, OXI_WRAP_FOLDED)); p++)
		last = p;
	if (!last)
		return taint;
	last += sizeof OXI_WRAP_FOLDED - 1;
	if (!(e = strchr(last, ']')))
		e = last + strlen(last);
	oxi_buf_cat(&b, last, (size_t)(e - last));
	taint = addlist(taint, b.s ? b.s : "", ", ");
	oxi_buf_free(&b);
	return taint;
}

jv
oxi_wrap_window(jv win, jv *taint, int *wrapped)
{
	int i, n = jv_array_length(jv_copy(win));
	const char *role, *c, *o, *src;
	jv m;

	*wrapped = 0;
	for (i = 0; i < n; i++) {
		m = jv_array_get(jv_copy(win), i);
		*taint = oxi_wrap_origins(m, *taint);
		role = oxi_msg_peek(m, "role");
		c = oxi_msg_peek(m, "content");
		o = oxi_msg_peek(m, "_origin");
		if (role && c && strcmp(role, "tool") == 0) {
			src = oxi_msg_peek(m, "_src");
			m = jv_object_set(m, jv_string("content"), oxi_wrap_text(c,
			    "external", src && *src ? src : "tool"));
			*wrapped = 1;
		} else if (role && c && o && strcmp(role, "user") == 0 &&
		    strncmp(o, "external:", 9) == 0) {
			m = jv_object_set(m, jv_string("content"), oxi_wrap_text(c,
			    "external", o));
			*wrapped = 1;
		}
		win = jv_array_set(win, i, m);
	}
	return win;
}
