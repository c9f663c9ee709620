/*
 * hist.c - conversation history and the inbox ledger, in SQLite
 *
 * messages: every message of every session in order (user, assistant with
 * its tool calls, tool results), as the model saw them; the messages of a
 * failed turn are marked dropped and never sent again, and tool results
 * are cut to a size after their turn (the model saw them whole once).
 * inbox: one row per inbound message id, so that a message is answered
 * once: "working" while a turn runs, "done" or "failed" (for good) after,
 * "retry" when it failed for a temporary reason and may be answered when
 * it comes again.  The reply itself is stored once, in messages.  While
 * "working", rec holds the message's record (ledger.c).
 * The other tables (sessions, summaries, usage) are sess.c's.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/hist.h"

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
	/* 3: sessions per conversation, summaries, usage; dropped turns */
	"ALTER TABLE messages ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX messages_msg ON messages(msg_id);"
	"CREATE INDEX inbox_ts ON inbox(ts);"
	"CREATE TABLE sessions("
	" id TEXT PRIMARY KEY,"
	" key TEXT NOT NULL,"
	" n INTEGER NOT NULL,"
	" ts TEXT NOT NULL,"
	" model TEXT);"
	"CREATE INDEX sessions_key ON sessions(key, n);"
	"CREATE TABLE summaries("
	" seq INTEGER PRIMARY KEY,"
	" session TEXT NOT NULL,"
	" upto INTEGER NOT NULL,"
	" ts TEXT NOT NULL,"
	" content TEXT NOT NULL);"
	"CREATE INDEX summaries_session ON summaries(session, seq);"
	"CREATE TABLE usage("
	" seq INTEGER PRIMARY KEY,"
	" session TEXT NOT NULL,"
	" ts TEXT NOT NULL,"
	" input INTEGER NOT NULL,"
	" output INTEGER NOT NULL,"
	" cost REAL);"
	"CREATE INDEX usage_ts ON usage(ts);"
	"CREATE INDEX usage_session ON usage(session, ts);"
	"UPDATE inbox SET reply = NULL;",
	/* 4: the hand-off (ledger.c): the record of a message in work, and
	 * the outbox */
	"ALTER TABLE inbox ADD COLUMN rec TEXT;"
	"CREATE TABLE outbox(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);",
	NULL
};

/* the keys of a message that have columns of their own */
static int
ownkey(const char *k)
{
	return strcmp(k, "role") == 0 || strcmp(k, "content") == 0 ||
	    strcmp(k, "tool_calls") == 0 || strcmp(k, "tool_call_id") == 0;
}

/* the statements kept (hist.h), of every database handle open */
#define KEPT	64
static struct kept {
	sqlite3 *db;		/* or NULL: a free slot */
	const char *sql;	/* the key, with db */
	sqlite3_stmt *st;
	int busy;		/* handed out, not yet ended */
} kept[KEPT];

sqlite3 *
oxi_hist_open(const char *path, const char **err)
{
	return oxi_db_open(path, migrations, err);
}

void
oxi_hist_close(sqlite3 *db)
{
	struct kept *k;

	if (!db)
		return;
	for (k = kept; k < kept + KEPT; k++)
		if (k->db == db) {
			sqlite3_finalize(k->st);
			memset(k, 0, sizeof *k);
		}
	sqlite3_close(db);
}

int
oxi_hist_stmt(sqlite3 *db, const char *sql, sqlite3_stmt **st,
    const char **err)
{
	struct kept *k, *slot = NULL;

	for (k = kept; k < kept + KEPT; k++) {
		if (k->db == db && k->sql == sql && !k->busy) {
			k->busy = 1;
			*st = k->st;
			return 0;
		}
		if (!k->db && !slot)
			slot = k;
	}
	/* a new text, or this one in use: kept if there is room */
	if (sqlite3_prepare_v3(db, sql, -1, slot ? SQLITE_PREPARE_PERSISTENT :
	    0, st, NULL) != SQLITE_OK) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	if (slot) {
		slot->db = db;
		slot->sql = sql;
		slot->st = *st;
		slot->busy = 1;
	}
	return 0;
}

void
oxi_hist_end(sqlite3_stmt *st)
{
	struct kept *k;

	for (k = kept; k < kept + KEPT; k++)
		if (k->st == st && k->db) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			k->busy = 0;
			return;
		}
	sqlite3_finalize(st);
}

void
oxi_hist_bind(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int
oxi_hist_prep(sqlite3 *db, const char *sql, sqlite3_stmt **st,
    const char **err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
		*err = sqlite3_errmsg(db);
		return -1;
	}
	return 0;
}

int
oxi_hist_run(sqlite3 *db, sqlite3_stmt *st, const char **err)
{
	int rc = sqlite3_step(st);

	oxi_hist_end(st);
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
	struct oxi_buf s = OXI_BUF_INIT, xs = OXI_BUF_INIT;
	char ts[32];
	jv calls, extra = jv_object();
	int r, it;

	if (oxi_hist_stmt(db, "INSERT INTO messages(session, msg_id, ts,"
	    " role, content, tool_calls, tool_call_id, extra)"
	    " VALUES(?,?,?,?,?,?,?,?)", &st, err) < 0) {
		jv_free(m);
		return -1;
	}
	oxi_time_now(ts);
	oxi_hist_bind(st, 1, session);
	oxi_hist_bind(st, 2, msgid);
	oxi_hist_bind(st, 3, ts);
	oxi_hist_bind(st, 4, oxi_msg_peek(m, "role"));
	oxi_hist_bind(st, 5, oxi_msg_peek(m, "content"));
	calls = jv_object_get(jv_copy(m), jv_string("tool_calls"));
	if (jv_get_kind(calls) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(calls)) > 0) {
		oxi_json_dump(&s, calls);
		oxi_hist_bind(st, 6, s.s);
	}
	jv_free(calls);
	oxi_hist_bind(st, 7, oxi_msg_peek(m, "tool_call_id"));
	for (it = jv_object_iter(m); jv_object_iter_valid(m, it);
	    it = jv_object_iter_next(m, it)) {
		jv k = jv_object_iter_key(m, it);

		if (!ownkey(jv_string_value(k)))
			extra = jv_object_set(extra, jv_copy(k),
			    jv_object_iter_value(m, it));
		jv_free(k);
	}
	if (jv_object_length(jv_copy(extra)) > 0) {
		oxi_json_dump(&xs, extra);
		oxi_hist_bind(st, 8, xs.s);
	}
	r = oxi_hist_run(db, st, err);
	jv_free(extra);
	oxi_buf_free(&xs);
	oxi_buf_free(&s);
	jv_free(m);
	return r;
}

