/*
 * tgmd.c - the model's Markdown as Telegram HTML (parse_mode HTML), in
 * messages of at most 4096 characters as Telegram counts them
 *
 * libmd4c parses the Markdown (CommonMark with tables, strikethrough,
 * task lists and bare URLs; raw HTML is never recognised, so a tag the
 * model writes is shown as text).  The callbacks build the text that
 * will show (v) and, beside it, the spans of markup over byte ranges of
 * that text, nested as the document nests them.  Telegram's HTML has no
 * blocks but blockquote and pre: a heading becomes a bold line, a list
 * "• " or "1. " lines, a table a <pre> of padded columns, an image a
 * link to it, a rule a line of dashes.  tgpart.c cuts the shown text
 * into messages and writes each one's HTML.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <md4c.h>

#include "oxi.h"
#include "channel/tgmd.h"

/* a span being parsed: which one, or where a link left unmarked began */
struct open {
	long sp;		/* index in spans, or -1: nothing recorded */
	size_t at;		/* where its text starts */
	char *href;		/* a link shown as text: its target */
	int a;			/* an A or IMG span of md4c */
	MD_SPANTYPE type;	/* md4c's */
};

struct list {
	int ol;			/* ordered */
	unsigned n;		/* the next item's number */
	int tight;		/* no blank lines between items */
	int items;		/* items so far */
};

struct table {
	struct oxi_buf cell;	/* the cell being read */
	char **cells;		/* cells, row after row */
	size_t ncell, capcell;
	unsigned cols;		/* columns */
	int align[64];		/* MD_ALIGN_* of the first 64 columns */
	unsigned col;		/* the column being read */
	int head;		/* inside THEAD */
	size_t headcells;	/* cells of the header row */
};

struct md {
	struct oxi_tgmd_doc d;	/* what shows, and its markup */
	size_t capsp;		/* spans allocated */
	struct open *st;	/* spans of md4c open now */
	size_t nst, capst;
	struct list *ls;	/* lists open now */
	size_t nls, capls;
	int need;		/* newlines owed before the next text */
	struct oxi_buf pfx;	/* a list item's mark owed before it */
	int quote;		/* blockquotes open */
	long qsp;		/* the span of the outer one */
	long hsp;		/* the span of the heading open */
	long pre;		/* the span of the code block open, or -1 */
	int inlink;		/* links and images open */
	struct table *tb;	/* the table being read, or NULL */
};

/* c as UTF-8, U+FFFD for what is no character (NUL included) */
static void
putcp(struct oxi_buf *b, unsigned long c)
{
	char u[4];
	int n, i;

	if (c == 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd;
	n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
	for (i = n - 1; i > 0; i--, c >>= 6)
		u[i] = (char)(0x80 | (c & 0x3f));
	/* the lead byte: n ones, a zero, the bits left */
	u[0] = (char)(n == 1 ? c : ((0xf00 >> n) & 0xff) | c);
	oxi_buf_cat(b, u, n);
}

/* s[0..n) as well-formed UTF-8 without control characters but tab and
 * newline (CR dropped, NUL and a bad byte as U+FFFD), appended to b */
static void
clean(struct oxi_buf *b, const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		k = oxi_utf8_seq(s + i, n - i);
		if (k == 0 || s[i] == '\0') {
			putcp(b, 0xfffd);
			i++;
		} else if (k == 1 && (unsigned char)s[i] < 0x20 &&
		    s[i] != '\n' && s[i] != '\t')
			i++;
		else {
			oxi_buf_cat(b, s + i, k);
			i += k;
		}
	}
}

