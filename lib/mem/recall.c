/*
 * recall.c - finding again: the facts of one person and the episodes of
 * one conversation relevant to a text, by words (FTS5, bm25), by meaning
 * (the cosine of unit vectors, an exact scan of the person's rows) or
 * both, the two rankings merged by reciprocal rank fusion, weighed by
 * the decayed confidence, and cut to k and to a budget of tokens.
 *
 * The scope is in every statement's WHERE: a row of another person or
 * another conversation is never read, so it cannot be returned.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "mem/memint.h"

#define RRF_K	60		/* the constant of reciprocal rank fusion */
#define POOL	50		/* candidates each ranking brings */

struct cand {
	long long id;
	double fused;		/* reciprocal rank fusion */
	double weight;		/* decayed confidence (1 for episodes) */
	jv row;			/* what the answer shows */
};

struct pool {
	struct cand *c;
	int n, cap;
};

char *
oxi_mem_ftsq(const char *text, int and)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const unsigned char *s = (const unsigned char *)text, *w;
	int words = 0;

	while (*s) {
		if (!isalnum(*s) && *s < 0x80) {
			s++;
			continue;
		}
		for (w = s; *s && (isalnum(*s) || *s >= 0x80 || *s == '\''); s++)
			;
		if (s - w < 2)
			continue;
		if (words++ > 0)
			oxi_buf_cats(&b, and ? " AND " : " OR ");
		oxi_buf_putc(&b, '"');
		for (; w < s; w++)
			if (*w != '\'')
				oxi_buf_putc(&b, *w);
		oxi_buf_putc(&b, '"');
		if (words >= 64)
			break;
	}
	if (!words) {
		oxi_buf_free(&b);
		return NULL;
	}
	oxi_buf_putc(&b, '\0');
	return b.s;
}

/* the candidate of id in p, added with row (consumed) if new */
static struct cand *
cand(struct pool *p, long long id, jv row, double weight)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->c[i].id == id) {
			jv_free(row);
			return &p->c[i];
		}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->c = xrealloc(p->c, p->cap * sizeof *p->c);
	}
	p->c[p->n].id = id;
	p->c[p->n].fused = 0;
	p->c[p->n].weight = weight;
	p->c[p->n].row = row;
	return &p->c[p->n++];
}

/* the row of a fact or an episode from the columns id, uid or session,
 * text, confidence, confirmed of st */
static jv
row(struct oxi_mem *m, sqlite3_stmt *st, int fact, double *weight)
{
	const char *text = (const char *)sqlite3_column_text(st, 2);
	jv r;

	if (!fact) {
		*weight = 1;
		return JV_OBJECT(jv_string("session"), jv_string((const char *)
		    sqlite3_column_text(st, 1)), jv_string("text"),
		    jv_string(text));
	}
	*weight = oxi_mem_decayed(m, sqlite3_column_double(st, 3),
	    sqlite3_column_int64(st, 4));
	r = JV_OBJECT(jv_string("fact"), jv_string((const char *)
	    sqlite3_column_text(st, 1)), jv_string("text"), jv_string(text),
	    jv_string("confidence"), jv_number(round(*weight * 1000) / 1000));
	return r;
}

