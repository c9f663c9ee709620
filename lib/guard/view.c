/*
 * view.c - the views of a text for the leak scanner, and what is found
 * in them: a view is bytes, and for each byte the span of the original
 * it stands for (none for the original itself); the original folded
 * (fold.c), reversed, in ROT13, with its spaced letters joined.  The
 * decoded views are decode.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

void
oxi_view_need(struct oxi_view *v, size_t extra)
{
	size_t want = v->b.len + extra + 1;

	if (want <= v->cap)
		return;
	v->cap = want < 64 ? 64 : want;
	if (v->cap < want * 3 / 2)
		v->cap = want * 3 / 2;
	v->lo = xrealloc(v->lo, v->cap * sizeof *v->lo);
	v->hi = xrealloc(v->hi, v->cap * sizeof *v->hi);
}

/* appends s[0..n), every byte standing for [lo, hi) */
void
oxi_view_put(struct oxi_view *v, const void *s, size_t n, uint32_t lo,
    uint32_t hi)
{
	size_t i;

	oxi_view_need(v, n);
	for (i = 0; i < n; i++) {
		v->lo[v->b.len + i] = lo;
		v->hi[v->b.len + i] = hi;
	}
	oxi_buf_cat(&v->b, s, n);
}

/* appends bytes [i, j) of in with their own spans */
void
oxi_view_copy(struct oxi_view *v, const struct oxi_view *in, size_t i,
    size_t j)
{
	if (j <= i)
		return;
	size_t k;

	oxi_view_need(v, j - i);
	if (!in->lo)	/* the original: each byte its own */
		for (k = i; k < j; k++) {
			v->lo[v->b.len + k - i] = (uint32_t)k;
			v->hi[v->b.len + k - i] = (uint32_t)k + 1;
		}
	else {
		memcpy(v->lo + v->b.len, in->lo + i, (j - i) * sizeof *v->lo);
		memcpy(v->hi + v->b.len, in->hi + i, (j - i) * sizeof *v->hi);
	}
	oxi_buf_cat(&v->b, in->b.s + i, j - i);
}

void
oxi_view_start(struct oxi_view *out, const struct oxi_view *in)
{
	out->nchg = 0;
	oxi_buf_reset(&out->b);
	oxi_buf_grow(&out->b, in->b.len + 1);
	out->b.s[0] = '\0';
	oxi_view_need(out, in->b.len);
	out->how = in->how;
	out->depth = in->depth;
}

void
oxi_view_root(struct oxi_view *v, const char *s, size_t n)
{
	/* no spans: each byte stands for itself (lo and hi NULL) */
	oxi_buf_reset(&v->b);
	free(v->lo);
	free(v->hi);
	v->lo = v->hi = NULL;
	v->cap = 0;
	oxi_buf_cat(&v->b, s, n);
	if (!v->b.s)
		oxi_buf_cat(&v->b, "", 0);
	v->how = 0;
	v->depth = 0;
}

void
oxi_view_free(struct oxi_view *v)
{
	free(v->chg);
	v->chg = NULL;
	v->nchg = v->capchg = 0;
	oxi_buf_free(&v->b);
	free(v->lo);
	free(v->hi);
	v->lo = v->hi = NULL;
	v->cap = 0;
}

void
oxi_hits_add(struct oxi_hits *h, const struct oxi_hit *x)
{
	size_t i;

	/* a later view finds again what an earlier one found */
	for (i = h->n; i-- > 0 && h->n - i < 4096;)
		if (h->v[i].lo == x->lo && h->v[i].hi == x->hi &&
		    h->v[i].kind == x->kind && h->v[i].idx == x->idx)
			return;
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->v = xrealloc(h->v, h->cap * sizeof *h->v);
	}
	h->v[h->n++] = *x;
}

