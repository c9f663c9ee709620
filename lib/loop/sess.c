/*
 * sess.c - sessions, summaries, usage and pruning of the history database
 *
 * sessions: the sessions of each conversation (its key: channel, account,
 * chat and thread), numbered from 1; the latest is the current one.  The
 * first session of a key has the key itself as id, so histories written
 * before sessions existed stay where they were; a later one is the key,
 * "#" and a ULID.  A session may name its own model.
 * summaries: a session's checkpoints: the text that stands for every
 * message of the session up to seq "upto".  The latest one counts.
 * usage: tokens and cost of each model answer, for /status and /cost.
 * The tables are created by hist.c's migrations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/hist.h"

int
oxi_hist_session(sqlite3 *db, const char *key, int fresh, char **id,
    const char **err)
{
	sqlite3_stmt *st;
	struct oxi_buf b = OXI_BUF_INIT;
	char ts[32], ulid[OXI_ID_LEN + 1];
	long long n = 0;

	*id = NULL;
	if (oxi_hist_stmt(db, "SELECT id, n FROM sessions WHERE key = ?"
	    " ORDER BY n DESC LIMIT 1", &st, err) < 0)
		return -1;
	oxi_hist_bind(st, 1, key);
	if (sqlite3_step(st) == SQLITE_ROW) {
		n = sqlite3_column_int64(st, 1);
		if (!fresh)
			*id = xstrdup((const char *)sqlite3_column_text(st,
			    0));
	}
	oxi_hist_end(st);
	if (*id)
		return 0;
	if (n == 0)
		oxi_buf_cats(&b, key);
	else {
		oxi_id_new(ulid);
		oxi_buf_printf(&b, "%s#%s", key, ulid);
	}
	if (oxi_hist_stmt(db, "INSERT INTO sessions(id, key, n, ts) VALUES(?,?,?,?)",
	    &st, err) < 0) {
		oxi_buf_free(&b);
		return -1;
	}
	oxi_time_now(ts);
	oxi_hist_bind(st, 1, b.s);
	oxi_hist_bind(st, 2, key);
	sqlite3_bind_int64(st, 3, n + 1);
	oxi_hist_bind(st, 4, ts);
	if (oxi_hist_run(db, st, err) < 0) {
		oxi_buf_free(&b);
		return -1;
	}
	*id = b.s;
	return 0;
}

jv
oxi_hist_sessions(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	const char *err, *s;
	jv out = jv_array(), o;

	if (oxi_hist_stmt(db, "SELECT n, id, ts, model, (SELECT count(*) FROM messages"
	    " m WHERE m.session = s.id AND m.dropped = 0 AND m.role = 'user')"
	    " FROM sessions s WHERE key = ? ORDER BY n", &st, &err) < 0) {
		jv_free(out);
		return jv_invalid_with_msg(jv_string(err));
	}
	oxi_hist_bind(st, 1, key);
	while (sqlite3_step(st) == SQLITE_ROW) {
		o = jv_object();
		o = jv_object_set(o, jv_string("n"),
		    jv_number((double)sqlite3_column_int64(st, 0)));
		o = jv_object_set(o, jv_string("id"), jv_string(
		    (const char *)sqlite3_column_text(st, 1)));
		o = jv_object_set(o, jv_string("ts"), jv_string(
		    (const char *)sqlite3_column_text(st, 2)));
		s = (const char *)sqlite3_column_text(st, 3);
		o = jv_object_set(o, jv_string("model"), s ? jv_string(s) :
		    jv_null());
		o = jv_object_set(o, jv_string("messages"),
		    jv_number((double)sqlite3_column_int64(st, 4)));
		out = jv_array_append(out, o);
	}
	oxi_hist_end(st);
	return out;
}

char *
oxi_hist_model(sqlite3 *db, const char *session)
{
	sqlite3_stmt *st;
	const char *err, *s;
	char *r = NULL;

	if (oxi_hist_stmt(db, "SELECT model FROM sessions WHERE id = ?", &st, &err) < 0)
		return NULL;
	oxi_hist_bind(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (s = (const char *)sqlite3_column_text(st, 0)))
		r = xstrdup(s);
	oxi_hist_end(st);
	return r;
}

int
oxi_hist_setmodel(sqlite3 *db, const char *session, const char *model,
    const char **err)
{
	sqlite3_stmt *st;

	if (oxi_hist_stmt(db, "UPDATE sessions SET model = ? WHERE id = ?", &st,
	    err) < 0)
		return -1;
	oxi_hist_bind(st, 1, model);
	oxi_hist_bind(st, 2, session);
	return oxi_hist_run(db, st, err);
}

jv
oxi_hist_summary(sqlite3 *db, const char *session, long long *upto)
{
	sqlite3_stmt *st;
	const char *err;
	jv r = jv_null();

	*upto = 0;
	if (oxi_hist_stmt(db, "SELECT upto, content FROM summaries WHERE session = ?"
	    " ORDER BY seq DESC LIMIT 1", &st, &err) < 0)
		return jv_invalid_with_msg(jv_string(err));
	oxi_hist_bind(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*upto = sqlite3_column_int64(st, 0);
		r = jv_string((const char *)sqlite3_column_text(st, 1));
	}
	oxi_hist_end(st);
	return r;
}

jv
oxi_hist_ends(sqlite3 *db, const char *session)
{
	static const char *const sql[2] = {
		"SELECT content FROM messages WHERE session = ? AND role ="
		" 'user' AND dropped = 0 AND content <> '' ORDER BY seq LIMIT 1",
		"SELECT content FROM messages WHERE session = ? AND role ="
		" 'assistant' AND dropped = 0 AND content <> '' ORDER BY seq"
		" DESC LIMIT 1"
	};
	sqlite3_stmt *st;
	const char *err, *s;
	jv r = jv_array();
	int i;

	for (i = 0; i < 2; i++) {
		if (oxi_hist_stmt(db, sql[i], &st, &err) < 0)
			break;
		oxi_hist_bind(st, 1, session);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    (s = (const char *)sqlite3_column_text(st, 0)))
			r = jv_array_append(r, jv_string(s));
		oxi_hist_end(st);
	}
	if (jv_array_length(jv_copy(r)) == 2)
		return r;
	jv_free(r);
	return jv_null();
}

int
oxi_hist_summarise(sqlite3 *db, const char *session, long long upto,
    const char *text, const char **err)
{
	sqlite3_stmt *st;
	char ts[32];

	if (oxi_hist_stmt(db, "INSERT INTO summaries(session, upto, ts, content)"
	    " VALUES(?,?,?,?)", &st, err) < 0)
		return -1;
	oxi_time_now(ts);
	oxi_hist_bind(st, 1, session);
	sqlite3_bind_int64(st, 2, upto);
	oxi_hist_bind(st, 3, ts);
	oxi_hist_bind(st, 4, text);
	return oxi_hist_run(db, st, err);
}

int
oxi_hist_usage(sqlite3 *db, const char *session, long long input,
    long long output, double cost, const char **err)
{
	sqlite3_stmt *st;
	char ts[32];

	if (oxi_hist_stmt(db, "INSERT INTO usage(session, ts, input, output, cost)"
	    " VALUES(?,?,?,?,?)", &st, err) < 0)
		return -1;
	oxi_time_now(ts);
	oxi_hist_bind(st, 1, session);
	oxi_hist_bind(st, 2, ts);
	sqlite3_bind_int64(st, 3, input);
	sqlite3_bind_int64(st, 4, output);
	if (cost >= 0)
		sqlite3_bind_double(st, 5, cost);
	else
		sqlite3_bind_null(st, 5);
	return oxi_hist_run(db, st, err);
}

int
oxi_hist_spent(sqlite3 *db, const char *session, const char *since,
    struct oxi_hist_spend *sp)
{
	sqlite3_stmt *st;
	const char *err;

	memset(sp, 0, sizeof *sp);
	if (oxi_hist_stmt(db, "SELECT count(*), total(input), total(output),"
	    " total(cost), count(cost) FROM usage WHERE (?1 IS NULL OR"
	    " session = ?1) AND ts >= ?2", &st, &err) < 0)
		return -1;
	oxi_hist_bind(st, 1, session);
	oxi_hist_bind(st, 2, since ? since : "");
	if (sqlite3_step(st) == SQLITE_ROW) {
		sp->answers = sqlite3_column_int64(st, 0);
		sp->input = (long long)sqlite3_column_double(st, 1);
		sp->output = (long long)sqlite3_column_double(st, 2);
		sp->cost = sqlite3_column_double(st, 3);
		sp->priced = sqlite3_column_int64(st, 4);
	}
	oxi_hist_end(st);
	return 0;
}

/* the bytes the database's pages in use take */
static long long
used(sqlite3 *db)
{
	static const char *const q[] = { "PRAGMA page_count",
		"PRAGMA freelist_count", "PRAGMA page_size" };
	long long v[3] = { 0, 0, 0 };
	sqlite3_stmt *st;
	int i;

	for (i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(db, q[i], -1, &st, NULL) != SQLITE_OK)
			return -1;
		if (sqlite3_step(st) == SQLITE_ROW)
			v[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return (v[0] - v[1]) * v[2];
}

int
oxi_hist_prune_size(sqlite3 *db, long long max, const char **err)
{
	sqlite3_stmt *st;
	char before[64];
	int i;

	/* the oldest quarter of the messages at a time, at most four
	 * times: what prune may not forget stays, and may keep it over */
	for (i = 0; i < 4 && used(db) > max; i++) {
		if (oxi_hist_stmt(db, "SELECT ts FROM messages ORDER BY ts"
		    " LIMIT 1 OFFSET (SELECT count(*) FROM messages) / 4", &st,
		    err) < 0)
			return -1;
		before[0] = '\0';
		if (sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_text(st, 0))
			snprintf(before, sizeof before, "%s",
			    (const char *)sqlite3_column_text(st, 0));
		oxi_hist_end(st);
		if (!before[0] || oxi_hist_prune(db, before, err) < 0)
			return before[0] ? -1 : 0;
	}
	return 0;
}

int
oxi_hist_prune(sqlite3 *db, const char *before, const char **err)
{
	static const char *const sql[] = {
		"DELETE FROM inbox WHERE ts < ?1 AND state <> 'working'",
		"DELETE FROM usage WHERE ts < ?1",
		/* whole sessions that are no longer current, and what the
		 * current ones keep only in a summary */
		"DELETE FROM messages WHERE ts < ?1 AND (dropped = 1 OR"
		" session NOT IN (SELECT id FROM sessions s WHERE n = (SELECT"
		" max(n) FROM sessions WHERE key = s.key)) OR seq <= (SELECT"
		" max(upto) FROM summaries u WHERE u.session ="
		" messages.session))",
		"DELETE FROM summaries WHERE ts < ?1 AND seq NOT IN (SELECT"
		" max(seq) FROM summaries GROUP BY session)",
		NULL
	};
	sqlite3_stmt *st;
	int i;

	for (i = 0; sql[i]; i++) {
		if (oxi_hist_stmt(db, sql[i], &st, err) < 0)
			return -1;
		oxi_hist_bind(st, 1, before);
		if (oxi_hist_run(db, st, err) < 0)
			return -1;
	}
	return 0;
}
