/*
 * srule.c - pattern rules for secrets in the manner of gitleaks: a regex
 * compiled with PCRE2 JIT behind a keyword prefilter, the secret's
 * entropy, allowlists and stop words (the file: share/oxi/secrets and
 * oxi-guard(1))
 *
 * The keywords of all rules form one Aho-Corasick automaton run over
 * the text in lower case; a rule's regex then runs only in windows
 * around its keywords, so the cost follows what the text holds, not the
 * number of rules.  A match or depth limit of PCRE2 is an error the
 * caller turns into a blocked record: a text that cannot be judged is
 * never passed as clean.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#define MATCH_LIMIT	2000000	/* PCRE2 match limit per match */
#define DEPTH_LIMIT	20000	/* and its depth limit */
#define BEFORE		96	/* a window starts this far before a keyword */
#define AFTER		320	/* and ends this far after it, by default */
#define MAXLEN		256	/* a secret's length for the hold-back */
#define RULES_MAX	(1 << 20)	/* bytes of a rules file */
#define PAD		64	/* zero bytes after a text matched */

struct re {
	pcre2_code *code;
	int target;		/* allow: 's' secret, 'm' match, 'l' line */
};

struct srule {
	char *id;
	struct re re;		/* the pattern */
	int group;		/* the secret's capture group */
	int alt[4];		/* or the first set of groups s2 .. s5 */
	double entropy;		/* at least this, or 0 */
	struct re *allow;	/* allowlist */
	size_t nallow;
	char **stop;		/* stop words, lower case */
	size_t nstop;
	size_t after;		/* window after a keyword */
	size_t maxlen;		/* the longest secret */
	int nkw;		/* keywords: 0 runs everywhere */
	int check;		/* CHECK_*: a test of the secret's shape */
};

enum { CHECK_NONE, CHECK_JWT };

/* the keyword automaton: byte classes, a goto table, outputs */
struct ac {
	unsigned char cls[256];	/* byte to class, 0: no keyword has it */
	int ncls;
	int *go;		/* go[state * ncls + class] */
	int *fail;
	int **out;		/* per state: rules ending here, -1 ended */
	unsigned char *longk;	/* per state: a keyword of 3 bytes or more
				 * ends here */
	int nstate, capstate;
};

struct oxi_srules {
	struct srule *v;
	size_t n, cap;
	struct re *allow;	/* global allowlist */
	size_t nallow;
	char **stop;		/* global stop words */
	size_t nstop;
	struct ac ac;
	int *always;		/* rules without keywords, -1 ended */
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack;
	size_t maxlen;
	char **defs;		/* defines: name, value, name, value ... */
	size_t ndefs;
	/* keywords while parsing: (rule, word) */
	struct kw { int rule; char *w; } *kw;
	size_t nkw, capkw;
};

static void
addstr(char ***v, size_t *n, const char *s, size_t len)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrndup(s, len);
}

/* pat with each {NAME} of a define replaced by its value, into b */
static void
expand(const struct oxi_srules *rs, const char *pat, size_t len,
    struct oxi_buf *b)
{
	size_t i, k, nl;
	int found;

	for (i = 0; i < len; i++) {
		found = 0;
		if (pat[i] == '{' && (i == 0 || pat[i - 1] != '\\'))
			for (k = 0; k + 1 < rs->ndefs && !found; k += 2) {
				nl = strlen(rs->defs[k]);
				if (i + nl + 2 <= len && memcmp(pat + i + 1,
				    rs->defs[k], nl) == 0 && pat[i + 1 + nl] ==
				    '}') {
					oxi_buf_cats(b, rs->defs[k + 1]);
					i += nl + 1;
					found = 1;
				}
			}
		if (!found)
			oxi_buf_putc(b, pat[i]);
	}
}