/* the words ranking: its candidates' fused scores in p */
static int
words(struct oxi_mem *m, struct pool *p, const char *scope, int fact,
    const char *query)
{
	static const char *const sql[2] = {
		"SELECT e.id, e.session, e.text, 1, 0 FROM episodes_fts "
		"JOIN episodes e ON e.id = episodes_fts.rowid "
		"WHERE episodes_fts MATCH ?1 AND e.conv = ?2 "
		"ORDER BY bm25(episodes_fts) LIMIT ?3",
		"SELECT f.id, f.uid, f.text, f.confidence, f.confirmed "
		"FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
		"WHERE facts_fts MATCH ?1 AND f.person = ?2 AND "
		"f.superseded_by IS NULL ORDER BY bm25(facts_fts) LIMIT ?3"
	};
	sqlite3_stmt *st;
	char *q = oxi_mem_ftsq(query, 0);
	double w;
	int rank = 0, rc;
	jv r;

	if (!q)
		return 0;
	if (sqlite3_prepare_v2(m->db, sql[fact], -1, &st, NULL) != SQLITE_OK) {
		free(q);
		return -1;
	}
	sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, POOL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = row(m, st, fact, &w);	/* sets w before cand reads it */
		cand(p, sqlite3_column_int64(st, 0), r, w)->fused +=
		    1.0 / (RRF_K + ++rank);
	}
	sqlite3_finalize(st);
	free(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

struct near {
	long long id;
	double d;
};

/* keeps id at d among the POOL nearest in top (n of them, best first) */
static void
keep(struct near *top, int *n, long long id, double d)
{
	int i;

	if (*n == POOL && d <= top[*n - 1].d)
		return;
	i = *n < POOL ? (*n)++ : *n - 1;
	for (; i > 0 && top[i - 1].d < d; i--)
		top[i] = top[i - 1];
	top[i].id = id;
	top[i].d = d;
}

/* v as int8 into q, its scale returned */
static float
quantize(const float *v, int dim, signed char *q)
{
	float max = 0, s;
	int i;

	for (i = 0; i < dim; i++)
		if (fabsf(v[i]) > max)
			max = fabsf(v[i]);
	s = max > 0 ? max / 127 : 1;
	for (i = 0; i < dim; i++)
		q[i] = (signed char)lrintf(v[i] / s);
	return s;
}

/*
 * The fact vectors of person, dim wide, in m->cache as int8: loaded
 * once and kept until a write (m->gen), a quarter of the floats' size,
 * scanned without SQLite.  0, or -1.
 */
static int
load(struct oxi_mem *m, const char *person, int dim)
{
	sqlite3_stmt *st;
	long cap = 0;
	int rc;

	if (m->cache.person && strcmp(m->cache.person, person) == 0 &&
	    m->cache.dim == dim && m->cache.gen == m->gen)
		return 0;
	free(m->cache.person);
	m->cache.person = NULL;
	m->cache.n = 0;
	if (sqlite3_prepare_v2(m->db, "SELECT id, vec FROM facts WHERE person "
	    "= ?1 AND superseded_by IS NULL AND length(vec) = ?2", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, dim * (int)sizeof(float));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->cache.n == cap) {
			cap = cap ? cap * 2 : 1024;
			m->cache.ids = xrealloc(m->cache.ids, cap *
			    sizeof *m->cache.ids);
			m->cache.scale = xrealloc(m->cache.scale, cap *
			    sizeof *m->cache.scale);
			m->cache.q = xrealloc(m->cache.q, (size_t)cap * dim);
		}
		m->cache.ids[m->cache.n] = sqlite3_column_int64(st, 0);
		m->cache.scale[m->cache.n] = quantize(sqlite3_column_blob(st,
		    1), dim, m->cache.q + (size_t)m->cache.n * dim);
		m->cache.n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	m->cache.person = xstrdup(person);
	m->cache.dim = dim;
	m->cache.gen = m->gen;
	return 0;
}

/* the POOL facts of person nearest v by the int8 cosine, into top */
static int
nearq(struct oxi_mem *m, const char *person, const struct oxi_memvec *v,
    struct near *top, int *n)
{
	signed char *qv = xmalloc(v->dim), *q;
	float sv = quantize(v->v, v->dim, qv);
	long i;
	int j, acc;
	double d;

	if (load(m, person, v->dim) < 0) {
		free(qv);
		return -1;
	}
	for (i = 0; i < m->cache.n; i++) {
		q = m->cache.q + (size_t)i * v->dim;
		for (acc = 0, j = 0; j < v->dim; j++)
			acc += q[j] * qv[j];
		d = (double)acc * sv * m->cache.scale[i];
		/* the int8 cosine is within about 0.02 of the true one */
		if (d >= m->cfg.near - 0.05)
			keep(top, n, m->cache.ids[i], d);
	}
	free(qv);
	return 0;
}

/* the meaning ranking: the POOL nearest of the scope (facts from the
 * int8 cache, episodes by an exact scan), each scored again exactly,
 * their fused scores in p */
static int
vectors(struct oxi_mem *m, struct pool *p, const char *scope, int fact,
    const struct oxi_memvec *v)
{
	static const char *const one[2] = {
		"SELECT id, session, text, 1, 0, vec FROM episodes WHERE "
		"id = ?1 AND conv = ?2",
		"SELECT id, uid, text, confidence, confirmed, vec FROM facts "
		"WHERE id = ?1 AND person = ?2"
	};
	struct near top[POOL], best[POOL];
	long long ids[POOL];
	double ws[POOL];
	sqlite3_stmt *st;
	int n = 0, nb = 0, i, j, rc;
	jv rows[POOL];

	if (!v || v->dim <= 0)
		return 0;
	if (fact && nearq(m, scope, v, top, &n) < 0)
		return -1;
	if (!fact) {
		if (sqlite3_prepare_v2(m->db, "SELECT id, vec FROM episodes "
		    "WHERE conv = ?1 AND length(vec) = ?2", -1, &st, NULL) !=
		    SQLITE_OK)
			return -1;
		sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, v->dim * (int)sizeof(float));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			keep(top, &n, sqlite3_column_int64(st, 0),
			    oxi_memvec_dot(v->v, sqlite3_column_blob(st, 1),
			    v->dim));
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return -1;
	}
	if (sqlite3_prepare_v2(m->db, one[fact], -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, top[i].id);
		sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_bytes(st,
		    5) != v->dim * (int)sizeof(float))
			continue;
		/* the true cosine decides, and the order */
		top[i].d = oxi_memvec_dot(v->v, sqlite3_column_blob(st, 5),
		    v->dim);
		if (top[i].d < m->cfg.near)
			continue;
		rows[nb] = row(m, st, fact, &ws[nb]);
		ids[nb] = top[i].id;
		keep(best, &nb, nb, top[i].d);	/* by the true cosine */
	}
	sqlite3_finalize(st);
	for (i = 0; i < nb; i++) {
		j = (int)best[i].id;	/* an index of rows */
		cand(p, ids[j], rows[j], ws[j])->fused += 1.0 / (RRF_K + i + 1);
	}
	return 0;
}