/* the named entities a model writes; the rest stay as they were typed */
static const struct { const char *name; unsigned long c; } names[] = {
	{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' },
	{ "apos", '\'' }, { "nbsp", 0xa0 }, { "copy", 0xa9 }, { "reg", 0xae },
	{ "trade", 0x2122 }, { "hellip", 0x2026 }, { "mdash", 0x2014 },
	{ "ndash", 0x2013 }, { "laquo", 0xab }, { "raquo", 0xbb },
	{ "lsquo", 0x2018 }, { "rsquo", 0x2019 }, { "ldquo", 0x201c },
	{ "rdquo", 0x201d }, { "middot", 0xb7 }, { "bull", 0x2022 },
	{ "deg", 0xb0 }, { "times", 0xd7 }, { "divide", 0xf7 },
	{ "euro", 0x20ac }, { "pound", 0xa3 }, { "yen", 0xa5 },
	{ "cent", 0xa2 }, { "sect", 0xa7 }, { "para", 0xb6 },
	{ "larr", 0x2190 }, { "rarr", 0x2192 }, { "uarr", 0x2191 },
	{ "darr", 0x2193 }, { "harr", 0x2194 }, { "le", 0x2264 },
	{ "ge", 0x2265 }, { "ne", 0x2260 }, { "plusmn", 0xb1 },
	{ "micro", 0xb5 }, { NULL, 0 }
};

/* the entity s[0..n) ("&name;", "&#N;", "&#xN;") decoded, appended to b */
static void
entity(struct oxi_buf *b, const char *s, size_t n)
{
	unsigned long c = 0;
	size_t i;
	int hex;

	if (n >= 4 && s[1] == '#') {
		hex = s[2] == 'x' || s[2] == 'X';
		for (i = hex ? 3 : 2; i < n - 1; i++) {
			if (c > 0x10ffff)
				break;
			if (s[i] >= '0' && s[i] <= '9')
				c = c * (hex ? 16 : 10) + (s[i] - '0');
			else if (hex && ((s[i] | 0x20) >= 'a' &&
			    (s[i] | 0x20) <= 'f'))
				c = c * 16 + ((s[i] | 0x20) - 'a' + 10);
		}
		/* C0 controls and NUL show as U+FFFD, not as themselves */
		putcp(b, c < 0x20 && c != '\n' && c != '\t' ? 0xfffd : c);
		return;
	}
	for (i = 0; names[i].name; i++)
		if (n == strlen(names[i].name) + 2 &&
		    memcmp(s + 1, names[i].name, n - 2) == 0) {
			putcp(b, names[i].c);
			return;
		}
	oxi_buf_cat(b, s, n);
}

/* an attribute of md4c (a link's target, a code block's language) */
static char *
attr(const MD_ATTRIBUTE *a)
{
	struct oxi_buf b = OXI_BUF_INIT;
	MD_OFFSET o, e;
	unsigned i;

	oxi_buf_cats(&b, "");
	for (i = 0; a->size > 0 && a->substr_offsets[i] < a->size; i++) {
		o = a->substr_offsets[i];
		e = a->substr_offsets[i + 1];
		if (a->substr_types[i] == MD_TEXT_ENTITY)
			entity(&b, a->text + o, e - o);
		else if (a->substr_types[i] == MD_TEXT_NULLCHAR)
			putcp(&b, 0xfffd);
		else
			clean(&b, a->text + o, e - o);
	}
	return b.s;
}

/* a target Telegram opens: an absolute URL of a scheme it knows */
static int
linkable(const char *href)
{
	static const char *const ok[] = { "http:", "https:", "tg:",
		"mailto:", "ftp:", NULL };
	size_t i, n;

	for (i = 0; ok[i]; i++) {
		n = strlen(ok[i]);
		if (strncasecmp(href, ok[i], n) == 0 && href[n] != '\0')
			return 1;
	}
	return 0;
}

/* the newlines and the list mark owed, before text or a span */
static void
owed(struct md *m)
{
	if (m->d.v.len > 0)
		for (; m->need > 0; m->need--)
			oxi_buf_putc(&m->d.v, '\n');
	m->need = 0;
	if (m->pfx.len > 0) {
		oxi_buf_cat(&m->d.v, m->pfx.s, m->pfx.len);
		oxi_buf_reset(&m->pfx);
	}
}

static void
owe(struct md *m, int n)
{
	if (m->need < n)
		m->need = n;
}

/* where a block ends: a blank line, or a line break in a tight list */
static void
blockend(struct md *m)
{
	owe(m, m->nls > 0 && m->ls[m->nls - 1].tight ? 1 : 2);
}

/* a new span of kind from here on: its index */
static long
spopen(struct md *m, int kind, char *a)
{
	struct oxi_tgmd_span *s;

	owed(m);
	if (m->d.nsp == m->capsp) {
		m->capsp = m->capsp ? 2 * m->capsp : 64;
		m->d.sp = xrealloc(m->d.sp, m->capsp * sizeof *m->d.sp);
	}
	s = &m->d.sp[m->d.nsp];
	s->a = s->b = m->d.v.len;
	s->kind = kind;
	s->attr = a;
	return (long)m->d.nsp++;
}

/* text of the document, cleaned, to the shown text or the table cell */
static void
put(struct md *m, MD_TEXTTYPE type, const char *s, size_t n)
{
	struct oxi_buf *b = m->tb ? &m->tb->cell : &m->d.v;

	if (!m->tb)
		owed(m);
	switch (type) {
	case MD_TEXT_NULLCHAR:
		putcp(b, 0xfffd);
		break;
	case MD_TEXT_BR:
	case MD_TEXT_SOFTBR:
		oxi_buf_putc(b, m->tb ? ' ' : '\n');
		break;
	case MD_TEXT_ENTITY:
		entity(b, s, n);
		break;
	default:
		clean(b, s, n);
	}
}

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->ncell; i++)
		free(t->cells[i]);
	free(t->cells);
	oxi_buf_free(&t->cell);
	free(t);
}