void
oxi_hits_free(struct oxi_hits *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

int
oxi_view_fold(const struct oxi_view *in, struct oxi_view *out)
{
	struct oxi_fold f = OXI_FOLD_INIT;
	size_t i, n, end;

	oxi_fold(&f, in->b.s ? in->b.s : "", in->b.len, OXI_FOLD_SPACE |
	    OXI_FOLD_WIDTH | OXI_FOLD_CONFUSE | OXI_FOLD_MAP);
	oxi_view_start(out, in);
	n = f.out.len;
	oxi_view_need(out, n);
	/* the end of the input a byte came from: the next larger offset */
	end = in->b.len;
	for (i = n; i-- > 0;) {
		if (i + 1 < n && f.map[i + 1] > f.map[i])
			end = f.map[i + 1];
		else if (i + 1 == n)
			end = f.map[n] > f.map[i] ? f.map[n] : in->b.len;
		if (f.map[i] >= in->b.len || end == 0) {
			oxi_fold_free(&f);
			return -1;
		}
		out->lo[i] = in->lo ? in->lo[f.map[i]] : (uint32_t)f.map[i];
		out->hi[i] = in->hi ? in->hi[end - 1] : (uint32_t)end;
	}
	oxi_buf_cat(&out->b, f.out.s ? f.out.s : "", n);
	oxi_fold_free(&f);
	return 0;
}

int
oxi_view_reverse(const struct oxi_view *in, struct oxi_view *out)
{
	const char *t = in->b.s ? in->b.s : "";
	size_t n = in->b.len, j = n, k, at = 0;

	oxi_view_start(out, in);
	oxi_view_need(out, n);
	while (j > 0) {
		k = j - 1;
		while (k > 0 && ((unsigned char)t[k] & 0xc0) == 0x80 &&
		    j - k < 4)
			k--;
		memcpy(out->b.s + at, t + k, j - k);
		memcpy(out->lo + at, in->lo + k, (j - k) * sizeof *out->lo);
		memcpy(out->hi + at, in->hi + k, (j - k) * sizeof *out->hi);
		at += j - k;
		j = k;
	}
	out->b.len = n;
	out->b.s[n] = '\0';
	return n > 1;
}

int
oxi_view_rot13(const struct oxi_view *in, struct oxi_view *out)
{
	size_t i;
	char *s;
	int any = 0;

	oxi_view_start(out, in);
	oxi_view_copy(out, in, 0, in->b.len);
	s = out->b.s;
	for (i = 0; i < out->b.len; i++)
		if (s[i] >= 'a' && s[i] <= 'z') {
			s[i] = (char)('a' + (s[i] - 'a' + 13) % 26);
			any = 1;
		} else if (s[i] >= 'A' && s[i] <= 'Z') {
			s[i] = (char)('A' + (s[i] - 'A' + 13) % 26);
			any = 1;
		}
	return any;
}

/* is t[i] white space between the letters of a spaced word? */
static size_t
gap(const char *t, size_t n, size_t i)
{
	if (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n'))
		return 1;
	if (i + 1 < n && t[i] == '\r' && t[i + 1] == '\n')
		return 2;
	return 0;
}

int
oxi_view_join(const struct oxi_view *in, struct oxi_view *out)
{
	const char *t = in->b.s ? in->b.s : "";
	size_t n = in->b.len, i = 0, j, k, g, cnt;
	unsigned char c;
	int any = 0;

	/* quick: is there a run like "a b c d e f g h" at all?  A word of
	 * one byte between white space counts, a longer one starts over */
	for (i = 0, cnt = 0, k = 0; i < n && cnt < 8; i++) {
		c = (unsigned char)t[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (k == 1)
				cnt++;
			else if (k > 1)
				cnt = 0;
			k = 0;
		} else if ((c & 0xc0) != 0x80)
			k++;
	}
	if (k == 1)
		cnt++;
	if (cnt < 8)
		return 0;
	i = 0;
	oxi_view_start(out, in);
	while (i < n) {
		/* single characters, each followed by one gap */
		cnt = 0;
		j = i;
		while (j < n && !gap(t, n, j)) {
			k = oxi_utf8_seq(t + j, n - j);
			if (k == 0)
				k = 1;
			if (j + k < n && !gap(t, n, j + k))
				break;
			cnt++;
			g = gap(t, n, j + k);
			if (g == 0 || j + k + g >= n || gap(t, n, j + k + g)) {
				j += k;
				break;
			}
			j += k + g;
		}
		if (cnt >= 8) {
			for (k = i; k < j; k++)
				if (!gap(t, n, k) && t[k] != '\r')
					oxi_view_copy(out, in, k, k + 1);
			any = 1;
			i = j;
			continue;
		}
		oxi_view_copy(out, in, i, i + 1);
		i++;
	}
	return any;
}
