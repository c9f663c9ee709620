/*
 * ledger.c - what oxi-loop keeps so that a kill loses nothing and doubles
 * nothing (oxi(7), "Nothing lost, nothing doubled")
 *
 * A message taken off the input is in the inbox (hist.c) before the
 * input lets go of it: "working", with its record in inbox.rec, until its
 * turn ends.  A restarted loop starts those turns again (engine.c,
 * oxi_loop_resume).  What a transaction writes to stdout is also in the
 * outbox until the next transaction, which clears it: a loop killed
 * between the commit and the write writes it again at start, and the
 * sender drops what it delivered already by id.
 */
#include <sqlite3.h>

#include "oxi.h"
#include "loop/hist.h"

int
oxi_hist_keep(sqlite3 *db, const char *msgid, const char *rec,
    const char **err)
{
	sqlite3_stmt *st;

	if (oxi_hist_stmt(db, "UPDATE inbox SET rec = ?2 WHERE msg_id = ?1",
	    &st, err) < 0)
		return -1;
	oxi_hist_bind(st, 1, msgid);
	oxi_hist_bind(st, 2, rec);
	return oxi_hist_run(db, st, err);
}

jv
oxi_hist_working(sqlite3 *db)
{
	sqlite3_stmt *st;
	const char *err;
	jv a = jv_array();
	int rc;

	if (oxi_hist_stmt(db, "SELECT rec FROM inbox WHERE state = 'working'"
	    " AND rec IS NOT NULL ORDER BY ts, rowid", &st, &err) < 0) {
		jv_free(a);
		return jv_invalid_with_msg(jv_string(err));
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		a = jv_array_append(a, jv_string_sized(
		    (const char *)sqlite3_column_text(st, 0),
		    sqlite3_column_bytes(st, 0)));
	oxi_hist_end(st);
	if (rc != SQLITE_DONE) {
		jv_free(a);
		return jv_invalid_with_msg(jv_string(sqlite3_errmsg(db)));
	}
	return a;
}

int
oxi_hist_outbox_add(sqlite3 *db, const char *line, size_t n,
    const char **err)
{
	sqlite3_stmt *st;

	if (oxi_hist_stmt(db, "INSERT INTO outbox(line) VALUES(?)", &st,
	    err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, line, (int)n, SQLITE_TRANSIENT);
	return oxi_hist_run(db, st, err);
}

int
oxi_hist_outbox_load(sqlite3 *db, struct oxi_buf *b, const char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (oxi_hist_stmt(db, "SELECT line FROM outbox ORDER BY seq", &st,
	    err) < 0)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		oxi_buf_cat(b, sqlite3_column_text(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0));
		oxi_buf_putc(b, '\n');
	}
	oxi_hist_end(st);
	if (rc != SQLITE_DONE) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	return 0;
}

int
oxi_hist_outbox_clear(sqlite3 *db, const char **err)
{
	sqlite3_stmt *st;

	if (oxi_hist_stmt(db, "DELETE FROM outbox", &st, err) < 0)
		return -1;
	return oxi_hist_run(db, st, err);
}