/* columns of code points, not bytes */
static size_t
width(const char *s)
{
	size_t n = 0, len = strlen(s), i, k;

	for (i = 0; i < len; i += k) {
		(void)oxi_tgmd_cp(s + i, len - i, &k);
		n++;
	}
	return n;
}

/* the table read, as a <pre> of padded columns, header ruled off */
static void
table_show(struct md *m)
{
	struct table *t = m->tb;
	struct oxi_buf *v = &m->d.v;
	size_t *w, i, c, r, rows, pad;
	long sp;
	int al;

	m->tb = NULL;
	if (t->cols == 0 || t->ncell == 0) {
		table_free(t);
		return;
	}
	rows = (t->ncell + t->cols - 1) / t->cols;
	w = xcalloc(t->cols, sizeof *w);
	for (i = 0; i < t->ncell; i++)
		if (width(t->cells[i]) > w[i % t->cols])
			w[i % t->cols] = width(t->cells[i]);
	sp = spopen(m, OXI_TGMD_PRE, NULL);
	for (r = 0; r < rows; r++) {
		if (r > 0)
			oxi_buf_putc(v, '\n');
		for (c = 0; c < t->cols; c++) {
			i = r * t->cols + c;
			pad = w[c] - (i < t->ncell ? width(t->cells[i]) : 0);
			al = c < 64 ? t->align[c] : MD_ALIGN_DEFAULT;
			if (c > 0)
				oxi_buf_cats(v, " | ");
			for (; al == MD_ALIGN_RIGHT && pad > 0; pad--)
				oxi_buf_putc(v, ' ');
			if (i < t->ncell)
				oxi_buf_cats(v, t->cells[i]);
			for (; c + 1 < t->cols && pad > 0; pad--)
				oxi_buf_putc(v, ' ');
		}
		if (r + 1 == t->headcells / t->cols && r + 1 < rows) {
			oxi_buf_putc(v, '\n');
			for (c = 0; c < t->cols; c++) {
				if (c > 0)
					oxi_buf_cats(v, "-+-");
				for (pad = w[c] ? w[c] : 1; pad > 0; pad--)
					oxi_buf_putc(v, '-');
			}
		}
	}
	/* trailing blanks of the last column are not shown */
	while (v->len > m->d.sp[sp].a && v->s[v->len - 1] == ' ')
		v->s[--v->len] = '\0';
	m->d.sp[sp].b = v->len;
	free(w);
	table_free(t);
}

