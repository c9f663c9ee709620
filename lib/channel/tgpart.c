/*
 * tgpart.c - a rendered reply (tgmd.c) in Telegram messages: where to
 * cut, and each part's HTML with the markup that covers it (or another
 * writer's markup: Slack's mrkdwn, skmd.c)
 *
 * Telegram counts a message's length after its markup is parsed, in
 * UTF-16 code units: the cut is made in the text that shows, so a part's
 * length is exact and no escape or tag is ever cut.  A part's HTML opens
 * the spans that cover its start and closes those open at its end; its
 * plain text is the shown text itself.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "channel/tgmd.h"

unsigned long
oxi_tgmd_cp(const char *s, size_t n, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k = oxi_utf8_seq(s, n);

	*len = k ? k : 1;
	switch (k) {
	case 2:
		return (u[0] & 0x1f) << 6 | (u[1] & 0x3f);
	case 3:
		return (unsigned long)(u[0] & 0x0f) << 12 | (u[1] & 0x3f) << 6 |
		    (u[2] & 0x3f);
	case 4:
		return (unsigned long)(u[0] & 0x07) << 18 |
		    (unsigned long)(u[1] & 0x3f) << 12 | (u[2] & 0x3f) << 6 |
		    (u[3] & 0x3f);
	default:
		return u[0];
	}
}

size_t
oxi_tgmd_units(const char *s, size_t len)
{
	size_t i, n = 0;

	/* a 4-byte sequence is a surrogate pair, anything else one unit */
	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n += ((unsigned char)s[i] & 0xf8) == 0xf0 ? 2 : 1;
	return n;
}

/* HTML of the shown bytes s[0..n), escaped */
static void
esc(struct oxi_buf *b, const char *s, size_t n, int quot)
{
	size_t i, run;

	for (i = 0; i < n; i += run) {
		for (run = 0; i + run < n && !strchr(quot ? "<>&\"" : "<>&",
		    s[i + run]); run++)
			;
		oxi_buf_cat(b, s + i, run);
		if (i + run == n)
			break;
		switch (s[i + run]) {
		case '<':
			oxi_buf_cats(b, "&lt;");
			break;
		case '>':
			oxi_buf_cats(b, "&gt;");
			break;
		case '&':
			oxi_buf_cats(b, "&amp;");
			break;
		default:
			oxi_buf_cats(b, "&quot;");
		}
		run++;
	}
}

static void
tag(struct oxi_buf *b, const struct oxi_tgmd_span *s, int close)
{
	static const char *const names[] = { "b", "i", "s", "u", "code" };

	switch (s->kind) {
	case OXI_TGMD_PRE:
		if (close)
			oxi_buf_cats(b, s->attr ? "</code></pre>" : "</pre>");
		else if (s->attr)
			oxi_buf_printf(b, "<pre><code class=\"language-%s\">",
			    s->attr);
		else
			oxi_buf_cats(b, "<pre>");
		break;
	case OXI_TGMD_A:
		if (close)
			oxi_buf_cats(b, "</a>");
		else {
			oxi_buf_cats(b, "<a href=\"");
			esc(b, s->attr, strlen(s->attr), 1);
			oxi_buf_cats(b, "\">");
		}
		break;
	case OXI_TGMD_QUOTE:
		oxi_buf_cats(b, close ? "</blockquote>" : "<blockquote>");
		break;
	default:
		oxi_buf_printf(b, "<%s%s>", close ? "/" : "", names[s->kind]);
	}
}

/* Telegram HTML, the writer of oxi_tgmd_render */
static void
html_text(struct oxi_buf *b, const char *s, size_t n, int *st)
{
	(void)st;
	esc(b, s, n, 0);
}

static void
html_tag(struct oxi_buf *b, const struct oxi_tgmd_span *s, int close,
    int *st)
{
	(void)st;
	tag(b, s, close);
}

const struct oxi_tgmd_markup oxi_tgmd_html = { html_text, html_tag };

/*
 * The markup (w's) of the shown bytes [s, e) of m: the spans that
 * overlap it opened where they start or at s, closed where they end or
 * at e.  Spans are in the order they opened, so an outer one comes
 * before an inner one that starts at the same byte, and each closes
 * before its parent.
 */
static char *
markup(const struct oxi_tgmd_doc *m, size_t s, size_t e,
    const struct oxi_tgmd_markup *w)
{
	struct oxi_buf buf = OXI_BUF_INIT, *b = &buf;
	const struct oxi_tgmd_span **stk = NULL;
	const struct oxi_tgmd_span *sp;
	size_t i, n = 0, cur = s, at, end;
	int st[4] = { 0 };

	oxi_buf_cats(b, "");
	for (i = 0; i < m->nsp; i++) {
		sp = &m->sp[i];
		at = sp->a > s ? sp->a : s;
		end = sp->b < e ? sp->b : e;
		if (at >= end)
			continue;
		while (n > 0 && (stk[n - 1]->b < e ? stk[n - 1]->b : e) <=
		    at) {
			end = stk[n - 1]->b < e ? stk[n - 1]->b : e;
			w->text(b, m->v.s + cur, end - cur, st);
			cur = end;
			w->tag(b, stk[--n], 1, st);
		}
		w->text(b, m->v.s + cur, at - cur, st);
		cur = at;
		w->tag(b, sp, 0, st);
		if ((n & 15) == 0)
			stk = xrealloc(stk, (n + 16) * sizeof *stk);
		stk[n++] = sp;
	}
	while (n > 0) {
		end = stk[n - 1]->b < e ? stk[n - 1]->b : e;
		w->text(b, m->v.s + cur, end - cur, st);
		cur = end;
		w->tag(b, stk[--n], 1, st);
	}
	w->text(b, m->v.s + cur, e - cur, st);
	free(stk);
	return buf.s;
}

