/*
 * leak.c - one outbound text judged whole: the views of it scanned for
 * the known values and the pattern rules, markdown links and images
 * that would carry data away, home paths; then the text rebuilt with
 * every finding replaced and, for a draft, cut before what may still
 * become a secret
 *
 * The views: the text folded (V0), then each decoded layer of it folded
 * again (V1 .. Vk, at most OXI_DEC_DEPTH); the rules also see V0
 * reversed, in ROT13 and with its spaced letters joined.  A finding in
 * any view redacts the span of the original it stands for.
 */
#define _GNU_SOURCE	/* memmem */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#define REDACTED	"[REDACTED]"
#define IMAGE_GONE	"[image removed]"
#define LINK_GONE	"[link removed]"
#define WINDOW		512	/* context scanned again around a decoded run */
#define EXTRA_MAX	(256 * 1024)	/* the extra views of the rules up to this */

void
oxi_leak_res_free(struct oxi_leak_res *r)
{
	oxi_buf_free(&r->out);
	oxi_hits_free(&r->hits);
}

/* an edit of the original: [lo, hi) becomes rep */
struct edit {
	size_t lo, hi;
	const char *rep;
	int kind;		/* 0 redaction, 1 link, 2 path */
};
struct edits {
	struct edit *v;
	size_t n, cap;
};

static void
editadd(struct edits *e, size_t lo, size_t hi, const char *rep, int kind)
{
	if (hi <= lo && *rep == '\0')
		return;
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	e->v[e->n].lo = lo;
	e->v[e->n].hi = hi;
	e->v[e->n].rep = rep;
	e->v[e->n++].kind = kind;
}

static int
editcmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi > y->hi ? -1 : x->hi < y->hi;
}

/* does [lo, hi) of the original overlap a secret or canary found? */
static int
carries(const struct oxi_hits *h, size_t lo, size_t hi)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->v[i].lo < hi && h->v[i].hi > lo)
			return 1;
	return 0;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int
prefix(const char *s, size_t n, const char *p)
{
	size_t i;

	for (i = 0; p[i]; i++)
		if (i >= n || lower((unsigned char)s[i]) != p[i])
			return 0;
	return 1;
}

/*
 * Would this URL carry something away?  A script or data URL always; one
 * holding a secret or canary found; in a reply with outside content, any
 * remote image, and a link with a query, a fragment or a long opaque
 * piece of path.
 */
static int
badurl(const char *s, size_t lo, size_t hi, int image, int taint,
    const struct oxi_hits *h)
{
	const char *u = s + lo;
	size_t n = hi - lo, i, seg = 0;

	while (n > 0 && (*u == ' ' || *u == '<' || *u == '\t')) {
		u++;
		n--;
	}
	if (prefix(u, n, "javascript:") || prefix(u, n, "vbscript:") ||
	    prefix(u, n, "data:") || prefix(u, n, "file:"))
		return 1;
	if (carries(h, lo, hi))
		return 1;
	if (!taint)
		return 0;
	if (image)
		return 1;
	for (i = 0; i < n; i++) {
		if (u[i] == '?' || u[i] == '#')
			return 1;
		if (u[i] == '/' || u[i] == '.')
			seg = 0;
		else if (++seg >= 24)
			return 1;
	}
	return 0;
}

/* the end of a code span or fence starting at s[i] (a backquote) */
static size_t
code(const char *s, size_t n, size_t i)
{
	size_t k = 0, j;

	while (i + k < n && s[i + k] == '`')
		k++;
	for (j = i + k; j + k <= n; j++)
		if (s[j] == '`') {
			size_t m = 0;

			while (j + m < n && s[j + m] == '`')
				m++;
			if (m == k)
				return j + m;
			j += m - 1;
		}
	return n;
}

/* the ")" closing a link's destination at s[i] (after "("), or n */
static size_t
closeparen(const char *s, size_t n, size_t i)
{
	int depth = 0;

	for (; i < n && s[i] != '\n'; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		else if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && depth-- == 0)
			return i;
	}
	return n;
}

