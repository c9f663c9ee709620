/*
 * ac.c - an Aho-Corasick automaton: keywords added, then built breadth
 * first into a complete goto table over byte classes (only the bytes of
 * the keywords have a class of their own; ASCII upper case shares the
 * class of lower case), with each state's keywords (its fail chain's
 * too) listed
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/ac.h"

void
oxi_ac_add(struct oxi_ac *a, const char *w, size_t n, int id)
{
	if (a->nkw == a->capkw) {
		a->capkw = a->capkw ? a->capkw * 2 : 64;
		a->kw = xrealloc(a->kw, a->capkw * sizeof *a->kw);
	}
	a->kw[a->nkw].id = id;
	a->kw[a->nkw].w = xmalloc(n + 1);
	memcpy(a->kw[a->nkw].w, w, n);
	a->kw[a->nkw].w[n] = '\0';
	a->nkw++;
}

static int
acnew(struct oxi_ac *a)
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
outadd(int **o, int id)
{
	size_t n = 0;

	if (*o)
		for (; (*o)[n] >= 0; n++)
			if ((*o)[n] == id)
				return;
	*o = xrealloc(*o, (n + 2) * sizeof **o);
	(*o)[n] = id;
	(*o)[n + 1] = -1;
}

void
oxi_ac_build(struct oxi_ac *a)
{
	size_t i, k;
	int *queue, qh = 0, qt = 0, s, t, c, f;
	const char *w;

	for (s = 0; s < a->nstate; s++)	/* built before: anew */
		free(a->out[s]);
	a->nstate = 0;
	memset(a->cls, 0, sizeof a->cls);
	a->ncls = 1;
	free(a->go);
	a->go = NULL;
	a->capstate = 0;
	for (i = 0; i < a->nkw; i++)
		for (w = a->kw[i].w; *w; w++) {
			c = (unsigned char)*w;
			if (c >= 'A' && c <= 'Z')
				c += 'a' - 'A';
			if (!a->cls[c])
				a->cls[c] = (unsigned char)a->ncls++;
		}
	for (c = 'A'; c <= 'Z'; c++)
		a->cls[c] = a->cls[c - 'A' + 'a'];
	acnew(a);
	for (i = 0; i < a->nkw; i++) {
		s = 0;
		for (w = a->kw[i].w; *w; w++) {
			c = a->cls[(unsigned char)*w];
			if ((t = a->go[s * a->ncls + c]) < 0) {
				t = acnew(a);
				a->go[s * a->ncls + c] = t;
			}
			s = t;
		}
		outadd(&a->out[s], a->kw[i].id);
		if (strlen(a->kw[i].w) >= 3)
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

void
oxi_ac_free(struct oxi_ac *a)
{
	size_t i;
	int k;

	for (i = 0; i < a->nkw; i++)
		free(a->kw[i].w);
	free(a->kw);
	for (k = 0; k < a->nstate; k++)
		free(a->out[k]);
	free(a->go);
	free(a->fail);
	free(a->out);
	free(a->longk);
	memset(a, 0, sizeof *a);
}
