/*
 * inject.c - the injection scan: the rules (rules.c) matched on the
 * folded text and on what it hides or decodes to
 *
 * The text is scanned as it is folded (fold.c, OXI_FOLD_MATCH), then as
 * each of its variants: what hidden characters spelled, letters spaced
 * apart joined, leetspeak digits read as letters, ROT13, reversed, and
 * every base64, hex, percent, \u or HTML-entity encoded run decoded,
 * each variant folded and scanned again, to a depth of DEPTH.  Every
 * match is bounded (match, depth and heap limits); a limit reached is an
 * error and the caller blocks the text: it is never taken as clean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

#define DEPTH		3	/* decoding inside decoding */
#define MINENC		16	/* the shortest encoded run decoded */
#define MAXVARIANTS	64	/* decoded runs scanned per text */
#define PAD		64	/* zero bytes after a text matched */
#define POINTS		8	/* weak signals' points that make a warn */
#define DENSITY		64	/* bytes per common word of a variant, at most */

/* notes a hit of a rule of its own in sc (once per rule) */
static void
note(struct oxi_scan *sc, const struct oxi_rule *u, const char *via)
{
	size_t i;

	for (i = 0; i < sc->nhits; i++)
		if (sc->hits[i].rule == u->id)
			return;
	if (sc->nhits == OXI_SCAN_HITS)
		return;
	sc->hits[sc->nhits].rule = u->id;
	sc->hits[sc->nhits].via = via;
	sc->nhits++;
	if (u->block)
		sc->verdict = OXI_INJ_BLOCK;
	else if (sc->verdict < OXI_INJ_WARN)
		sc->verdict = OXI_INJ_WARN;
}

/* rule i matched: noted, or its points counted once per text */
static void
hit(struct oxi_rules *r, size_t i, const char *via, struct oxi_scan *sc)
{
	if (!r->v[i].points)
		note(sc, &r->v[i], via);
	else if (!r->seen[i]) {
		r->seen[i] = 1;
		r->seenvia[i] = via;
		r->points += r->v[i].points;
	}
}

/* the weak signals: a warn, with their rules, if their points add up */
static void
weak(struct oxi_rules *r, struct oxi_scan *sc)
{
	size_t i;

	if (r->points < POINTS)
		return;
	for (i = 0; i < r->n; i++)
		if (r->seen[i])
			note(sc, &r->v[i], r->seenvia[i]);
	if (sc->verdict < OXI_INJ_WARN)
		sc->verdict = OXI_INJ_WARN;
}

/* matches every rule on the folded s[0..len) (valid UTF-8): 0 or -1 */
static int
match(struct oxi_rules *r, const char *s, size_t len, const char *via,
    struct oxi_scan *sc)
{
	PCRE2_UCHAR msg[120];
	size_t i;
	int rc;

	oxi_rules_want(r, s, len);
	for (i = 0; i < r->n; i++) {
		if (!r->want[i])
			continue;
		rc = pcre2_match(r->v[i].re, (PCRE2_SPTR)s, len, 0,
		    PCRE2_NO_UTF_CHECK, r->md, r->mc);
		if (rc >= 0) {
			hit(r, i, via, sc);
			continue;
		}
		if (rc == PCRE2_ERROR_NOMATCH)
			continue;
		pcre2_get_error_message(rc, msg, sizeof msg);
		snprintf(sc->error, sizeof sc->error, "rule '%.47s': %.100s",
		    r->v[i].id, (char *)msg);
		return -1;
	}
	return 0;
}

/*
 * match() on a buffer, with PAD zero bytes after its text: the JIT's
 * vector search may read a little past the end (harmless, but valgrind
 * counts the bytes there as unset)
 */
static int
bmatch(struct oxi_rules *r, struct oxi_buf *b, const char *via,
    struct oxi_scan *sc)
{
	oxi_buf_grow(b, PAD);
	memset(b->s + b->len, 0, PAD);
	return match(r, b->s, b->len, via, sc);
}

/* folds s[0..len) and matches it */
static int
scanfold(struct oxi_rules *r, const char *s, size_t len, const char *via,
    struct oxi_scan *sc)
{
	oxi_fold(&r->g, s, len, OXI_FOLD_MATCH);
	return bmatch(r, &r->g.out, via, sc);
}

