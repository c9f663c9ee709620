/*
 * cover.c - the literal cover of a PCRE2 pattern: a set of strings of
 * which every match of the pattern holds at least one, so that a text
 * with none of them cannot match and the pattern need not run (the
 * injection rules' prefilter, rules.c and inject.c)
 *
 * The pattern is read as a tree: a run of literal characters covers a
 * sequence, a sequence is covered by the best cover of any of its parts,
 * an alternation by the union of its branches' covers, and a part that
 * may match nothing (?, *, {0,n}, a lookaround) or that is no literal
 * (., classes, \w, back references) covers nothing.  Literals are kept
 * in lower case (the rules are caseless).  When in doubt the answer is
 * "no cover", which only costs a scan: it is never wrong.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

struct cov {
	int none;		/* 1: no cover, the pattern must run */
	size_t n;		/* strings */
	char **v;		/* the strings, each allocated */
};

struct ps {
	const char *p;		/* where the reading is */
	const char *e;		/* the pattern's end */
	int bad;		/* a construct not understood */
};

static void alt(struct ps *, struct cov *);

static void
cfree(struct cov *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = 0;
	c->none = 1;
}

/* how much a cover narrows: its weakest string's letters and digits,
 * then the fewer strings the better (punctuation alone still narrows);
 * -1 for no cover */
static long
score(const struct cov *c)
{
	size_t i, w, min = (size_t)-1;
	const char *s;

	if (c->none || c->n == 0)
		return -1;
	for (i = 0; i < c->n; i++) {
		for (w = 0, s = c->v[i]; *s; s++)
			if ((*s >= 'a' && *s <= 'z') || (*s >= '0' &&
			    *s <= '9') || (unsigned char)*s >= 0x80)
				w++;
		if (w < min)
			min = w;
	}
	if (min > 16)
		min = 16;
	return (long)(min + 1) * 4096 - (long)(c->n > 4095 ? 4095 : c->n);
}

/* keeps the better of *best and *c (the other freed) */
static void
better(struct cov *best, struct cov *c)
{
	struct cov t;

	if (score(c) > score(best)) {
		t = *best;
		*best = *c;
		*c = t;
	}
	cfree(c);
}

/* the literal run b as a cover candidate for *best; b reset */
static void
flush(struct oxi_buf *b, struct cov *best)
{
	struct cov c = { 0, 0, NULL };

	if (b->len == 0)
		return;
	c.v = xmalloc(sizeof *c.v);
	c.v[0] = xmalloc(b->len + 1);
	memcpy(c.v[0], b->s, b->len);
	c.v[0][b->len] = '\0';
	c.n = 1;
	better(best, &c);
	oxi_buf_reset(b);
}

/* a quantifier at ps->p, read: its minimum, or -1 if there is none */
static long
quant(struct ps *ps)
{
	const char *p = ps->p, *q;
	long min = -1;

	if (p >= ps->e)
		return -1;
	if (*p == '?' || *p == '*')
		min = 0, p++;
	else if (*p == '+')
		min = 1, p++;
	else if (*p == '{') {
		min = 0;
		for (q = p + 1; q < ps->e && *q >= '0' && *q <= '9'; q++)
			min = min * 10 + (*q - '0');
		if (q == p + 1 && (q >= ps->e || *q != ','))
			return -1;
		if (q < ps->e && *q == ',')
			for (q++; q < ps->e && *q >= '0' && *q <= '9'; q++)
				;
		if (q >= ps->e || *q != '}')
			return -1;	/* a literal '{' */
		if (q == p + 2 && p[1] == ',')
			return -1;
		p = q + 1;
	} else
		return -1;
	if (p < ps->e && (*p == '?' || *p == '+'))
		p++;
	ps->p = p;
	return min;
}

/* skips past the ']' of a class that starts at ps->p */
static void
skipclass(struct ps *ps)
{
	const char *p = ps->p + 1;

	if (p < ps->e && *p == '^')
		p++;
	if (p < ps->e && *p == ']')
		p++;
	while (p < ps->e && *p != ']') {
		if (*p == '\\' && p + 1 < ps->e)
			p += 2;
		else if (*p == '[' && p + 1 < ps->e && p[1] == ':') {
			for (p += 2; p < ps->e && *p != ']'; p++)
				;
			if (p < ps->e)
				p++;
		} else
			p++;
	}
	ps->p = p < ps->e ? p + 1 : p;
}

/* skips an escape that is no literal (ps->p at the backslash) */
static void
skipesc(struct ps *ps)
{
	const char *p = ps->p + 1;
	int d = *p++;

	if (d == 'Q') {
		while (p + 1 < ps->e && !(p[0] == '\\' && p[1] == 'E'))
			p++;
		p = p + 1 < ps->e ? p + 2 : ps->e;
	} else if (strchr("xpPkgoN", d) && p < ps->e && (*p == '{' ||
	    *p == '<' || *p == '\'')) {
		while (p < ps->e && *p != '}' && *p != '>' &&
		    (*p != '\'' || p == ps->p + 2))
			p++;
		if (p < ps->e)
			p++;
	} else if (d == 'x')
		while (p < ps->e && p < ps->p + 4 && strchr("0123456789"
		    "abcdefABCDEF", *p))
			p++;
	else if (d == 'p' || d == 'P' || d == 'c' || d == 'g')
		p += p < ps->e;
	else if (d >= '0' && d <= '9')
		while (p < ps->e && *p >= '0' && *p <= '9')
			p++;
	ps->p = p;
}

/* the bytes of the UTF-8 character at p */
static size_t
chlen(const char *p, const char *e)
{
	unsigned char c = (unsigned char)*p;
	size_t n = c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

	return n > (size_t)(e - p) ? (size_t)(e - p) : n;
}

