/*
 * decode.c - the decoded views of a text for the leak scanner: one layer
 * at a time, base64, hex, percent, backslash and U+ escapes and HTML
 * entities decoded, and what a layer needs scanned again (the other
 * views are view.c's)
 *
 * Each byte of a view carries the span of the original text it stands
 * for: a decoded byte stands for the whole encoded run it came from, so
 * that a finding in a view redacts all of its encoding.  A run is
 * decoded only if what comes out is printable UTF-8 (tab, CR and LF
 * allowed): random words are not base64, and binary is not a leak of a
 * text secret.  Decoding never fails: what does not decode stays.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#define B64_MIN		11	/* base64 characters at least (8 bytes) */
#define HEX_MIN		12	/* bare hex digits at least (6 bytes) */
#define HEXSEP_MIN	5	/* separated hex pairs at least */
#define OUT_MIN		6	/* bytes a base64 or hex run yields at least */
#define B64_SHIFT	40	/* a run may start after a '-' or '_' this far in */

static signed char b64v[256];	/* value of a base64 character, or -1 */
static signed char hexv[256];	/* value of a hex digit, or -1 */

static void
tables(void)
{
	static int done;
	const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789+/";
	int i;

	if (done)
		return;
	memset(b64v, -1, sizeof b64v);
	memset(hexv, -1, sizeof hexv);
	for (i = 0; i < 64; i++)
		b64v[(unsigned char)a[i]] = (signed char)i;
	b64v['-'] = 62;
	b64v['_'] = 63;
	for (i = 0; i < 10; i++)
		hexv['0' + i] = (signed char)i;
	for (i = 0; i < 6; i++)
		hexv['a' + i] = hexv['A' + i] = (signed char)(10 + i);
	done = 1;
}

void
oxi_view_window(const struct oxi_view *in, struct oxi_view *out, size_t ctx)
{
	const char *t = in->b.s ? in->b.s : "";
	size_t n = in->b.len, k, a, b, cover = 0, end = 0;

	for (k = 0; k + 1 < in->nchg; k += 2)
		cover += in->chg[k + 1] - in->chg[k] + 2 * ctx;
	oxi_view_start(out, in);
	if (in->nchg == 0 || cover >= n / 4 * 3) {
		oxi_view_copy(out, in, 0, n);
		return;
	}
	for (k = 0; k + 1 < in->nchg; k = k) {
		a = in->chg[k] > ctx ? in->chg[k] - ctx : 0;
		b = in->chg[k + 1] + ctx;
		/* windows that touch are one */
		for (k += 2; k + 1 < in->nchg && in->chg[k] <= b + 2 * ctx;
		    k += 2)
			b = in->chg[k + 1] + ctx;
		b = b < n ? b : n;
		/* a window does not cut a word: it may be a run to decode */
		while (a > 0 && (b64v[(unsigned char)t[a - 1]] >= 0 ||
		    ((unsigned char)t[a] & 0xc0) == 0x80))
			a--;
		while (b < n && (b64v[(unsigned char)t[b]] >= 0 ||
		    ((unsigned char)t[b] & 0xc0) == 0x80))
			b++;
		if (a < end)
			a = end;
		if (out->b.len > 0)
			oxi_view_put(out, "", 1, in->lo ? in->lo[a] : a, in->lo ?
			    in->lo[a] : a);
		oxi_view_copy(out, in, a, b);
		end = b;
	}
}

/*
 * A checker of printable UTF-8 fed a byte at a time: 0 while good, -1
 * at the first byte that makes the text binary or ill-formed.
 */
struct pr {
	int need;		/* continuation bytes still expected */
	unsigned long cp;	/* the code point so far */
	int len;		/* its sequence's length */
};

static int
prfeed(struct pr *p, unsigned char c)
{
	if (p->need > 0) {
		if ((c & 0xc0) != 0x80)
			return -1;
		p->cp = p->cp << 6 | (c & 0x3f);
		if (--p->need == 0) {
			if ((p->len == 2 && p->cp < 0x80) ||
			    (p->len == 3 && p->cp < 0x800) ||
			    (p->len == 4 && (p->cp < 0x10000 ||
			    p->cp > 0x10ffff)) ||
			    (p->cp >= 0xd800 && p->cp <= 0xdfff) ||
			    (p->cp >= 0x80 && p->cp < 0xa0) || p->cp == 0xfffd)
				return -1;
		}
		return 0;
	}
	if (c < 0x80)
		return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
		    c == 0x7f ? -1 : 0;
	if (c >= 0xc2 && c <= 0xdf) {
		p->need = 1;
		p->cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		p->need = 2;
		p->cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		p->need = 3;
		p->cp = c & 0x07;
	} else
		return -1;
	p->len = p->need + 1;
	return 0;
}