static int
isalpha_(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
isalnum_(int c)
{
	return isalpha_(c) || (c >= '0' && c <= '9');
}

static int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 1 if out looks like text: mostly printable, valid UTF-8 */
static int
textlike(const struct oxi_buf *out)
{
	size_t i, bad = 0;
	unsigned char c;

	if (out->len < 8 || !oxi_utf8_valid(out->s, out->len, OXI_UTF8_NONUL |
	    OXI_UTF8_TAIL))
		return 0;
	for (i = 0; i < out->len; i++) {
		c = (unsigned char)out->s[i];
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
			bad++;
	}
	return bad * 10 < out->len;
}

/* base64 (standard or URL-safe, padded or not) of s[0..n) into out */
static void
unbase64(const char *s, size_t n, struct oxi_buf *out)
{
	unsigned long acc = 0;
	size_t i;
	int bits = 0, v;

	oxi_buf_reset(out);
	for (i = 0; i < n; i++) {
		if ((v = b64val((unsigned char)s[i])) < 0)
			continue;
		acc = (acc << 6 | (unsigned long)v) & 0xffffff;
		if ((bits += 6) >= 8) {
			bits -= 8;
			oxi_buf_putc(out, (int)(acc >> bits & 0xff));
		}
	}
}

static int scanvariants(struct oxi_rules *, const char *, size_t, int,
    struct oxi_scan *);

/* decodes and rescans a variant in r->dec (consumed) */
static int
rescan(struct oxi_rules *r, int depth, const char *via, struct oxi_scan *sc)
{
	char *copy;
	size_t n;
	int rc;

	if (r->nvar++ >= MAXVARIANTS)
		return 0;
	n = r->dec.len;
	copy = xmalloc(n + 1);
	memcpy(copy, r->dec.s ? r->dec.s : "", n);
	copy[n] = '\0';
	rc = scanfold(r, copy, n, via, sc);
	if (rc == 0 && depth < DEPTH)
		rc = scanvariants(r, copy, n, depth + 1, sc);
	free(copy);
	return rc;
}

/* every run of base64 and hex of at least MINENC characters */
static int
encoded(struct oxi_rules *r, const char *s, size_t len, int depth,
    struct oxi_scan *sc)
{
	size_t i = 0, j, k, nhex;
	int rc, hex;

	while (i < len) {
		if (b64val((unsigned char)s[i]) < 0) {
			i++;
			continue;
		}
		/* a run, with '=' padding and line breaks inside */
		nhex = 0;
		for (j = i; j < len && (b64val((unsigned char)s[j]) >= 0 ||
		    s[j] == '=' || ((s[j] == '\n' || s[j] == '\r') &&
		    j + 1 < len && b64val((unsigned char)s[j + 1]) >= 0)); j++)
			if (hexval((unsigned char)s[j]) >= 0)
				nhex++;
		if (j - i >= MINENC) {
			hex = nhex == j - i && (j - i) % 2 == 0;
			oxi_buf_reset(&r->dec);
			if (hex)
				for (k = i; k + 1 < j; k += 2)
					oxi_buf_putc(&r->dec,
					    hexval((unsigned char)s[k]) << 4 |
					    hexval((unsigned char)s[k + 1]));
			else
				unbase64(s + i, j - i, &r->dec);
			if (textlike(&r->dec) &&
			    (rc = rescan(r, depth, hex ? "hex" : "base64",
			    sc)) < 0)
				return rc;
		}
		i = j;
	}
	return 0;
}

/* percent, \xNN, \uXXXX and HTML entities decoded, if any */
static int
escapes(struct oxi_rules *r, const char *s, size_t len, int depth,
    struct oxi_scan *sc)
{
	size_t i, n = 0, k;
	unsigned long cp;
	char b[8], *end;
	int h1, h2;

	oxi_buf_reset(&r->dec);
	for (i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len &&
		    (h1 = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (h2 = hexval((unsigned char)s[i + 2])) >= 0) {
			oxi_buf_putc(&r->dec, h1 << 4 | h2);
			i += 2;
			n++;
		} else if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    (h1 = hexval((unsigned char)s[i + 2])) >= 0 &&
		    (h2 = hexval((unsigned char)s[i + 3])) >= 0) {
			oxi_buf_putc(&r->dec, h1 << 4 | h2);
			i += 3;
			n++;
		} else if ((s[i] == '\\' && i + 5 < len && (s[i + 1] == 'u' ||
		    s[i + 1] == 'U')) || (s[i] == '&' && i + 3 < len &&
		    s[i + 1] == '#')) {
			if (s[i] == '\\') {
				memcpy(b, s + i + 2, 4);
				b[4] = '\0';
				cp = strtoul(b, &end, 16);
				k = (size_t)(end - b) == 4 ? 6 : 0;
			} else {
				cp = s[i + 2] == 'x' || s[i + 2] == 'X' ?
				    strtoul(s + i + 3, &end, 16) :
				    strtoul(s + i + 2, &end, 10);
				k = end < s + len && *end == ';' &&
				    end > s + i + 2 ? (size_t)(end - s - i) +
				    1 : 0;
			}
			if (k == 0 || cp == 0 || cp > 0x10ffff ||
			    (cp >= 0xd800 && cp < 0xe000)) {
				oxi_buf_putc(&r->dec, s[i]);
				continue;
			}
			oxi_buf_cat(&r->dec, b, oxi_fold_utf8(cp, b));
			i += k - 1;
			n++;
		} else
			oxi_buf_putc(&r->dec, s[i]);
	}
	if (n < 3)
		return 0;
	return rescan(r, depth, "escapes", sc);
}

