/*
 * memint.h - inside the memory wing: the store and what its files share.
 * store.c the database, its rows and their life (dedup, supersede,
 * forget, decay); memio.c export and import; recall.c the search:
 * words, vectors, fusion and the budget; memrec.c the mem.* records.
 * Included only by lib/mem/ and tests/unit/.
 */
#ifndef OXI_MEMINT_H
#define OXI_MEMINT_H

#include "mem/mem.h"

struct sqlite3;
struct sqlite3_stmt;

struct oxi_mem {
	struct sqlite3 *db;
	struct oxi_mem_cfg cfg;
	struct oxi_mem_ai ai;
	unsigned long gen;	/* bumped by every write (oxi_mem_done) */
	struct {		/* one person's fact vectors, int8 (recall.c) */
		char *person;	/* whose, or NULL */
		int dim;
		long n;
		long long *ids;
		signed char *q;	/* n * dim */
		float *scale;	/* n: q * scale is the vector */
		unsigned long gen;	/* gen when loaded */
	} cache;
};

/* a vector, unit length, as stored (float32, host order) */
struct oxi_memvec {
	float *v;
	int dim;		/* 0: none */
};

/* store.c */
long long oxi_mem_now(const struct oxi_mem *);
/* prepares sql: the statement, or NULL with *err */
struct sqlite3_stmt *oxi_mem_prep(struct oxi_mem *, const char *sql,
    const char **err);
/* binds s to parameter i, NULL when s is NULL or empty */
void oxi_mem_bind(struct sqlite3_stmt *, int i, const char *s);
/* steps st to its end and finalizes it: 0, or -1 with *err */
int oxi_mem_done(struct oxi_mem *, struct sqlite3_stmt *, const char **err);
/* v (an array of numbers, consumed) as a unit vector: 0, or -1 */
int oxi_memvec_from(jv v, struct oxi_memvec *);
jv oxi_memvec_json(const void *blob, int bytes);
double oxi_memvec_dot(const float *a, const float *b, int dim);
/* the vectors of texts through ai.embed, one per text, or NULL (no
 * embedder, or it failed: warned); free with oxi_memvec_freeall */
struct oxi_memvec *oxi_memvec_embed(struct oxi_mem *, jv texts, int n);
void oxi_memvec_freeall(struct oxi_memvec *, int n);
/*
 * Remembers text for person: a fact as close as cfg.dup to an active
 * one (or, without vectors, of the same words) confirms it; one with the
 * key of an active one replaces it (superseded, kept).  *action "new",
 * "confirmed", "replaced"; uid (27 bytes) the fact's, old the one
 * replaced ("" if none).  0, or -1 with *err.
 */
int oxi_mem_add(struct oxi_mem *, const char *person, const char *text,
    const char *key, const char *source, double conf,
    const struct oxi_memvec *, const char **action, char *uid, char *old,
    const char **err);
/* forgets the active facts of person: one by uid or number (what), those
 * of key, or all: the rows deleted (what they superseded too), -1 */
long oxi_mem_forget(struct oxi_mem *, const char *person, const char *fact,
    const char *key, int all, const char **err);
/* the active facts of person, newest first: [{fact,n,text,key,
 * confidence,confirmed}] or invalid */
jv oxi_mem_list(struct oxi_mem *, const char *person);
/* stores the episode of session in conversation conv (replacing an
 * earlier one of the session): 0, or -1 */
int oxi_mem_episode(struct oxi_mem *, const char *conv, const char *session,
    const char *text, const char *source, long long ts,
    const struct oxi_memvec *, const char **err);
/* tokens person spent on extraction today, add (may be 0) added */
long oxi_mem_spend(struct oxi_mem *, const char *person, long add);
const char *oxi_mem_dberr(struct oxi_mem *);
/* RFC 3339 of t into out[32]; t of an RFC 3339 string, or -1 */
void oxi_mem_rfc3339(long long t, char out[32]);
long long oxi_mem_parsetime(const char *);

/* recall.c */
enum { OXI_MEM_HYBRID, OXI_MEM_WORDS, OXI_MEM_VECTORS };
/*
 * The facts of person and the episodes of conv (NULL: none) relevant to
 * query, by mode: {"facts":[{fact,text,confidence,score}],
 * "episodes":[{session,text,score}],"text":...}: text the memory as the
 * system prompt shows it, within budget tokens; k per kind.  Invalid on
 * a database failure.
 */
jv oxi_mem_recall(struct oxi_mem *, const char *person, const char *conv,
    const char *query, const struct oxi_memvec *, int mode, int k,
    long budget);
/* the FTS5 query of text: its words quoted, joined by OR (and: AND),
 * or NULL if it has none; free it */
char *oxi_mem_ftsq(const char *text, int and);

#endif
