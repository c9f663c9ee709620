/*
 * ac.h - an Aho-Corasick automaton of keywords (ac.c), matched caselessly
 * for ASCII letters; the secret rules (srule.c) and the injection rules'
 * prefilter (rules.c, inject.c) run their keywords through one
 */
#ifndef OXI_GUARD_AC_H
#define OXI_GUARD_AC_H

#include <stddef.h>

struct oxi_ac {
	unsigned char cls[256];	/* byte to class, 0: no keyword has it */
	int ncls;		/* classes used */
	int *go;		/* go[state * ncls + class], complete once
				 * built */
	int *fail;		/* per state: its fail link */
	int **out;		/* per state: ids of the keywords ending
				 * here, -1 ended, or NULL */
	unsigned char *longk;	/* per state: a keyword of 3 bytes or more
				 * ends here */
	int nstate;		/* states used */
	int capstate;		/* states allocated */
	struct { int id; char *w; } *kw;	/* keywords before the build */
	size_t nkw;		/* keywords added */
	size_t capkw;		/* keywords allocated */
};
#define OXI_AC_INIT	{ { 0 }, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0 }

/* adds keyword w[0..n) for id (>= 0), before oxi_ac_build */
void oxi_ac_add(struct oxi_ac *, const char *w, size_t n, int id);
/* builds the automaton of the keywords added (again, if built) */
void oxi_ac_build(struct oxi_ac *);
/* the state after byte c from state s */
#define OXI_AC_NEXT(a, s, c) \
	((a)->go[(size_t)(s) * (a)->ncls + (a)->cls[(unsigned char)(c)]])
void oxi_ac_free(struct oxi_ac *);

#endif
