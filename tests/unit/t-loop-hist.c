/*
 * t-loop-hist.c - the statements the history database keeps (hist.h):
 * one per text, reset after use, a second one to a caller that comes
 * while the first is in use, the calls of hist.c and sess.c through
 * them all the same, and nothing left once the database is closed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/hist.h"
#include "tap.h"

/* the statements open on db */
static int
open_stmts(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int n = 0;

	while ((st = sqlite3_next_stmt(db, st)))
		n++;
	return n;
}

int
main(void)
{
	static const char q[] = "SELECT count(*) FROM messages WHERE"
	    " session = ?";
	sqlite3 *db, *db2;
	sqlite3_stmt *a, *b, *c;
	const char *err = NULL;
	char *id = NULL, *id2 = NULL, buf[16];
	int n, i;
	jv w;

	plan(14);
	if (!(db = oxi_hist_open(":memory:", &err)) ||
	    !(db2 = oxi_hist_open(":memory:", &err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	ok(oxi_hist_stmt(db, q, &a, &err) == 0, "a statement is prepared");
	oxi_hist_bind(a, 1, "s");
	ok(sqlite3_step(a) == SQLITE_ROW && sqlite3_column_int(a, 0) == 0,
	    "...and runs");
	ok(oxi_hist_stmt(db, q, &b, &err) == 0 && b != a,
	    "one in use is not handed out twice");
	oxi_hist_end(b);
	oxi_hist_end(a);
	ok(oxi_hist_stmt(db, q, &c, &err) == 0 && (c == a || c == b),
	    "given back, it is handed out again");
	ok(sqlite3_bind_parameter_count(c) == 1 && sqlite3_step(c) ==
	    SQLITE_ROW && sqlite3_column_int(c, 0) == 0,
	    "reset: it runs again from the start");
	oxi_hist_end(c);
	ok(oxi_hist_stmt(db2, q, &c, &err) == 0 && c != a && c != b,
	    "another database has statements of its own");
	oxi_hist_end(c);
	ok(oxi_hist_stmt(db, "SELECT nonsense FROM nowhere", &c, &err) < 0 &&
	    err && *err, "a bad text fails with sqlite's message");

	/* the history's calls, many times over, on the kept statements */
	for (i = 0; i < 50; i++) {
		free(id);
		id = NULL;
		if (oxi_hist_session(db, "cli:a:b", 0, &id, &err) < 0 ||
		    oxi_hist_mark(db, "m1", id, "working", &err) < 0 ||
		    oxi_hist_add(db, id, "m1", JV_OBJECT(jv_string("role"),
		    jv_string("user"), jv_string("content"),
		    jv_string("hi")), &err) < 0)
			break;
	}
	ok(i == 50, "fifty rounds of session, mark and add");
	ok(oxi_hist_state(db, "m1", buf, sizeof buf) &&
	    strcmp(buf, "working") == 0, "the state reads back");
	w = oxi_hist_window(db, id, 0);
	ok(jv_get_kind(w) == JV_KIND_ARRAY && jv_array_length(jv_copy(w)) ==
	    50, "the window holds the fifty messages");
	jv_free(w);
	ok(oxi_hist_session(db, "cli:a:b", 1, &id2, &err) == 0 && id2 &&
	    strcmp(id, id2) != 0, "a fresh session (a statement kept ran "
	    "to its end and was reset)");
	n = open_stmts(db);
	ok(n > 0 && n <= 64, "the statements kept are bounded (%d)", n);
	oxi_hist_prep(db, q, &a, &err);
	ok(open_stmts(db) == n + 1 && oxi_hist_run(db, a, &err) == 0 &&
	    open_stmts(db) == n, "one of oxi_hist_prep is finalized by run");
	/* closed with its statements: no error, nothing left behind for
	 * the next handle */
	oxi_hist_close(db);
	oxi_hist_close(db2);
	db = oxi_hist_open(":memory:", &err);
	ok(db && oxi_hist_stmt(db, q, &a, &err) == 0 &&
	    sqlite3_step(a) == SQLITE_ROW, "a new handle prepares anew");
	oxi_hist_end(a);
	oxi_hist_close(db);
	free(id);
	free(id2);
	return done();
}
