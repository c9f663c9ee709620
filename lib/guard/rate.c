/*
 * rate.c - how fast each sender may send: a token bucket per sender of
 * count tokens refilled over secs, in a table of RATE_SLOTS slots
 *
 * The table is open-addressed on a hash of the key.  When a key finds no
 * slot of its own within RATE_PROBE, it takes the probed slot seen
 * longest ago: a bucket forgotten that way was full or nearly, so a
 * sender gains nothing by crowding the table but a fresh bucket.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

#define RATE_SLOTS	4096
#define RATE_PROBE	16
#define RATE_KEY	96

struct oxi_rate_slot {
	char key[RATE_KEY];	/* "channel:from", "" when free */
	double tokens;		/* tokens left */
	double last;		/* when it was last filled */
	int over;		/* over the limit since the last send */
};

int
oxi_rate_parse(struct oxi_rate *r, const char *spec)
{
	char *end;
	double c, s = 60;

	c = strtod(spec, &end);
	if (end == spec || c < 0)
		return -1;
	if (*end == '/') {
		spec = end + 1;
		if (*spec == 'm' || *spec == 'h' || *spec == 's') {
			s = *spec == 'm' ? 60 : *spec == 'h' ? 3600 : 1;
			end = (char *)spec + 1;
		} else if ((s = strtod(spec, &end)) <= 0 || end == spec)
			return -1;
	}
	if (*end != '\0')
		return -1;
	r->count = c;
	r->secs = s;
	return 0;
}

static unsigned long
hash(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 ^ (unsigned char)*s++;
	return h;
}

int
oxi_rate_take(struct oxi_rate *r, const char *key, double now, int *first)
{
	struct oxi_rate_slot *sl = NULL, *old = NULL, *p;
	unsigned long h;
	size_t i;

	*first = 0;
	if (r->count <= 0)
		return 1;
	if (!r->v) {
		r->n = RATE_SLOTS;
		r->v = xcalloc(r->n, sizeof *r->v);
	}
	h = hash(key);
	for (i = 0; i < RATE_PROBE && !sl; i++) {
		p = &r->v[(h + i) % r->n];
		if (strncmp(p->key, key, RATE_KEY - 1) == 0 && p->key[0])
			sl = p;
		else if (!old || !p->key[0] || (old->key[0] &&
		    p->last < old->last))
			old = p;
	}
	if (!sl) {
		sl = old;
		snprintf(sl->key, sizeof sl->key, "%s", key);
		sl->tokens = r->count;
		sl->last = now;
		sl->over = 0;
	}
	sl->tokens += (now - sl->last) * r->count / r->secs;
	if (sl->tokens > r->count)
		sl->tokens = r->count;
	sl->last = now;
	if (sl->tokens >= 1) {
		sl->tokens -= 1;
		sl->over = 0;
		return 1;
	}
	*first = !sl->over;
	sl->over = 1;
	return 0;
}

void
oxi_rate_free(struct oxi_rate *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}
