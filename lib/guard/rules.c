/*
 * rules.c - the injection rules: rule files read, their defines expanded,
 * each pattern compiled with PCRE2 and its JIT (inject.c matches them)
 *
 * A rule file holds one rule per line, "ID ACTION PATTERN": ACTION is
 * warn, block or +N (a weak signal of N points, 1 to 9: inject.c warns
 * when a text's weak signals add up to 8 points), PATTERN a PCRE2
 * pattern to the end of the line, matched caselessly with . taking
 * newlines too; a line that starts with white
 * space continues the previous pattern (its leading blanks dropped).
 * '#' at the start of a line comments it out.  "@NAME PATTERN" defines
 * a name: "{NAME}" in a later pattern (of any file) stands for
 * "(?:PATTERN)".  Every match is bounded by the match context's limits.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

#define MATCH_LIMIT	200000	/* pcre2_set_match_limit */
#define DEPTH_LIMIT	10000	/* pcre2_set_depth_limit */
#define HEAP_LIMIT	16384	/* pcre2_set_heap_limit, KiB */

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
	struct oxi_buf x = OXI_BUF_INIT, cov = OXI_BUF_INIT;
	struct oxi_rule *u;
	PCRE2_SIZE off;
	PCRE2_UCHAR msg[160];
	size_t k, i, l;
	const char *c;
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
	u->block = block == 1;
	u->points = block > 100 ? block - 100 : 0;
	if (expand(r, pat, plen, &x, err) < 0) {
		oxi_buf_free(&x);
		return -1;
	}
	u->re = pcre2_compile((PCRE2_SPTR)x.s, x.len, PCRE2_UTF | PCRE2_UCP |
	    PCRE2_CASELESS | PCRE2_DOTALL, &ec, &off, NULL);
	if (!u->re) {
		oxi_buf_free(&x);
		pcre2_get_error_message(ec, msg, sizeof msg);
		oxi_buf_printf(err, "rule '%s': %s at offset %zu", u->id,
		    (char *)msg, (size_t)off);
		return -1;
	}
	/* the prefilter: the rule runs on a text that holds one of the
	 * strings of its cover; a cover with other scripts' letters is
	 * not used (their case folding is PCRE2's, not the automaton's) */
	k = oxi_cover(x.s, x.len, &cov);
	oxi_buf_free(&x);
	u->always = k == 0;
	for (i = 0; i < cov.len; i++)
		if ((unsigned char)cov.s[i] >= 0x80)
			u->always = 1;
	for (c = cov.s, i = 0; !u->always && i < k; i++, c += l + 1) {
		l = strlen(c);
		oxi_ac_add(&r->ac, c, l, (int)r->n);
	}
	oxi_buf_free(&cov);
	r->built = 0;
	/* without the JIT the interpreter runs, under the same limits */
	(void)pcre2_jit_compile(u->re, PCRE2_JIT_COMPLETE);
	r->n++;
	return 0;
}

/* the action word at a[0..n): 1 block, 0 warn, 100 + N for +N, -1
 * none of them */
static int
action(const char *a, size_t n)
{
	if (n == 4 && memcmp(a, "warn", 4) == 0)
		return 0;
	if (n == 5 && memcmp(a, "block", 5) == 0)
		return 1;
	if (n == 2 && a[0] == '+' && a[1] >= '1' && a[1] <= '9')
		return 100 + a[1] - '0';
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
					    "ID warn|block|+N PATTERN", name,
					    line);
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
	if (n > 1)	/* qsort(NULL, 0) is undefined */
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
oxi_rules_want(struct oxi_rules *r, const char *s, size_t len)
{
	const unsigned char *t = (const unsigned char *)s;
	struct oxi_ac *a = &r->ac;
	size_t i, k;
	int st = 0;

	if (!r->built) {
		oxi_ac_build(a);
		r->want = xrealloc(r->want, r->n + 1);
		r->seen = xrealloc(r->seen, r->n + 1);
		r->seenvia = xrealloc(r->seenvia, (r->n + 1) *
		    sizeof *r->seenvia);
		r->built = 1;
	}
	memset(r->want, 0, r->n);
	for (i = 0; i < len; i++) {
		/* the Kelvin sign and the long s match k and s caselessly:
		 * a text with them runs every rule */
		if ((t[i] == 0xe2 && i + 2 < len && t[i + 1] == 0x84 &&
		    t[i + 2] == 0xaa) || (t[i] == 0xc5 && i + 1 < len &&
		    t[i + 1] == 0xbf)) {
			memset(r->want, 1, r->n);
			return;
		}
		st = OXI_AC_NEXT(a, st, t[i]);
		if (a->out[st])
			for (k = 0; a->out[st][k] >= 0; k++)
				r->want[a->out[st][k]] = 1;
	}
	for (i = 0; i < r->n; i++)
		if (r->v[i].always)
			r->want[i] = 1;
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
	oxi_ac_free(&r->ac);
	free(r->want);
	free(r->seen);
	free(r->seenvia);
	free(r);
}
