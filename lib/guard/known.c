/*
 * known.c - values known in advance (the secrets configured, a session's
 * canary) found in a text however they are spelled
 *
 * A value is reduced to its skeleton: its ASCII letters and digits, in
 * lower case ("sk-Test_42" is "sktest42"); so is each view of the text.
 * Separators, invisible characters, markdown emphasis, line breaks and
 * case then make no difference, and folding (fold.c) and decoding
 * (decode.c) have already undone the other spellings.  The skeleton is
 * looked for forwards, backwards, in ROT13 and both, through an index of
 * its Q-grams, and found in pieces: a piece of at least half the value
 * (at least 8 characters, or all of a shorter value) is a leak by
 * itself, and so are pieces of a quarter or more that together cover
 * half of it, in one text or, for a reply sent as drafts, in all the
 * texts of the reply so far (struct oxi_shown).  A value whose skeleton
 * is too short to be safe is matched with its punctuation instead (the
 * light form: all but white space, in lower case).
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#define Q		6	/* letters of an index gram */
#define SKEL_MIN	8	/* a skeleton at least this long */
#define LIGHT_MIN	6	/* else a light form at least this long */
#define NVAR		4	/* forwards, backwards, ROT13, both */
#define MAXPIECES	65536	/* pieces in one text: more fails closed */

struct kval {
	char *var[NVAR];	/* the skeleton in each variant */
	size_t n;		/* its length */
	size_t bytes;		/* the value's length in bytes */
	int kind;		/* OXI_HIT_SECRET or OXI_HIT_CANARY */
	int light;		/* matched in the light form */
	size_t m;		/* a piece this long is a leak */
	size_t q;		/* pieces shorter do not count */
};

struct ent {
	uint64_t key;		/* the gram, its bytes packed */
	uint32_t val;		/* the value */
	uint16_t var;		/* the variant */
	uint16_t used;		/* the slot is taken */
	uint32_t off;		/* where the gram starts in the variant */
};

struct tab {
	struct ent *e;		/* open addressing, linear probing */
	size_t size;		/* a power of two, or 0 */
	size_t n;		/* slots used */
};

struct oxi_known {
	struct kval *v;
	size_t n, cap;
	struct tab skel, light;	/* the grams of each form */
	size_t maxlen;
};

/* a reply's shown pieces: per value, a bit per skeleton letter */
struct oxi_shown {
	unsigned char **bits;
	size_t n;
};

static size_t
slot(const struct tab *t, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (t->size - 1);
}

static void
tabput(struct tab *t, const struct ent *e)
{
	struct ent *old = t->e;
	size_t oldsize = t->size, i, k;

	if ((t->n + 1) * 2 > t->size) {
		t->size = t->size ? t->size * 2 : 256;
		t->e = xcalloc(t->size, sizeof *t->e);
		t->n = 0;
		for (i = 0; i < oldsize; i++)
			if (old[i].used)
				tabput(t, &old[i]);
		free(old);
	}
	for (k = slot(t, e->key); t->e[k].used; k = (k + 1) & (t->size - 1))
		;
	t->e[k] = *e;
	t->e[k].used = 1;
	t->n++;
}

struct oxi_known *
oxi_known_new(void)
{
	return xcalloc(1, sizeof(struct oxi_known));
}

size_t
oxi_known_count(const struct oxi_known *k)
{
	return k ? k->n : 0;
}

size_t
oxi_known_maxlen(const struct oxi_known *k)
{
	return k ? k->maxlen : 0;
}

/* the skeleton character of c, or 0 if it has none */
static int
skelc(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 'a';
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
		return c;
	return 0;
}

