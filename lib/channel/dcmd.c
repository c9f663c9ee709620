/*
 * dcmd.c - the model's Markdown as Discord's, in messages of at most 2000
 * characters
 *
 * The parse is Telegram's (tgmd.c: libmd4c, raw HTML never recognised;
 * headings as bold lines, lists as "• " and "1. " lines, tables as code
 * blocks of padded columns, images as links), so both channels show a
 * reply alike.  Its shown text is written back as Discord Markdown:
 * **bold**, *italic*, ~~struck~~, __underlined__, `code`, ```lang code
 * blocks```, [text](url) links (a bare URL as itself), "> " quotes; every
 * other character Discord would read as markup is escaped with a
 * backslash, so what the model wrote as text shows as text.  The cut is
 * made in the shown text (tgpart.c), at a paragraph, a line, a sentence,
 * a word; markup open at a cut is closed at the end of a part and opened
 * again in the next, so a code block split in two is two code blocks.
 * Discord counts a message's markup too: a part whose Markdown is over
 * the limit is cut again shorter.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"
#include "channel/tgmd.h"

/* shown bytes s[0..n) of m from byte at, escaped as the span k needs:
 * raw in code, else with Discord's markup characters escaped */
static void
put(struct oxi_buf *b, const char *s, size_t n, int code, int pre, int *bol)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (pre) {
			/* three backticks would end the block: a ZWSP */
			if (s[i] == '`' && i + 2 < n && s[i + 1] == '`' &&
			    s[i + 2] == '`')
				oxi_buf_cats(b, "`\xe2\x80\x8b");
			else
				oxi_buf_cat(b, s + i, 1);
		} else if (code)
			oxi_buf_cat(b, s[i] == '`' ? "'" : s + i, 1);
		else {
			if (strchr("\\*_~`|[]<", s[i]) || (*bol &&
			    strchr(">#-+", s[i])))
				oxi_buf_cats(b, "\\");
			oxi_buf_cat(b, s + i, 1);
		}
		*bol = s[i] == '\n';
	}
}

/* a span's mark, opening or closing */
static void
mark(struct oxi_buf *b, const struct oxi_tgmd_span *sp, int close, int bare)
{
	static const char *const marks[] = { "**", "*", "~~", "__", "`" };
	const char *p;

	switch (sp->kind) {
	case OXI_TGMD_PRE:
		if (close)
			oxi_buf_cats(b, b->len && b->s[b->len - 1] == '\n' ?
			    "```" : "\n```");
		else
			oxi_buf_printf(b, "```%s\n", sp->attr && strspn(sp->attr,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
			    "WXYZ0123456789+-_#.") == strlen(sp->attr) ?
			    sp->attr : "");
		break;
	case OXI_TGMD_A:
		if (bare)
			break;
		if (!close) {
			oxi_buf_cats(b, "[");
			break;
		}
		oxi_buf_cats(b, "](");
		for (p = sp->attr; p && *p; p++)
			if (*p == ')' || *p == ' ')
				oxi_buf_printf(b, "%%%02X", (unsigned char)*p);
			else
				oxi_buf_cat(b, p, 1);
		oxi_buf_cats(b, ")");
		break;
	case OXI_TGMD_QUOTE:
		break;		/* by lines, in md() */
	default:
		oxi_buf_cats(b, marks[sp->kind]);
	}
}

/* 1 if link span sp shows its own target over [a, e) of m */
static int
bare(const struct oxi_tgmd_doc *m, const struct oxi_tgmd_span *sp, size_t a,
    size_t e)
{
	return sp->kind == OXI_TGMD_A && sp->attr &&
	    strlen(sp->attr) == e - a && memcmp(m->v.s + a, sp->attr, e - a) == 0;
}

/* a span open while a part is written */
struct open {
	const struct oxi_tgmd_span *sp;
	int shown;		/* its mark was written */
	int bare;		/* a link that shows its own URL */
};

/* the text of m from *cur to q, line by line: a quote's lines start
 * "> ", a bare link's URL is written as it is */
static void
text(struct oxi_buf *b, const struct oxi_tgmd_doc *m, size_t *cur, size_t q,
    int code, int pre, int quote, int naked, int *bol)
{
	size_t nl;

	while (*cur < q) {
		for (nl = *cur; nl < q && m->v.s[nl] != '\n'; nl++)
			;
		if (*bol && quote && !pre && nl > *cur)
			oxi_buf_cats(b, "> ");
		if (naked)
			oxi_buf_cat(b, m->v.s + *cur, nl - *cur);
		else
			put(b, m->v.s + *cur, nl - *cur, code, pre, bol);
		if (nl > *cur)
			*bol = 0;
		if (nl < q) {
			oxi_buf_cats(b, "\n");
			*bol = 1;
			nl++;
		}
		*cur = nl;
	}
}

