/*
 * inject.c - prompt-injection rules: loaded from rule files, compiled
 * with PCRE2 JIT, matched on folded text and on what it decodes to
 *
 * A rule file holds one rule per line, "ID ACTION PATTERN": ACTION is
 * warn or block, PATTERN a PCRE2 pattern to the end of the line, matched
 * caselessly with . taking newlines too; a line that starts with white
 * space continues the previous pattern (its leading blanks dropped).
 * '#' at the start of a line comments it out.  "@NAME PATTERN" defines
 * a name: "{NAME}" in a later pattern (of any file) stands for
 * "(?:PATTERN)".
 *
 * The text is scanned as it is folded (fold.c, OXI_FOLD_MATCH), then as
 * each of its variants: what hidden characters spelled, letters spaced
 * apart joined, leetspeak digits read as letters, ROT13, reversed, and
 * every base64, hex, percent, \u or HTML-entity encoded run decoded,
 * each variant folded and scanned again, to a depth of DEPTH.  Every
 * match is bounded (match, depth and heap limits); a limit reached is an
 * error and the caller blocks the text: it is never taken as clean.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "oxi.h"
#include "guard/guard.h"

#define MATCH_LIMIT	200000	/* pcre2_set_match_limit */
#define DEPTH_LIMIT	10000	/* pcre2_set_depth_limit */
#define HEAP_LIMIT	16384	/* pcre2_set_heap_limit, KiB */
#define DEPTH		3	/* decoding inside decoding */
#define MINENC		16	/* the shortest encoded run decoded */
#define MAXVARIANTS	64	/* decoded runs scanned per text */

struct oxi_rule {
	char id[OXI_RULE_ID];	/* e.g. "override.ignore" */
	int block;		/* 1: block, 0: warn */
	pcre2_code *re;		/* the compiled pattern */
};

struct oxi_rules {
	struct oxi_rule *v;	/* rules, in the order loaded */
	size_t n;		/* rules used */
	size_t cap;		/* rules allocated */
	pcre2_match_context *mc;	/* the limits */
	pcre2_jit_stack *js;	/* the JIT's stack */
	pcre2_match_data *md;	/* match data, reused */
	struct oxi_fold f;	/* the text folded, reused */
	struct oxi_fold g;	/* a variant folded, reused */
	struct oxi_buf dec;	/* a decoded variant, reused */
	struct oxi_buf raw;	/* the text with invisibles stripped */
	struct oxi_buf defs;	/* "NAME\0PATTERN\0" for each @NAME */
	size_t nvar;		/* variants scanned for this text */
};

struct oxi_rules *
oxi_rules_new(void)
{
	struct oxi_rules *r = xcalloc(1, sizeof *r);
	struct oxi_fold f0 = OXI_FOLD_INIT;

	r->f = f0;
	r->g = f0;
	if (!(r->mc = pcre2_match_context_create(NULL)))
		oxi_die(OXI_EX_TEMP, "out of memory");
	pcre2_set_match_limit(r->mc, MATCH_LIMIT);
	pcre2_set_depth_limit(r->mc, DEPTH_LIMIT);
	pcre2_set_heap_limit(r->mc, HEAP_LIMIT);
	if ((r->js = pcre2_jit_stack_create(32 * 1024, 512 * 1024, NULL)))
		pcre2_jit_stack_assign(r->mc, NULL, r->js);
	if (!(r->md = pcre2_match_data_create(4, NULL)))
		oxi_die(OXI_EX_TEMP, "out of memory");
	return r;
}

size_t
oxi_rules_count(const struct oxi_rules *r)
{
	return r->n;
}

/* the pattern of define name[0..n), or NULL */
static const char *
lookup(const struct oxi_rules *r, const char *name, size_t n)
{
	const char *p = r->defs.s, *e = p + r->defs.len;

	while (p && p < e) {
		if (strlen(p) == n && memcmp(p, name, n) == 0)
			return p + n + 1;
		p += strlen(p) + 1;
		p += strlen(p) + 1;
	}
	return NULL;
}

/* pat[0..n) with each {NAME} replaced by its define, into out */
static int
expand(const struct oxi_rules *r, const char *pat, size_t n,
    struct oxi_buf *out, struct oxi_buf *err)
{
	const char *p, *e = pat + n, *q, *d;

