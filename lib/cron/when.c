/*
 * when.c - the time of a schedule, as a person or a model writes it
 *
 *   cron:     "0 9 * * 1-5", "cron 0 9 * * 1-5", "@daily"
 *   one-shot: "at 9:00 tomorrow", "tomorrow 9am", "friday at 18:30",
 *             "at 21:15" (today, else tomorrow), "in 2 hours", "in 1h30m",
 *             "2026-12-01 09:00" (the zone's wall clock),
 *             "2026-12-01T08:00:00Z" (an instant, Z or an offset)
 *   interval: "every 2h", "every 30 minutes", "every hour"
 *   a day:    "every day at 9", "every weekday at 8:30", "every monday
 *             at 7pm", "every weekend at 10" (cron expressions)
 *
 * Words are English, in any case.  A time is H, H:MM or H:MM:SS, with am
 * or pm, or noon or midnight; a bare hour only after "at" or with am/pm.
 * What follows the time is the schedule's text; the caller gets the bytes
 * the time took.  A one-shot time is an instant once read: its spec is
 * stored as "at <RFC 3339 UTC>"; an interval runs from its anchor, the
 * time it was made.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oxi.h"
#include "cron/cron.h"

static const char *const wdays[] = { "sunday", "monday", "tuesday",
	"wednesday", "thursday", "friday", "saturday" };

/* the word at s (after blanks) lowered into w (at most n - 1 bytes): its
 * end in s */
static const char *
word(const char *s, char *w, size_t n)
{
	size_t i = 0;

	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s)) {
		if (i + 1 < n)
			w[i++] = (char)tolower((unsigned char)*s);
		s++;
	}
	w[i] = '\0';
	return s;
}

/* seconds of a unit name, or 0 */
static long
unit(const char *u, size_t n)
{
	static const struct { const char *name; long sec; } units[] = {
		{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 },
		{ "seconds", 1 }, { "m", 60 }, { "min", 60 }, { "mins", 60 },
		{ "minute", 60 }, { "minutes", 60 }, { "h", 3600 },
		{ "hr", 3600 }, { "hrs", 3600 }, { "hour", 3600 },
		{ "hours", 3600 }, { "d", 86400 }, { "day", 86400 },
		{ "days", 86400 }, { "w", 604800 }, { "week", 604800 },
		{ "weeks", 604800 },
	};
	size_t i;

	for (i = 0; i < sizeof units / sizeof *units; i++)
		if (strlen(units[i].name) == n &&
		    strncasecmp(u, units[i].name, n) == 0)
			return units[i].sec;
	return 0;
}

/* a duration at s: "2h", "1h30m", "2 hours", "an hour", "1 hour 30
 * minutes"; seconds in *sec, the bytes used or 0.  With bare, a unit
 * alone counts once ("hour") */