static int
enter_block(MD_BLOCKTYPE type, void *detail, void *arg)
{
	struct md *m = arg;
	MD_BLOCK_CODE_DETAIL *cd;
	MD_BLOCK_LI_DETAIL *li;
	struct list *l;
	size_t depth;
	char *lang, *p;

	if (m->tb) {
		if (type == MD_BLOCK_THEAD)
			m->tb->head = 1;
		else if (type == MD_BLOCK_TH || type == MD_BLOCK_TD) {
			oxi_buf_reset(&m->tb->cell);
			oxi_buf_cats(&m->tb->cell, "");
			if (m->tb->col < 64)
				m->tb->align[m->tb->col] =
				    ((MD_BLOCK_TD_DETAIL *)detail)->align;
		} else if (type == MD_BLOCK_TR)
			m->tb->col = 0;
		return 0;
	}
	switch (type) {
	case MD_BLOCK_QUOTE:
		/* Telegram's blockquotes do not nest */
		if (m->quote++ == 0)
			m->qsp = spopen(m, OXI_TGMD_QUOTE, NULL);
		break;
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		if (m->nls > 0)
			owe(m, 1);
		if (m->nls == m->capls) {
			m->capls = m->capls ? 2 * m->capls : 8;
			m->ls = xrealloc(m->ls, m->capls * sizeof *m->ls);
		}
		l = &m->ls[m->nls++];
		memset(l, 0, sizeof *l);
		l->ol = type == MD_BLOCK_OL;
		if (l->ol) {
			l->n = ((MD_BLOCK_OL_DETAIL *)detail)->start;
			l->tight = ((MD_BLOCK_OL_DETAIL *)detail)->is_tight;
		} else
			l->tight = ((MD_BLOCK_UL_DETAIL *)detail)->is_tight;
		break;
	case MD_BLOCK_LI:
		if (m->nls == 0)
			break;
		l = &m->ls[m->nls - 1];
		if (l->items++ > 0)
			owe(m, l->tight ? 1 : 2);
		oxi_buf_reset(&m->pfx);
		/* two columns a level, up to eight levels */
		for (depth = 1; depth < m->nls && depth < 8; depth++)
			oxi_buf_cats(&m->pfx, "  ");
		if (l->ol)
			oxi_buf_printf(&m->pfx, "%u. ", l->n++);
		else
			oxi_buf_cats(&m->pfx, "\xe2\x80\xa2 ");	/* U+2022 */
		li = detail;
		if (li->is_task)
			oxi_buf_cats(&m->pfx, li->task_mark == ' ' ?
			    "\xe2\x98\x90 " : "\xe2\x98\x91 ");	/* U+2610/1 */
		break;
	case MD_BLOCK_HR:
		owed(m);
		/* U+2014 eight times */
		oxi_buf_cats(&m->d.v, "\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94"
		    "\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94"
		    "\xe2\x80\x94");
		break;
	case MD_BLOCK_H:
		m->hsp = spopen(m, OXI_TGMD_B, NULL);
		break;
	case MD_BLOCK_CODE:
		cd = detail;
		lang = cd->lang.size > 0 ? attr(&cd->lang) : NULL;
		/* a language is a word: c, c++, objective-c, c#, ... */
		for (p = lang; p && *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
			    "OPQRSTUVWXYZ0123456789_+#.-", *p) ||
			    p - lang >= 32) {
				free(lang);
				lang = NULL;
				break;
			}
		m->pre = spopen(m, OXI_TGMD_PRE, lang);
		break;
	case MD_BLOCK_TABLE:
		owed(m);
		m->tb = xcalloc(1, sizeof *m->tb);
		m->tb->cols = ((MD_BLOCK_TABLE_DETAIL *)detail)->col_count;
		break;
	default:
		break;
	}
	return 0;
}

