/*
 * fz-cron.c - the times of oxi-cron (cron/expr.c, when.c, zone.c), which
 * read what a person or a model writes: the bytes used are within the
 * text, a time read has a spec that reads again to the same time, and
 * the due times after a moment are later than it and go up, in a zone
 * chosen by the input (two with summer time, one with a half hour of it,
 * UTC, the process's own)
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "cron/cron.h"
#include "fz.h"

static const char *const zones[] = { "", "UTC", "Europe/Berlin",
	"America/New_York", "Australia/Lord_Howe" };

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_cron_when w, w2;
	struct oxi_cron_expr e;
	const char *why, *tz;
	time_t now, t, prev;
	char *s;
	size_t used, u2;
	int i;

	if (n < 3)
		return 0;
	tz = zones[d[0] % (sizeof zones / sizeof *zones)];
	/* a moment between 1990 and 2060 */
	now = (time_t)(631152000LL + (long long)(d[1] << 8 | d[2]) * 33700);
	s = malloc(n - 2);
	memcpy(s, d + 3, n - 3);
	s[n - 3] = '\0';
	used = oxi_cron_expr_parse(s, &e, &why);
	FZ_CHECK(used <= strlen(s), "expr: used past the text");
	used = oxi_cron_when_parse(s, tz, now, &w, &why);
	FZ_CHECK(used <= strlen(s), "when: used past the text");
	if (used) {
		FZ_CHECK(w.kind >= OXI_CRON_AT && w.kind <= OXI_CRON_EXPR,
		    "when: no kind");
		u2 = oxi_cron_when_parse(w.spec, tz, now, &w2, &why);
		FZ_CHECK(u2 == strlen(w.spec) && w2.kind == w.kind,
		    "spec: does not read again");
		FZ_CHECK(w.kind != OXI_CRON_EVERY || w2.every == w.every,
		    "spec: another interval");
		prev = now;
		for (i = 0; i < 4; i++) {
			if ((t = oxi_cron_when_next(&w, tz, prev)) < 0)
				break;
			FZ_CHECK(t > prev, "next: not after");
			prev = t;
		}
	}
	free(s);
	return 0;
}
