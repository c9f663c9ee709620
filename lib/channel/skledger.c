/*
 * skledger.c - the ledger of oxi-recv slack: slack-<account>.db in the
 * state directory (WAL, synchronous=FULL), the envelopes as they came,
 * keyed so that Slack's retries of an event (a new envelope, the same
 * event_id) are known, each marked once its records are written.  An
 * envelope is in it before Slack hears the ack (skrecv.c) or the 200
 * (skhook.c).  Written ones are kept a week.  A failing database dies
 * 111: a supervisor starts us again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "oxi.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/sk.h"

#define KEEP_S		(7 * 86400)	/* written envelopes are kept so long */

static const char *const migrations[] = {
	"CREATE TABLE envelopes ("
	"  seq INTEGER PRIMARY KEY AUTOINCREMENT,"	/* the order they came */
	"  key TEXT NOT NULL UNIQUE,"	/* sk_event_key */
	"  body TEXT NOT NULL,"		/* the envelope as it came */
	"  done INTEGER NOT NULL DEFAULT 0,"	/* its records are written */
	"  at INTEGER NOT NULL);"	/* unix time it was recorded */
	"CREATE INDEX envelopes_todo ON envelopes(done, seq);",
	NULL
};

#define prep(rx, sql)	ch_db_prep((rx)->db, "ledger", sql)

void
sk_ledger_open(struct skrx *rx)
{
	rx->db = ch_db_ledger("slack", rx->sk.account, migrations,
	    &rx->filedir);
}

void
sk_ledger_close(struct skrx *rx)
{
	sqlite3_close(rx->db);
	rx->db = NULL;
}

int
sk_ledger_put(struct skrx *rx, const char *key, const char *body,
    size_t len)
{
	sqlite3_stmt *st = prep(rx, "INSERT OR IGNORE INTO envelopes(key, "
	    "body, at) VALUES(?, ?, ?)");

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, body, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE)
		ch_db_die(rx->db, "ledger", "unable to record");
	sqlite3_finalize(st);
	return sqlite3_changes(rx->db) > 0;
}

int
sk_ledger_next(struct skrx *rx, long long *seq, jv *env, long long *at)
{
	sqlite3_stmt *st = prep(rx, "SELECT seq, body, at FROM envelopes "
	    "WHERE done = 0 ORDER BY seq LIMIT 1");
	int r = sqlite3_step(st);

	if (r != SQLITE_ROW) {
		if (r != SQLITE_DONE)
			ch_db_die(rx->db, "ledger", "unable to read");
		sqlite3_finalize(st);
		return 0;
	}
	*seq = sqlite3_column_int64(st, 0);
	*env = oxi_json_parse((const char *)sqlite3_column_text(st, 1),
	    sqlite3_column_bytes(st, 1));
	*at = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	return 1;
}

void
sk_ledger_done(struct skrx *rx, long long seq)
{
	sqlite3_stmt *st = prep(rx, "UPDATE envelopes SET done = 1 WHERE "
	    "seq = ?");

	sqlite3_bind_int64(st, 1, seq);
	if (sqlite3_step(st) != SQLITE_DONE)
		ch_db_die(rx->db, "ledger", "unable to mark an envelope written");
	sqlite3_finalize(st);
}

void
sk_ledger_prune(struct skrx *rx)
{
	sqlite3_stmt *st = prep(rx, "DELETE FROM envelopes WHERE done = 1 "
	    "AND at < ?");

	sqlite3_bind_int64(st, 1, (sqlite3_int64)(time(NULL) - KEEP_S));
	if (sqlite3_step(st) != SQLITE_DONE)
		oxi_warn("ledger: unable to prune: %s", sqlite3_errmsg(rx->db));
	sqlite3_finalize(st);
}
