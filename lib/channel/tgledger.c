/*
 * tgledger.c - the ledger of oxi-recv telegram: telegram-<account>.db in
 * the state directory (WAL, synchronous=FULL), the updates as they came,
 * each marked once its records are written, and a little of what the
 * receiver knows (the bot's name).  An update is in it before Telegram is
 * told it may forget it (tgrecv.c) or answered 200 (tghook.c).  Written
 * updates are kept a week, the newest always (it gives the offset).
 * A failing database dies 111: a supervisor starts us again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/tg.h"

#define KEEP_S		(7 * 86400)	/* written updates are kept so long */

static const char *const migrations[] = {
	"CREATE TABLE updates ("
	"  id INTEGER PRIMARY KEY,"	/* update_id */
	"  body TEXT NOT NULL,"		/* the Update as it came */
	"  done INTEGER NOT NULL DEFAULT 0,"	/* its records are written */
	"  at INTEGER NOT NULL);"	/* unix time it was recorded */
	"CREATE INDEX updates_todo ON updates(done, id);"
	"CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);",
	NULL
};

#define dbdie(rx, what)	ch_db_die((rx)->db, "ledger", what)
#define prep(rx, sql)	ch_db_prep((rx)->db, "ledger", sql)

void
tg_ledger_exec(struct tgrx *rx, const char *sql)
{
	ch_db_exec(rx->db, "ledger", sql);
}

void
tg_ledger_meta(struct tgrx *rx, const char *k, char *buf, size_t len)
{
	ch_db_meta(rx->db, "ledger", k, buf, len);
}

void
tg_ledger_setmeta(struct tgrx *rx, const char *k, const char *v)
{
	ch_db_setmeta(rx->db, "ledger", k, v);
}

void
tg_ledger_open(struct tgrx *rx)
{
	rx->db = ch_db_ledger("telegram", rx->tg.account, migrations,
	    &rx->filedir);
}

int
tg_ledger_put(struct tgrx *rx, jv u, const char **err)
{
	sqlite3_stmt *st;
	long long d = tg_int(u, "update_id", -1);
	jv s;
	int rc;

	if (d < 0) {
		jv_free(u);
		*err = "an update without a valid update_id";
		errno = EINVAL;
		return -1;
	}
	s = jv_dump_string(u, 0);
	st = prep(rx, "INSERT OR IGNORE INTO updates(id, body, at) "
	    "VALUES(?, ?, ?)");
	sqlite3_bind_int64(st, 1, d);
	sqlite3_bind_text(st, 2, jv_string_value(s), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	jv_free(s);
	if (rc != SQLITE_DONE) {
		*err = sqlite3_errmsg(rx->db);
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

long long
tg_ledger_offset(struct tgrx *rx)
{
	sqlite3_stmt *st = prep(rx, "SELECT max(id) FROM updates");
	long long off = 0;

	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		off = sqlite3_column_int64(st, 0) + 1;
	sqlite3_finalize(st);
	return off;
}

void
tg_ledger_prune(struct tgrx *rx)
{
	sqlite3_stmt *st = prep(rx, "DELETE FROM updates WHERE done = 1 AND "
	    "at < ? AND id < (SELECT max(id) FROM updates)");

	sqlite3_bind_int64(st, 1, (sqlite3_int64)(time(NULL) - KEEP_S));
	if (sqlite3_step(st) != SQLITE_DONE)
		oxi_warn("ledger: unable to prune: %s", sqlite3_errmsg(rx->db));
	sqlite3_finalize(st);
}

int
tg_ledger_next(struct tgrx *rx, long long *id, jv *u, long long *at)
{
	sqlite3_stmt *st = prep(rx, "SELECT id, body, at FROM updates WHERE "
	    "done = 0 ORDER BY id LIMIT 1");
	int r = sqlite3_step(st);

	if (r != SQLITE_ROW) {
		if (r != SQLITE_DONE)
			dbdie(rx, "unable to read");
		sqlite3_finalize(st);
		return 0;
	}
	*id = sqlite3_column_int64(st, 0);
	*u = oxi_json_parse((const char *)sqlite3_column_text(st, 1),
	    sqlite3_column_bytes(st, 1));
	*at = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	return 1;
}

void
tg_ledger_done(struct tgrx *rx, long long id)
{
	sqlite3_stmt *st = prep(rx, "UPDATE updates SET done = 1 WHERE id = ?");

	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		dbdie(rx, "unable to mark an update written");
	sqlite3_finalize(st);
}

void
tg_ledger_close(struct tgrx *rx)
{
	sqlite3_close(rx->db);
	rx->db = NULL;
}
