/*
 * cron.h - the cron wing: when a schedule is due (cron expressions, time
 * zones, one-shot times, intervals), the ledger of schedules and fires,
 * and the stage oxi-cron runs (requests, fires, the heartbeat).
 *
 * Times are time_t seconds (UTC).  A zone is a tzdata name
 * ("Europe/Berlin") or NULL/"" for the process's own (TZ, else
 * /etc/localtime).  The zone math switches TZ (setenv, tzset) and keeps
 * the zone last used: the wing is for one thread, as oxi-cron is.
 */
#ifndef OXI_CRON_H
#define OXI_CRON_H

#include <stdint.h>
#include <time.h>

#include "oxi.h"

/*
 * zone.c: wall clocks of a zone
 */
/* 1 if tz is "" / NULL or names a tzdata file (TZif), else 0 */
int oxi_cron_zone_ok(const char *tz);
/* wall seconds (days since 1970-01-01 * 86400 + time of day) of y-m-d
 * h:mi:s, without a zone */
long long oxi_cron_civil(int y, int m, int d, int h, int mi, int s);
/* the wall seconds of instant t in tz */
long long oxi_cron_wall(const char *tz, time_t t);
/* y, m, d, h, mi, s and day of week (0 Sunday) of wall seconds w */
void oxi_cron_split(long long w, int *y, int *m, int *d, int *h, int *mi,
    int *s, int *wday);
/*
 * The instant of wall time w in tz that is the earliest after `after`:
 * of a time that occurs twice (clocks set back), the first one still to
 * come; of a time that does not occur (clocks set forward), the end of the
 * gap, the first valid time after.  -1 if none is after `after`.
 */
time_t oxi_cron_instant(const char *tz, long long w, time_t after);
/* an instant as RFC 3339 UTC, "2026-11-26T09:00:00Z" */
void oxi_cron_iso(time_t t, char out[32]);

/*
 * expr.c: cron expressions, five fields (minute hour day-of-month month
 * day-of-week), names (jan, mon), lists, ranges and steps, the @daily
 * family; when both days are restricted, either matches (Vixie cron)
 */
struct oxi_cron_expr {
	uint64_t min;		/* bit n: minute n */
	uint32_t hour;		/* bits 0-23 */
	uint32_t dom;		/* bits 1-31 */
	uint16_t mon;		/* bits 1-12 */
	uint8_t dow;		/* bits 0-6, Sunday 0 */
	uint8_t domstar, dowstar;	/* the field began with '*' */
};
/* parses the five fields (or a macro) at the start of s: the bytes used,
 * or 0 with *why */
size_t oxi_cron_expr_parse(const char *s, struct oxi_cron_expr *,
    const char **why);
/* the first minute after `after` the expression names, in tz; -1 if it
 * names none in the next 30 years */
time_t oxi_cron_expr_next(const struct oxi_cron_expr *, const char *tz,
    time_t after);

/*
 * when.c: the time of a schedule
 */
enum { OXI_CRON_AT = 1, OXI_CRON_EVERY, OXI_CRON_EXPR };
struct oxi_cron_when {
	int kind;		/* OXI_CRON_* */
	time_t at;		/* AT: the instant; EVERY: the anchor */
	long every;		/* EVERY: seconds */
	struct oxi_cron_expr e;	/* EXPR */
	char spec[128];		/* what it is, to store and read again:
				 * "at 2026-11-27T08:00:00Z", "every 7200s",
				 * "cron 0 9 * * 1-5" */
};
/*
 * Reads the time at the start of s, in zone tz, at now: a cron expression
 * ("0 9 * * 1-5", "cron ...", "@daily"), a one-shot time ("at 9:00
 * tomorrow", "tomorrow 9am", "friday at 18:30", "in 2 hours",
 * "2026-12-01 09:00", "2026-12-01T08:00:00Z") or an interval ("every 2h",
 * "every day at 9", "every weekday at 8:30").  The bytes used (blanks
 * after them too): the rest of s is the schedule's text.  0 with *why.
 */
size_t oxi_cron_when_parse(const char *s, const char *tz, time_t now,
    struct oxi_cron_when *, const char **why);
/* the first due time after `after`, or -1 (a one-shot time passed) */
time_t oxi_cron_when_next(const struct oxi_cron_when *, const char *tz,
    time_t after);
/* the time of day "HH:MM" at the start of s: seconds since midnight in
 * *sec, the bytes used, or 0 */
size_t oxi_cron_clock(const char *s, long *sec);

/*
 * crondb.c: the ledger, $OXI_HOME/cron.db (SQLite, WAL): schedules, the
 * fires made (each before it is written), the answers given to requests
 * (by request id), the tokens of the heartbeat's turns, settings
 */
struct sqlite3;
struct sqlite3_stmt;
struct sqlite3 *oxi_crondb_open(const char *path, const char **err);
/*
 * Prepares sql and binds the arguments fmt names, one letter each: 's' a
 * string (NULL: null), 'i' a long long.  The statement, or NULL with the
 * message in *err.
 */