/* the light form's character of c, or 0 */
static int
lightc(unsigned char c)
{
	if (c <= ' ' || c == 0x7f)
		return 0;
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int
rot13(int c)
{
	if (c >= 'a' && c <= 'z')
		return 'a' + (c - 'a' + 13) % 26;
	return c;
}

int
oxi_known_add(struct oxi_known *k, const char *s, size_t n, int kind)
{
	struct kval *v;
	struct tab *t;
	struct ent e;
	char *sk;
	size_t i, len = 0, o;
	int light = 0, j;

	sk = xmalloc(n + 1);
	for (i = 0; i < n; i++)
		if (skelc((unsigned char)s[i]))
			sk[len++] = (char)skelc((unsigned char)s[i]);
	if (len < SKEL_MIN) {
		light = 1;
		for (len = 0, i = 0; i < n; i++)
			if (lightc((unsigned char)s[i]))
				sk[len++] = (char)lightc((unsigned char)s[i]);
		if (len < LIGHT_MIN) {
			oxi_wipe(sk, n + 1);
			free(sk);
			return -1;
		}
	}
	sk[len] = '\0';
	for (i = 0; i < k->n; i++)
		if (k->v[i].n == len && k->v[i].light == light &&
		    memcmp(k->v[i].var[0], sk, len) == 0) {
			if (kind == OXI_HIT_CANARY)
				k->v[i].kind = kind;
			oxi_wipe(sk, n + 1);
			free(sk);
			return (int)i;
		}
	if (k->n == k->cap) {
		struct kval *nv;

		k->cap = k->cap ? k->cap * 2 : 8;
		nv = xcalloc(k->cap, sizeof *nv);
		if (k->n)
			memcpy(nv, k->v, k->n * sizeof *nv);
		free(k->v);
		k->v = nv;
	}
	v = &k->v[k->n];
	memset(v, 0, sizeof *v);
	v->n = len;
	v->bytes = n;
	v->kind = kind;
	v->light = light;
	v->var[0] = sk;
	for (j = 1; j < NVAR; j++) {
		v->var[j] = xmalloc(len + 1);
		for (i = 0; i < len; i++) {
			int c = (unsigned char)sk[j & 1 ? len - 1 - i : i];

			v->var[j][i] = (char)(j & 2 ? rot13(c) : c);
		}
		v->var[j][len] = '\0';
	}
	if (light || len < 2 * SKEL_MIN)
		v->m = len < SKEL_MIN ? len : SKEL_MIN;
	else
		v->m = len / 2;
	if (kind == OXI_HIT_CANARY && v->m > 10)
		v->m = 10;
	v->q = len / 4 > Q ? (len + 3) / 4 : Q;
	if (v->q > v->m)
		v->q = v->m;
	t = light ? &k->light : &k->skel;
	for (j = 0; j < NVAR; j++)
		for (o = 0; o + Q <= len; o++) {
			memset(&e, 0, sizeof e);
			for (i = 0; i < Q; i++)
				e.key = e.key << 8 | (unsigned char)v->var[j][o + i];
			e.val = (uint32_t)k->n;
			e.var = (uint16_t)j;
			e.off = (uint32_t)o;
			tabput(t, &e);
		}
	if (n > k->maxlen)
		k->maxlen = n;
	return (int)k->n++;
}

void
oxi_known_free(struct oxi_known *k)
{
	size_t i;
	int j;

	if (!k)
		return;
	for (i = 0; i < k->n; i++)
		for (j = 0; j < NVAR; j++) {
			oxi_wipe(k->v[i].var[j], k->v[i].n);
			free(k->v[i].var[j]);
		}
	free(k->v);
	if (k->skel.e)
		oxi_wipe(k->skel.e, k->skel.size * sizeof *k->skel.e);
	if (k->light.e)
		oxi_wipe(k->light.e, k->light.size * sizeof *k->light.e);
	free(k->skel.e);
	free(k->light.e);
	free(k);
}

struct oxi_shown *
oxi_shown_new(const struct oxi_known *k)
{
	struct oxi_shown *s = xcalloc(1, sizeof *s);

	s->n = oxi_known_count(k);
	s->bits = xcalloc(s->n ? s->n : 1, sizeof *s->bits);
	return s;
}

void
oxi_shown_free(struct oxi_shown *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->bits[i]);
	free(s->bits);
	free(s);
}

