/*
 * mem.h - the memory wing: what oxi-mem remembers of people (facts) and
 * of conversations (episodes), in SQLite, found again by words (FTS5,
 * bm25) and by meaning (embedding vectors, an exact cosine scan), the two
 * rankings merged by reciprocal rank fusion (oxi-mem(1)).
 *
 * A fact belongs to a person: the scope "channel:account:sender" of the
 * one who said it, or the person an owner linked that scope to (oxi-mem
 * link).  An episode belongs to a conversation (the loop's key
 * "channel:account:chat[:thread]").  Every query names the scope, and the
 * SQL itself keeps to that person's rows and that conversation's: no
 * function here returns a row of another.
 */
#ifndef OXI_MEM_H
#define OXI_MEM_H

#include "oxi.h"

struct oxi_mem;

/*
 * What the store asks of the models, or NULL members when there are
 * none: then facts are found by words alone, duplicates by their text,
 * and nothing is extracted.
 */
struct oxi_mem_ai {
	/* the vectors of texts (an array of strings, consumed): an array
	 * of arrays of numbers in order, or an invalid jv with a message */
	jv (*embed)(void *arg, jv texts);
	/* the text a model answers to prompt (consumed; an array of
	 * messages): a string, or an invalid jv with a message; *tokens
	 * the tokens it took */
	jv (*ask)(void *arg, jv messages, long *tokens);
	void *arg;
};

struct oxi_mem_cfg {
	double dup;		/* cosine at or above which a fact is the
				 * same fact: 0.85 */
	double decay;		/* factor per period: 0.95 */
	double period;		/* seconds of a period: 7 days */
	double floor;		/* a fact weaker than this is not recalled */
	double near;		/* least cosine of a candidate by meaning */
	int k;			/* facts and episodes a recall returns */
	long budget;		/* tokens of a recall's text */
	long extract;		/* tokens a person's extraction may take a
				 * day; 0: none */
	int everyone;		/* extract for senders not the owner too */
	long long now;		/* seconds since the epoch; 0: the clock's
				 * (tests set it) */
};
#define OXI_MEM_CFG_INIT { .dup = 0.85, .decay = 0.95, .period = 604800, \
	.floor = 0.05, .near = 0.25, .k = 8, .budget = 800, .extract = 20000 }

/* store.c: opens and migrates the database; NULL with *err (errno set) */
struct oxi_mem *oxi_mem_open(const char *path, const struct oxi_mem_cfg *,
    const struct oxi_mem_ai *, const char **err);
void oxi_mem_close(struct oxi_mem *);
/* the person of scope in buf (scope itself when it is not linked) */
const char *oxi_mem_person(struct oxi_mem *, const char *scope, char *buf,
    size_t n);
/* links scope to person (person NULL: unlinks): 0, or -1 with *err */
int oxi_mem_link(struct oxi_mem *, const char *scope, const char *person,
    const char **err);
/* the links, [{scope,person}] */
jv oxi_mem_links(struct oxi_mem *);
/* memio.c: every row of person (NULL: everyone), facts superseded ones
 * included, and episodes, as mem.fact and mem.episode records written
 * to fd: 0, or -1 with *err */
int oxi_mem_export(struct oxi_mem *, const char *person, int fd,
    const char **err);
/* a record of an export (consumed): 0, 1 if it was there already, or -1
 * with *err */
int oxi_mem_import(struct oxi_mem *, jv rec, const char **err);
/* deletes facts that decayed below the floor and what they superseded:
 * the rows deleted, or -1 with *err */
long oxi_mem_prune(struct oxi_mem *, const char **err);
/* the effective confidence of a fact of confidence c last confirmed at
 * time t (seconds): c * decay^((now - t) / period) */
double oxi_mem_decayed(const struct oxi_mem *, double c, long long t);

/* memrec.c: a mem.* request (consumed, see oxi(7)): its answer, a
 * mem.* record or an error record, owned by the caller */
jv oxi_mem_request(struct oxi_mem *, jv req);

#endif
