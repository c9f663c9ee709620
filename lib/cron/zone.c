/*
 * zone.c - wall clocks of a time zone, from the system's tzdata
 *
 * localtime_r(3) knows one zone at a time, the TZ of the process: to
 * read another, TZ is set and tzset(3) called, and the zone last used is
 * kept so that a run of the same zone costs nothing.  The wing is for one
 * thread (oxi-cron's), so no lock is needed; nothing here keeps a struct
 * tm across a switch.
 *
 * A wall time is kept as "wall seconds": days since 1970-01-01 times
 * 86400 plus the time of day, with no zone.  The offset of a zone at an
 * instant x is wall(x) - x.  A wall time w occurs at w - o for each offset
 * o in force around it for which that instant really has offset o: once
 * most of the year, twice when the clocks go back, never in the hour they
 * skip, whose wall times run at the end of the gap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "cron/cron.h"

static char *cur;		/* the zone TZ holds now; NULL: the start's */
static int saved;		/* orig holds the TZ of the start */
static char *orig;		/* that TZ, or NULL if unset */

/* makes tz the zone of localtime_r */
static void
use(const char *tz)
{
	char *v;

	if (!tz)
		tz = "";
	if (cur ? strcmp(cur, tz) == 0 : !*tz)
		return;
	if (!saved) {
		orig = getenv("TZ") ? xstrdup(getenv("TZ")) : NULL;
		saved = 1;
	}
	if (!*tz) {
		if (orig)
			setenv("TZ", orig, 1);
		else
			unsetenv("TZ");
		free(cur);
		cur = NULL;
	} else {
		v = xmalloc(strlen(tz) + 2);
		v[0] = ':';
		strcpy(v + 1, tz);
		setenv("TZ", v, 1);
		free(v);
		free(cur);
		cur = xstrdup(tz);
	}
	tzset();
}

int
oxi_cron_zone_ok(const char *tz)
{
	const char *dir, *p;
	char path[4096], magic[4];
	int fd, ok;

	if (!tz || !*tz)
		return 1;
	if (tz[0] == '/' || tz[0] == '.' || strstr(tz, "..") ||
	    strlen(tz) > 200)
		return 0;
	for (p = tz; *p; p++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789/_+-", *p))
			return 0;
	dir = oxi_getenv("TZDIR") ? oxi_getenv("TZDIR") : "/usr/share/zoneinfo";
	snprintf(path, sizeof path, "%s/%s", dir, tz);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	ok = read(fd, magic, 4) == 4 && memcmp(magic, "TZif", 4) == 0;
	close(fd);
	return ok;
}

long long
oxi_cron_civil(int y, int m, int d, int h, int mi, int s)
{
	long long era, yoe, doy, doe, days;

	/* days from civil, after Howard Hinnant's algorithm */
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	days = era * 146097 + doe - 719468;
	return days * 86400 + h * 3600LL + mi * 60LL + s;
}

void
oxi_cron_split(long long w, int *y, int *m, int *d, int *h, int *mi, int *s,
    int *wday)
{
	long long days = w >= 0 ? w / 86400 : (w - 86399) / 86400;
	long long sec = w - days * 86400, z, era, doe, yoe, doy, mp;

	if (wday)
		*wday = (int)((days % 7 + 11) % 7);	/* 1970-01-01: Thu */
	*h = (int)(sec / 3600);
	*mi = (int)(sec / 60 % 60);
	*s = (int)(sec % 60);
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

long long
oxi_cron_wall(const char *tz, time_t t)
{
	struct tm tm;

	use(tz);
	if (!localtime_r(&t, &tm))
		return (long long)t;
	return oxi_cron_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* the offset of tz at instant x, in seconds */
static long long
off(const char *tz, long long x)
{
	return oxi_cron_wall(tz, (time_t)x) - x;
}

time_t
oxi_cron_instant(const char *tz, long long w, time_t after)
{
	long long oa = off(tz, w - 86400), ob = off(tz, w + 86400);
	long long xa = w - oa, xb = w - ob, lo, hi, mid, best = -1;

	if (off(tz, xa) == oa && xa > after)
		best = xa;
	if (ob != oa && off(tz, xb) == ob && xb > after &&
	    (best < 0 || xb < best))
		best = xb;
	if (best >= 0 || oa == ob)
		return (time_t)best;
	if (off(tz, xa) == oa || off(tz, xb) == ob)
		return -1;	/* it occurs, but not after `after` */
	/* a gap: the first instant with the offset after it */
	lo = xa < xb ? xa : xb;
	hi = xa < xb ? xb : xa;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (off(tz, mid) == ob)
			hi = mid;
		else
			lo = mid;
	}
	return hi > after ? (time_t)hi : -1;
}

void
oxi_cron_iso(time_t t, char out[32])
{
	int y, m, d, h, mi, s;

	oxi_cron_split((long long)t, &y, &m, &d, &h, &mi, &s, NULL);
	snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, h, mi, s);
}