static int
compile(const struct oxi_srules *rs, struct re *re, const char *pat,
    size_t len, const char **err)
{
	struct oxi_buf b = OXI_BUF_INIT;
	int e;
	PCRE2_SIZE off;

	expand(rs, pat, len, &b);
	re->code = pcre2_compile((PCRE2_SPTR)(b.s ? b.s : ""), b.len,
	    PCRE2_MULTILINE, &e, &off, NULL);
	oxi_buf_free(&b);
	if (!re->code) {
		static char msg[160];
		char pm[120];

		pcre2_get_error_message(e, (PCRE2_UCHAR *)pm, sizeof pm);
		snprintf(msg, sizeof msg, "a regex does not compile: %s (at "
		    "%zu)", pm, (size_t)off);
		*err = msg;
		return -1;
	}
	return 0;	/* its JIT code waits for its first match: jit() */
}

/*
 * code's JIT code, made the first time it is matched: a rule waits
 * behind keywords most replies do not hold, and an allowlist entry
 * behind its rule, so a guard that never needs one keeps none (the JIT
 * code of every rule is a megabyte a stage holds for ever)
 */
static void
jit(pcre2_code *code)
{
	size_t n = 0;

	if (pcre2_pattern_info(code, PCRE2_INFO_JITSIZE, &n) == 0 && n == 0)
		(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
}

/*
 * The shape "IDENT ... = SECRET": an identifier holding IDENT (in any
 * case), an assignment of any of the usual languages (or "is", as a
 * reply says it), then SECRET, then the end of the value.
 */
static void
assign(struct oxi_buf *b, const char *ident, size_t il, const char *sec,
    size_t sl)
{
	oxi_buf_cats(b, "(?i)(?<![\\w.-])[\\w.-]{0,40}?(?:");
	oxi_buf_cat(b, ident, il);
	oxi_buf_cats(b, ")(?:[\\w.-]{0,20}?)(?:[\"'\\]]{0,2}[ \\t]{0,3})"
	    "(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,|\\(|<-|(?<=\\s)(?:is|was)"
	    "(?=\\s))[ \\t]{0,3}"
	    "(?:[\"'`]|[\\w.-]{0,20}\\(\\s*[\"'`]?|\\$?\\{)?(?<s>");
	oxi_buf_cat(b, sec, sl);
	oxi_buf_cats(b, ")(?=[\"'`\\s;,)\\]}<&]|\\\\[nrt\"]|$)");
}

/* the words of s[0..n) (white space between), lower case, to v */
static void
words(char ***v, size_t *nv, const char *s, size_t n)
{
	size_t i = 0, j, k;
	char *w;

	while (i < n) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		for (j = i; j < n && !isspace((unsigned char)s[j]); j++)
			;
		if (j > i) {
			addstr(v, nv, s + i, j - i);
			w = (*v)[*nv - 1];
			for (k = 0; w[k]; k++)
				w[k] = (char)tolower((unsigned char)w[k]);
		}
		i = j;
	}
}