/*
 * The extra keys of a row, text s, as a value: the last few texts are
 * kept parsed, for most rows of a window carry the same few (a user
 * message's "_origin"), and libjq's parser took a tenth of oxi-loop's
 * time per message parsing them again on every turn
 */
static jv
extrakeys(const char *s)
{
	static struct {
		char *text;
		jv v;
	} memo[4];
	static int next;
	int i;
	jv x;

	for (i = 0; i < 4; i++)
		if (memo[i].text && strcmp(memo[i].text, s) == 0)
			return jv_copy(memo[i].v);
	x = oxi_json_parse(s, strlen(s));
	if (jv_get_kind(x) != JV_KIND_OBJECT || strlen(s) > 256)
		return x;
	if (memo[next].text) {
		free(memo[next].text);
		jv_free(memo[next].v);
	}
	memo[next].text = xstrdup(s);
	memo[next].v = jv_copy(x);
	next = (next + 1) % 4;
	return x;
}

jv
oxi_hist_window(sqlite3 *db, const char *session, long long after)
{
	sqlite3_stmt *st;
	jv out = jv_array(), m, calls;
	const char *s, *err;
	int started = 0;

	if (oxi_hist_stmt(db, "SELECT role, content, tool_calls,"
	    " tool_call_id, extra, seq, msg_id FROM messages WHERE session = ?"
	    " AND seq > ? AND dropped = 0 ORDER BY seq", &st, &err) < 0) {
		jv_free(out);
		return jv_invalid_with_msg(jv_string(err));
	}
	oxi_hist_bind(st, 1, session);
	sqlite3_bind_int64(st, 2, after);
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
			jv x = extrakeys(s);

			if (jv_get_kind(x) == JV_KIND_OBJECT)
				m = jv_object_merge(x, m);
			else
				jv_free(x);
		}
		m = jv_object_set(m, jv_string("_seq"),
		    jv_number((double)sqlite3_column_int64(st, 5)));
		s = (const char *)sqlite3_column_text(st, 6);
		m = jv_object_set(m, jv_string("_msg"), jv_string(s ? s : ""));
		out = jv_array_append(out, m);
	}
	oxi_hist_end(st);
	return out;
}

const char *
oxi_hist_state(sqlite3 *db, const char *msgid, char *buf, size_t n)
{
	sqlite3_stmt *st;
	const char *r = NULL;

	const char *err;

	if (oxi_hist_stmt(db, "SELECT state FROM inbox WHERE msg_id = ?", &st,
	    &err) < 0)
		return NULL;
	oxi_hist_bind(st, 1, msgid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0));
		r = buf;
	}
	oxi_hist_end(st);
	return r;
}

int
oxi_hist_mark(sqlite3 *db, const char *msgid, const char *session,
    const char *state, const char **err)
{
	sqlite3_stmt *st;
	char ts[32];

	if (oxi_hist_stmt(db, "INSERT INTO inbox(msg_id, session, ts,"
	    " state) VALUES(?,?,?,?) ON CONFLICT(msg_id) DO UPDATE"
	    " SET state = excluded.state, ts = excluded.ts, rec = CASE"
	    " WHEN excluded.state = 'working' THEN rec END", &st, err) < 0)
		return -1;
	oxi_time_now(ts);
	oxi_hist_bind(st, 1, msgid);
	oxi_hist_bind(st, 2, session);
	oxi_hist_bind(st, 3, ts);
	oxi_hist_bind(st, 4, state);
	return oxi_hist_run(db, st, err);
}

/* one statement on msgid, with an optional integer as ?2 */
static int
onmsg(sqlite3 *db, const char *sql, const char *msgid, long long n,
    const char **err)
{
	sqlite3_stmt *st;

	if (oxi_hist_stmt(db, sql, &st, err) < 0)
		return -1;
	oxi_hist_bind(st, 1, msgid);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, n);
	return oxi_hist_run(db, st, err);
}

int
oxi_hist_forget(sqlite3 *db, const char *msgid, const char **err)
{
	return onmsg(db, "DELETE FROM messages WHERE msg_id = ?", msgid, 0,
	    err);
}

int
oxi_hist_drop(sqlite3 *db, const char *msgid, const char **err)
{
	return onmsg(db, "UPDATE messages SET dropped = 1 WHERE msg_id = ?",
	    msgid, 0, err);
}

int
oxi_hist_cut(sqlite3 *db, const char *msgid, long keep, const char **err)
{
	if (keep <= 0)
		return 0;
	return onmsg(db, "UPDATE messages SET content = substr(content, 1, ?2)"
	    " || printf(char(10) || '[cut: %d more characters]',"
	    " length(content) - ?2) WHERE msg_id = ?1 AND role = 'tool'"
	    " AND length(content) > ?2", msgid, keep, err);
}