/*
 * Markdown links and images, autolinks, reference definitions and HTML
 * tags with a source or link, outside code: those whose URL would
 * carry data away are removed (a link keeps its text).
 */
static size_t
links(const char *s, size_t n, int taint, const struct oxi_hits *h,
    struct edits *e)
{
	size_t i, j, k, t0, u0, u1, count = 0;
	const char *q;
	int image, a;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '`') {
			i = code(s, n, i) - 1;
			continue;
		}
		if (s[i] == '<') {
			/* <http://...> or <img src=...> <a href=...> */
			for (j = i + 1; j < n && s[j] != '>' && s[j] != '<' &&
			    s[j] != '\n'; j++)
				;
			if (j >= n || s[j] != '>')
				continue;
			if (prefix(s + i + 1, j - i - 1, "http") ||
			    prefix(s + i + 1, j - i - 1, "javascript:") ||
			    prefix(s + i + 1, j - i - 1, "data:")) {
				if (badurl(s, i + 1, j, 0, taint, h)) {
					editadd(e, i, j + 1, LINK_GONE, 1);
					count++;
				}
			} else if (prefix(s + i + 1, j - i - 1, "img") ||
			    prefix(s + i + 1, j - i - 1, "iframe") ||
			    prefix(s + i + 1, j - i - 1, "script") ||
			    prefix(s + i + 1, j - i - 1, "a ") ||
			    prefix(s + i + 1, j - i - 1, "video") ||
			    prefix(s + i + 1, j - i - 1, "audio") ||
			    prefix(s + i + 1, j - i - 1, "source") ||
			    prefix(s + i + 1, j - i - 1, "embed") ||
			    prefix(s + i + 1, j - i - 1, "object") ||
			    prefix(s + i + 1, j - i - 1, "link")) {
				a = lower((unsigned char)s[i + 1]) == 'a' &&
				    s[i + 2] == ' ';
				if (badurl(s, i + 1, j, !a, taint, h) ||
				    carries(h, i, j + 1) ||
				    memchr(s + i, ':', j - i)) {
					editadd(e, i, j + 1, a ? "" : IMAGE_GONE,
					    1);
					count++;
				}
			}
			i = j;
			continue;
		}
		if (s[i] == '[' && (i == 0 || s[i - 1] == '\n') &&
		    (q = memchr(s + i, ']', n - i)) &&
		    (j = (size_t)(q - s)) + 1 < n && s[j + 1] == ':') {
			/* [ref]: url, a reference definition on its line */
			for (k = j + 2; k < n && s[k] != '\n'; k++)
				;
			if (badurl(s, j + 2, k, 0, taint, h)) {
				editadd(e, i, k, "", 1);
				count++;
			}
			i = k;
			continue;
		}
		if (s[i] != '[')
			continue;
		image = i > 0 && s[i - 1] == '!';
		t0 = i + 1;
		for (j = t0; j < n && s[j] != ']' && s[j] != '\n'; j++)
			if (s[j] == '\\')
				j++;
		if (j + 1 >= n || s[j] != ']' || s[j + 1] != '(')
			continue;
		u0 = j + 2;
		if ((u1 = closeparen(s, n, u0)) >= n)
			continue;
		if (badurl(s, u0, u1, image, taint, h)) {
			if (image)
				editadd(e, i - 1, u1 + 1, IMAGE_GONE, 1);
			else {
				editadd(e, i, t0, "", 1);
				editadd(e, j, u1 + 1, "", 1);
			}
			count++;
		}
		i = u1;
	}
	return count;
}

