/*
 * dcledger.c - the ledger of oxi-recv discord: discord-<account>.db in
 * the state directory (WAL, synchronous=FULL).  The events we take
 * (MESSAGE_CREATE, INTERACTION_CREATE) as they came, keyed by their
 * platform id so that one sent again (a resume replays what followed its
 * sequence number) is kept once, each marked once its records are
 * written; the session's id, resume URL and sequence number, the last
 * written in the same transaction as its event, so that after a kill a
 * resume asks for exactly what is not in the ledger; the threads we know
 * of, with their channels.  Written events are kept a week.  A failing
 * database dies 111: a supervisor starts us again.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/dc.h"

#define KEEP_S		(7 * 86400)	/* written events are kept so long */

static const char *const migrations[] = {
	"CREATE TABLE events ("
	"  row INTEGER PRIMARY KEY AUTOINCREMENT,"	/* arrival order */
	"  key TEXT NOT NULL UNIQUE,"	/* the platform id: m:<id>, i:<id> */
	"  t TEXT NOT NULL,"		/* the event's name */
	"  d TEXT NOT NULL,"		/* its data as it came */
	"  done INTEGER NOT NULL DEFAULT 0,"	/* its records are written */
	"  at INTEGER NOT NULL);"	/* unix time it was recorded */
	"CREATE INDEX events_todo ON events(done, row);"
	"CREATE TABLE threads (id TEXT PRIMARY KEY, parent TEXT NOT NULL);"
	"CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);",
	NULL
};

#define dbdie(rx, what)	ch_db_die((rx)->db, "ledger", what)
#define prep(rx, sql)	ch_db_prep((rx)->db, "ledger", sql)
#define exec(rx, sql)	ch_db_exec((rx)->db, "ledger", sql)

/* runs st to its end and finalizes it; dies with what */
static void
run(struct dcrx *rx, sqlite3_stmt *st, const char *what)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		dbdie(rx, what);
	sqlite3_finalize(st);
}

void
dc_ledger_meta(struct dcrx *rx, const char *k, char *buf, size_t len)
{
	ch_db_meta(rx->db, "ledger", k, buf, len);
}

void
dc_ledger_setmeta(struct dcrx *rx, const char *k, const char *v)
{
	ch_db_setmeta(rx->db, "ledger", k, v);
}

void
dc_ledger_open(struct dcrx *rx)
{
	/* an event Discord will not send again must survive a power cut */
	rx->db = ch_db_ledger("discord", rx->dc.account, migrations,
	    &rx->filedir);
}

void
dc_ledger_close(struct dcrx *rx)
{
	sqlite3_close(rx->db);
	rx->db = NULL;
}

void
dc_ledger_put(struct dcrx *rx, const char *key, const char *t, jv d,
    long long seq)
{
	sqlite3_stmt *st;
	char n[24];
	jv s = jv_null();

	exec(rx, "BEGIN IMMEDIATE");
	if (key) {
		s = jv_dump_string(d, 0);
		st = prep(rx, "INSERT OR IGNORE INTO events(key, t, d, at) "
		    "VALUES(?, ?, ?, ?)");
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, t, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, jv_string_value(s), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
		run(rx, st, "unable to record an event");
	} else
		jv_free(d);
	if (seq >= 0) {
		snprintf(n, sizeof n, "%lld", seq);
		dc_ledger_setmeta(rx, "seq", n);
	}
	exec(rx, "COMMIT");
	jv_free(s);
}

int
dc_ledger_next(struct dcrx *rx, long long *row, char *t, size_t tlen, jv *d,
    long long *at)
{
	sqlite3_stmt *st = prep(rx, "SELECT row, t, d, at FROM events WHERE "
	    "done = 0 ORDER BY row LIMIT 1");
	int r = sqlite3_step(st);

	if (r != SQLITE_ROW) {
		if (r != SQLITE_DONE)
			dbdie(rx, "unable to read");
		sqlite3_finalize(st);
		return 0;
	}
	*row = sqlite3_column_int64(st, 0);
	snprintf(t, tlen, "%s", (const char *)sqlite3_column_text(st, 1));
	*d = oxi_json_parse((const char *)sqlite3_column_text(st, 2),
	    sqlite3_column_bytes(st, 2));
	*at = sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	return 1;
}

void
dc_ledger_done(struct dcrx *rx, long long row)
{
	sqlite3_stmt *st = prep(rx, "UPDATE events SET done = 1 WHERE row = ?");

	sqlite3_bind_int64(st, 1, row);
	run(rx, st, "unable to mark an event written");
}

void
dc_ledger_prune(struct dcrx *rx)
{
	sqlite3_stmt *st = prep(rx, "DELETE FROM events WHERE done = 1 AND "
	    "at < ?");

	sqlite3_bind_int64(st, 1, (sqlite3_int64)(time(NULL) - KEEP_S));
	if (sqlite3_step(st) != SQLITE_DONE)
		oxi_warn("ledger: unable to prune: %s", sqlite3_errmsg(rx->db));
	sqlite3_finalize(st);
}

void
dc_ledger_thread(struct dcrx *rx, const char *thread, const char *parent)
{
	sqlite3_stmt *st = prep(rx, "INSERT OR REPLACE INTO threads(id, "
	    "parent) VALUES(?, ?)");

	sqlite3_bind_text(st, 1, thread, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, parent, -1, SQLITE_STATIC);
	run(rx, st, "unable to record a thread");
}

void
dc_ledger_parent(struct dcrx *rx, const char *thread, char *buf,
    size_t len)
{
	sqlite3_stmt *st = prep(rx, "SELECT parent FROM threads WHERE id = ?");

	buf[0] = '\0';
	sqlite3_bind_text(st, 1, thread, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st,
		    0));
	sqlite3_finalize(st);
}
