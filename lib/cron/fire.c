/*
 * fire.c - the clock of oxi-cron and a fire: the msg.in a schedule (or
 * the heartbeat) says at a due time, recorded in fires before it is
 * written (oxi_cron_end writes it, then marks it written).  Its id,
 * cron:SCHEDULE:DUE, is the same when a restart writes it again, so that
 * oxi-loop's inbox takes it once; a fire recorded already is not queued
 * again.  Below run.c and beat.c, which both fire.  And the settings of
 * the stage (oxi-cron(1), ENVIRONMENT).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "oxi.h"
#include "cron/cron.h"

/* $name as a count into *v, dflt if unset: 0, or -1 with *why */
static int
count(const char *name, long dflt, long max, long *v, const char **why)
{
	static char msg[96];

	if (oxi_env_int(name, dflt, max, v) == 0)
		return 0;
	snprintf(msg, sizeof msg, "bad %s (a count, at most %ld)", name, max);
	*why = msg;
	return -1;
}

int
oxi_cron_settings(struct oxi_cron *c, const char **why)
{
	const char *v;
	int y, mo, d, h, mi, s, n = 0;
	long long t;

	if (!c->tz && (v = oxi_getenv("OXI_CRON_TZ")))
		c->tz = v;
	if (!oxi_cron_zone_ok(c->tz)) {
		*why = "unknown time zone (a name of tzdata: Europe/Berlin)";
		return -1;
	}
	v = oxi_getenv("OXI_CRON_CATCHUP");
	if (v && strcmp(v, "once") && strcmp(v, "skip")) {
		*why = "bad OXI_CRON_CATCHUP (once, skip)";
		return -1;
	}
	c->catchup = !v || strcmp(v, "once") == 0;
	if (count("OXI_CRON_GRACE", 60, 86400, &c->grace, why) < 0 ||
	    count("OXI_CRON_MIN_INTERVAL", 60, 86400 * 366, &c->minevery,
	    why) < 0 || count("OXI_CRON_MAX", 50, 100000, &c->maxper, why) < 0)
		return -1;
	if (c->minevery < 1)
		c->minevery = 1;
	/* for tests: the clock starts at this time */
	if ((v = oxi_getenv("OXI_CRON_NOW"))) {
		if (sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h,
		    &mi, &s, &n) == 6 && !v[n])
			t = oxi_cron_civil(y, mo, d, h, mi, s);
		else if (sscanf(v, "%lld%n", &t, &n) != 1 || v[n]) {
			*why = "bad OXI_CRON_NOW (2026-11-26T09:00:00Z)";
			return -1;
		}
		c->offset = t - (long long)time(NULL);
	}
	return 0;
}

/* the keys of a maker a fire copies */
static const char *const routing[] = { "channel", "account", "chat",
	"thread", "from", "from_name", "chat_type" };

time_t
oxi_cron_now(const struct oxi_cron *c)
{
	return time(NULL) + (time_t)c->offset;
}

int
oxi_cron_emit(struct oxi_cron *c, const char *sid, time_t due,
    const char *text, jv maker, const char *trust)
{
	char id[128], iso[32], ts[32];
	struct oxi_buf line = OXI_BUF_INIT;
	const char *err, *v;
	jv r = oxi_msg_new("msg.in"), meta;
	size_t i;

	oxi_cron_iso(due, iso);
	snprintf(id, sizeof id, "cron:%s:%s", sid, iso);
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	for (i = 0; i < sizeof routing / sizeof *routing; i++)
		if ((v = oxi_msg_peek(maker, routing[i])))
			r = jv_object_set(r, jv_string(routing[i]),
			    jv_string(v));
	r = jv_object_set(r, jv_string("text"), jv_string(text));
	oxi_cron_iso(oxi_cron_now(c), ts);
	r = jv_object_set(r, jv_string("ts"), jv_string(ts));
	r = jv_object_set(r, jv_string("attachments"), jv_array());
	r = jv_object_set(r, jv_string("trust"), jv_string(trust ? trust :
	    "user"));
	meta = jv_object_set(jv_object(), jv_string("schedule"),
	    jv_string(sid));
	meta = jv_object_set(meta, jv_string("due"), jv_string(iso));
	r = jv_object_set(r, jv_string("cron"), meta);
	r = jv_dump_string(r, 0);
	oxi_buf_cats(&line, jv_string_value(r));
	jv_free(r);
	if (oxi_crondb_do(c->db, &err, "INSERT OR IGNORE INTO fires(id,"
	    " sched, due, line, at) VALUES(?, ?, ?, ?, ?)", "ssisi", id, sid,
	    (long long)due, line.s, (long long)oxi_cron_now(c)) < 0) {
		oxi_buf_free(&line);
		c->err = err;
		return -1;
	}
	if (sqlite3_changes(c->db) == 1) {
		oxi_buf_cat(&c->fireq, line.s, line.len);
		oxi_buf_putc(&c->fireq, '\n');
		oxi_buf_cat(&c->sent, id, strlen(id) + 1);
		oxi_info("fired %s", id);
	} else
		oxi_debug("%s fired before", id);
	oxi_buf_free(&line);
	return 0;
}