	for (p = pat; p < e; p++) {
		if (*p == '\\' && p + 1 < e) {
			oxi_buf_cat(out, p, 2);
			p++;
			continue;
		}
		if (*p == '{' && p + 1 < e && p[1] >= 'a' && p[1] <= 'z') {
			for (q = p + 1; q < e && ((*q >= 'a' && *q <= 'z') ||
			    (*q >= '0' && *q <= '9') || *q == '_'); q++)
				;
			if (q < e && *q == '}') {
				if (!(d = lookup(r, p + 1, (size_t)(q - p - 1)))) {
					oxi_buf_printf(err, "undefined "
					    "{%.*s}", (int)(q - p - 1), p + 1);
					return -1;
				}
				oxi_buf_cats(out, "(?:");
				oxi_buf_cats(out, d);
				oxi_buf_putc(out, ')');
				p = q;
				continue;
			}
		}
		oxi_buf_putc(out, *p);
	}
	if (!out->s)
		oxi_buf_cats(out, "");
	return 0;
}

/* @name pat: a define, expanded now; -1 with a message in err */
static int
define(struct oxi_rules *r, const char *name, size_t n, const char *pat,
    size_t plen, struct oxi_buf *err)
{
	struct oxi_buf x = OXI_BUF_INIT;

	if (expand(r, pat, plen, &x, err) < 0) {
		oxi_buf_free(&x);
		return -1;
	}
	oxi_buf_cat(&r->defs, name, n);
	oxi_buf_putc(&r->defs, '\0');
	oxi_buf_cat(&r->defs, x.s, x.len);
	oxi_buf_putc(&r->defs, '\0');
	oxi_buf_free(&x);
	return 0;
}

/* compiles one rule; -1 with a message in err */
static int
addrule(struct oxi_rules *r, const char *id, size_t idlen, int block,
    const char *pat, size_t plen, struct oxi_buf *err)
{
	struct oxi_buf x = OXI_BUF_INIT;
	struct oxi_rule *u;
	PCRE2_SIZE off;
	PCRE2_UCHAR msg[160];
	int ec;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	u = &r->v[r->n];
	if (idlen >= sizeof u->id) {
		oxi_buf_printf(err, "rule id too long");
		return -1;
	}
	memcpy(u->id, id, idlen);
	u->id[idlen] = '\0';
	u->block = block;
	if (expand(r, pat, plen, &x, err) < 0) {
		oxi_buf_free(&x);
		return -1;
	}
	u->re = pcre2_compile((PCRE2_SPTR)x.s, x.len, PCRE2_UTF | PCRE2_UCP |
	    PCRE2_CASELESS | PCRE2_DOTALL, &ec, &off, NULL);
	oxi_buf_free(&x);
	if (!u->re) {
		pcre2_get_error_message(ec, msg, sizeof msg);
		oxi_buf_printf(err, "rule '%s': %s at offset %zu", u->id,
		    (char *)msg, (size_t)off);
		return -1;
	}
	/* without the JIT the interpreter runs, under the same limits */
	(void)pcre2_jit_compile(u->re, PCRE2_JIT_COMPLETE);
	r->n++;
	return 0;
}

/* the action word at a[0..n): 1 block, 0 warn, -1 neither */
static int
action(const char *a, size_t n)
{
	if (n == 4 && memcmp(a, "warn", 4) == 0)
		return 0;
	if (n == 5 && memcmp(a, "block", 5) == 0)
		return 1;
	return -1;
}

/* a rule or a define whose lines are all read */
static int
flush(struct oxi_rules *r, const char *id, size_t idlen, int block,
    struct oxi_buf *pat, struct oxi_buf *err)
{
	if (*id == '@')
		return define(r, id + 1, idlen - 1, pat->s, pat->len, err);
	return addrule(r, id, idlen, block, pat->s, pat->len, err);
}

/* the rules of s[0..len), from file name: -1 with "name:line: why" */
static int
parse(struct oxi_rules *r, const char *name, const char *s, size_t len,
    struct oxi_buf *err)
{
	struct oxi_buf pat = OXI_BUF_INIT;
	const char *p = s, *e = s + len, *nl, *id = NULL, *a, *q, *end;
	size_t idlen = 0, line = 0, first = 0;
	int block = 0, rc = 0;