static int
bycore(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	double sx = x->fused * x->weight, sy = y->fused * y->weight;

	return sx < sy ? 1 : sx > sy ? -1 : (x->id < y->id) - (x->id > y->id);
}

/* the k best of p by fused score times weight, above the floor, while
 * their text fits in *room bytes: an array, appended to text under head */
static jv
best(struct oxi_mem *m, struct pool *p, int k, long *room,
    struct oxi_buf *text, const char *head, int fact)
{
	jv a = jv_array(), r;
	int i, taken = 0;
	size_t len;

	qsort(p->c, p->n, sizeof *p->c, bycore);
	for (i = 0; i < p->n && taken < k; i++) {
		if (fact && p->c[i].weight < m->cfg.floor)
			continue;
		r = jv_copy(p->c[i].row);
		{
			jv t = jv_object_get(jv_copy(r), jv_string("text"));

			len = (size_t)jv_string_length_bytes(jv_copy(t)) + 3;
			if ((long)len > *room) {
				jv_free(t);
				jv_free(r);
				continue;
			}
			if (taken == 0)
				oxi_buf_cats(text, head);
			oxi_buf_cats(text, "\n- ");
			oxi_buf_cats(text, jv_string_value(t));
			jv_free(t);
		}
		*room -= (long)len;
		r = jv_object_set(r, jv_string("score"), jv_number(round(
		    p->c[i].fused * p->c[i].weight * 1e6) / 1e6));
		a = jv_array_append(a, r);
		taken++;
	}
	for (i = 0; i < p->n; i++)
		jv_free(p->c[i].row);
	free(p->c);
	p->c = NULL;
	p->n = p->cap = 0;
	return a;
}

jv
oxi_mem_recall(struct oxi_mem *m, const char *person, const char *conv,
    const char *query, const struct oxi_memvec *v, int mode, int k,
    long budget)
{
	struct pool p = { NULL, 0, 0 };
	struct oxi_buf text = OXI_BUF_INIT;
	long room = budget > 0 ? budget * 4 : 1L << 30;	/* ~4 bytes a token */
	jv facts = jv_invalid(), eps = jv_array(), r;
	int fact;

	for (fact = 1; fact >= 0; fact--) {
		if (!fact && !conv)
			break;
		if ((mode != OXI_MEM_VECTORS && words(m, &p, fact ? person :
		    conv, fact, query) < 0) || (mode != OXI_MEM_WORDS &&
		    vectors(m, &p, fact ? person : conv, fact, v) < 0)) {
			jv_free(eps);
			if (fact == 0)
				jv_free(facts);
			oxi_buf_free(&text);
			for (k = 0; k < p.n; k++)
				jv_free(p.c[k].row);
			free(p.c);
			return jv_invalid_with_msg(jv_string(oxi_mem_dberr(m)));
		}
		if (fact)
			facts = best(m, &p, k, &room, &text, "What you remember "
			    "of the person you are talking to (their own words "
			    "or your notes; they may be out of date):", 1);
		else {
			jv_free(eps);
			eps = best(m, &p, k, &room, &text, text.len ? "\n\n"
			    "From earlier conversations in this chat:" : "From "
			    "earlier conversations in this chat:", 0);
		}
	}
	r = JV_OBJECT(jv_string("facts"), facts, jv_string("episodes"), eps,
	    jv_string("text"), jv_string(text.s ? text.s : ""));
	oxi_buf_free(&text);
	return r;
}