static int
pathc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* /home/NAME, /Users/NAME, /root and $HOME at a path's start: "~" */
static size_t
homes(const char *s, size_t n, const char *home, struct edits *e)
{
	static const char *const dirs[] = { "/home/", "/Users/" };
	size_t i, j, k, hl = home ? strlen(home) : 0, count = 0;

	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	for (i = 0; i < n; i++) {
		if (s[i] != '/' || (i > 0 && (pathc((unsigned char)s[i - 1]) ||
		    s[i - 1] == '/' || s[i - 1] == '~')))
			continue;
		if (hl > 1 && i + hl <= n && memcmp(s + i, home, hl) == 0 &&
		    (i + hl == n || !pathc((unsigned char)s[i + hl]))) {
			editadd(e, i, i + hl, "~", 2);
			count++;
			i += hl - 1;
			continue;
		}
		for (k = 0; k < 2; k++) {
			size_t dl = strlen(dirs[k]);

			if (i + dl < n && memcmp(s + i, dirs[k], dl) == 0 &&
			    pathc((unsigned char)s[i + dl])) {
				for (j = i + dl; j < n &&
				    pathc((unsigned char)s[j]); j++)
					;
				editadd(e, i, j, "~", 2);
				count++;
				i = j - 1;
				break;
			}
		}
		if (k == 2 && i + 5 <= n && memcmp(s + i, "/root", 5) == 0 &&
		    (i + 5 == n || !pathc((unsigned char)s[i + 5]))) {
			editadd(e, i, i + 5, "~", 2);
			count++;
			i += 4;
		}
	}
	return count;
}

/*
 * Where a draft may be cut: before the last hold bytes, before the last
 * word (it may grow into a token), and before an unfinished private key.
 */
static size_t
draftcut(const char *s, size_t n, size_t hold)
{
	size_t cut = n > hold ? n - hold : 0, i;
	const char *p, *q;

	/* back to the start of the word the cut falls in, or of the last
	 * word: a token may still grow */
	if (cut == n)
		cut = n - 1 + (n == 0);
	for (i = cut; i > 0 && s[i - 1] != ' ' && s[i - 1] != '\n' &&
	    s[i - 1] != '\t'; i--)
		;
	cut = i;
	/* "-----BEGIN ... PRIVATE KEY-----" with no END after it */
	for (p = s; (q = memmem(p, n - (size_t)(p - s), "-----BEGIN", 10));
	    p = q + 10)
		if (!memmem(q, n - (size_t)(q - s), "-----END", 8) &&
		    (size_t)(q - s) < cut)
			cut = (size_t)(q - s);
	return oxi_utf8_cut(s, n, cut);
}

/* the views of the text, scanned by the known sets and the rules */
static int
scan(const struct oxi_leak *lk, struct oxi_kscan *ks, struct oxi_kscan *kc,
    const struct oxi_view *root, struct oxi_leak_res *res)
{
	struct oxi_view v[OXI_DEC_DEPTH + 1], x = OXI_VIEW_INIT,
	    y = OXI_VIEW_INIT;
	int nv = 0, i, rc = 0;

	memset(v, 0, sizeof v);
	if (oxi_view_fold(root, &v[0]) < 0) {
		res->err = "the text could not be folded";
		return -1;
	}
	for (nv = 1; nv <= OXI_DEC_DEPTH; nv++) {
		if (!oxi_view_decode_next(&v[nv - 1], &x))
			break;
		/* only what changed, with some context, is scanned again */
		oxi_view_window(&x, &y, WINDOW);
		if (oxi_view_fold(&y, &v[nv]) < 0) {
			res->err = "a decoded text could not be folded";
			rc = -1;
			nv++;
			goto out;
		}
	}
	for (i = 0; i < nv && rc == 0; i++) {
		if (oxi_kscan_view(ks, kc, &v[i]) < 0) {
			res->err = "too many pieces of secrets to judge";
			rc = -1;
		} else if (oxi_srules_scan(lk->rules, &v[i], &res->hits) < 0) {
			res->err = "a rule hit its match limit";
			rc = -1;
		}
	}
	/*
	 * The rules only: V0 backwards, in ROT13, with spaced letters
	 * joined.  Not in a text of more than EXTRA_MAX bytes (a tool's
	 * output): the secrets configured are found in those spellings
	 * anyway (known.c), the rules' findings only in the text as it is.
	 */
	if (rc == 0 && lk->rules && v[0].b.len <= EXTRA_MAX) {
		if (oxi_srules_wants(lk->rules, &v[0], 1) &&
		    oxi_view_reverse(&v[0], &y) &&
		    oxi_srules_scan(lk->rules, &y, &res->hits) < 0)
			rc = -1;
		if (rc == 0 && oxi_srules_wants(lk->rules, &v[0], 2) &&
		    oxi_view_rot13(&v[0], &y) &&
		    oxi_srules_scan(lk->rules, &y, &res->hits) < 0)
			rc = -1;
		if (rc == 0 && oxi_view_join(&v[0], &y) &&
		    oxi_srules_scan(lk->rules, &y, &res->hits) < 0)
			rc = -1;
		if (rc < 0)
			res->err = "a rule hit its match limit";
	}
out:
	for (i = 0; i < nv; i++)
		oxi_view_free(&v[i]);
	oxi_view_free(&x);
	oxi_view_free(&y);
	return rc;
}