/*
 * The Discord Markdown of the shown bytes [s, e) of m: the spans that
 * overlap it opened where they start or at s and closed where they end
 * or at e, as tgpart.c writes HTML; no markup inside code.
 */
static char *
md(const struct oxi_tgmd_doc *m, size_t s, size_t e)
{
	struct oxi_buf buf = OXI_BUF_INIT, *b = &buf;
	struct open *stk = NULL, *o;
	const struct oxi_tgmd_span *sp;
	size_t i, n = 0, cur = s, at, end;
	int code = 0, pre = 0, quote = 0, naked = 0, bol = 1;

#define TOP	(stk[n - 1].sp->b < e ? stk[n - 1].sp->b : e)
	oxi_buf_cats(b, "");
	for (i = 0; i <= m->nsp; i++) {
		sp = i < m->nsp ? &m->sp[i] : NULL;
		at = sp ? (sp->a > s ? sp->a : s) : e;
		end = sp ? (sp->b < e ? sp->b : e) : e;
		if (sp && at >= end)
			continue;
		while (n > 0 && TOP <= at) {
			text(b, m, &cur, TOP, code, pre, quote, naked, &bol);
			o = &stk[--n];
			if (o->shown)
				mark(b, o->sp, 1, o->bare);
			code -= o->sp->kind == OXI_TGMD_CODE;
			pre -= o->sp->kind == OXI_TGMD_PRE;
			quote -= o->sp->kind == OXI_TGMD_QUOTE;
			naked -= o->bare;
		}
		text(b, m, &cur, at, code, pre, quote, naked, &bol);
		if (!sp)
			break;
		if ((n & 15) == 0)
			stk = xrealloc(stk, (n + 16) * sizeof *stk);
		o = &stk[n++];
		o->sp = sp;
		o->bare = sp->kind == OXI_TGMD_A && bare(m, sp, at, end);
		o->shown = !(code || pre) || sp->kind == OXI_TGMD_QUOTE;
		if (o->shown) {
			if (sp->kind == OXI_TGMD_PRE && !bol) {
				oxi_buf_cats(b, "\n");
				bol = 1;
			}
			if (sp->kind == OXI_TGMD_PRE && quote && bol)
				oxi_buf_cats(b, "> ");
			mark(b, sp, 0, o->bare);
		}
		code += sp->kind == OXI_TGMD_CODE;
		pre += sp->kind == OXI_TGMD_PRE;
		quote += sp->kind == OXI_TGMD_QUOTE;
		naked += o->bare;
	}
#undef TOP
	free(stk);
	return buf.s;
}

void
dc_md_free(char **parts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(parts[i]);
	free(parts);
}

int
dc_md_render(const char *text, size_t len, int markdown, size_t max,
    char ***parts)
{
	struct oxi_tgmd_doc d;
	const char *v;
	char **out = NULL, *p;
	size_t pos = 0, c, next, e, budget, u;
	int n = 0;

	*parts = NULL;
	if (max < 16 || oxi_tgmd_doc(text, len, markdown, &d) < 0)
		return -1;
	v = d.v.s;
	while (pos < d.v.len) {
		while (pos < d.v.len && (v[pos] == '\n' || v[pos] == ' '))
			pos++;
		if (pos == d.v.len)
			break;
		for (budget = max;;) {
			oxi_tgmd_cut(&d, pos, budget, &c, &next);
			for (e = c; e > pos && (v[e - 1] == '\n' ||
			    v[e - 1] == ' '); e--)
				;
			p = md(&d, pos, e > pos ? e : c);
			u = oxi_tgmd_units(p, strlen(p));
			if (u <= max || budget <= 8)
				break;
			free(p);
			/* the markup took room: cut shorter, by its share */
			budget = budget * max / u;
			budget = budget > 16 ? budget - 8 : 8;
		}
		if (e > pos) {
			if ((n & 7) == 0)
				out = xrealloc(out, (n + 8) * sizeof *out);
			out[n++] = p;
		} else
			free(p);
		pos = next > pos ? next : pos + 1;
	}
	oxi_tgmd_doc_free(&d);
	*parts = out;
	return n;
}