/*
 * How much s[0..n) reads like English: its common words counted.  A
 * variant (spaced letters joined, leetspeak, ROT13, reversed) is scanned
 * only when it reads more like English than the text itself: plain text
 * turned is gibberish, and base64 read as leetspeak is too.
 */
static size_t
english(const char *s, size_t n)
{
	/* the common words by length, run together */
	static const char *const common[5] = { "", "",
	    "toisofinitmebedo", "theyouandallarefornotnowsay",
	    "yourthisthatwithwhat" };
	const char *w;
	size_t i, j, l, c = 0;

	for (i = 0; i < n; i = j + 1) {
		for (j = i; j < n && isalpha_((unsigned char)s[j]); j++)
			;
		if ((l = j - i) < 2 || l > 4)
			continue;
		for (w = common[l]; *w; w += l)
			if (w[0] == s[i] && memcmp(w, s + i, l) == 0) {
				c++;
				break;
			}
	}
	return c;
}

/*
 * 1 if variant d reads more like English than the text (ef common words),
 * and like English at all: a common word in every DENSITY bytes at least
 * (random base64 read backwards or in ROT13 has a few by chance, not that
 * many)
 */
static int
morenglish(const struct oxi_buf *d, size_t ef)
{
	size_t n = english(d->s, d->len);

	return n > ef && n * DENSITY >= d->len;
}

/* d emptied, with room for n bytes written through d->s[d->len++] */
static void
blank(struct oxi_buf *d, size_t n)
{
	oxi_buf_reset(d);
	oxi_buf_grow(d, n);
}

/*
 * The folded variants of the text: letters spaced apart joined, digits
 * read as letters, ROT13, the text reversed.  f is the folded text.
 */
