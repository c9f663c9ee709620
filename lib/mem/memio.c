/*
 * memio.c - a memory as records and back: export writes every fact (the
 * superseded ones too, with their vectors) and episode as mem.fact and
 * mem.episode records, import takes them in again, a record already
 * there (its fact id, its session) changing nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "mem/memint.h"

int
oxi_mem_export(struct oxi_mem *m, const char *person, int fd,
    const char **err)
{
	sqlite3_stmt *st;
	char a[32], b[32];
	jv r;

	if (!(st = oxi_mem_prep(m, "SELECT uid, person, text, key, source, confidence, "
	    "created, confirmed, superseded_by, vec FROM facts WHERE ?1 IS "
	    "NULL OR person = ?1 ORDER BY id", err)))
		return -1;
	oxi_mem_bind(st, 1, person);
	while (sqlite3_step(st) == SQLITE_ROW) {
		oxi_mem_rfc3339(sqlite3_column_int64(st, 6), a);
		oxi_mem_rfc3339(sqlite3_column_int64(st, 7), b);
		r = oxi_msg_new("mem.fact");
		r = jv_object_merge(r, JV_OBJECT(jv_string("fact"), jv_string(
		    (const char *)sqlite3_column_text(st, 0)), jv_string(
		    "person"), jv_string((const char *)sqlite3_column_text(st,
		    1)), jv_string("text"), jv_string((const char *)
		    sqlite3_column_text(st, 2)), jv_string("confidence"),
		    jv_number(sqlite3_column_double(st, 5)), jv_string(
		    "created"), jv_string(a), jv_string("confirmed"),
		    jv_string(b)));
		if (sqlite3_column_type(st, 3) == SQLITE_TEXT)
			r = jv_object_set(r, jv_string("key"), jv_string(
			    (const char *)sqlite3_column_text(st, 3)));
		if (sqlite3_column_type(st, 4) == SQLITE_TEXT)
			r = jv_object_set(r, jv_string("source"), jv_string(
			    (const char *)sqlite3_column_text(st, 4)));
		if (sqlite3_column_type(st, 8) == SQLITE_TEXT)
			r = jv_object_set(r, jv_string("superseded_by"),
			    jv_string((const char *)sqlite3_column_text(st,
			    8)));
		if (sqlite3_column_type(st, 9) == SQLITE_BLOB)
			r = jv_object_set(r, jv_string("vector"),
			    oxi_memvec_json(sqlite3_column_blob(st, 9),
			    sqlite3_column_bytes(st, 9)));
		if (oxi_nd_write(fd, r) < 0) {
			sqlite3_finalize(st);
			*err = strerror(errno);
			return -1;
		}
	}
	sqlite3_finalize(st);
	/* a person's episodes: those of the conversations named by their
	 * scope or a scope linked to them (their private chats) */
	if (!(st = oxi_mem_prep(m, "SELECT conv, session, text, source, ts FROM "
	    "episodes WHERE ?1 IS NULL OR conv = ?1 OR conv IN (SELECT scope "
	    "FROM links WHERE person = ?1) ORDER BY id", err)))
		return -1;
	oxi_mem_bind(st, 1, person);
	while (sqlite3_step(st) == SQLITE_ROW) {
		oxi_mem_rfc3339(sqlite3_column_int64(st, 4), a);
		r = jv_object_merge(oxi_msg_new("mem.episode"), JV_OBJECT(
		    jv_string("conv"), jv_string((const char *)
		    sqlite3_column_text(st, 0)), jv_string("session"),
		    jv_string((const char *)sqlite3_column_text(st, 1)),
		    jv_string("text"), jv_string((const char *)
		    sqlite3_column_text(st, 2)), jv_string("ts"),
		    jv_string(a)));
		if (sqlite3_column_type(st, 3) == SQLITE_TEXT)
			r = jv_object_set(r, jv_string("source"), jv_string(
			    (const char *)sqlite3_column_text(st, 3)));
		if (oxi_nd_write(fd, r) < 0) {
			sqlite3_finalize(st);
			*err = strerror(errno);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int
oxi_mem_import(struct oxi_mem *m, jv rec, const char **err)
{
	const char *type = oxi_msg_type_peek(rec);
	struct oxi_memvec v = { NULL, 0 };
	sqlite3_stmt *st;
	long long c, f;
	int r = -1;

	if (strcmp(type, "mem.episode") == 0) {
		if (!oxi_msg_peek(rec, "conv") || !oxi_msg_peek(rec, "session") ||
		    !oxi_msg_peek(rec, "text")) {
			*err = "an episode needs conv, session and text";
			goto out;
		}
		r = oxi_mem_episode(m, oxi_msg_peek(rec, "conv"),
		    oxi_msg_peek(rec, "session"), oxi_msg_peek(rec, "text"),
		    oxi_msg_peek(rec, "source"), oxi_mem_parsetime(
		    oxi_msg_peek(rec, "ts")), NULL, err);
		goto out;
	}
	if (strcmp(type, "mem.fact") != 0 || !oxi_msg_peek(rec, "fact") ||
	    !oxi_msg_peek(rec, "person") || !oxi_msg_peek(rec, "text")) {
		*err = "not a mem.fact with fact, person and text";
		goto out;
	}
	c = oxi_mem_parsetime(oxi_msg_peek(rec, "created"));
	f = oxi_mem_parsetime(oxi_msg_peek(rec, "confirmed"));
	(void)oxi_memvec_from(oxi_jget(rec, "vector"), &v);
	if (!(st = oxi_mem_prep(m, "INSERT OR IGNORE INTO facts(uid, person, text, "
	    "key, source, confidence, created, confirmed, superseded_by, vec) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", err)))
		goto out;
	sqlite3_bind_text(st, 1, oxi_msg_peek(rec, "fact"), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, oxi_msg_peek(rec, "person"), -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(st, 3, oxi_msg_peek(rec, "text"), -1, SQLITE_STATIC);
	oxi_mem_bind(st, 4, oxi_msg_peek(rec, "key"));
	oxi_mem_bind(st, 5, oxi_msg_peek(rec, "source"));
	sqlite3_bind_double(st, 6, oxi_jnum(rec, "confidence", 0.8));
	sqlite3_bind_int64(st, 7, c >= 0 ? c : oxi_mem_now(m));
	sqlite3_bind_int64(st, 8, f >= 0 ? f : c >= 0 ? c : oxi_mem_now(m));
	oxi_mem_bind(st, 9, oxi_msg_peek(rec, "superseded_by"));
	if (v.dim > 0)
		sqlite3_bind_blob(st, 10, v.v, v.dim * (int)sizeof(float),
		    SQLITE_STATIC);
	if ((r = oxi_mem_done(m, st, err)) == 0 && sqlite3_changes(m->db) == 0)
		r = 1;
out:
	free(v.v);
	jv_free(rec);
	return r;
}