static int
leave_block(MD_BLOCKTYPE type, void *detail, void *arg)
{
	struct md *m = arg;
	struct table *t = m->tb;

	(void)detail;
	if (t && type != MD_BLOCK_TABLE) {
		if (type == MD_BLOCK_THEAD) {
			t->head = 0;
			t->headcells = t->ncell;
		} else if (type == MD_BLOCK_TH || type == MD_BLOCK_TD) {
			if (t->col++ >= t->cols)
				return 0;	/* md4c keeps to col_count */
			if (t->ncell == t->capcell) {
				t->capcell = t->capcell ? 2 * t->capcell : 16;
				t->cells = xrealloc(t->cells,
				    t->capcell * sizeof *t->cells);
			}
			oxi_buf_cats(&t->cell, "");
			t->cells[t->ncell++] = xstrdup(t->cell.s);
		} else if (type == MD_BLOCK_TR)
			/* a short row is filled with empty cells */
			while (t->ncell % t->cols != 0) {
				oxi_buf_reset(&t->cell);
				oxi_buf_cats(&t->cell, "");
				(void)leave_block(MD_BLOCK_TD, NULL, m);
			}
		return 0;
	}
	switch (type) {
	case MD_BLOCK_QUOTE:
		if (m->quote > 0 && --m->quote == 0)
			m->d.sp[m->qsp].b = m->d.v.len;
		owe(m, 2);
		break;
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		if (m->nls > 0)
			m->nls--;
		oxi_buf_reset(&m->pfx);
		owe(m, m->nls > 0 ? 1 : 2);
		break;
	case MD_BLOCK_CODE:
		if (m->pre < 0)
			break;
		/* the newline that ends its last line is not shown */
		if (m->d.v.len > m->d.sp[m->pre].a && m->d.v.s[m->d.v.len - 1] == '\n')
			m->d.v.s[--m->d.v.len] = '\0';
		m->d.sp[m->pre].b = m->d.v.len;
		m->pre = -1;
		blockend(m);
		break;
	case MD_BLOCK_H:
		if (m->hsp >= 0)
			m->d.sp[m->hsp].b = m->d.v.len;
		m->hsp = -1;
		blockend(m);
		break;
	case MD_BLOCK_TABLE:
		table_show(m);
		owe(m, 2);
		break;
	case MD_BLOCK_P:
	case MD_BLOCK_HR:
	case MD_BLOCK_HTML:
		blockend(m);
		break;
	default:
		break;
	}
	return 0;
}

static int
enter_span(MD_SPANTYPE type, void *detail, void *arg)
{
	static const int kinds[] = { [MD_SPAN_EM] = OXI_TGMD_I,
		[MD_SPAN_STRONG] = OXI_TGMD_B, [MD_SPAN_DEL] = OXI_TGMD_S,
		[MD_SPAN_U] = OXI_TGMD_U, [MD_SPAN_CODE] = OXI_TGMD_CODE };
	struct md *m = arg;
	struct open *o;
	char *href;

	if (m->nst == m->capst) {
		m->capst = m->capst ? 2 * m->capst : 16;
		m->st = xrealloc(m->st, m->capst * sizeof *m->st);
	}
	o = &m->st[m->nst++];
	memset(o, 0, sizeof *o);
	o->sp = -1;
	o->type = type;
	if (m->tb)
		return 0;
	owed(m);
	o->at = m->d.v.len;
	switch (type) {
	case MD_SPAN_A:
	case MD_SPAN_IMG:
		o->a = 1;
		/* links do not nest; an image in a link shows its text */
		if (m->inlink++ > 0)
			break;
		href = attr(type == MD_SPAN_A ?
		    &((MD_SPAN_A_DETAIL *)detail)->href :
		    &((MD_SPAN_IMG_DETAIL *)detail)->src);
		if (linkable(href))
			o->sp = spopen(m, OXI_TGMD_A, href);
		else
			o->href = href;
		break;
	case MD_SPAN_EM:
	case MD_SPAN_STRONG:
	case MD_SPAN_DEL:
	case MD_SPAN_U:
		o->sp = spopen(m, kinds[type], NULL);
		break;
	case MD_SPAN_CODE:
		/* Telegram's code is in no link */
		if (m->inlink == 0)
			o->sp = spopen(m, OXI_TGMD_CODE, NULL);
		break;
	default:
		break;
	}
	return 0;
}