/* sets bits [a, b) of a value's map, allocated as needed */
static void
setbits(unsigned char **map, size_t n, size_t a, size_t b)
{
	if (!*map)
		*map = xcalloc((n + 7) / 8, 1);
	for (; a < b; a++)
		(*map)[a / 8] |= (unsigned char)(1 << (a % 8));
}

static size_t
countbits(const unsigned char *x, const unsigned char *y, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		if ((x && (x[i / 8] >> (i % 8) & 1)) ||
		    (y && (y[i / 8] >> (i % 8) & 1)))
			c++;
	return c;
}

void
oxi_kscan_init(struct oxi_kscan *ks, const struct oxi_known *k,
    const struct oxi_shown *shown)
{
	memset(ks, 0, sizeof *ks);
	ks->k = k;
	ks->shown = shown && shown->n == oxi_known_count(k) ? shown : NULL;
	if (k && k->n) {
		ks->cov = xcalloc(k->n, sizeof *ks->cov);
		ks->longest = xcalloc(k->n, sizeof *ks->longest);
	}
}

static int
addpiece(struct oxi_kscan *ks, const struct oxi_piece *p)
{
	struct oxi_piece *last;

	if (ks->n > 0) {
		/* overlaps the last piece of the same value: one span */
		last = &ks->v[ks->n - 1];
		if (last->val == p->val && last->view == p->view &&
		    p->lo < last->hi) {
			if (p->hi > last->hi)
				last->hi = p->hi;
			return 0;
		}
	}
	if (ks->n == MAXPIECES)
		return -1;
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 16;
		ks->v = xrealloc(ks->v, ks->cap * sizeof *ks->v);
	}
	ks->v[ks->n++] = *p;
	return 0;
}

/* the skeleton (or light form) of a view, with each letter's offset */
static size_t
skeleton(const struct oxi_view *v, int light, char *out, uint32_t *idx)
{
	size_t i, n = 0;
	int c;

	for (i = 0; i < v->b.len; i++) {
		/* a NUL parts the windows of a view: no piece crosses it */
		c = v->b.s[i] == '\0' ? 1 : light ?
		    lightc((unsigned char)v->b.s[i]) :
		    skelc((unsigned char)v->b.s[i]);
		if (c) {
			out[n] = (char)c;
			idx[n++] = (uint32_t)i;
		}
	}
	return n;
}

static int
scanform(struct oxi_kscan *ks, const struct oxi_view *v, int light,
    int view, const char *t, const uint32_t *idx, size_t n)
{
	const struct oxi_known *k = ks->k;
	const struct tab *tb = light ? &k->light : &k->skel;
	const struct ent *e;
	const struct kval *kv;
	struct oxi_piece p;
	const char *s;
	uint64_t key = 0;
	size_t i, h, len, o, a;

	if (!k || tb->n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		key = (key << 8 | (unsigned char)t[i]) & 0xffffffffffffULL;
		if (i + 1 < Q)
			continue;
		a = i + 1 - Q;		/* the gram t[a..a+Q) */
		for (h = slot(tb, key); tb->e[h].used;
		    h = (h + 1) & (tb->size - 1)) {
			e = &tb->e[h];
			if (e->key != key)
				continue;
			kv = &k->v[e->val];
			s = kv->var[e->var];
			o = e->off;
			/* only where the common run starts */
			if (a > 0 && o > 0 && t[a - 1] == s[o - 1])
				continue;
			for (len = Q; a + len < n && o + len < kv->n &&
			    t[a + len] == s[o + len]; len++)
				;
			if (len < kv->q)
				continue;
			if (len > ks->longest[e->val])
				ks->longest[e->val] = len;
			/* the letters of the value it shows */
			if (e->var & 1)
				setbits(&ks->cov[e->val], kv->n,
				    kv->n - o - len, kv->n - o);
			else
				setbits(&ks->cov[e->val], kv->n, o, o + len);
			memset(&p, 0, sizeof p);
			p.val = e->val;
			p.view = view;
			oxi_view_span(v, idx[a], idx[a + len - 1] + 1, &p.lo,
			    &p.hi);
			p.depth = v->depth;
			if (addpiece(ks, &p) < 0)
				return -1;
		}
	}
	return 0;
}