static int
printable(const unsigned char *s, size_t n)
{
	struct pr p = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		if (prfeed(&p, s[i]) < 0)
			return 0;
	return p.need == 0;
}

/* appends the UTF-8 of cp to b: 0, or -1 if it is no character to show */
static int
utf8put(struct oxi_buf *b, unsigned long cp)
{
	char e[4];
	int n;

	if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') ||
	    cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return -1;
	if (cp < 0x80) {
		e[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		e[0] = (char)(0xc0 | cp >> 6);
		e[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		e[0] = (char)(0xe0 | cp >> 12);
		e[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		e[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		e[0] = (char)(0xf0 | cp >> 18);
		e[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		e[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		e[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	oxi_buf_cat(b, e, n);
	return 0;
}

/* the value of up to max hex digits at s (at least min): digits read */
static size_t
hexnum(const char *s, size_t n, size_t min, size_t max, unsigned long *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n && i < max && hexv[(unsigned char)s[i]] >= 0; i++)
		*v = *v << 4 | (unsigned long)hexv[(unsigned char)s[i]];
	return i >= min ? i : 0;
}

/* the state of one decoding pass */
struct pass {
	const struct oxi_view *in;
	struct oxi_view *out;
	const char *t;		/* in's bytes */
	size_t n;		/* their count */
	struct oxi_buf tmp;	/* decoded bytes */
	size_t *pos;		/* base64: offsets of the characters */
	size_t poscap;
	unsigned which;		/* decoders allowed */
	unsigned did;		/* decoders that changed something */
	size_t lit;		/* in's bytes from here on are not yet out */
};

/* in's bytes up to i as they are, then the run [i, j) stands for */
static void
flushto(struct pass *p, size_t i, size_t j)
{
	oxi_view_copy(p->out, p->in, p->lit, i);
	p->lit = j;
}

/* emits tmp for in's bytes [i, j), what came before them first: 1 */
static int
emit(struct pass *p, size_t i, size_t j, unsigned how)
{
	struct oxi_view *o = p->out;

	flushto(p, i, j);
	if (o->nchg > 0 && o->chg[o->nchg - 1] == o->b.len)
		o->chg[o->nchg - 1] += p->tmp.len;
	else {
		if (o->nchg + 2 > o->capchg) {
			o->capchg = o->capchg ? o->capchg * 2 : 32;
			o->chg = xrealloc(o->chg, o->capchg * sizeof *o->chg);
		}
		o->chg[o->nchg++] = o->b.len;
		o->chg[o->nchg++] = o->b.len + p->tmp.len;
	}
	oxi_view_put(o, p->tmp.s, p->tmp.len, p->in->lo ? p->in->lo[i] : i,
	    p->in->hi ? p->in->hi[j - 1] : j);
	p->did |= how;
	return 1;
}

/*
 * %HH: each escape or each complete UTF-8 sequence of escapes is
 * decoded when it is printable; *adv is what was consumed.
 */
static int
pct(struct pass *p, size_t i, size_t *adv)
{
	const char *t = p->t;
	unsigned char b[4];
	size_t k, need, j = i;
	unsigned long v;

	if (j + 3 > p->n || t[j] != '%' || !hexnum(t + j + 1, 2, 2, 2, &v))
		return 0;
	b[0] = (unsigned char)v;
	need = v < 0x80 ? 1 : v >= 0xc2 && v <= 0xdf ? 2 : v >= 0xe0 &&
	    v <= 0xef ? 3 : v >= 0xf0 && v <= 0xf4 ? 4 : 0;
	if (need == 0)
		return 0;
	for (k = 1; k < need; k++) {
		j += 3;
		if (j + 3 > p->n || t[j] != '%' ||
		    !hexnum(t + j + 1, 2, 2, 2, &v))
			return 0;
		b[k] = (unsigned char)v;
	}
	if (!printable(b, need))
		return 0;
	oxi_buf_reset(&p->tmp);
	oxi_buf_cat(&p->tmp, b, need);
	*adv = j + 3 - i;
	return emit(p, i, j + 3, OXI_DEC_PCT);
}

/*
 * One backslash escape at t: its value in *cp, *byte set for \xHH (a
 * byte of UTF-8, not a code point); its length, or 0.
 */
static size_t
esc1(const char *t, size_t n, unsigned long *cp, int *byte)
{
	size_t k = 0, d;

	if (n >= 2 && t[0] == '\\' && t[1] == '\\')
		k = 1;		/* "\\u0041", escaped once more */
	if (k + 2 > n || t[k] != '\\')
		return 0;
	*byte = 0;
	switch (t[k + 1]) {
	case 'u':
		if (k + 3 < n && t[k + 2] == '{') {
			d = hexnum(t + k + 3, n - k - 3, 1, 6, cp);
			if (d && k + 3 + d < n && t[k + 3 + d] == '}')
				return k + 4 + d;
			return 0;
		}
		d = hexnum(t + k + 2, n - k - 2, 4, 4, cp);
		return d ? k + 2 + d : 0;
	case 'U':
		d = hexnum(t + k + 2, n - k - 2, 8, 8, cp);
		return d ? k + 2 + d : 0;
	case 'x':
		*byte = 1;
		d = hexnum(t + k + 2, n - k - 2, 2, 2, cp);
		return d ? k + 2 + d : 0;
	}
	return 0;
}

/*
 * A run of backslash escapes: \u with surrogate pairs joined, \x as the
 * bytes of UTF-8.  Decoded when all of it is printable.
 */
static int
esc(struct pass *p, size_t i, size_t *adv)
{
	unsigned long cp, lo;
	size_t j = i, k, k2;
	int byte, byte2, bytes = 0;

	oxi_buf_reset(&p->tmp);
	while (j < p->n && (k = esc1(p->t + j, p->n - j, &cp, &byte)) > 0) {
		if (byte) {
			oxi_buf_putc(&p->tmp, (int)cp);
			bytes = 1;
			j += k;
			continue;
		}
		if (cp >= 0xd800 && cp <= 0xdbff && (k2 = esc1(p->t + j + k,
		    p->n - j - k, &lo, &byte2)) > 0 && !byte2 &&
		    lo >= 0xdc00 && lo <= 0xdfff) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			k += k2;
		}
		if (utf8put(&p->tmp, cp) < 0)
			break;
		j += k;
	}
	if (j == i || (bytes && !printable((unsigned char *)p->tmp.s,
	    p->tmp.len)))
		return 0;
	*adv = j - i;
	return emit(p, i, j, OXI_DEC_ESC);
}

/* U+0061 U+0062: code points, apart by nothing, a space or a comma */
static int
uplus(struct pass *p, size_t i, size_t *adv)
{
	const char *t = p->t;
	unsigned long cp;
	size_t j = i, d, last = i, s;

	oxi_buf_reset(&p->tmp);
	for (;;) {
		if (j + 6 > p->n || (t[j] != 'U' && t[j] != 'u') ||
		    t[j + 1] != '+' || !(d = hexnum(t + j + 2, p->n - j - 2,
		    4, 6, &cp)) || utf8put(&p->tmp, cp) < 0)
			break;
		j += 2 + d;
		last = j;
		for (s = 0; j + s < p->n && s < 2 && (t[j + s] == ' ' ||
		    t[j + s] == ','); s++)
			;
		j += s;
	}
	if (last == i)
		return 0;
	*adv = last - i;
	return emit(p, i, last, OXI_DEC_ESC);
}

static const struct {
	const char *name;
	const char *to;
} entities[] = {
	{ "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" },
	{ "apos", "'" }, { "nbsp", " " }, { "colon", ":" }, { "sol", "/" },
	{ "bsol", "\\" }, { "period", "." }, { "comma", "," },
	{ "lowbar", "_" }, { "hyphen", "-" }, { "dash", "-" },
	{ "equals", "=" }, { "plus", "+" }, { "num", "#" }, { "dollar", "$" },
	{ "percnt", "%" }, { "excl", "!" }, { "quest", "?" },
	{ "lpar", "(" }, { "rpar", ")" }, { "lsqb", "[" }, { "rsqb", "]" },
	{ "lcub", "{" }, { "rcub", "}" }, { "ast", "*" }, { "commat", "@" },
	{ "semi", ";" }, { "grave", "`" }, { "Tab", "\t" },
	{ "NewLine", "\n" }, { "shy", "" }, { "zwj", "" }, { "zwnj", "" },
};

/* &#115; &#x73; &name; (the ';' may be left out after digits) */
static int
entity(struct pass *p, size_t i, size_t *adv)
{
	const char *t = p->t;
	unsigned long cp = 0;
	size_t j = i + 1, d = 0, k, len;

	if (j >= p->n)
		return 0;
	oxi_buf_reset(&p->tmp);
	if (t[j] == '#') {
		j++;
		if (j < p->n && (t[j] == 'x' || t[j] == 'X')) {
			j++;
			d = hexnum(t + j, p->n - j, 1, 6, &cp);
		} else
			for (; j + d < p->n && d < 7 && t[j + d] >= '0' &&
			    t[j + d] <= '9'; d++)
				cp = cp * 10 + (unsigned long)(t[j + d] - '0');
		if (d == 0)
			return 0;
		j += d;
		if (j < p->n && t[j] == ';')
			j++;
		else if (j < p->n && ((t[j] >= '0' && t[j] <= '9') ||
		    hexv[(unsigned char)t[j]] >= 0))
			return 0;
		if (cp == 0x00ad || cp == 0x200b || cp == 0x200c ||
		    cp == 0x200d || cp == 0x2060 || cp == 0xfeff)
			;	/* invisible: decodes to nothing */
		else if (utf8put(&p->tmp, cp) < 0)
			return 0;
	} else {
		for (k = 0; k < sizeof entities / sizeof entities[0]; k++) {
			len = strlen(entities[k].name);
			if (j + len < p->n && memcmp(t + j, entities[k].name,
			    len) == 0 && t[j + len] == ';')
				break;
		}
		if (k == sizeof entities / sizeof entities[0])
			return 0;
		oxi_buf_cats(&p->tmp, entities[k].to);
		j += len + 1;
	}
	*adv = j - i;
	if (p->tmp.len == 0) {
		flushto(p, i, j);
		p->did |= OXI_DEC_HTML;
		return 1;
	}
	return emit(p, i, j, OXI_DEC_HTML);
}

/*
 * Does an escape touch the run [i, j)?  Then the run waits for the next
 * layer, where the escape is decoded and the run whole:
 * "c2Vj...Ml%4AsWk..." is one run of base64 once %4A is a J.
 */
static int
touches(const struct pass *p, size_t i, size_t j)
{
	const char *t = p->t;
	unsigned long v;

	if (j + 3 <= p->n && ((t[j] == '%' && hexnum(t + j + 1, 2, 2, 2, &v)) ||
	    (t[j] == '\\' && (t[j + 1] == 'u' || t[j + 1] == 'x')) ||
	    (t[j] == '&' && t[j + 1] == '#')))
		return 1;
	if (i >= 3 && t[i - 3] == '%' && hexnum(t + i - 2, 2, 2, 2, &v))
		return 1;
	if (i >= 1 && t[i - 1] == ';' && i >= 4 && memchr(t + (i >= 10 ?
	    i - 10 : 0), '&', i >= 10 ? 10 : i))
		return 1;
	return 0;
}

/* at t[j]: the prefix pf, then exactly two hex digits (more may follow
 * only after a prefix): their value, or -1 */
static long
pair(const struct pass *p, size_t j, const char *pf)
{
	size_t pl = strlen(pf);
	unsigned long v;

	if (j + pl + 2 > p->n || memcmp(p->t + j, pf, pl) != 0 ||
	    !hexnum(p->t + j + pl, 2, 2, 2, &v))
		return -1;
	if (pl == 0 && j + 2 < p->n && hexv[(unsigned char)p->t[j + 2]] >= 0)
		return -1;
	return (long)v;
}

/*
 * Hex pairs with a separator or a prefix: "73 6b 2d", "73:6b",
 * "\x73\x6b", "0x73, 0x6b".  The separator and prefix hold throughout.
 */
static int
hexsep(struct pass *p, size_t i, size_t *adv)
{
	static const char *const pre[] = { "\\x", "0x", "\\X", "0X", "" };
	static const char *const sep[] = { ", ", " ", ":", "-", ",", "" };
	const char *pf = NULL, *sp = NULL;
	size_t j = i, k, np = 0, last;
	long v;

	if (i > 0 && hexv[(unsigned char)p->t[i - 1]] >= 0)
		return 0;
	for (k = 0; k < 5 && !pf; k++)
		if (pair(p, j, pre[k]) >= 0)
			pf = pre[k];
	if (!pf)
		return 0;
	oxi_buf_reset(&p->tmp);
	for (;;) {
		v = pair(p, j, pf);
		oxi_buf_putc(&p->tmp, (int)v);
		np++;
		j += strlen(pf) + 2;
		last = j;
		if (!sp) {
			for (k = 0; k < 6; k++)
				if (strncmp(p->t + j, sep[k], strlen(sep[k])) ==
				    0 && (*sep[k] || *pf) &&
				    pair(p, j + strlen(sep[k]), pf) >= 0)
					break;
			if (k == 6)
				break;
			sp = sep[k];
		}
		if (j + strlen(sp) > p->n || strncmp(p->t + j, sp,
		    strlen(sp)) != 0 || pair(p, j + strlen(sp), pf) < 0)
			break;
		j += strlen(sp);
	}
	if (np < HEXSEP_MIN || !printable((unsigned char *)p->tmp.s,
	    p->tmp.len))
		return 0;
	*adv = last - i;
	return emit(p, i, last, OXI_DEC_HEX);
}

/* a bare run of hex digits at a word's start, from offset 0 or 1 */
static int
hexrun(struct pass *p, size_t i, size_t *adv)
{
	const char *t = p->t;
	struct pr pr;
	unsigned long v;
	size_t j, len, off, k, pre = 0;

	if (i > 0 && (hexv[(unsigned char)t[i - 1]] >= 0 ||
	    b64v[(unsigned char)t[i - 1]] >= 0))
		return 0;
	if (i + 2 < p->n && t[i] == '0' && (t[i + 1] == 'x' ||
	    t[i + 1] == 'X') && hexv[(unsigned char)t[i + 2]] >= 0)
		pre = 2;	/* 0x6465... */
	for (j = i + pre; j < p->n && hexv[(unsigned char)t[j]] >= 0; j++)
		;
	len = j - i - pre;
	if (len < HEX_MIN || touches(p, i, j))
		return 0;
	for (off = pre; off < pre + 2; off++) {
		memset(&pr, 0, sizeof pr);
		oxi_buf_reset(&p->tmp);
		for (k = i + off; k + 2 <= j; k += 2) {
			hexnum(t + k, 2, 2, 2, &v);
			if (prfeed(&pr, (unsigned char)v) < 0)
				break;
			oxi_buf_putc(&p->tmp, (int)v);
		}
		if (k + 2 > j && pr.need == 0 && p->tmp.len >= OUT_MIN) {
			*adv = k - i;
			/* the 0x goes with the digits, a stray first digit
			 * stays */
			return emit(p, off == 1 ? i + 1 : i, k, OXI_DEC_HEX);
		}
	}
	return 0;
}

/* decodes the base64 characters at pos[a..b) into tmp, while printable */
static size_t
b64try(struct pass *p, size_t a, size_t b)
{
	struct pr pr = { 0, 0, 0 };
	unsigned long acc = 0;
	size_t k, bits = 0, good = 0;

	oxi_buf_reset(&p->tmp);
	for (k = a; k < b; k++) {
		acc = acc << 6 | (unsigned long)b64v[(unsigned char)p->t[p->pos[k]]];
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (prfeed(&pr, (unsigned char)(acc >> bits)) < 0)
				break;
			oxi_buf_putc(&p->tmp, (int)(acc >> bits & 0xff));
			if (pr.need == 0)
				good = k + 1;
		}
	}
	return good;
}

/*
 * A run of base64 at the start of a word: maximal, on several lines
 * when it is wrapped (lines of one length, a multiple of 4), with its
 * padding.  Tried from its start, from each of the next three
 * characters, and after each '-' or '_' near its start; a run whose
 * later lines do not decode is decoded up to them.
 */
static int
b64run(struct pass *p, size_t i, size_t *adv)
{
	const char *t = p->t;
	size_t j = i, nc = 0, line0 = 0, linelen, s, good, want, end, k;
	size_t starts[12], ns = 0;

	if (i > 0 && b64v[(unsigned char)t[i - 1]] >= 0)
		return 0;
	for (;;) {
		linelen = 0;
		while (j < p->n && b64v[(unsigned char)t[j]] >= 0) {
			if (nc == p->poscap) {
				p->poscap = p->poscap ? p->poscap * 2 : 256;
				p->pos = xrealloc(p->pos, p->poscap *
				    sizeof *p->pos);
			}
			p->pos[nc++] = j++;
			linelen++;
		}
		if (line0 == 0)
			line0 = linelen;
		k = j < p->n && t[j] == '\r' ? 1 : 0;
		if (linelen < 16 || linelen % 4 != 0 || linelen != line0 ||
		    j + k + 1 >= p->n || t[j + k] != '\n' ||
		    b64v[(unsigned char)t[j + k + 1]] < 0)
			break;
		j += k + 1;
	}
	if (nc < B64_MIN || touches(p, i, p->pos[nc - 1] + 1))
		return 0;
	for (s = 0; s < 4; s++)
		starts[ns++] = s;
	for (k = 0; k + 1 < nc && k < B64_SHIFT && ns < 12; k++)
		if (t[p->pos[k]] == '-' || t[p->pos[k]] == '_')
			if (k + 1 >= 4)
				starts[ns++] = k + 1;
	for (k = 0; k < ns; k++) {
		s = starts[k];
		if (nc - s < B64_MIN)
			continue;
		want = nc - s;
		if (want % 4 == 1)
			want--;
		good = b64try(p, s, s + want);
		if (good < s + want) {
			/* up to the end of the line it failed on */
			if (good <= s)
				continue;
			for (end = good; end > s && p->pos[end - 1] + 1 ==
			    p->pos[end]; end--)
				;
			if (end <= s || (end - s) % 4 != 0)
				continue;
			want = end - s;
			if (b64try(p, s, s + want) < s + want)
				continue;
		}
		if (p->tmp.len < OUT_MIN)
			continue;
		end = p->pos[s + want - 1] + 1;
		if (s + want == nc)
			while (end < p->n && t[end] == '=' &&
			    end < p->pos[nc - 1] + 4)
				end++;
		*adv = end - i;
		return emit(p, p->pos[s], end, OXI_DEC_B64);
	}
	return 0;
}

unsigned
oxi_view_decode(const struct oxi_view *in, struct oxi_view *out,
    unsigned which)
{
	struct pass p;
	size_t i = 0, adv;
	unsigned char c;
	int r;

	tables();
	memset(&p, 0, sizeof p);
	p.in = in;
	p.out = out;
	p.t = in->b.s ? in->b.s : "";
	p.n = in->b.len;
	p.which = which;
	oxi_view_start(out, in);
	while (i < p.n) {
		c = (unsigned char)p.t[i];
		r = 0;
		adv = 0;
		if (c == '%' && (which & OXI_DEC_PCT))
			r = pct(&p, i, &adv);
		else if (c == '\\' && (which & (OXI_DEC_ESC | OXI_DEC_HEX))) {
			if (which & OXI_DEC_HEX)
				r = hexsep(&p, i, &adv);
			if (!r && (which & OXI_DEC_ESC))
				r = esc(&p, i, &adv);
		} else if (c == '&' && (which & OXI_DEC_HTML))
			r = entity(&p, i, &adv);
		else if ((c == 'U' || c == 'u') && i + 1 < p.n &&
		    p.t[i + 1] == '+' && (which & OXI_DEC_ESC))
			r = uplus(&p, i, &adv);
		if (!r && hexv[c] >= 0 && (which & OXI_DEC_HEX)) {
			r = hexsep(&p, i, &adv);
			if (!r)
				r = hexrun(&p, i, &adv);
		}
		if (!r && b64v[c] >= 0 && (which & OXI_DEC_B64))
			r = b64run(&p, i, &adv);
		if (r) {
			i += adv;
			continue;
		}
		/* a whole word of base64 characters that did not decode */
		i++;
		if (b64v[c] >= 0)
			while (i < p.n && b64v[(unsigned char)p.t[i]] >= 0)
				i++;
	}
	if (p.did) {
		flushto(&p, p.n, p.n);
		out->depth = in->depth + 1;
	}
	out->how |= p.did;
	oxi_buf_free(&p.tmp);
	free(p.pos);
	return p.did;
}

unsigned
oxi_view_decode_next(const struct oxi_view *in, struct oxi_view *out)
{
	return oxi_view_decode(in, out, OXI_DEC_ALL);
}

int
oxi_decode_all(const char *s, size_t n, struct oxi_buf *out, int maxdepth)
{
	struct oxi_view a = OXI_VIEW_INIT, b = OXI_VIEW_INIT, t;
	int d;

	oxi_view_root(&a, s, n);
	for (d = 0; d < maxdepth; d++) {
		if (!oxi_view_decode_next(&a, &b))
			break;
		t = a;
		a = b;
		b = t;
	}
	oxi_buf_reset(out);
	oxi_buf_cat(out, a.b.s ? a.b.s : "", a.b.len);
	oxi_view_free(&a);
	oxi_view_free(&b);
	return d;
}