/* a line "key value" of the rule r (NULL: the global part) */
static int
setting(struct oxi_srules *rs, struct srule *r, const char *k, size_t kl,
    const char *val, size_t vl, const char **err)
{
	struct oxi_buf b = OXI_BUF_INIT;
	struct re re;
	char **w = NULL, *end;
	size_t nw = 0, i, sp;
	int rc = 0;

#define IS(s)	(kl == strlen(s) && memcmp(k, s, kl) == 0)
	if (IS("allow") || IS("allow-match") || IS("allow-line")) {
		if (compile(rs, &re, val, vl, err) < 0)
			return -1;
		re.target = kl == 5 ? 's' : k[6];
		if (r) {
			r->allow = xrealloc(r->allow, (r->nallow + 1) *
			    sizeof *r->allow);
			r->allow[r->nallow++] = re;
		} else {
			rs->allow = xrealloc(rs->allow, (rs->nallow + 1) *
			    sizeof *rs->allow);
			rs->allow[rs->nallow++] = re;
		}
		return 0;
	}
	if (IS("stopwords")) {
		if (r)
			words(&r->stop, &r->nstop, val, vl);
		else
			words(&rs->stop, &rs->nstop, val, vl);
		return 0;
	}
	if (!r && IS("define")) {
		for (sp = 0; sp < vl && !isspace((unsigned char)val[sp]); sp++)
			;
		for (i = sp; i < vl && isspace((unsigned char)val[i]); i++)
			;
		if (sp == 0 || i == vl) {
			*err = "define wants NAME VALUE";
			return -1;
		}
		rs->defs = xrealloc(rs->defs, (rs->ndefs + 2) *
		    sizeof *rs->defs);
		rs->defs[rs->ndefs++] = xstrndup(val, sp);
		b.s = NULL;
		expand(rs, val + i, vl - i, &b);
		rs->defs[rs->ndefs++] = b.s ? b.s : xstrdup("");
		return 0;
	}
	if (!r) {
		*err = "unknown setting outside a rule";
		return -1;
	}
	if (IS("keywords")) {
		words(&w, &nw, val, vl);
		for (i = 0; i < nw; i++) {
			if (rs->nkw == rs->capkw) {
				rs->capkw = rs->capkw ? rs->capkw * 2 : 256;
				rs->kw = xrealloc(rs->kw, rs->capkw *
				    sizeof *rs->kw);
			}
			rs->kw[rs->nkw].rule = (int)(r - rs->v);
			rs->kw[rs->nkw++].w = w[i];
			r->nkw++;
		}
		free(w);
		return 0;
	}
	if (IS("regex") || IS("assign")) {
		if (r->re.code) {
			*err = "a second regex in a rule";
			return -1;
		}
		if (IS("assign")) {
			for (sp = 0; sp < vl && !isspace((unsigned char)val[sp]);
			    sp++)
				;
			for (i = sp; i < vl && isspace((unsigned char)val[i]);
			    i++)
				;
			if (sp == 0 || i == vl) {
				*err = "assign wants IDENT SECRET";
				return -1;
			}
			assign(&b, val, sp, val + i, vl - i);
			rc = compile(rs, &r->re, b.s, b.len, err);
			oxi_buf_free(&b);
		} else
			rc = compile(rs, &r->re, val, vl, err);
		if (rc == 0) {
			static const char *const alts[] = { "s2", "s3", "s4",
			    "s5" };
			int a;

			for (a = 0; a < 4; a++) {
				int g = pcre2_substring_number_from_name(
				    r->re.code, (PCRE2_SPTR)alts[a]);

				r->alt[a] = g > 0 ? g : 0;
			}
			i = pcre2_substring_number_from_name(r->re.code,
			    (PCRE2_SPTR)"s");
			if ((int)i > 0)
				r->group = (int)i;
			else {
				uint32_t cap = 0;

				pcre2_pattern_info(r->re.code,
				    PCRE2_INFO_CAPTURECOUNT, &cap);
				r->group = cap > 0 ? 1 : 0;
			}
		}
		return rc;
	}
	b.s = xstrndup(val, vl);
	if (IS("entropy"))
		r->entropy = strtod(b.s, &end);
	else if (IS("secret"))
		r->group = (int)strtol(b.s, &end, 10);
	else if (IS("window"))
		r->after = (size_t)strtoul(b.s, &end, 10);
	else if (IS("maxlen"))
		r->maxlen = (size_t)strtoul(b.s, &end, 10);
	else if (IS("check")) {
		r->check = strcmp(b.s, "jwt") == 0 ? CHECK_JWT : -1;
		end = r->check < 0 ? b.s : b.s + vl;
	} else if (IS("description") || IS("path"))
		end = b.s + vl;
	else {
		free(b.s);
		*err = "unknown setting";
		return -1;
	}
	if (*end != '\0' || end == b.s) {
		free(b.s);
		*err = "a setting wants a number";
		return -1;
	}
	free(b.s);
	return 0;
#undef IS
}

static int
acnew(struct ac *a)
{
	int s = a->nstate;

	if (a->nstate == a->capstate) {
		a->capstate = a->capstate ? a->capstate * 2 : 256;
		a->go = xrealloc(a->go, (size_t)a->capstate * a->ncls *
		    sizeof *a->go);
		a->fail = xrealloc(a->fail, (size_t)a->capstate *
		    sizeof *a->fail);
		a->out = xrealloc(a->out, (size_t)a->capstate *
		    sizeof *a->out);
		a->longk = xrealloc(a->longk, (size_t)a->capstate);
	}
	memset(a->go + (size_t)s * a->ncls, 0xff, (size_t)a->ncls *
	    sizeof *a->go);
	a->fail[s] = 0;
	a->out[s] = NULL;
	a->longk[s] = 0;
	a->nstate++;
	return s;
}

