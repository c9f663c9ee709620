/*
 * html.c - HTML as readable text, for web_fetch
 *
 * Not a browser: a single pass over the tags that keeps what a reader
 * would read and drops the rest.  Scripts, styles and the parts of a page
 * that are not its content (navigation, forms, footers, hidden elements)
 * go; headings become "#" lines, paragraphs and blocks are separated by
 * blank lines, list items get "- " or "N. ", table cells " | ", pre
 * blocks keep their white space; everything else has its white space
 * collapsed.  Links keep their text, followed by " [N]", and their URLs
 * are listed at the end.  Character references are decoded.  The text
 * is UTF-8: what is not (and NUL) becomes U+FFFD.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oxi.h"
#include "net/net.h"

#define MAXLINKS	500	/* links numbered, the rest left plain */
#define MAXDEPTH	8	/* list nesting shown by indentation */

/* the named references worth knowing; the rest are left as they are */
static const struct {
	const char *name;
	unsigned cp;
} ents[] = {
	{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' },
	{ "apos", '\'' }, { "nbsp", 0xa0 }, { "copy", 0xa9 },
	{ "reg", 0xae }, { "trade", 0x2122 }, { "hellip", 0x2026 },
	{ "mdash", 0x2014 }, { "ndash", 0x2013 }, { "lsquo", 0x2018 },
	{ "rsquo", 0x2019 }, { "sbquo", 0x201a }, { "ldquo", 0x201c },
	{ "rdquo", 0x201d }, { "bdquo", 0x201e }, { "laquo", 0xab },
	{ "raquo", 0xbb }, { "lsaquo", 0x2039 }, { "rsaquo", 0x203a },
	{ "bull", 0x2022 }, { "middot", 0xb7 }, { "deg", 0xb0 },
	{ "plusmn", 0xb1 }, { "times", 0xd7 }, { "divide", 0xf7 },
	{ "frac12", 0xbd }, { "frac14", 0xbc }, { "frac34", 0xbe },
	{ "sup2", 0xb2 }, { "sup3", 0xb3 }, { "micro", 0xb5 },
	{ "para", 0xb6 }, { "sect", 0xa7 }, { "euro", 0x20ac },
	{ "pound", 0xa3 }, { "yen", 0xa5 }, { "cent", 0xa2 },
	{ "iexcl", 0xa1 }, { "iquest", 0xbf }, { "shy", 0xad },
	{ "larr", 0x2190 }, { "rarr", 0x2192 }, { "uarr", 0x2191 },
	{ "darr", 0x2193 }, { "harr", 0x2194 }, { "le", 0x2264 },
	{ "ge", 0x2265 }, { "ne", 0x2260 }, { "asymp", 0x2248 },
	{ "infin", 0x221e }, { "minus", 0x2212 }, { "prime", 0x2032 },
	{ "Prime", 0x2033 }, { "dagger", 0x2020 }, { "Dagger", 0x2021 },
	{ "permil", 0x2030 }, { "thinsp", 0x2009 }, { "ensp", 0x2002 },
	{ "emsp", 0x2003 }, { "zwj", 0x200d }, { "zwnj", 0x200c },
	{ "alpha", 0x3b1 }, { "beta", 0x3b2 }, { "gamma", 0x3b3 },
	{ "delta", 0x3b4 }, { "pi", 0x3c0 }, { "sigma", 0x3c3 },
	{ "mu", 0x3bc }, { "lambda", 0x3bb }, { "omega", 0x3c9 },
	{ "Agrave", 0xc0 }, { "Aacute", 0xc1 }, { "Acirc", 0xc2 },
	{ "Auml", 0xc4 }, { "Aring", 0xc5 }, { "AElig", 0xc6 },
	{ "Ccedil", 0xc7 }, { "Egrave", 0xc8 }, { "Eacute", 0xc9 },
	{ "Ecirc", 0xca }, { "Iacute", 0xcd }, { "Ntilde", 0xd1 },
	{ "Oacute", 0xd3 }, { "Ouml", 0xd6 }, { "Oslash", 0xd8 },
	{ "Uacute", 0xda }, { "Uuml", 0xdc }, { "szlig", 0xdf },
	{ "agrave", 0xe0 }, { "aacute", 0xe1 }, { "acirc", 0xe2 },
	{ "auml", 0xe4 }, { "aring", 0xe5 }, { "aelig", 0xe6 },
	{ "ccedil", 0xe7 }, { "egrave", 0xe8 }, { "eacute", 0xe9 },
	{ "ecirc", 0xea }, { "euml", 0xeb }, { "igrave", 0xec },
	{ "iacute", 0xed }, { "icirc", 0xee }, { "iuml", 0xef },
	{ "ntilde", 0xf1 }, { "ograve", 0xf2 }, { "oacute", 0xf3 },
	{ "ocirc", 0xf4 }, { "ouml", 0xf6 }, { "oslash", 0xf8 },
	{ "ugrave", 0xf9 }, { "uacute", 0xfa }, { "ucirc", 0xfb },
	{ "uuml", 0xfc }, { "yacute", 0xfd }, { "yuml", 0xff },
	{ NULL, 0 }
};

/* windows-1252 for the C1 range of numeric references, as HTML says */
static const unsigned short c1[32] = {
	0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0xfffd, 0x017d, 0xfffd,
	0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0xfffd, 0x017e, 0x0178
};

static void
putcp(struct oxi_buf *b, unsigned long c)
{
	if (c == 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd;
	else if (c >= 0x80 && c <= 0x9f)
		c = c1[c - 0x80];
	if (c < 0x80)
		oxi_buf_putc(b, (int)c);
	else if (c < 0x800) {
		oxi_buf_putc(b, 0xc0 | (int)(c >> 6));
		oxi_buf_putc(b, 0x80 | (int)(c & 0x3f));
	} else if (c < 0x10000) {
		oxi_buf_putc(b, 0xe0 | (int)(c >> 12));
		oxi_buf_putc(b, 0x80 | (int)((c >> 6) & 0x3f));
		oxi_buf_putc(b, 0x80 | (int)(c & 0x3f));
	} else {
		oxi_buf_putc(b, 0xf0 | (int)(c >> 18));
		oxi_buf_putc(b, 0x80 | (int)((c >> 12) & 0x3f));
		oxi_buf_putc(b, 0x80 | (int)((c >> 6) & 0x3f));
		oxi_buf_putc(b, 0x80 | (int)(c & 0x3f));
	}
}

/* decodes the reference at s[0] == '&': bytes used, or 0 if none */
static size_t
ref(struct oxi_buf *b, const char *s, size_t len)
{
	unsigned long c = 0;
	size_t i = 1, k;
	int hex = 0, nd = 0, j;

	if (len > 2 && s[1] == '#') {
		i = 2;
		if (s[i] == 'x' || s[i] == 'X') {
			hex = 1;
			i++;
		}
		for (; i < len; i++, nd++) {
			if (hex && isxdigit((unsigned char)s[i]))
				c = c * 16 + (isdigit((unsigned char)s[i]) ?
				    s[i] - '0' : (tolower((unsigned char)s[i]) -
				    'a' + 10));
			else if (!hex && isdigit((unsigned char)s[i]))
				c = c * 10 + (s[i] - '0');
			else
				break;
			if (c > 0x10ffff)
				c = 0x110000;
		}
		if (nd == 0)
			return 0;
		if (i < len && s[i] == ';')
			i++;
		putcp(b, c);
		return i;
	}
	for (k = 1; k < len && k < 12 && isalnum((unsigned char)s[k]); k++)
		;
	if (k == 1 || k >= len || s[k] != ';')
		return 0;
	for (j = 0; ents[j].name; j++)
		if (strlen(ents[j].name) == k - 1 &&
		    strncmp(ents[j].name, s + 1, k - 1) == 0) {
			putcp(b, ents[j].cp);
			return k + 1;
		}
	return 0;
}

void
oxi_html_unescape(struct oxi_buf *out, const char *s, size_t len)
{
	const char *amp;
	size_t i = 0, n, run;

	while (i < len) {
		/* within len: s need not end in NUL, and may hold one */
		amp = memchr(s + i, '&', len - i);
		run = amp ? (size_t)(amp - (s + i)) : len - i;
		oxi_buf_cat(out, s + i, run);
		i += run;
		if (i >= len)
			break;
		if ((n = ref(out, s + i, len - i)) > 0)
			i += n;
		else {
			oxi_buf_putc(out, '&');
			i++;
		}
	}
}

/* the converter's state */
struct h2t {
	struct oxi_buf *out;	/* the text */
	size_t start;		/* where our text starts in out */
	int brk;		/* newlines owed before the next text: 0-2 */
	int space;		/* a space owed before the next text */
	int pre;		/* inside pre: keep white space */
	char skip[16];		/* dropping an element of this name */
	int skipdepth;		/* its nesting */
	int content;		/* inside article or main */
	int list[MAXDEPTH];	/* list counters: -1 for ul, else next N */
	int nlist;		/* list nesting */
	int cell;		/* cells so far in this table row */
	char *link;		/* URL of the open link, or NULL */
	size_t linkat;		/* out->len when it opened */
	char **links;		/* link URLs, numbered from 1 */
	int nlinks;		/* links used */
	const char *base;	/* URL to resolve against, or NULL */
	struct oxi_buf title;	/* the title */
	struct oxi_buf tmp;	/* decoded text */
};

/* pays the breaks owed and the space, before text */
static void
flush(struct h2t *h)
{
	struct oxi_buf *o = h->out;
	int have = 0;

	if (h->brk && o->len > h->start) {
		while (o->len > h->start && (o->s[o->len - 1] == ' ' ||
		    o->s[o->len - 1] == '\t'))
			o->len--;
		while (have < (int)(o->len - h->start) && have < 2 &&
		    o->s[o->len - 1 - have] == '\n')
			have++;
		for (; have < h->brk; have++)
			oxi_buf_putc(o, '\n');
		h->space = 0;
	} else if (h->space && o->len > h->start &&
	    o->s[o->len - 1] != '\n' && o->s[o->len - 1] != ' ')
		oxi_buf_putc(o, ' ');
	h->brk = h->space = 0;
}

static void
owe(struct h2t *h, int n)
{
	if (n > h->brk)
		h->brk = n;
}

/* text between tags, references decoded */
static void
text(struct h2t *h, const char *s, size_t len)
{
	const char *p, *e;
	size_t i, n;

	/* nothing to add; and h->tmp may not be allocated yet */
	if (h->skip[0] || len == 0)
		return;
	oxi_buf_reset(&h->tmp);
	oxi_html_unescape(&h->tmp, s, len);
	p = h->tmp.s;
	e = p + h->tmp.len;
	if (h->pre) {
		if (p < e) {
			flush(h);
			oxi_buf_cat(h->out, p, e - p);
		}
		return;
	}
	while (p < e) {
		for (i = 0; p + i < e && (p[i] == ' ' || p[i] == '\n' ||
		    p[i] == '\t' || p[i] == '\r' || p[i] == '\f'); i++)
			;
		if (i > 0) {
			h->space = 1;
			p += i;
			continue;
		}
		for (n = 0; p + n < e && p[n] != ' ' && p[n] != '\n' &&
		    p[n] != '\t' && p[n] != '\r' && p[n] != '\f'; n++)
			;
		/* U+00A0 stays a space, but not one to collapse */
		flush(h);
		oxi_buf_cat(h->out, p, n);
		p += n;
	}
}

/* href resolved against the base, or NULL if not worth listing */
static char *
resolve(const char *base, const char *href)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *p, *q, *rest;
	size_t n;

	while (*href == ' ' || *href == '\t' || *href == '\n')
		href++;
	if (*href == '\0' || *href == '#' ||
	    strncasecmp(href, "javascript:", 11) == 0 ||
	    strncasecmp(href, "data:", 5) == 0)
		return NULL;
	for (p = href; isalnum((unsigned char)*p) || *p == '+' || *p == '-' ||
	    *p == '.'; p++)
		;
	if (*p == ':' && p > href)
		return xstrdup(href);	/* absolute */
	if (!base || !(p = strstr(base, "://")))
		return xstrdup(href);
	rest = p + 3;
	rest += strcspn(rest, "/?#");	/* end of the authority */
	if (href[0] == '/' && href[1] == '/') {
		oxi_buf_cat(&b, base, p - base + 1);
		oxi_buf_cats(&b, href);
	} else if (href[0] == '/') {
		oxi_buf_cat(&b, base, rest - base);
		oxi_buf_cats(&b, href);
	} else if (href[0] == '?') {
		oxi_buf_cat(&b, base, rest - base + strcspn(rest, "?#"));
		oxi_buf_cats(&b, href);
	} else {
		n = strcspn(rest, "?#");
		for (q = rest + n; q > rest && q[-1] != '/'; q--)
			;
		if (q == rest) {
			oxi_buf_cat(&b, base, rest - base);
			oxi_buf_putc(&b, '/');
		} else
			oxi_buf_cat(&b, base, q - base);
		oxi_buf_cats(&b, href);
	}
	return b.s;
}

static int
addlink(struct h2t *h, const char *url)
{
	int i;

	for (i = 0; i < h->nlinks; i++)
		if (strcmp(h->links[i], url) == 0)
			return i + 1;
	if (h->nlinks >= MAXLINKS)
		return 0;
	if (h->nlinks % 64 == 0)
		h->links = xrealloc(h->links, (h->nlinks + 64) *
		    sizeof *h->links);
	h->links[h->nlinks++] = xstrdup(url);
	return h->nlinks;
}

/* a link that got text is numbered and listed */
static void
endlink(struct h2t *h)
{
	int n;

	if (h->link && h->out->len > h->linkat &&
	    (n = addlink(h, h->link)) > 0)
		oxi_buf_printf(h->out, " [%d]", n);
	free(h->link);
	h->link = NULL;
}

/* elements dropped with all they hold */
static int
dropped(const char *t, int content)
{
	static const char *const drop[] = {
		"script", "style", "noscript", "template", "svg", "math",
		"iframe", "object", "canvas", "nav", "aside", "footer", "form",
		"button", "select", "textarea", "dialog", "menu", NULL
	};
	int i;

	for (i = 0; drop[i]; i++)
		if (strcmp(t, drop[i]) == 0)
			return 1;
	return strcmp(t, "header") == 0 && !content;
}

static int
isvoid(const char *t)
{
	static const char *const v[] = {
		"area", "base", "br", "col", "embed", "hr", "img", "input",
		"link", "meta", "param", "source", "track", "wbr", NULL
	};
	int i;

	for (i = 0; v[i]; i++)
		if (strcmp(t, v[i]) == 0)
			return 1;
	return 0;
}

/* elements whose text runs to their end tag, tags and all */
static int
israw(const char *t)
{
	return strcmp(t, "script") == 0 || strcmp(t, "style") == 0 ||
	    strcmp(t, "textarea") == 0 || strcmp(t, "title") == 0 ||
	    strcmp(t, "xmp") == 0 || strcmp(t, "noscript") == 0 ||
	    strcmp(t, "iframe") == 0 || strcmp(t, "noembed") == 0;
}

static int
isblock(const char *t)
{
	static const char *const b[] = {
		"div", "section", "article", "main", "table", "thead",
		"tbody", "tfoot", "dl", "figure", "figcaption", "address",
		"center", "details", "summary", "fieldset", "caption",
		"header", "body", "html", NULL
	};
	int i;

	for (i = 0; b[i]; i++)
		if (strcmp(t, b[i]) == 0)
			return 1;
	return 0;
}

/* an open tag with the attributes we use */
static void
opentag(struct h2t *h, const char *t, const char *href, const char *alt,
    int hidden, int selfclose)
{
	int i, n;
	char *u;

	if (h->skip[0]) {
		if (strcmp(t, h->skip) == 0 && !selfclose)
			h->skipdepth++;
		return;
	}
	if ((dropped(t, h->content) || hidden) && !isvoid(t) && !selfclose) {
		snprintf(h->skip, sizeof h->skip, "%s", t);
		h->skipdepth = 1;
		return;
	}
	if (strcmp(t, "article") == 0 || strcmp(t, "main") == 0)
		h->content++;
	if (t[0] == 'h' && t[1] >= '1' && t[1] <= '6' && t[2] == '\0') {
		owe(h, 2);
		flush(h);
		for (i = '0'; i < t[1]; i++)
			oxi_buf_putc(h->out, '#');
		oxi_buf_putc(h->out, ' ');
	} else if (strcmp(t, "p") == 0 || strcmp(t, "blockquote") == 0)
		owe(h, 2);
	else if (strcmp(t, "pre") == 0) {
		owe(h, 2);
		flush(h);
		h->pre++;
	} else if (strcmp(t, "br") == 0) {
		h->brk = 0;
		while (h->out->len > h->start &&
		    h->out->s[h->out->len - 1] == ' ')
			h->out->len--;
		oxi_buf_putc(h->out, '\n');
		h->space = 0;
	} else if (strcmp(t, "hr") == 0) {
		owe(h, 2);
		flush(h);
		oxi_buf_cats(h->out, "---");
		owe(h, 2);
	} else if (strcmp(t, "ul") == 0 || strcmp(t, "ol") == 0) {
		if (h->nlist == 0)
			owe(h, 2);
		if (h->nlist < MAXDEPTH)
			h->list[h->nlist] = t[0] == 'u' ? -1 : 1;
		h->nlist++;
	} else if (strcmp(t, "li") == 0) {
		owe(h, 1);
		flush(h);
		n = h->nlist > MAXDEPTH ? MAXDEPTH : h->nlist;
		for (i = 1; i < n; i++)
			oxi_buf_cats(h->out, "  ");
		if (n > 0 && h->list[n - 1] > 0)
			oxi_buf_printf(h->out, "%d. ", h->list[n - 1]++);
		else
			oxi_buf_cats(h->out, "- ");
	} else if (strcmp(t, "dt") == 0)
		owe(h, 1);
	else if (strcmp(t, "dd") == 0) {
		owe(h, 1);
		flush(h);
		oxi_buf_cats(h->out, "  ");
	} else if (strcmp(t, "tr") == 0) {
		owe(h, 1);
		h->cell = 0;
	} else if (strcmp(t, "td") == 0 || strcmp(t, "th") == 0) {
		if (h->cell++ > 0) {
			flush(h);
			oxi_buf_cats(h->out, " | ");
		}
	} else if (strcmp(t, "img") == 0 && alt && *alt) {
		h->space = 1;
		flush(h);
		oxi_buf_printf(h->out, "[image: %s]", alt);
		h->space = 1;
	} else if (strcmp(t, "a") == 0) {
		endlink(h);
		if (href && (u = resolve(h->base, href))) {
			flush(h);
			h->link = u;
			h->linkat = h->out->len;
		}
	} else if (isblock(t))
		owe(h, 1);
}

static void
closetag(struct h2t *h, const char *t)
{
	if (h->skip[0]) {
		if (strcmp(t, h->skip) == 0 && --h->skipdepth == 0)
			h->skip[0] = '\0';
		return;
	}
	if ((strcmp(t, "article") == 0 || strcmp(t, "main") == 0) &&
	    h->content > 0)
		h->content--;
	if (t[0] == 'h' && t[1] >= '1' && t[1] <= '6' && t[2] == '\0')
		owe(h, 2);
	else if (strcmp(t, "p") == 0 || strcmp(t, "blockquote") == 0)
		owe(h, 2);
	else if (strcmp(t, "pre") == 0) {
		if (h->pre > 0)
			h->pre--;
		owe(h, 2);
	} else if (strcmp(t, "ul") == 0 || strcmp(t, "ol") == 0) {
		if (h->nlist > 0)
			h->nlist--;
		owe(h, h->nlist ? 1 : 2);
	} else if (strcmp(t, "li") == 0 || strcmp(t, "tr") == 0 ||
	    strcmp(t, "dd") == 0 || strcmp(t, "dt") == 0)
		owe(h, 1);
	else if (strcmp(t, "a") == 0)
		endlink(h);
	else if (isblock(t))
		owe(h, 1);
}

/* the value of an attribute into b, decoded */
static const char *
attr(const char *s, const char *e, struct oxi_buf *b, const char **after)
{
	const char *v;
	char q;

	oxi_buf_reset(b);
	oxi_buf_cats(b, "");
	if (s < e && (*s == '"' || *s == '\'')) {
		q = *s++;
		for (v = s; s < e && *s != q; s++)
			;
		oxi_html_unescape(b, v, s - v);
		if (s < e)
			s++;
	} else {
		for (v = s; s < e && !isspace((unsigned char)*s) && *s != '>';
		    s++)
			;
		oxi_html_unescape(b, v, s - v);
	}
	*after = s;
	return b->s;
}

/* a tag from s[0] == '<': the bytes it takes, or 0 if it is text */
static size_t
tag(struct h2t *h, const char *s, size_t len, char raw[16])
{
	struct oxi_buf href = OXI_BUF_INIT, alt = OXI_BUF_INIT, v = OXI_BUF_INIT;
	const char *p = s + 1, *e = s + len, *q, *an;
	char name[16], aname[16];
	size_t n;
	int end = 0, selfclose = 0, hidden = 0, hashref = 0, hasalt = 0;

	raw[0] = '\0';
	if (p < e && *p == '!') {
		if (e - p >= 3 && memcmp(p, "!--", 3) == 0) {
			for (q = p + 3; q + 2 < e && memcmp(q, "-->", 3) != 0;
			    q++)
				;
			return q + 2 < e ? (size_t)(q + 3 - s) : len;
		}
		q = memchr(p, '>', e - p);
		return q ? (size_t)(q + 1 - s) : len;
	}
	if (p < e && *p == '?') {
		q = memchr(p, '>', e - p);
		return q ? (size_t)(q + 1 - s) : len;
	}
	if (p < e && *p == '/') {
		end = 1;
		p++;
	}
	if (p >= e || !isalpha((unsigned char)*p))
		return 0;
	for (n = 0; p < e && (isalnum((unsigned char)*p) || *p == '-' ||
	    *p == ':'); p++)
		if (n < sizeof name - 1)
			name[n++] = tolower((unsigned char)*p);
	name[n] = '\0';
	/* attributes */
	while (p < e && *p != '>') {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*p == '/') {
			selfclose = p + 1 < e && p[1] == '>';
			p++;
			continue;
		}
		for (an = p, n = 0; p < e && !isspace((unsigned char)*p) &&
		    *p != '=' && *p != '>' && *p != '/'; p++)
			if (n < sizeof aname - 1)
				aname[n++] = tolower((unsigned char)*p);
		aname[n] = '\0';
		if (p == an)
			p++;
		while (p < e && isspace((unsigned char)*p))
			p++;
		if (p < e && *p == '=') {
			p++;
			while (p < e && isspace((unsigned char)*p))
				p++;
			if (strcmp(aname, "href") == 0) {
				attr(p, e, &href, &p);
				hashref = 1;
			} else if (strcmp(aname, "alt") == 0) {
				attr(p, e, &alt, &p);
				hasalt = 1;
			} else {
				attr(p, e, &v, &p);
				if ((strcmp(aname, "aria-hidden") == 0 &&
				    strcasecmp(v.s, "true") == 0) ||
				    (strcmp(aname, "role") == 0 &&
				    (strcasecmp(v.s, "navigation") == 0 ||
				    strcasecmp(v.s, "banner") == 0 ||
				    strcasecmp(v.s, "contentinfo") == 0)))
					hidden = 1;
			}
		} else if (strcmp(aname, "hidden") == 0)
			hidden = 1;
	}
	if (end)
		closetag(h, name);
	else {
		opentag(h, name, hashref ? href.s : NULL, hasalt ? alt.s : NULL,
		    hidden, selfclose);
		if (israw(name) && !selfclose)
			memcpy(raw, name, sizeof name);
	}
	oxi_buf_free(&href);
	oxi_buf_free(&alt);
	oxi_buf_free(&v);
	return p < e ? (size_t)(p + 1 - s) : len;
}