struct sqlite3_stmt *oxi_crondb_q(struct sqlite3 *, const char **err,
    const char *sql, const char *fmt, ...);
/* steps and finalizes: 0, or -1 with *err */
int oxi_crondb_do(struct sqlite3 *, const char **err, const char *sql,
    const char *fmt, ...);
/* the integer the query gives (its first column), or dflt */
long long oxi_crondb_int(struct sqlite3 *, long long dflt, const char *sql,
    const char *fmt, ...);

/*
 * run.c and beat.c: the stage.  It takes cron.add, cron.list and
 * cron.cancel requests (oxi(7)), answers each once (a tool.result to the
 * fire output when the request came from a tool call, a msg.out note to
 * stdout when it came from a chat command), and at each due time writes
 * a msg.in with the chat, sender and trust of the schedule's maker to the
 * fire output, recorded before it is written: its id,
 * cron:SCHEDULE:DUE, is the same when a restart writes it again.
 */
struct oxi_cron_beat {		/* the heartbeat (beat.c) */
	long every;		/* seconds between beats; 0: none */
	long from, to;		/* active hours, seconds after midnight;
				 * from == to: the whole day */
	long long tokens;	/* tokens a day; 0: no cap */
	char *text;		/* what it asks the model */
	jv maker;		/* {channel, account, chat, from, trust} */
};
struct oxi_cron {
	struct sqlite3 *db;
	const char *tz;		/* the zone of schedules made without one */
	int catchup;		/* a missed recurring slot: 1 runs once, 0 not */
	long grace;		/* seconds late before a slot counts missed */
	long minevery;		/* the shortest interval */
	long maxper;		/* live schedules of one chat */
	long long offset;	/* added to the system clock (OXI_CRON_NOW) */
	struct oxi_cron_beat beat;
	int firefd;		/* fires and tool answers; stdout: notes */
	struct oxi_buf outq, fireq;	/* written once committed */
	struct oxi_buf sent;	/* ids of fires written, to mark */
	int tx;			/* a transaction is open */
	const char *err;	/* after -1: what failed */
};
/* fire.c: the settings of oxi-cron(1), ENVIRONMENT, but the heartbeat's:
 * 0, or -1 with *why */
int oxi_cron_settings(struct oxi_cron *, const char **why);
/* the clock of the stage: the system's plus offset */
time_t oxi_cron_now(const struct oxi_cron *);
/* a transaction around a batch: begin; end commits, writes what waits
 * (notes to stdout, fires and answers to firefd) and marks the fires
 * written.  0, or -1 (c->err) */
int oxi_cron_begin(struct oxi_cron *);
int oxi_cron_end(struct oxi_cron *);
/* a cron.* request (consumed): 0, 1 if it was malformed (*why), or -1 */
int oxi_cron_request(struct oxi_cron *, jv rec, const char **why);
/* a record passing by (borrowed): a msg.out answering a heartbeat books
 * its "tokens".  0 to pass it on; 1 to drop it (a beat's drafts and
 * status lines, and its reply when it says only HEARTBEAT_OK); or -1 */
int oxi_cron_seen(struct oxi_cron *, jv rec);
/* fires what is due at now (inside a transaction): 0 or -1 */
int oxi_cron_fire(struct oxi_cron *, time_t now);
/* the earliest due time, or -1 if nothing is scheduled */
time_t oxi_cron_due(struct oxi_cron *);
/* at start: the fires recorded but perhaps not written, written again */
int oxi_cron_resend(struct oxi_cron *);
/* the schedules as NDJSON lines in b (oxi-cron -L): 0 or -1 */
int oxi_cron_dump(struct oxi_cron *, struct oxi_buf *b);

/* beat.c */
/* reads the heartbeat's settings from the environment and the
 * configuration directory: 0, or -1 with *why */
int oxi_cron_beat_load(struct oxi_cron_beat *, const char **why);
void oxi_cron_beat_free(struct oxi_cron_beat *);
/* the next beat after `after`, inside the active hours; -1 if none */
time_t oxi_cron_beat_next(const struct oxi_cron *, time_t after);
/* the next beat due: after the last, and no earlier than the grace */
time_t oxi_cron_beat_due(struct oxi_cron *);
/* the beat due at `due` (<= now): fired, or skipped when late or over the
 * day's tokens.  0 or -1 */
int oxi_cron_beat_fire(struct oxi_cron *, time_t due, time_t now);
/* the tokens the heartbeat spent on the local day of now */
long long oxi_cron_beat_spent(struct oxi_cron *, time_t now);
/* fire.c, for run.c and beat.c: records and queues the msg.in of a fire of schedule
 * sid due at due, with text and maker (borrowed): 0 or -1 */
int oxi_cron_emit(struct oxi_cron *, const char *sid, time_t due,
    const char *text, jv maker, const char *trust);

#endif