static int
leave_span(MD_SPANTYPE type, void *detail, void *arg)
{
	struct md *m = arg;
	struct open *o;
	struct oxi_tgmd_span *s;

	(void)detail;
	/* md4c 0.4.8 may leave a span it never entered ("http://.o)_|_"
	 * leaves an EM): only the span on top is left */
	if (m->nst == 0 || m->st[m->nst - 1].type != type)
		return 0;
	o = &m->st[--m->nst];
	if (o->a && !m->tb)
		m->inlink--;
	if (o->sp >= 0) {
		s = &m->d.sp[o->sp];
		/* a link with no text shows its target */
		if (s->kind == OXI_TGMD_A && m->d.v.len == s->a)
			clean(&m->d.v, s->attr, strlen(s->attr));
		s->b = m->d.v.len;
	} else if (o->href) {
		/* a target Telegram would refuse, shown after its text */
		if (m->d.v.len - o->at != strlen(o->href) ||
		    memcmp(m->d.v.s + o->at, o->href, m->d.v.len - o->at) != 0) {
			if (m->d.v.len > o->at)
				oxi_buf_cats(&m->d.v, " (");
			oxi_buf_cats(&m->d.v, o->href);
			if (m->d.v.len > o->at + strlen(o->href))
				oxi_buf_cats(&m->d.v, ")");
		}
		free(o->href);
	}
	return 0;
}

static int
text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *arg)
{
	put(arg, type, s, n);
	return 0;
}

static void
md_free(struct md *m)
{
	size_t i;

	for (i = 0; i < m->d.nsp; i++)
		free(m->d.sp[i].attr);
	for (i = 0; i < m->nst; i++)
		free(m->st[i].href);
	free(m->d.sp);
	free(m->st);
	free(m->ls);
	if (m->tb)
		table_free(m->tb);
	oxi_buf_free(&m->d.v);
	oxi_buf_free(&m->pfx);
}

int
oxi_tgmd_render(const char *text, size_t len, int md, size_t max,
    struct oxi_tgmd_part **parts)
{
	return oxi_tgmd_render_as(text, len, md, max, NULL, parts);
}

int
oxi_tgmd_render_as(const char *text_, size_t len, int md, size_t max,
    const struct oxi_tgmd_markup *w, struct oxi_tgmd_part **parts)
{
	MD_PARSER p = {
		.flags = MD_FLAG_NOHTML | MD_FLAG_TABLES |
		    MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS |
		    MD_FLAG_PERMISSIVEURLAUTOLINKS |
		    MD_FLAG_PERMISSIVEWWWAUTOLINKS |
		    MD_FLAG_NOINDENTEDCODEBLOCKS,
		.enter_block = enter_block, .leave_block = leave_block,
		.enter_span = enter_span, .leave_span = leave_span,
		.text = text,
	};
	struct oxi_buf src = OXI_BUF_INIT;
	struct md m;
	int n;

	*parts = NULL;
	if (max == 0 || len > 0xffffffffu) {
		errno = EINVAL;
		return -1;
	}
	memset(&m, 0, sizeof m);
	m.pre = m.hsp = -1;
	oxi_buf_cats(&m.d.v, "");
	oxi_buf_cats(&src, "");
	clean(&src, text_, len);
	if (!md)
		oxi_buf_cat(&m.d.v, src.s, src.len);
	else if (md_parse(src.s, (MD_SIZE)src.len, &p, &m) != 0) {
		oxi_buf_free(&src);
		md_free(&m);
		errno = ENOMEM;
		return -1;
	}
	oxi_buf_free(&src);
	n = oxi_tgmd_parts(&m.d, max, w, parts);
	md_free(&m);
	return n;
}
