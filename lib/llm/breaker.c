/*
 * breaker.c - the mechanism under ctl.c: circuit breakers, backoff, and
 * failover chains split
 *
 * A breaker opens after max retryable failures in a row, refuses until
 * its cool-down is over, then lets one attempt through as a probe whose
 * outcome closes or reopens it.  Backoff is capped, exponential and
 * jittered, never shorter than Retry-After.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/llm.h"

int
oxi_breaker_allow(struct oxi_breaker *b, long long now)
{
	switch (b->state) {
	case OXI_BRK_CLOSED:
		return 1;
	case OXI_BRK_OPEN:
		if (now < b->until)
			return 0;
		b->state = OXI_BRK_HALF;
		b->probing = 0;
		/* FALLTHROUGH */
	default:
		if (b->probing)
			return 0;
		b->probing = 1;
		return 2;
	}
}

void
oxi_breaker_note(struct oxi_breaker *b, int ok, int max, long cool,
    long long now)
{
	if (ok) {
		b->state = OXI_BRK_CLOSED;
		b->fails = 0;
		b->probing = 0;
		return;
	}
	b->fails++;
	if (max > 0 && (b->state == OXI_BRK_HALF || b->fails >= max)) {
		b->state = OXI_BRK_OPEN;
		b->until = now + cool;
		b->probing = 0;
	}
}

long
oxi_llm_backoff(int n, long base, long cap, long retry_after,
    unsigned long rnd)
{
	long d = base > 0 ? base : 1;
	int i;

	for (i = 1; i < n && d < cap; i++)
		d *= 2;
	if (d > cap)
		d = cap;
	d = d / 2 + (long)(rnd % (unsigned long)(d - d / 2 + 1));
	if (retry_after >= 0 && d < retry_after)
		d = retry_after;
	return d;
}

int
oxi_llm_chain(const char *s, char ***out)
{
	const char *p, *e;
	char **v = NULL;
	int n = 0;
	size_t k;

	*out = NULL;
	for (p = s; p && *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ",");
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		for (k = e - p; k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t');
		    k--)
			;
		if (k == 0)
			continue;
		v = xrealloc(v, (n + 2) * sizeof *v);
		v[n++] = xstrndup(p, k);
		v[n] = NULL;
	}
	*out = v;
	return n;
}

void
oxi_llm_chain_free(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