static int
folded(struct oxi_rules *r, const struct oxi_buf *f, struct oxi_scan *sc)
{
	static const char leet[] = "oizeasgtbg";	/* 0 1 2 3 4 5 6 7 8 9 */
	struct oxi_buf *d = &r->dec;
	size_t i, n, singles = 0, ef = english(f->s, f->len);
	int c, rc, changed = 0, sep = 0;

	/* "i g n o r e", "i.g.n.o.r.e": single letters with separators;
	 * another separator, or two blanks, between words */
	blank(d, f->len);
	for (i = 0; i < f->len; i++) {
		c = (unsigned char)f->s[i];
		if (c == ' ' || c == '.' || c == '-' || c == '_' || c == '*') {
			if (i > 0 && i + 1 < f->len &&
			    (i < 2 || !isalnum_((unsigned char)f->s[i - 2])) &&
			    isalnum_((unsigned char)f->s[i - 1]) &&
			    isalnum_((unsigned char)f->s[i + 1]) &&
			    (i + 2 >= f->len ||
			    !isalnum_((unsigned char)f->s[i + 2]))) {
				if (!sep || sep == c) {
					sep = c;
					singles++;
					continue;
				}
				c = ' ';
			} else if (c == ' ' && i + 1 < f->len &&
			    f->s[i + 1] == ' ')
				continue;
			sep = 0;
		}
		d->s[d->len++] = (char)c;
	}
	d->s[d->len] = '\0';
	if (singles >= 4 && morenglish(d, ef) &&
	    (rc = bmatch(r, d, "spaced", sc)) < 0)
		return rc;
	/* leetspeak: a digit, @ or $ inside a word */
	blank(d, f->len);
	for (i = 0; i < f->len; i++) {
		c = (unsigned char)f->s[i];
		n = i + 1 < f->len ? (unsigned char)f->s[i + 1] : 0;
		if (((c >= '0' && c <= '9') || c == '@' || c == '$') &&
		    ((i > 0 && isalpha_((unsigned char)f->s[i - 1])) ||
		    isalpha_((int)n))) {
			c = c == '@' ? 'a' : c == '$' ? 's' : leet[c - '0'];
			changed = 1;
		}
		d->s[d->len++] = (char)c;
	}
	d->s[d->len] = '\0';
	if (changed && morenglish(d, ef) &&
	    (rc = bmatch(r, d, "leet", sc)) < 0)
		return rc;
	blank(d, f->len);
	for (i = 0; i < f->len; i++) {
		c = (unsigned char)f->s[i];
		if (c >= 'a' && c <= 'z')
			c = 'a' + (c - 'a' + 13) % 26;
		d->s[d->len++] = (char)c;
	}
	d->s[d->len] = '\0';
	if (morenglish(d, ef) && (rc = bmatch(r, d, "rot13", sc)) < 0)
		return rc;
	/* reversed by characters, so that the text stays valid UTF-8 */
	blank(d, f->len);
	for (i = f->len; i > 0; i -= n) {
		for (n = 1; n < i && ((unsigned char)f->s[i - n] & 0xc0) ==
		    0x80; n++)
			;
		memcpy(d->s + d->len, f->s + i - n, n);
		d->len += n;
	}
	d->s[d->len] = '\0';
	if (!morenglish(d, ef))
		return 0;
	return bmatch(r, d, "reversed", sc);
}

/* the decodings of raw s[0..len) (invisibles stripped, case kept) */
static int
scanvariants(struct oxi_rules *r, const char *s, size_t len, int depth,
    struct oxi_scan *sc)
{
	int rc;

	if ((rc = encoded(r, s, len, depth, sc)) < 0)
		return rc;
	return escapes(r, s, len, depth, sc);
}

/* 1 if s[0..len) has a character of two or more bytes */
static int
hasmb(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0xc0)
			return 1;
	return 0;
}

int
oxi_inject_scan(struct oxi_rules *r, const char *s, size_t len,
    struct oxi_scan *sc)
{
	struct oxi_fold *f = &r->f;
	struct oxi_buf folded_ = OXI_BUF_INIT;
	int rc;

	memset(sc, 0, sizeof *sc);
	r->nvar = 0;
	oxi_rules_want(r, "", 0);	/* built, for r->seen */
	memset(r->seen, 0, r->n);
	r->points = 0;
	sc->found = oxi_fold(f, s, len, OXI_FOLD_MATCH);
	if ((rc = bmatch(r, &f->out, "", sc)) < 0)
		goto err;
	if (f->hidden.len > 0 && (rc = scanfold(r, f->hidden.s,
	    f->hidden.len, "hidden", sc)) < 0)
		goto err;
	/* other scripts as they are (lower case): the lookalike folding
	 * turns Cyrillic or Greek words to nonsense for their own rules */
	if (hasmb(s, len)) {
		oxi_fold(&r->g, s, len, OXI_FOLD_SPACE | OXI_FOLD_WIDTH |
		    OXI_FOLD_LOWER);
		if ((rc = bmatch(r, &r->g.out, "", sc)) < 0)
			goto err;
	}
	/* the folded text is r->f's: keep a copy, the variants reuse it */
	oxi_buf_cat(&folded_, f->out.s, f->out.len);
	rc = folded(r, &folded_, sc);
	oxi_buf_free(&folded_);
	if (rc < 0)
		goto err;
	oxi_fold(f, s, len, OXI_FOLD_SPACE | OXI_FOLD_WIDTH);
	oxi_buf_reset(&r->raw);
	oxi_buf_cat(&r->raw, f->out.s, f->out.len);
	if ((rc = scanvariants(r, r->raw.s, r->raw.len, 1, sc)) < 0)
		goto err;
	weak(r, sc);
	return sc->verdict;
err:
	sc->verdict = OXI_INJ_ERROR;
	return OXI_INJ_ERROR;
}