	for (; rc == 0; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(e - p))))
			nl = e;
		end = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
		line++;
		if (p < end && (*p == ' ' || *p == '\t')) {
			for (q = p; q < end && (*q == ' ' || *q == '\t'); q++)
				;
			if (q == end)
				;	/* a blank line */
			else if (!id) {
				oxi_buf_printf(err, "%s:%zu: a continuation "
				    "line with no rule", name, line);
				rc = -1;
			} else
				oxi_buf_cat(&pat, q, (size_t)(end - q));
		} else {
			if (id && flush(r, id, idlen, block, &pat, err) < 0) {
				oxi_buf_printf(err, " (%s:%zu)", name, first);
				rc = -1;
				break;
			}
			id = NULL;
			oxi_buf_reset(&pat);
			if (p < end && *p != '#') {
				id = p;
				idlen = strcspn(p, " \t\r\n");
				for (a = p + idlen; a < end &&
				    (*a == ' ' || *a == '\t'); a++)
					;
				q = a + strcspn(a, " \t\r\n");
				while (q < end && (*q == ' ' || *q == '\t'))
					q++;
				if (*id == '@') {
					block = 0;
					q = a;
				}
				if ((*id != '@' && (block = action(a, strcspn(a,
				    " \t\r\n"))) < 0) || q >= end) {
					oxi_buf_printf(err, "%s:%zu: a rule is "
					    "ID warn|block PATTERN", name, line);
					rc = -1;
				} else
					oxi_buf_cat(&pat, q, (size_t)(end - q));
				first = line;
			}
		}
		if (nl == e)
			break;
	}
	if (rc == 0 && id && flush(r, id, idlen, block, &pat, err) < 0) {
		oxi_buf_printf(err, " (%s:%zu)", name, first);
		rc = -1;
	}
	oxi_buf_free(&pat);
	return rc;
}

