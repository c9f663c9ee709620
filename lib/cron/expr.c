/*
 * expr.c - cron expressions: five fields, as Vixie cron reads them
 *
 *   minute (0-59) hour (0-23) day-of-month (1-31) month (1-12 or jan-dec)
 *   day-of-week (0-7 or sun-sat, 0 and 7 Sunday)
 *
 * A field is a list of items, each "*", N, N-M, or one of these with a
 * step "/S" (N/S runs from N to the field's end).  @yearly (@annually),
 * @monthly, @weekly, @daily (@midnight) and @hourly stand for the usual
 * five.  When both day fields are restricted (neither begins with '*')
 * a day matches if either does; otherwise both must.  L, W and # are not
 * read.
 *
 * The next time is sought on the wall clock of the zone, minute by
 * minute only inside the days that match, and each wall time found is
 * turned into an instant by zone.c: a time the clocks skip runs at the
 * end of the gap, a time they repeat runs once.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "oxi.h"
#include "cron/cron.h"

static const char *const months[] = { "jan", "feb", "mar", "apr", "may",
	"jun", "jul", "aug", "sep", "oct", "nov", "dec" };
static const char *const days[] = { "sun", "mon", "tue", "wed", "thu",
	"fri", "sat" };

static const struct { const char *name, *expr; } macros[] = {
	{ "@yearly", "0 0 1 1 *" }, { "@annually", "0 0 1 1 *" },
	{ "@monthly", "0 0 1 * *" }, { "@weekly", "0 0 * * 0" },
	{ "@daily", "0 0 * * *" }, { "@midnight", "0 0 * * *" },
	{ "@hourly", "0 * * * *" },
};

/* a number or a name of the field at *s: 0, or -1 */
static int
value(const char **s, const char *const *names, int nnames, int base,
    int *v)
{
	const char *p = *s;
	int i, n = 0, digits = 0;

	while (isdigit((unsigned char)*p) && digits < 3) {
		n = n * 10 + (*p++ - '0');
		digits++;
	}
	if (digits > 0 && !isdigit((unsigned char)*p)) {
		*v = n;
		*s = p;
		return 0;
	}
	for (i = 0; names && i < nnames; i++)
		if (strncasecmp(p, names[i], 3) == 0 &&
		    !isalpha((unsigned char)p[3])) {
			*v = i + base;
			*s = p + 3;
			return 0;
		}
	return -1;
}

/* one field at *s into the bits *bits: 0, or -1 */
static int
field(const char **s, int lo, int hi, const char *const *names, int nnames,
    int base, uint64_t *bits, uint8_t *star)
{
	const char *p = *s;
	int a, b, step, v, single;

	*bits = 0;
	*star = *p == '*';
	for (;;) {
		step = 1;
		single = 0;
		if (*p == '*') {
			a = lo;
			b = hi;
			p++;
		} else {
			if (value(&p, names, nnames, base, &a) < 0)
				return -1;
			b = a;
			single = 1;
			if (*p == '-') {
				single = 0;
				p++;
				if (value(&p, names, nnames, base, &b) < 0)
					return -1;
			}
		}
		if (*p == '/') {
			p++;
			if (value(&p, NULL, 0, 0, &step) < 0 || step < 1)
				return -1;
			if (single)
				b = hi;		/* N/S: from N to the end */
		}
		if (a < lo || b > hi || a > b)
			return -1;
		for (v = a; v <= b; v += step)
			*bits |= 1ULL << v;
		if (*p != ',')
			break;
		p++;
	}
	if (*p && !isspace((unsigned char)*p))
		return -1;
	*s = p;
	return 0;
}

size_t
oxi_cron_expr_parse(const char *s, struct oxi_cron_expr *e,
    const char **why)
{
	static const char *const names[] = { "minute", "hour",
		"day of month", "month", "day of week" };
	static char msg[64];
	const char *p = s, *start;
	uint64_t bits[5];
	uint8_t star[5];
	size_t i, n;

	while (isspace((unsigned char)*p))
		p++;
	for (i = 0; *p == '@' && i < sizeof macros / sizeof *macros; i++) {
		n = strlen(macros[i].name);
		if (strncasecmp(p, macros[i].name, n) == 0 &&
		    (!p[n] || isspace((unsigned char)p[n]))) {
			if (!oxi_cron_expr_parse(macros[i].expr, e, why))
				return 0;
			p += n;
			while (isspace((unsigned char)*p))
				p++;
			return (size_t)(p - s);
		}
	}
	for (i = 0; i < 5; i++) {
		while (isspace((unsigned char)*p))
			p++;
		start = p;
		if (!*p || field(&p, i == 2 ? 1 : i == 3 ? 1 : 0,
		    i == 0 ? 59 : i == 1 ? 23 : i == 2 ? 31 : i == 3 ? 12 : 7,
		    i == 3 ? months : i == 4 ? days : NULL, i == 3 ? 12 : 7,
		    i == 3 ? 1 : 0, &bits[i], &star[i]) < 0) {
			snprintf(msg, sizeof msg, "bad %s field%s", names[i],
			    p == start && !*p ? " (missing)" : "");
			*why = msg;
			return 0;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	e->min = bits[0];
	e->hour = (uint32_t)bits[1];
	e->dom = (uint32_t)bits[2];
	e->mon = (uint16_t)bits[3];
	e->dow = (uint8_t)((bits[4] | bits[4] >> 7) & 0x7f);	/* 7: Sun */
	e->domstar = star[2];
	e->dowstar = star[4];
	return (size_t)(p - s);
}

/* 1 if the day y-m-d (weekday wd) matches e */
static int
dayok(const struct oxi_cron_expr *e, int m, int d, int wd)
{
	int dm = (e->dom >> d) & 1, dw = (e->dow >> wd) & 1;

	if (!((e->mon >> m) & 1))
		return 0;
	if (e->domstar || e->dowstar)
		return dm && dw;
	return dm || dw;
}

time_t
oxi_cron_expr_next(const struct oxi_cron_expr *e, const char *tz,
    time_t after)
{
	long long w = oxi_cron_wall(tz, after), day, first;
	int y, m, d, h, mi, s, wd, hh, mm, k;
	time_t t;

	w = w - ((w % 60) + 60) % 60 + 60;	/* the next whole minute */
	first = w;
	day = (w >= 0 ? w : w - 86399) / 86400;
	for (k = 0; k < 366 * 30; k++, day++) {
		oxi_cron_split(day * 86400, &y, &m, &d, &h, &mi, &s, &wd);
		if (!dayok(e, m, d, wd))
			continue;
		for (hh = 0; hh < 24; hh++) {
			if (!((e->hour >> hh) & 1))
				continue;
			for (mm = 0; mm < 60; mm++) {
				if (!((e->min >> mm) & 1))
					continue;
				w = day * 86400 + hh * 3600 + mm * 60;
				if (w < first)
					continue;
				if ((t = oxi_cron_instant(tz, w, after)) >= 0)
					return t;
			}
		}
	}
	return -1;
}