/* does ks look for values of the light form (light) or the other? */
static int
wants(const struct oxi_kscan *ks, int light)
{
	return ks && ks->k && (light ? ks->k->light.n : ks->k->skel.n) > 0;
}

int
oxi_kscan_view(struct oxi_kscan *ks, struct oxi_kscan *ks2,
    const struct oxi_view *v)
{
	char *t;
	uint32_t *idx;
	size_t n;
	int r = 0, light;

	if ((!wants(ks, 0) && !wants(ks, 1) && !wants(ks2, 0) &&
	    !wants(ks2, 1)) || v->b.len == 0)
		return 0;
	/* the skeleton once, for both sets */
	t = xmalloc(v->b.len + 1);
	idx = xmalloc((v->b.len + 1) * sizeof *idx);
	for (light = 0; light < 2 && r == 0; light++) {
		if (!wants(ks, light) && !wants(ks2, light))
			continue;
		n = skeleton(v, light, t, idx);
		if (wants(ks, light))
			r = scanform(ks, v, light, ks->views, t, idx, n);
		if (r == 0 && wants(ks2, light))
			r = scanform(ks2, v, light, ks2->views, t, idx, n);
	}
	if (ks)
		ks->views++;
	if (ks2)
		ks2->views++;
	oxi_wipe(t, v->b.len);
	free(t);
	free(idx);
	return r;
}

void
oxi_kscan_done(struct oxi_kscan *ks, struct oxi_hits *hits)
{
	const struct oxi_known *k = ks->k;
	const struct kval *kv;
	struct oxi_hit h;
	size_t i, c;

	for (i = 0; i < ks->n; i++) {
		kv = &k->v[ks->v[i].val];
		c = countbits(ks->cov[ks->v[i].val], ks->shown ?
		    ks->shown->bits[ks->v[i].val] : NULL, kv->n);
		ks->v[i].hit = ks->longest[ks->v[i].val] >= kv->m ||
		    c >= kv->m;
		if (!ks->v[i].hit)
			continue;
		memset(&h, 0, sizeof h);
		h.lo = ks->v[i].lo;
		h.hi = ks->v[i].hi;
		h.kind = kv->kind;
		h.idx = (int)ks->v[i].val;
		h.depth = ks->v[i].depth;
		oxi_hits_add(hits, &h);
	}
}

void
oxi_kscan_note(const struct oxi_kscan *ks, struct oxi_shown *shown,
    uint32_t cut)
{
	const struct oxi_known *k = ks->k;
	size_t i, j, n;

	if (!shown || !k || shown->n != k->n)
		return;
	/* a value with a piece sent: what this text showed of it counts */
	for (i = 0; i < ks->n; i++) {
		if (ks->v[i].hit || ks->v[i].lo >= cut)
			continue;
		j = ks->v[i].val;
		n = k->v[j].n;
		if (!shown->bits[j])
			shown->bits[j] = xcalloc((n + 7) / 8, 1);
		for (n = 0; n < (k->v[j].n + 7) / 8; n++)
			shown->bits[j][n] |= ks->cov[j][n];
	}
}

void
oxi_kscan_free(struct oxi_kscan *ks)
{
	size_t i;

	if (ks->cov)
		for (i = 0; i < ks->k->n; i++)
			free(ks->cov[i]);
	free(ks->cov);
	free(ks->longest);
	free(ks->v);
	memset(ks, 0, sizeof *ks);
}