static void
outadd(int **o, int rule)
{
	size_t n = 0;

	if (*o)
		for (; (*o)[n] >= 0; n++)
			if ((*o)[n] == rule)
				return;
	*o = xrealloc(*o, (n + 2) * sizeof **o);
	(*o)[n] = rule;
	(*o)[n + 1] = -1;
}

/* the automaton of the keywords, breadth first for the fail links */
static void
acbuild(struct oxi_srules *rs)
{
	struct ac *a = &rs->ac;
	size_t i, k;
	int *queue, qh = 0, qt = 0, s, t, c, f;
	const char *w;

	memset(a->cls, 0, sizeof a->cls);
	a->ncls = 1;
	for (i = 0; i < rs->nkw; i++)
		for (w = rs->kw[i].w; *w; w++)
			if (!a->cls[(unsigned char)*w])
				a->cls[(unsigned char)*w] =
				    (unsigned char)a->ncls++;
	for (c = 'A'; c <= 'Z'; c++)
		a->cls[c] = a->cls[c - 'A' + 'a'];
	acnew(a);
	for (i = 0; i < rs->nkw; i++) {
		s = 0;
		for (w = rs->kw[i].w; *w; w++) {
			c = a->cls[(unsigned char)*w];
			if ((t = a->go[s * a->ncls + c]) < 0) {
				t = acnew(a);
				a->go[s * a->ncls + c] = t;
			}
			s = t;
		}
		outadd(&a->out[s], rs->kw[i].rule);
		if (strlen(rs->kw[i].w) >= 3)
			a->longk[s] = 1;
	}
	queue = xmalloc((size_t)a->nstate * sizeof *queue);
	for (c = 0; c < a->ncls; c++) {
		if ((t = a->go[c]) < 0)
			a->go[c] = 0;
		else if (t > 0) {
			a->fail[t] = 0;
			queue[qt++] = t;
		}
	}
	while (qh < qt) {
		s = queue[qh++];
		for (c = 0; c < a->ncls; c++) {
			t = a->go[s * a->ncls + c];
			f = a->go[a->fail[s] * a->ncls + c];
			if (t < 0) {
				a->go[s * a->ncls + c] = f;
				continue;
			}
			a->fail[t] = f;
			a->longk[t] |= a->longk[f];
			if (a->out[f])
				for (k = 0; a->out[f][k] >= 0; k++)
					outadd(&a->out[t], a->out[f][k]);
			queue[qt++] = t;
		}
	}
	free(queue);
	/* class 0 (a byte in no keyword) leads home from everywhere */
}