/* the end of a raw text element named name, from s: its "</name" or e */
static const char *
rawend(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = s; p + n + 2 <= e; p++)
		if (p[0] == '<' && p[1] == '/' &&
		    strncasecmp(p + 2, name, n) == 0 && (p + n + 2 == e ||
		    !isalnum((unsigned char)p[n + 2])))
			return p;
	return e;
}

static void
collapse(struct oxi_buf *out, const char *s, size_t len)
{
	size_t i;
	int sp = 0;

	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)s[i])) {
			sp = out->len > 0;
			continue;
		}
		if (sp)
			oxi_buf_putc(out, ' ');
		sp = 0;
		oxi_buf_putc(out, s[i]);
	}
}

/*
 * Each ill-formed UTF-8 sequence of b from from on becomes U+FFFD, one
 * for each maximal subpart (the longest start of a well-formed sequence,
 * or one byte), as the WHATWG decoder replaces them; so does each NUL,
 * as &#0; does.
 */
static void
fffd(struct oxi_buf *b, size_t from)
{
	struct oxi_buf t = OXI_BUF_INIT;
	size_t i, k, n;

	if (b->len == from ||
	    oxi_utf8_valid(b->s + from, b->len - from, OXI_UTF8_NONUL))
		return;
	for (i = from; i < b->len; i += k) {
		if (b->s[i] != '\0' &&
		    (k = oxi_utf8_seq(b->s + i, b->len - i)) > 0) {
			oxi_buf_cat(&t, b->s + i, k);
			continue;
		}
		for (k = 1, n = 2; b->s[i] != '\0' && n <= 3 &&
		    i + n <= b->len; n++)
			if (oxi_utf8_valid(b->s + i, n, OXI_UTF8_TAIL))
				k = n;
		oxi_buf_cats(&t, "\xef\xbf\xbd");
	}
	b->len = from;
	oxi_buf_cat(b, t.s, t.len);
	oxi_buf_free(&t);
}

