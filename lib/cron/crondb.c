/*
 * crondb.c - oxi-cron's ledger (SQLite, WAL)
 *
 *   schedules  one row each: its time (kind, spec, zone, anchor), its
 *              text, its maker (the msg.in keys a fire copies), the next
 *              due time, its state: active, done (a one-shot that
 *              fired) or cancelled, and the message whose turn made it
 *   fires      each fire, recorded with the msg.in it writes before it
 *              is written; sent once written.  Its id derives from the
 *              schedule and the due time, so a fire written again after
 *              a restart is the same message, which oxi-loop's inbox
 *              takes once
 *   answers    the answer to each request, by request id: a request read
 *              again after a restart gets the same answer again, and
 *              makes nothing twice
 *   spend      the tokens of each heartbeat turn, by the msg.in it
 *              answered, and its local day
 *   kv         the heartbeat's last beat
 */
#include <stdarg.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "cron/cron.h"

static const char *const migrations[] = {
	"CREATE TABLE schedules(id TEXT PRIMARY KEY, req TEXT UNIQUE,"
	" kind INTEGER NOT NULL, spec TEXT NOT NULL, tz TEXT, anchor INTEGER,"
	" text TEXT NOT NULL, maker TEXT NOT NULL, trust TEXT,"
	" channel TEXT, account TEXT, chat TEXT, made INTEGER, next INTEGER,"
	" last INTEGER, fired INTEGER NOT NULL DEFAULT 0,"
	" state TEXT NOT NULL DEFAULT 'active');"
	"CREATE INDEX schedules_next ON schedules(state, next);"
	"CREATE INDEX schedules_chat ON schedules(channel, account, chat);"
	"CREATE TABLE fires(id TEXT PRIMARY KEY, sched TEXT, due INTEGER,"
	" line TEXT NOT NULL, at INTEGER, sent INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX fires_unsent ON fires(sent);"
	"CREATE TABLE answers(id TEXT PRIMARY KEY, tofire INTEGER,"
	" line TEXT NOT NULL, at INTEGER);"
	"CREATE TABLE spend(ref TEXT PRIMARY KEY, day TEXT, tokens INTEGER);"
	"CREATE INDEX spend_day ON spend(day);"
	"CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT);",
	/* the message whose turn made a schedule: a turn done again makes
	 * the same schedule once */
	"ALTER TABLE schedules ADD COLUMN msg TEXT;"
	"CREATE INDEX schedules_msg ON schedules(msg);",
	NULL
};

struct sqlite3 *
oxi_crondb_open(const char *path, const char **err)
{
	return oxi_db_open(path, migrations, err);
}

static sqlite3_stmt *
vq(sqlite3 *db, const char **err, const char *sql, const char *fmt,
    va_list ap)
{
	sqlite3_stmt *st;
	const char *s;
	int i;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = sqlite3_errmsg(db);
		return NULL;
	}
	for (i = 0; fmt && fmt[i]; i++)
		if (fmt[i] == 's') {
			s = va_arg(ap, const char *);
			if (s)
				sqlite3_bind_text(st, i + 1, s, -1,
				    SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(st, i + 1);
		} else
			sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
	return st;
}

sqlite3_stmt *
oxi_crondb_q(sqlite3 *db, const char **err, const char *sql,
    const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = vq(db, err, sql, fmt, ap);
	va_end(ap);
	return st;
}

int
oxi_crondb_do(sqlite3 *db, const char **err, const char *sql,
    const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	st = vq(db, err, sql, fmt, ap);
	va_end(ap);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	return 0;
}

long long
oxi_crondb_int(sqlite3 *db, long long dflt, const char *sql,
    const char *fmt, ...)
{
	sqlite3_stmt *st;
	const char *err;
	long long v = dflt;
	va_list ap;

	va_start(ap, fmt);
	st = vq(db, &err, sql, fmt, ap);
	va_end(ap);
	if (!st)
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}