struct oxi_srules *
oxi_srules_parse(const char *s, size_t n, const char **err,
    unsigned long *line)
{
	struct oxi_srules *rs = xcalloc(1, sizeof *rs);
	struct srule *r = NULL;
	size_t i = 0, j, e, k, ke, nal = 0;
	int global = 0;

	*line = 0;
	while (i < n) {
		for (j = i; j < n && s[j] != '\n'; j++)
			;
		(*line)++;
		e = j;
		while (e > i && isspace((unsigned char)s[e - 1]))
			e--;
		for (k = i; k < e && isspace((unsigned char)s[k]); k++)
			;
		if (k == e || s[k] == '#')
			goto next;
		for (ke = k; ke < e && !isspace((unsigned char)s[ke]); ke++)
			;
		if (k == i) {		/* "rule ID" or "global" */
			if (ke - k == 4 && memcmp(s + k, "rule", 4) == 0) {
				for (; ke < e && isspace((unsigned char)s[ke]);
				    ke++)
					;
				if (ke == e)
					goto bad;
				if (rs->n == rs->cap) {
					rs->cap = rs->cap ? rs->cap * 2 : 64;
					rs->v = xrealloc(rs->v, rs->cap *
					    sizeof *rs->v);
				}
				r = &rs->v[rs->n++];
				memset(r, 0, sizeof *r);
				r->id = xstrndup(s + ke, e - ke);
				r->after = AFTER;
				r->maxlen = MAXLEN;
				global = 0;
			} else if (ke - k == 6 && memcmp(s + k, "global", 6) ==
			    0 && ke == e) {
				r = NULL;
				global = 1;
			} else
				goto bad;
			goto next;
		}
		if (!r && !global)
			goto bad;
		for (j = ke; j < e && isspace((unsigned char)s[j]); j++)
			;
		if (setting(rs, r, s + k, ke - k, s + j, e - j, err) < 0)
			goto fail;
		j = e;
		while (j < n && s[j] != '\n')
			j++;
next:
		i = j + 1;
	}
	for (k = 0; k < rs->n; k++) {
		if (!rs->v[k].re.code) {
			*err = "a rule without a regex";
			*line = 0;
			goto fail;
		}
		if (rs->v[k].maxlen > rs->maxlen)
			rs->maxlen = rs->v[k].maxlen;
	}
	acbuild(rs);
	nal = 0;
	for (k = 0; k < rs->n; k++)
		if (rs->v[k].nkw == 0) {
			rs->always = xrealloc(rs->always, (nal + 2) *
			    sizeof *rs->always);
			rs->always[nal++] = (int)k;
			rs->always[nal] = -1;
		}
	rs->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(rs->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(rs->mctx, DEPTH_LIMIT);
	rs->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (rs->jstack)
		pcre2_jit_stack_assign(rs->mctx, NULL, rs->jstack);
	return rs;
bad:
	*err = "a line that is neither 'rule ID', 'global' nor an indented "
	    "setting";
fail:
	oxi_srules_free(rs);
	return NULL;
}

struct oxi_srules *
oxi_srules_load(const char *path, const char **err, unsigned long *line)
{
	struct oxi_buf b = OXI_BUF_INIT;
	struct oxi_srules *rs;

	*line = 0;
	if (oxi_readfile(path, &b, RULES_MAX) < 0) {
		*err = strerror(errno);
		return NULL;
	}
	rs = oxi_srules_parse(b.s ? b.s : "", b.len, err, line);
	oxi_buf_free(&b);
	return rs;
}

size_t
oxi_srules_count(const struct oxi_srules *rs)
{
	return rs ? rs->n : 0;
}

const char *
oxi_srules_id(const struct oxi_srules *rs, int idx)
{
	return rs && idx >= 0 && (size_t)idx < rs->n ? rs->v[idx].id : "";
}

size_t
oxi_srules_maxlen(const struct oxi_srules *rs)
{
	return rs ? rs->maxlen : 0;
}

static void
refree(struct re *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pcre2_code_free(v[i].code);
	free(v);
}

static void
strsfree(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
oxi_srules_free(struct oxi_srules *rs)
{
	size_t i;
	int k;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].id);
		pcre2_code_free(rs->v[i].re.code);
		refree(rs->v[i].allow, rs->v[i].nallow);
		strsfree(rs->v[i].stop, rs->v[i].nstop);
	}
	free(rs->v);
	refree(rs->allow, rs->nallow);
	strsfree(rs->stop, rs->nstop);
	strsfree(rs->defs, rs->ndefs);
	for (i = 0; i < rs->nkw; i++)
		free(rs->kw[i].w);
	free(rs->kw);
	for (k = 0; k < rs->ac.nstate; k++)
		free(rs->ac.out[k]);
	free(rs->ac.go);
	free(rs->ac.fail);
	free(rs->ac.out);
	free(rs->ac.longk);
	free(rs->always);
	if (rs->mctx)
		pcre2_match_context_free(rs->mctx);
	if (rs->jstack)
		pcre2_jit_stack_free(rs->jstack);
	free(rs);
}

/* Shannon entropy of s[0..n) in bits per byte */
static double
entropy(const char *s, size_t n)
{
	size_t count[256] = { 0 }, i;
	double h = 0, p;

	for (i = 0; i < n; i++)
		count[(unsigned char)s[i]]++;
	for (i = 0; i < 256; i++)
		if (count[i]) {
			p = (double)count[i] / (double)n;
			h -= p * log2(p);
		}
	return h;
}