void
oxi_html_text(const char *html, size_t len, const char *base,
    struct oxi_buf *out, char **title)
{
	struct h2t h;
	const char *p = html, *e = html + len, *lt, *re;
	char name[16];
	size_t n;
	int i;

	memset(&h, 0, sizeof h);
	h.out = out;
	h.start = out->len;
	h.base = base;
	oxi_buf_cats(out, "");
	while (p < e) {
		lt = memchr(p, '<', e - p);
		if (!lt)
			lt = e;
		if (lt > p)
			text(&h, p, lt - p);
		p = lt;
		if (p >= e)
			break;
		n = tag(&h, p, e - p, name);
		if (n == 0) {
			text(&h, p, 1);
			p++;
			continue;
		}
		p += n;
		if (!name[0])
			continue;
		/* raw text runs to its end tag, which closes a skip */
		re = rawend(p, e, name);
		if (strcmp(name, "title") == 0 && !h.title.len && !h.skip[0]) {
			oxi_buf_reset(&h.tmp);
			oxi_html_unescape(&h.tmp, p, re - p);
			collapse(&h.title, h.tmp.s, h.tmp.len);
		} else if (strcmp(name, "textarea") != 0 &&
		    strcmp(name, "xmp") != 0)
			;	/* scripts and styles: dropped */
		else if (!h.skip[0])
			text(&h, p, re - p);
		p = re;
	}
	endlink(&h);
	while (out->len > h.start && isspace((unsigned char)out->s[out->len - 1]))
		out->len--;
	out->s[out->len] = '\0';
	if (h.nlinks > 0) {
		oxi_buf_cats(out, out->len > h.start ? "\n\nLinks:\n" :
		    "Links:\n");
		for (i = 0; i < h.nlinks; i++)
			oxi_buf_printf(out, "[%d] %s\n", i + 1, h.links[i]);
		out->s[--out->len] = '\0';
	}
	fffd(out, h.start);
	for (i = 0; i < h.nlinks; i++)
		free(h.links[i]);
	free(h.links);
	fffd(&h.title, 0);
	if (title)
		*title = h.title.len ? xstrdup(h.title.s) : NULL;
	oxi_buf_free(&h.title);
	oxi_buf_free(&h.tmp);
}