static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
oxi_rules_load(struct oxi_rules *r, const char *path, struct oxi_buf *err)
{
	struct oxi_buf b = OXI_BUF_INIT, p = OXI_BUF_INIT;
	struct dirent *d;
	char **names = NULL;
	size_t n = 0, i, l;
	DIR *dir;
	int rc = 0;

	if (!(dir = opendir(path))) {
		if (errno != ENOTDIR)
			goto sys;
		if (oxi_readfile(path, &b, 1 << 20) < 0)
			goto sys;
		rc = parse(r, path, b.s ? b.s : "", b.len, err);
		oxi_buf_free(&b);
		return rc;
	}
	while ((d = readdir(dir))) {
		l = strlen(d->d_name);
		if (l < 7 || strcmp(d->d_name + l - 6, ".rules") != 0 ||
		    d->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = xstrdup(d->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof *names, cmpname);
	for (i = 0; i < n; i++) {
		if (rc == 0) {
			oxi_buf_reset(&p);
			oxi_buf_printf(&p, "%s/%s", path, names[i]);
			oxi_buf_reset(&b);
			if (oxi_readfile(p.s, &b, 1 << 20) < 0) {
				oxi_buf_printf(err, "unable to read '%s': %s",
				    p.s, strerror(errno));
				rc = -1;
			} else
				rc = parse(r, p.s, b.s ? b.s : "", b.len, err);
		}
		free(names[i]);
	}
	free(names);
	oxi_buf_free(&b);
	oxi_buf_free(&p);
	if (rc == 0 && n == 0) {
		oxi_buf_printf(err, "no *.rules file in '%s'", path);
		return -1;
	}
	return rc;
sys:
	oxi_buf_printf(err, "unable to read '%s': %s", path, strerror(errno));
	return -1;
}

void
oxi_rules_free(struct oxi_rules *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		pcre2_code_free(r->v[i].re);
	free(r->v);
	pcre2_match_data_free(r->md);
	pcre2_jit_stack_free(r->js);
	pcre2_match_context_free(r->mc);
	oxi_fold_free(&r->f);
	oxi_fold_free(&r->g);
	oxi_buf_free(&r->dec);
	oxi_buf_free(&r->raw);
	oxi_buf_free(&r->defs);
	free(r);
}

/* notes rule u's hit (once per rule) */
static void
hit(struct oxi_scan *sc, const struct oxi_rule *u, const char *via)
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

/* matches every rule on the folded s[0..len) (valid UTF-8): 0 or -1 */
static int
match(struct oxi_rules *r, const char *s, size_t len, const char *via,
    struct oxi_scan *sc)
{
	PCRE2_UCHAR msg[120];
	size_t i;
	int rc;

	for (i = 0; i < r->n; i++) {
		rc = pcre2_match(r->v[i].re, (PCRE2_SPTR)s, len, 0,
		    PCRE2_NO_UTF_CHECK, r->md, r->mc);
		if (rc >= 0) {
			hit(sc, &r->v[i], via);
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

/* folds s[0..len) and matches it */
static int
scanfold(struct oxi_rules *r, const char *s, size_t len, const char *via,
    struct oxi_scan *sc)
{
	oxi_fold(&r->g, s, len, OXI_FOLD_MATCH);
	return match(r, r->g.out.s, r->g.out.len, via, sc);
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
 * The folded variants of the text: letters spaced apart joined, digits
 * read as letters, ROT13, the text reversed.  f is the folded text.
 */
static int
folded(struct oxi_rules *r, const struct oxi_buf *f, struct oxi_scan *sc)
{
	static const char leet[] = "oizeasgtbg";	/* 0 1 2 3 4 5 6 7 8 9 */
	struct oxi_buf *d = &r->dec;
	size_t i, n, singles = 0;
	int c, rc, changed = 0;

	/* "i g n o r e", "i.g.n.o.r.e": single letters with separators */
	oxi_buf_reset(d);
	for (i = 0; i < f->len; i++) {
		c = (unsigned char)f->s[i];
		if (c == ' ' || c == '.' || c == '-' || c == '_' || c == '*') {
			if (i > 0 && i + 1 < f->len &&
			    (i < 2 || !isalnum_((unsigned char)f->s[i - 2])) &&
			    isalnum_((unsigned char)f->s[i - 1]) &&
			    isalnum_((unsigned char)f->s[i + 1]) &&
			    (i + 2 >= f->len ||
			    !isalnum_((unsigned char)f->s[i + 2]))) {
				singles++;
				continue;
			}
			if (i + 1 < f->len && f->s[i + 1] == c && c == ' ')
				continue;
		}
		oxi_buf_putc(d, c);
	}
	if (singles >= 4 && (rc = match(r, d->s, d->len, "spaced", sc)) < 0)
		return rc;
	/* leetspeak: a digit, @ or $ inside a word */
	oxi_buf_reset(d);
	for (i = 0; i < f->len; i++) {
		c = (unsigned char)f->s[i];
		n = i + 1 < f->len ? (unsigned char)f->s[i + 1] : 0;
		if (((c >= '0' && c <= '9') || c == '@' || c == '$') &&
		    ((i > 0 && isalpha_((unsigned char)f->s[i - 1])) ||
		    isalpha_((int)n))) {
			c = c == '@' ? 'a' : c == '$' ? 's' : leet[c - '0'];
			changed = 1;
		}
		oxi_buf_putc(d, c);
	}
	if (changed && (rc = match(r, d->s, d->len, "leet", sc)) < 0)
		return rc;
	oxi_buf_reset(d);
	for (i = 0; i < f->len; i++) {
		c = (unsigned char)f->s[i];
		if (c >= 'a' && c <= 'z')
			c = 'a' + (c - 'a' + 13) % 26;
		oxi_buf_putc(d, c);
	}
	if ((rc = match(r, d->s, d->len, "rot13", sc)) < 0)
		return rc;
	/* reversed by characters, so that the text stays valid UTF-8 */
	oxi_buf_reset(d);
	oxi_buf_grow(d, f->len);
	for (i = f->len; i > 0; i -= n) {
		for (n = 1; n < i && ((unsigned char)f->s[i - n] & 0xc0) ==
		    0x80; n++)
			;
		oxi_buf_cat(d, f->s + i - n, n);
	}
	return match(r, d->s, d->len, "reversed", sc);
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
	sc->found = oxi_fold(f, s, len, OXI_FOLD_MATCH);
	if ((rc = match(r, f->out.s, f->out.len, "", sc)) < 0)
		goto err;
	if (f->hidden.len > 0 && (rc = scanfold(r, f->hidden.s,
	    f->hidden.len, "hidden", sc)) < 0)
		goto err;
	/* other scripts as they are (lower case): the lookalike folding
	 * turns Cyrillic or Greek words to nonsense for their own rules */
	if (hasmb(s, len)) {
		oxi_fold(&r->g, s, len, OXI_FOLD_SPACE | OXI_FOLD_WIDTH |
		    OXI_FOLD_LOWER);
		if ((rc = match(r, r->g.out.s, r->g.out.len, "", sc)) < 0)
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
	return sc->verdict;
err:
	sc->verdict = OXI_INJ_ERROR;
	return OXI_INJ_ERROR;
}