/* does s[0..n) hold a stop word (in any case)? */
static int
stopped(char *const *stop, size_t nstop, const char *s, size_t n)
{
	char low[512];
	size_t i;

	if (nstop == 0)
		return 0;
	if (n >= sizeof low)
		n = sizeof low - 1;
	for (i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[n] = '\0';
	for (i = 0; i < nstop; i++)
		if (strstr(low, stop[i]))
			return 1;
	return 0;
}

/* 1 if an allowlist entry clears the finding, 0 if not, -1 error */
static int
allowed(const struct oxi_srules *rs, const struct re *v, size_t nv,
    const char *t, size_t n, size_t ms, size_t me, size_t ss, size_t se)
{
	pcre2_match_data *md;
	size_t i, a, b;
	int r, res = 0;

	if (nv == 0)
		return 0;
	md = pcre2_match_data_create(4, NULL);
	for (i = 0; i < nv && !res; i++) {
		if (v[i].target == 'm') {
			a = ms;
			b = me;
		} else if (v[i].target == 'l') {
			for (a = ms; a > 0 && t[a - 1] != '\n'; a--)
				;
			for (b = me; b < n && t[b] != '\n'; b++)
				;
		} else {
			a = ss;
			b = se;
		}
		jit(v[i].code);
		r = pcre2_match(v[i].code, (PCRE2_SPTR)(t + a), b - a, 0, 0,
		    md, rs->mctx);
		if (r >= 0)
			res = 1;
		else if (r != PCRE2_ERROR_NOMATCH)
			res = -1;
	}
	pcre2_match_data_free(md);
	return res;
}

/*
 * A JSON Web Token's header is base64url of a JSON object: what it
 * decodes to begins with '{' and ends with '}'.
 */
static int
jwtok(const char *s, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789-_";
	unsigned long acc = 0;
	size_t i, bits = 0;
	const char *p;
	int c, first = 0, last = 0;

	for (i = 0; i < n && s[i] != '.'; i++) {
		if (!(p = memchr(a, s[i], 64)))
			return 0;
		acc = acc << 6 | (unsigned long)(p - a);
		if ((bits += 6) >= 8) {
			bits -= 8;
			c = (int)(acc >> bits & 0xff);
			if (c <= ' ' || c > 0x7e)
				continue;	/* a mangled byte is let be */
			if (!first)
				first = c;
			last = c;
		}
	}
	return first == '{' && last == '}';
}

/* rule k over v's bytes [from, to): its findings to hits */
static int
runrule(const struct oxi_srules *rs, int k, const struct oxi_view *v,
    size_t from, size_t to, struct oxi_hits *hits, size_t *done)
{
	const struct srule *r = &rs->v[k];
	const char *t = v->b.s;
	pcre2_match_data *md;
	PCRE2_SIZE *ov;
	struct oxi_hit h;
	size_t at = from > *done ? from : *done, ms, me, ss, se;
	int rc, a, g, res = 0;

	jit(r->re.code);
	md = pcre2_match_data_create_from_pattern(r->re.code, NULL);
	while (at < to) {
		rc = pcre2_match(r->re.code, (PCRE2_SPTR)t, to, at,
		    to < v->b.len ? PCRE2_NOTEOL : 0, md, rs->mctx);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0) {
			res = -1;
			break;
		}
		ov = pcre2_get_ovector_pointer(md);
		ms = ov[0];
		me = ov[1];
		at = me > ms ? me : ms + 1;
		g = r->group;
		for (a = 0; a < 4 && r->alt[a] > 0 && (g >= rc ||
		    ov[2 * g] == PCRE2_UNSET); a++)
			g = r->alt[a];
		if (g >= rc || ov[2 * g] == PCRE2_UNSET)
			continue;
		ss = ov[2 * g];
		se = ov[2 * g + 1];
		if (se <= ss)
			continue;
		if (r->entropy > 0 && entropy(t + ss, se - ss) < r->entropy)
			continue;
		if (r->check == CHECK_JWT && !jwtok(t + ss, se - ss))
			continue;
		if (stopped(r->stop, r->nstop, t + ss, se - ss) ||
		    stopped(rs->stop, rs->nstop, t + ss, se - ss))
			continue;
		if ((a = allowed(rs, r->allow, r->nallow, t, v->b.len, ms, me,
		    ss, se)) == 0)
			a = allowed(rs, rs->allow, rs->nallow, t, v->b.len, ms,
			    me, ss, se);
		if (a < 0) {
			res = -1;
			break;
		}
		if (a)
			continue;
		memset(&h, 0, sizeof h);
		oxi_view_span(v, ss, se, &h.lo, &h.hi);
		h.kind = OXI_HIT_RULE;
		h.idx = k;
		h.depth = v->depth;
		h.vlo = (uint32_t)ss;
		h.vhi = (uint32_t)se;
		oxi_hits_add(hits, &h);
	}
	*done = at;
	pcre2_match_data_free(md);
	return res;
}