/* a group at ps->p (its '('), read to its ')' */
static void
group(struct ps *ps, struct cov *out)
{
	const char *p = ps->p + 1;
	int zero = 0, close;
	struct cov c = { 1, 0, NULL };

	if (p < ps->e && *p == '*') {		/* (*VERB) */
		zero = 1;
	} else if (p < ps->e && *p == '?' && p + 1 < ps->e) {
		p++;
		if (*p == ':' || *p == '>' || *p == '|')
			p++;
		else if (*p == '=' || *p == '!' || *p == '#')
			zero = 1;
		else if (*p == '<' && p + 1 < ps->e && (p[1] == '=' ||
		    p[1] == '!'))
			zero = 1;
		else if (*p == 'P' && p + 1 < ps->e && (p[1] == '=' ||
		    p[1] == '>'))
			zero = 1;	/* a back reference or a call */
		else if (*p == '(')
			ps->bad = 1;	/* a condition */
		else if (*p == '<' || *p == '\'' || *p == 'P') {
			if (*p == 'P')
				p++;
			close = p < ps->e && *p == '\'' ? '\'' : '>';
			for (p++; p < ps->e && *p != close; p++)
				;
			if (p < ps->e)
				p++;
		} else {
			/* options: (?i) or (?i:...); (?x) makes white space
			 * and # no literals: not understood */
			while (p < ps->e && *p != ')' && *p != ':')
				if (*p++ == 'x')
					ps->bad = 1;
			if (p < ps->e && *p == ')')
				zero = 1;
			else
				p++;
		}
	}
	ps->p = p;
	if (zero) {
		/* skipped, nested parentheses and escapes minded */
		int depth = 1;

		while (ps->p < ps->e && depth > 0) {
			if (*ps->p == '\\')
				ps->p++;
			else if (*ps->p == '[') {
				skipclass(ps);
				continue;
			} else if (*ps->p == '(')
				depth++;
			else if (*ps->p == ')')
				depth--;
			ps->p++;
		}
		*out = c;
		return;
	}
	alt(ps, &c);
	if (ps->p < ps->e && *ps->p == ')')
		ps->p++;
	*out = c;
}

/* a sequence, to a '|' or ')' or the end */
static void
seq(struct ps *ps, struct cov *out)
{
	struct oxi_buf run = OXI_BUF_INIT;
	struct cov best = { 1, 0, NULL }, g;
	const char *lit;
	size_t n, k;
	long min;
	char low[4];

	while (ps->p < ps->e && *ps->p != '|' && *ps->p != ')') {
		lit = NULL;
		n = 0;
		switch (*ps->p) {
		case '(':
			flush(&run, &best);
			group(ps, &g);
			if (quant(ps) == 0)
				cfree(&g);
			better(&best, &g);
			continue;
		case '[':
			flush(&run, &best);
			skipclass(ps);
			quant(ps);
			continue;
		case '.': case '^': case '$':
			flush(&run, &best);
			ps->p++;
			quant(ps);
			continue;
		case '\\':
			if (ps->p + 1 >= ps->e) {
				ps->p++;
				continue;
			}
			k = (unsigned char)ps->p[1];
			if ((k >= 'a' && k <= 'z') || (k >= 'A' && k <= 'Z') ||
			    (k >= '0' && k <= '9')) {
				flush(&run, &best);
				skipesc(ps);
				quant(ps);
				continue;
			}
			lit = ps->p + 1;
			n = chlen(lit, ps->e);
			ps->p = lit + n;
			break;
		case '?': case '*': case '+':
			ps->p++;	/* a quantifier of nothing */
			continue;
		default:
			lit = ps->p;
			n = chlen(lit, ps->e);
			ps->p += n;
			break;
		}
		memcpy(low, lit, n);
		if (n == 1 && low[0] >= 'A' && low[0] <= 'Z')
			low[0] += 'a' - 'A';
		if ((min = quant(ps)) == 0) {
			flush(&run, &best);
			continue;
		}
		oxi_buf_cat(&run, low, n);
		if (min > 0)
			flush(&run, &best);
	}
	flush(&run, &best);
	oxi_buf_free(&run);
	*out = best;
}

/* an alternation: the union of its branches' covers */
static void
alt(struct ps *ps, struct cov *out)
{
	struct cov u = { 0, 0, NULL }, b;
	size_t i;

	for (;;) {
		seq(ps, &b);
		if (b.none || u.none) {
			cfree(&b);
			cfree(&u);
		} else {
			u.v = xrealloc(u.v, (u.n + b.n + 1) * sizeof *u.v);
			for (i = 0; i < b.n; i++)
				u.v[u.n++] = b.v[i];
			free(b.v);
		}
		if (ps->p >= ps->e || *ps->p != '|')
			break;
		ps->p++;
	}
	*out = u;
}

size_t
oxi_cover(const char *pat, size_t len, struct oxi_buf *out)
{
	struct ps ps;
	struct cov c;
	size_t i, j, n = 0;

	ps.p = pat;
	ps.e = pat + len;
	ps.bad = 0;
	alt(&ps, &c);
	if (ps.p < ps.e || ps.bad)	/* an unbalanced ')': no cover */
		cfree(&c);
	for (i = 0; !c.none && i < c.n; i++) {
		/* a string that holds another is implied by it */
		for (j = 0; j < c.n; j++)
			if (j != i && c.v[j] && c.v[i] && strstr(c.v[i],
			    c.v[j]) && (strcmp(c.v[i], c.v[j]) != 0 || j < i))
				break;
		if (j < c.n)
			continue;
		oxi_buf_cat(out, c.v[i], strlen(c.v[i]) + 1);
		n++;
	}
	cfree(&c);
	return n;
}