int
oxi_leak_text(const struct oxi_leak *lk, const struct oxi_known *canary,
    struct oxi_shown *shown, const char *s, size_t n, unsigned flags,
    size_t hold, struct oxi_leak_res *res)
{
	struct oxi_view root = OXI_VIEW_INIT;
	struct oxi_kscan ks, kc;
	struct edits e = { NULL, 0, 0 };
	struct edit *d;
	size_t i, at, cut = n, lo, hi;
	const char *rep;
	int rc, red;

	oxi_buf_reset(&res->out);
	res->hits.n = 0;
	res->nsecret = res->ncanary = res->nlinks = res->npaths = 0;
	res->held = 0;
	res->err = NULL;
	if (n >= UINT32_MAX) {
		res->err = "the text is too long to judge";
		return -1;
	}
	oxi_view_root(&root, s, n);
	oxi_kscan_init(&ks, lk->known, shown);
	oxi_kscan_init(&kc, canary, NULL);
	rc = scan(lk, &ks, &kc, &root, res);
	oxi_view_free(&root);
	if (rc < 0)
		goto done;
	oxi_kscan_done(&ks, &res->hits);
	oxi_kscan_done(&kc, &res->hits);
	for (i = 0; i < res->hits.n; i++) {
		if (res->hits.v[i].kind == OXI_HIT_CANARY)
			res->ncanary++;
		editadd(&e, res->hits.v[i].lo, res->hits.v[i].hi, REDACTED, 0);
	}
	if (flags & OXI_LEAK_TEXT) {
		res->nlinks = links(s, n, flags & OXI_LEAK_TAINT, &res->hits,
		    &e);
		res->npaths = homes(s, n, lk->home, &e);
	}
	if (flags & OXI_LEAK_DRAFT)
		cut = draftcut(s, n, hold);
	if (e.n > 1)
		qsort(e.v, e.n, sizeof *e.v, editcmp);
	/* rebuild: overlapping edits are one, a redaction wins */
	at = 0;
	for (i = 0; i < e.n; i = i) {
		d = &e.v[i];
		lo = d->lo;
		hi = d->hi;
		red = d->kind == 0;
		rep = d->rep;
		for (i++; i < e.n && e.v[i].lo < hi; i++) {
			/* a link removed whole takes what is inside it */
			if (e.v[i].kind == 0 && !red && (e.v[i].hi > hi ||
			    d->kind != 1)) {
				red = 1;
				rep = REDACTED;
			}
			if (e.v[i].hi > hi)
				hi = e.v[i].hi;
		}
		if (lo < at)
			lo = at;
		if (lo >= cut)
			break;
		if (hi > cut) {
			cut = lo;
			break;
		}
		oxi_buf_cat(&res->out, s + at, lo - at);
		oxi_buf_cats(&res->out, rep);
		at = hi;
		if (red)
			res->nsecret++;
	}
	if (at < cut)
		oxi_buf_cat(&res->out, s + at, cut - at);
	res->held = n - cut;
	oxi_kscan_note(&ks, shown, (uint32_t)cut);
	rc = e.n > 0 || cut < n;
done:
	if (rc >= 0 && res->out.s == NULL)
		oxi_buf_cat(&res->out, "", 0);
	oxi_kscan_free(&ks);
	oxi_kscan_free(&kc);
	free(e.v);
	return rc;
}
