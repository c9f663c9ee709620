/*
 * hist.c - conversation history and the inbox ledger, in SQLite
 *
 * messages: every message of every session in order (user, assistant with
 * its tool calls, tool results), as the model saw them.
 * inbox: one row per inbound message id, so that a message is answered
 * once: "working" while a turn runs, "done" or "failed" after.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/loop.h"

static const char *const migrations[] = {
	"CREATE TABLE messages("
	" seq INTEGER PRIMARY KEY,"
	" session TEXT NOT NULL,"
	" msg_id TEXT,"
	" ts TEXT NOT NULL,"
	" role TEXT NOT NULL,"
	" content TEXT,"
	" tool_calls TEXT,"
	" tool_call_id TEXT);"
	"CREATE INDEX messages_session ON messages(session, seq);"
	"CREATE TABLE inbox("
	" msg_id TEXT PRIMARY KEY,"
	" session TEXT NOT NULL,"
	" ts TEXT NOT NULL,"
	" state TEXT NOT NULL,"
	" reply TEXT);",
	/* 2: other keys of a message (thinking blocks), as a JSON object */
	"ALTER TABLE messages ADD COLUMN extra TEXT;",
	NULL
};

/* the keys of a message that have columns of their own */
static int
ownkey(const char *k)
{
	return strcmp(k, "role") == 0 || strcmp(k, "content") == 0 ||
	    strcmp(k, "tool_calls") == 0 || strcmp(k, "tool_call_id") == 0;
}

sqlite3 *
oxi_hist_open(const char *path, const char **err)
{
	return oxi_db_open(path, migrations, err);
}

static void
bindstr(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int
run(sqlite3 *db, sqlite3_stmt *st, const char **err)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	return 0;
}

int
oxi_hist_add(sqlite3 *db, const char *session, const char *msgid, jv m,
    const char **err)
{
	sqlite3_stmt *st;
	char ts[32];
	jv calls, s = jv_invalid(), extra = jv_object(), xs = jv_invalid();
	int r, it;

	if (sqlite3_prepare_v2(db, "INSERT INTO messages(session, msg_id, ts,"
	    " role, content, tool_calls, tool_call_id, extra)"
	    " VALUES(?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		jv_free(m);
		*err = sqlite3_errmsg(db);
		return -1;
	}
	oxi_time_now(ts);
	bindstr(st, 1, session);
	bindstr(st, 2, msgid);
	bindstr(st, 3, ts);
	bindstr(st, 4, oxi_msg_peek(m, "role"));
	bindstr(st, 5, oxi_msg_peek(m, "content"));
	calls = jv_object_get(jv_copy(m), jv_string("tool_calls"));
	if (jv_get_kind(calls) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(calls)) > 0) {
		s = jv_dump_string(calls, 0);
		bindstr(st, 6, jv_string_value(s));
	} else
		jv_free(calls);
	bindstr(st, 7, oxi_msg_peek(m, "tool_call_id"));
	for (it = jv_object_iter(m); jv_object_iter_valid(m, it);
	    it = jv_object_iter_next(m, it)) {
		jv k = jv_object_iter_key(m, it);

		if (!ownkey(jv_string_value(k)))
			extra = jv_object_set(extra, jv_copy(k),
			    jv_object_iter_value(m, it));
		jv_free(k);
	}
	if (jv_object_length(jv_copy(extra)) > 0) {
		xs = jv_dump_string(jv_copy(extra), 0);
		bindstr(st, 8, jv_string_value(xs));
	}
	r = run(db, st, err);
	jv_free(extra);
	jv_free(xs);
	jv_free(s);
	jv_free(m);
	return r;
}

jv
oxi_hist_load(sqlite3 *db, const char *session, int max)
{
	sqlite3_stmt *st;
	jv out = jv_array(), m, calls;
	const char *s;
	int started = 0;

	if (sqlite3_prepare_v2(db, "SELECT role, content, tool_calls,"
	    " tool_call_id, extra FROM (SELECT * FROM messages WHERE session = ?"
	    " ORDER BY seq DESC LIMIT ?) ORDER BY seq", -1, &st,
	    NULL) != SQLITE_OK) {
		jv_free(out);
		return jv_invalid_with_msg(jv_string(sqlite3_errmsg(db)));
	}
	bindstr(st, 1, session);
	sqlite3_bind_int(st, 2, max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		s = (const char *)sqlite3_column_text(st, 0);
		/* a window must not open on an orphan tool exchange */
		if (!started && strcmp(s, "user") != 0)
			continue;
		started = 1;
		m = jv_object();
		m = jv_object_set(m, jv_string("role"), jv_string(s));
		s = (const char *)sqlite3_column_text(st, 1);
		m = jv_object_set(m, jv_string("content"),
		    s ? jv_string(s) : jv_null());
		if ((s = (const char *)sqlite3_column_text(st, 2))) {
			calls = oxi_json_parse(s, strlen(s));
			if (jv_is_valid(calls))
				m = jv_object_set(m, jv_string("tool_calls"),
				    calls);
			else
				jv_free(calls);
		}
		if ((s = (const char *)sqlite3_column_text(st, 3)))
			m = jv_object_set(m, jv_string("tool_call_id"),
			    jv_string(s));
		if ((s = (const char *)sqlite3_column_text(st, 4))) {
			jv x = oxi_json_parse(s, strlen(s));

			if (jv_get_kind(x) == JV_KIND_OBJECT)
				m = jv_object_merge(x, m);
			else
				jv_free(x);
		}
		out = jv_array_append(out, m);
	}
	sqlite3_finalize(st);
	return out;
}

const char *
oxi_hist_state(sqlite3 *db, const char *msgid, char *buf, size_t n)
{
	sqlite3_stmt *st;
	const char *r = NULL;

	if (sqlite3_prepare_v2(db, "SELECT state FROM inbox WHERE msg_id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return NULL;
	bindstr(st, 1, msgid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0));
		r = buf;
	}
	sqlite3_finalize(st);
	return r;
}

int
oxi_hist_mark(sqlite3 *db, const char *msgid, const char *session,
    const char *state, const char *reply, const char **err)
{
	sqlite3_stmt *st;
	char ts[32];

	if (sqlite3_prepare_v2(db, "INSERT INTO inbox(msg_id, session, ts,"
	    " state, reply) VALUES(?,?,?,?,?) ON CONFLICT(msg_id) DO UPDATE"
	    " SET state = excluded.state, reply = excluded.reply,"
	    " ts = excluded.ts", -1, &st, NULL) != SQLITE_OK) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	oxi_time_now(ts);
	bindstr(st, 1, msgid);
	bindstr(st, 2, session);
	bindstr(st, 3, ts);
	bindstr(st, 4, state);
	bindstr(st, 5, reply);
	return run(db, st, err);
}

int
oxi_hist_forget(sqlite3 *db, const char *msgid, const char **err)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "DELETE FROM messages WHERE msg_id = ?",
	    -1, &st, NULL) != SQLITE_OK) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	bindstr(st, 1, msgid);
	return run(db, st, err);
}