/* a code point that belongs to the one before it on screen: a joiner,
 * a variation selector, a skin tone, a combining mark, a tag */
static int
joins(unsigned long c)
{
	return c == 0x200d || (c >= 0xfe00 && c <= 0xfe0f) ||
	    (c >= 0x1f3fb && c <= 0x1f3ff) || (c >= 0x300 && c <= 0x36f) ||
	    c == 0x20e3 || (c >= 0xe0020 && c <= 0xe007f);
}

/* the last index i in [lo, hi] with s[i..] starting with pat, or 0 */
static size_t
last(const char *s, size_t lo, size_t hi, const char *pat)
{
	size_t i, n = strlen(pat);

	for (i = hi + 1; i > lo; i--)
		if (memcmp(s + i - 1, pat, n) == 0)
			return i - 1;
	return 0;
}

/*
 * Where the part that starts at pos ends (*cut) and the next starts
 * (*next): the whole rest if it fits in max units; else the last
 * paragraph break, line break or sentence end in the second half of
 * what fits, else the last space, else a character (not inside an emoji
 * sequence when that can be helped).
 */
static void
cut(const struct oxi_tgmd_doc *m, size_t pos, size_t max, size_t *cut, size_t *next)
{
	const char *v = m->v.s;
	size_t len = m->v.len, end = pos, units = 0, k, u, lo, i, c;
	unsigned long c0, c1;

	while (end < len) {
		c0 = oxi_tgmd_cp(v + end, len - end, &k);
		u = c0 >= 0x10000 ? 2 : 1;
		if (units + u > max)
			break;
		units += u;
		end += k;
	}
	/* one character at least, if it is wider than max */
	if (end == pos && end < len) {
		(void)oxi_tgmd_cp(v + end, len - end, &k);
		end += k;
	}
	*cut = *next = end;
	if (end == len)
		return;
	lo = pos + (end - pos) / 2;
	/* v[end] is the first byte left out: a break there fits */
	if ((i = last(v, lo, end - 1 < lo ? lo : end - 1, "\n\n")) > pos) {
		*cut = i;
		*next = i + 2;
		return;
	}
	if ((i = last(v, lo, end, "\n")) > pos) {
		*cut = i;
		*next = i + 1;
		return;
	}
	for (i = end; i > lo; i--)
		if (strchr(".!?", v[i - 1]) && (v[i] == ' ' || v[i] == '\n')) {
			*cut = i;
			*next = i + 1;
			return;
		}
	if ((i = last(v, pos + 1, end, " ")) > pos) {
		*cut = i;
		*next = i + 1;
		return;
	}
	/* a character: back off while the one after the cut joins on */
	for (c = end, i = 0; c > pos && i < 16; i++) {
		c1 = oxi_tgmd_cp(v + c, len - c, &k);
		for (k = c - 1; k > pos && ((unsigned char)v[k] & 0xc0) == 0x80;
		    k--)
			;
		c0 = oxi_tgmd_cp(v + k, c - k, &u);
		if (!joins(c1) && c0 != 0x200d)
			break;
		c = k;
	}
	if (c > pos && i < 16)
		*cut = *next = c;
}

void
oxi_tgmd_free(struct oxi_tgmd_part *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(p[i].html);
		free(p[i].plain);
	}
	free(p);
}

int
oxi_tgmd_parts(const struct oxi_tgmd_doc *d, size_t max,
    const struct oxi_tgmd_markup *w, struct oxi_tgmd_part **parts)
{
	struct oxi_tgmd_part *out = NULL;
	const char *v = d->v.s;
	size_t pos = 0, c, next, e, len = d->v.len;
	int n = 0;

	while (pos < len) {
		/* a part starts with what shows: not a line break or blank */
		while (pos < len && (v[pos] == '\n' || v[pos] == ' '))
			pos++;
		if (pos == len)
			break;
		cut(d, pos, max, &c, &next);
		for (e = c; e > pos && (v[e - 1] == '\n' || v[e - 1] == ' '); e--)
			;
		if (e > pos) {
			if ((n & 7) == 0)
				out = xrealloc(out, (n + 8) * sizeof *out);
			out[n].plain = xstrndup(v + pos, e - pos);
			out[n].units = oxi_tgmd_units(v + pos, e - pos);
			out[n++].html = markup(d, pos, e, w ? w :
			    &oxi_tgmd_html);
		}
		pos = next > pos ? next : pos + 1;
	}
	*parts = out;
	return n;
}