int
oxi_srules_wants(const struct oxi_srules *rs, const struct oxi_view *v,
    int how)
{
	const struct ac *a;
	const unsigned char *t;
	size_t i, n;
	int s = 0, c;

	if (!rs || rs->n == 0)
		return 0;
	a = &rs->ac;
	t = (const unsigned char *)v->b.s;
	n = v->b.len;
	for (i = 0; i < n; i++) {
		c = how == 1 ? t[n - 1 - i] : t[i];
		if (how == 2 && ((c >= 'a' && c <= 'z') || (c >= 'A' &&
		    c <= 'Z')))
			c = (c | 0x20) < 'n' ? c + 13 : c - 13;
		s = a->go[s * a->ncls + a->cls[c]];
		/* two-letter keywords ("ey") are everywhere reversed */
		if (a->out[s] && (how == 0 || a->longk[s]))
			return 1;
	}
	return 0;
}

int
oxi_srules_scan(const struct oxi_srules *rs, const struct oxi_view *v,
    struct oxi_hits *hits)
{
	const struct ac *a;
	const unsigned char *t;
	size_t i, n, lo, hi, *wlo, *whi, *done;
	int s, k, *rules, res = 0;

	if (!rs || rs->n == 0 || v->b.len == 0)
		return 0;
	/* the JIT reads ahead of where it matches: zeros past the end */
	oxi_buf_grow((struct oxi_buf *)&v->b, PAD);
	memset(v->b.s + v->b.len, 0, PAD);
	a = &rs->ac;
	t = (const unsigned char *)v->b.s;
	n = v->b.len;
	/* per rule, the window being built and how far it has run */
	wlo = xmalloc(rs->n * sizeof *wlo);
	whi = xcalloc(rs->n, sizeof *whi);
	done = xcalloc(rs->n, sizeof *done);
	for (i = 0; i < rs->n; i++)
		wlo[i] = (size_t)-1;
	for (i = 0, s = 0; i < n && res == 0; i++) {
		s = a->go[s * a->ncls + a->cls[t[i]]];
		if (!(rules = a->out[s]))
			continue;
		for (; *rules >= 0; rules++) {
			k = *rules;
			lo = i + 1 > BEFORE + 32 ? i + 1 - BEFORE - 32 : 0;
			hi = i + rs->v[k].after < n ? i + rs->v[k].after : n;
			if (rs->v[k].maxlen + 64 > rs->v[k].after &&
			    i + rs->v[k].maxlen + 64 > hi)
				hi = i + rs->v[k].maxlen + 64 < n ?
				    i + rs->v[k].maxlen + 64 : n;
			if (wlo[k] != (size_t)-1 && lo <= whi[k]) {
				if (hi > whi[k])
					whi[k] = hi;
				continue;
			}
			if (wlo[k] != (size_t)-1)
				res = runrule(rs, k, v, wlo[k], whi[k], hits,
				    &done[k]);
			wlo[k] = lo;
			whi[k] = hi;
		}
	}
	for (i = 0; i < rs->n && res == 0; i++)
		if (wlo[i] != (size_t)-1)
			res = runrule(rs, (int)i, v, wlo[i], whi[i], hits,
			    &done[i]);
	for (rules = rs->always; rules && *rules >= 0 && res == 0; rules++)
		res = runrule(rs, *rules, v, 0, n, hits, &done[*rules]);
	free(wlo);
	free(whi);
	free(done);
	return res;
}