static size_t
duration(const char *s, long *sec, int bare)
{
	const char *p = s, *q, *u;
	char w[32];
	long n, total = 0, k;
	int parts = 0;

	for (;;) {
		q = word(p, w, sizeof w);
		if (!w[0])
			break;
		n = -1;
		if (strcmp(w, "a") == 0 || strcmp(w, "an") == 0)
			n = 1;
		else if (isdigit((unsigned char)w[0])) {
			/* "2h30m" or "2" */
			const char *c = w;
			long t = 0;

			while (*c) {
				if (!isdigit((unsigned char)*c))
					break;
				n = strtol(c, (char **)&u, 10);
				c = u;
				while (isalpha((unsigned char)*c))
					c++;
				if (c == u)
					break;
				if (!(k = unit(u, (size_t)(c - u))) ||
				    n > 1000000000)
					goto end;	/* not a duration */
				if ((t += n * k) > 10 * 366 * 86400L)
					goto end;
				n = -2;
			}
			if (n == -2 && !*c) {
				if ((total += t) > 10 * 366 * 86400L)
					goto end;
				parts++;
				p = q;
				continue;
			}
			if (*c)
				break;
		} else if (bare && !parts && (k = unit(w, strlen(w)))) {
			total = k;
			parts++;
			p = q;
			break;
		} else if (parts && strcmp(w, "and") == 0) {
			p = q;
			continue;
		}
		if (n < 0 || n > 1000000000)
			break;
		q = word(q, w, sizeof w);
		if (!(k = unit(w, strlen(w))))
			break;
		if ((total += n * k) > 10 * 366 * 86400L)
			goto end;
		parts++;
		p = q;
	}
end:
	if (!parts || total <= 0 || total > 10 * 366 * 86400L)
		return 0;	/* none, or more than ten years */
	*sec = total;
	while (isspace((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

/* a time of day at s; seconds since midnight in *sec, the bytes used, or
 * 0.  A bare hour only with bare set */
static size_t
clock_(const char *s, long *sec, int bare)
{
	const char *p = s, *q;
	char w[32], *c;
	long h, m = 0, x = 0;
	int colon = 0, ampm = 0;

	q = word(p, w, sizeof w);
	if (strcmp(w, "noon") == 0 || strcmp(w, "midday") == 0 ||
	    strcmp(w, "midnight") == 0) {
		*sec = w[1] == 'i' && w[2] == 'd' && w[3] == 'n' ? 0 : 43200;
		p = q;
		goto done;
	}
	if (!isdigit((unsigned char)w[0]))
		return 0;
	h = strtol(w, &c, 10);
	if (*c == ':' || *c == '.') {
		colon = 1;
		if (!isdigit((unsigned char)c[1]) || !isdigit((unsigned char)
		    c[2]))
			return 0;
		m = strtol(c + 1, &c, 10);
		if (*c == ':') {
			if (!isdigit((unsigned char)c[1]))
				return 0;
			x = strtol(c + 1, &c, 10);
		}
	}
	if (strcmp(c, "am") == 0 || strcmp(c, "pm") == 0)
		ampm = c[0];
	else if (*c)
		return 0;
	p = q;
	if (!ampm) {
		q = word(p, w, sizeof w);
		if (strcmp(w, "am") == 0 || strcmp(w, "pm") == 0 ||
		    strcmp(w, "a.m.") == 0 || strcmp(w, "p.m.") == 0) {
			ampm = w[0];
			p = q;
		}
	}
	if (!colon && !ampm && !bare)
		return 0;
	if (ampm && (h < 1 || h > 12))
		return 0;
	if (ampm)
		h = h % 12 + (ampm == 'p' ? 12 : 0);
	if (h > 23 || m > 59 || x > 59)
		return 0;
	*sec = h * 3600 + m * 60 + x;
done:
	while (isspace((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

size_t
oxi_cron_clock(const char *s, long *sec)
{
	return clock_(s, sec, 1);
}

/* an ISO date at s, "2026-12-01", perhaps with "THH:MM[:SS][.f][Z|+hh:mm]"
 * into *day (days since 1970), *sec (-1 without a time) and *zoff (an
 * offset in seconds, or NOZONE when none): bytes or 0 */
#define NOZONE	(1L << 30)
static size_t
isodate(const char *s, long long *day, long *sec, long *zoff)
{
	const char *p = s;
	int y, mo, d, h, mi, x = 0, n = 0, sign;
	char w[64];
	long long chk;

	while (isspace((unsigned char)*p))
		p++;
	word(p, w, sizeof w);
	if (sscanf(w, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	chk = oxi_cron_civil(y, mo, d, 0, 0, 0);
	{
		int yy, mm, dd, a, b, c;

		oxi_cron_split(chk, &yy, &mm, &dd, &a, &b, &c, NULL);
		if (dd != d)
			return 0;	/* 2026-02-30 */
	}
	*day = chk / 86400;
	*sec = -1;
	*zoff = NOZONE;
	if (w[10] == 't') {
		const char *t = w + 11;
		int k = 0;

		if (sscanf(t, "%2d:%2d%n", &h, &mi, &k) != 2 || k != 5)
			return 0;
		t += k;
		if (*t == ':' && sscanf(t + 1, "%2d%n", &x, &k) == 1 &&
		    k == 2)
			t += 3;
		if (*t == '.')
			for (t++; isdigit((unsigned char)*t); t++)
				;
		if (*t == 'z')
			*zoff = 0, t++;
		else if (*t == '+' || *t == '-') {
			int oh, om, kk = 0;

			sign = *t == '-' ? -1 : 1;
			if (sscanf(t + 1, "%2d:%2d%n", &oh, &om, &kk) != 2 ||
			    kk != 5)
				return 0;
			*zoff = sign * (oh * 3600L + om * 60L);
			t += 6;
		}
		if (*t || h > 23 || mi > 59 || x > 59)
			return 0;
		*sec = h * 3600L + mi * 60L + x;
	} else if (w[10])
		return 0;
	p += strlen(w);
	while (isspace((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

/* a day word at s (today, tomorrow, a weekday, a date) given today's
 * day number and weekday: the day in *day, *wd set for a weekday (else
 * -1), bytes used or 0 */
static size_t
dayword(const char *s, long long today, int twd, long long *day, int *wd,
    long *isosec, long *zoff)
{
	const char *q;
	char w[32];
	int i;
	size_t n;

	*wd = -1;
	*isosec = -1;
	*zoff = NOZONE;
	if ((n = isodate(s, day, isosec, zoff)))
		return n;
	q = word(s, w, sizeof w);
	if (strcmp(w, "today") == 0 || strcmp(w, "tonight") == 0)
		*day = today;
	else if (strcmp(w, "tomorrow") == 0)
		*day = today + 1;
	else {
		for (i = 0; i < 7; i++)
			if (strcmp(w, wdays[i]) == 0 || (strlen(w) == 3 &&
			    strncmp(w, wdays[i], 3) == 0))
				break;
		if (i == 7)
			return 0;
		*wd = i;
		*day = today + (i - twd + 7) % 7;
	}
	while (isspace((unsigned char)*q))
		q++;
	return (size_t)(q - s);
}

/* "at", "on" and the like before a day or a time: the bytes after them */
static size_t
filler(const char *s)
{
	const char *q;
	char w[16];

	q = word(s, w, sizeof w);
	if (strcmp(w, "at") && strcmp(w, "on") && strcmp(w, "@"))
		return 0;
	while (isspace((unsigned char)*q))
		q++;
	return (size_t)(q - s);
}

/* a one-shot time of a day and a clock, in either order */
static size_t
oneshot(const char *s, const char *tz, time_t now, struct oxi_cron_when *wh,
    const char **why)
{
	long long nw = oxi_cron_wall(tz, now), today, day = -1, d;
	const char *p = s;
	long clk = -1, c, zoff = NOZONE, z;
	int y, m, dd, h, mi, x, twd, wd = -1, w2, at = 0, i;
	size_t n;
	time_t t;

	oxi_cron_split(nw, &y, &m, &dd, &h, &mi, &x, &twd);
	today = (nw >= 0 ? nw : nw - 86399) / 86400;
	for (i = 0; i < 5; i++) {
		if ((n = filler(p))) {
			p += n;
			at = 1;
			continue;
		}
		if (day < 0 && (n = dayword(p, today, twd, &d, &w2, &c, &z))) {
			day = d;
			wd = w2;
			if (c >= 0) {
				clk = c;
				zoff = z;
			}
			p += n;
			continue;
		}
		if (clk < 0 && (n = clock_(p, &c, at))) {
			clk = c;
			p += n;
			continue;
		}
		break;
	}
	if (clk < 0) {
		*why = "no time of day (at 9:00, 18:30, 7pm)";
		return 0;
	}
	if (zoff != NOZONE)
		t = (time_t)(day * 86400 + clk - zoff);
	else if (day < 0) {
		/* no day: today if the time is still to come, else tomorrow */
		t = oxi_cron_instant(tz, today * 86400 + clk, now);
		if (t < 0)
			t = oxi_cron_instant(tz, (today + 1) * 86400 + clk, now);
	} else if ((t = oxi_cron_instant(tz, day * 86400 + clk, now)) < 0 &&
	    wd >= 0)	/* a weekday that is today, its time gone: next week */
		t = oxi_cron_instant(tz, (day + 7) * 86400 + clk, now);
	if (t <= now) {
		*why = "that time has passed";
		return 0;
	}
	wh->kind = OXI_CRON_AT;
	wh->at = t;
	strcpy(wh->spec, "at ");
	oxi_cron_iso(t, wh->spec + 3);
	return (size_t)(p - s);
}

/* "every ..." after the word: an interval or a day and a time */
static size_t
every(const char *s, struct oxi_cron_when *wh, time_t now,
    const char **why)
{
	static const char *const sets[] = { "day", "*", "weekday", "1-5",
		"weekend", "0,6", "sunday", "0", "monday", "1", "tuesday", "2",
		"wednesday", "3", "thursday", "4", "friday", "5", "saturday",
		"6" };
	const char *p = s, *q;
	char w[32], expr[64];
	long sec, clk;
	size_t n, i, len;

	q = word(p, w, sizeof w);
	len = strlen(w);
	if (len > 1 && w[len - 1] == 's' && strcmp(w, "days") != 0)
		w[--len] = '\0';	/* "mondays" */
	for (i = 0; i < sizeof sets / sizeof *sets; i += 2)
		if (strcmp(w, sets[i]) == 0 || (len == 3 && i >= 6 &&
		    strncmp(w, sets[i], 3) == 0))
			break;
	if (i < sizeof sets / sizeof *sets) {
		p = q;
		while (isspace((unsigned char)*p))
			p++;
		if ((n = filler(p)))
			p += n;
		if ((n = clock_(p, &clk, 1))) {
			snprintf(expr, sizeof expr, "%ld %ld * * %s",
			    clk / 60 % 60, clk / 3600, sets[i + 1]);
			if (!oxi_cron_expr_parse(expr, &wh->e, why))
				return 0;
			wh->kind = OXI_CRON_EXPR;
			snprintf(wh->spec, sizeof wh->spec, "cron %s", expr);
			return (size_t)(p + n - s);
		}
		if (i != 0) {
			*why = "which time of the day? (every monday at 9:00)";
			return 0;
		}
		p = s;
	}
	if (!(n = duration(p, &sec, 1))) {
		*why = "every what? (every 2h, every 30 minutes, every day at "
		    "9:00)";
		return 0;
	}
	wh->kind = OXI_CRON_EVERY;
	wh->every = sec;
	wh->at = now;
	snprintf(wh->spec, sizeof wh->spec, "every %lds", sec);
	return (size_t)(p + n - s);
}

size_t
oxi_cron_when_parse(const char *s, const char *tz, time_t now,
    struct oxi_cron_when *wh, const char **why)
{
	const char *p = s, *q;
	char w[32];
	long sec;
	size_t n;

	memset(wh, 0, sizeof *wh);
	*why = "no time given";
	while (isspace((unsigned char)*p))
		p++;
	q = word(p, w, sizeof w);
	/* five fields, "cron" and five, or a macro */
	if (strcmp(w, "cron") == 0 || *p == '@' || *p == '*' ||
	    (isdigit((unsigned char)*p) && oxi_cron_expr_parse(p, &wh->e,
	    why))) {
		const char *e = strcmp(w, "cron") == 0 ? q : p;

		while (isspace((unsigned char)*e))
			e++;
		if (!(n = oxi_cron_expr_parse(e, &wh->e, why)))
			return 0;
		wh->kind = OXI_CRON_EXPR;
		/* the spec: the fields, one blank between them */
		{
			size_t i, k = 5;

			memcpy(wh->spec, "cron ", 5);
			for (i = 0; i < n && k < sizeof wh->spec - 1; i++)
				if (!isspace((unsigned char)e[i]))
					wh->spec[k++] = e[i];
				else if (wh->spec[k - 1] != ' ')
					wh->spec[k++] = ' ';
			if (k >= sizeof wh->spec - 1) {
				*why = "the expression is too long";
				return 0;
			}
			while (wh->spec[k - 1] == ' ')
				k--;
			wh->spec[k] = '\0';
		}
		return (size_t)(e - s) + n;
	}
	if (strcmp(w, "every") == 0)
		return (n = every(q, wh, now, why)) ? (size_t)(q - s) + n : 0;
	if (strcmp(w, "in") == 0) {
		if (!(n = duration(q, &sec, 0))) {
			*why = "in how long? (in 10 minutes, in 2h)";
			return 0;
		}
		wh->kind = OXI_CRON_AT;
		wh->at = now + sec;
		strcpy(wh->spec, "at ");
		oxi_cron_iso(wh->at, wh->spec + 3);
		return (size_t)(q - s) + n;
	}
	return (n = oneshot(p, tz, now, wh, why)) ? (size_t)(p - s) + n : 0;
}

time_t
oxi_cron_when_next(const struct oxi_cron_when *wh, const char *tz,
    time_t after)
{
	long long k;

	switch (wh->kind) {
	case OXI_CRON_AT:
		return wh->at > after ? wh->at : -1;
	case OXI_CRON_EVERY:
		if (wh->every <= 0)
			return -1;
		k = after < wh->at ? 1 : (after - wh->at) / wh->every + 1;
		return wh->at + (time_t)(k * wh->every);
	case OXI_CRON_EXPR:
		return oxi_cron_expr_next(&wh->e, tz, after);
	}
	return -1;
}
