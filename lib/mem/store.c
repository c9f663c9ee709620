/*
 * store.c - the memory's database: people and the links between their
 * accounts, facts with their confidence, source and last confirmation,
 * vectors as BLOBs beside FTS5 indexes kept by triggers, episodes, and
 * the life of a fact: confirmed by a duplicate, replaced by a
 * contradiction (the old row stays, superseded), decayed at read time,
 * forgotten (deleted from the table and so from both indexes).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "mem/memint.h"

static const char *const migrations[] = {
	"CREATE TABLE links(scope TEXT PRIMARY KEY, person TEXT NOT NULL);"
	"CREATE TABLE facts(id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE,"
	" person TEXT NOT NULL, text TEXT NOT NULL, key TEXT, source TEXT,"
	" confidence REAL NOT NULL, created INTEGER NOT NULL,"
	" confirmed INTEGER NOT NULL, superseded_by TEXT, vec BLOB);"
	"CREATE INDEX facts_person ON facts(person, superseded_by);"
	"CREATE VIRTUAL TABLE facts_fts USING fts5(text, content='facts',"
	" content_rowid='id', tokenize='porter unicode61');"
	"CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN"
	" INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text); END;"
	"CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN"
	" INSERT INTO facts_fts(facts_fts, rowid, text)"
	" VALUES ('delete', old.id, old.text); END;"
	"CREATE TRIGGER facts_au AFTER UPDATE OF text ON facts BEGIN"
	" INSERT INTO facts_fts(facts_fts, rowid, text)"
	" VALUES ('delete', old.id, old.text);"
	" INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text); END;"
	"CREATE TABLE episodes(id INTEGER PRIMARY KEY, conv TEXT NOT NULL,"
	" session TEXT NOT NULL UNIQUE, text TEXT NOT NULL, source TEXT,"
	" ts INTEGER NOT NULL, vec BLOB);"
	"CREATE INDEX episodes_conv ON episodes(conv);"
	"CREATE VIRTUAL TABLE episodes_fts USING fts5(text,"
	" content='episodes', content_rowid='id',"
	" tokenize='porter unicode61');"
	"CREATE TRIGGER episodes_ai AFTER INSERT ON episodes BEGIN"
	" INSERT INTO episodes_fts(rowid, text) VALUES (new.id, new.text); END;"
	"CREATE TRIGGER episodes_ad AFTER DELETE ON episodes BEGIN"
	" INSERT INTO episodes_fts(episodes_fts, rowid, text)"
	" VALUES ('delete', old.id, old.text); END;"
	"CREATE TABLE spend(person TEXT NOT NULL, day TEXT NOT NULL,"
	" tokens INTEGER NOT NULL, PRIMARY KEY(person, day));",
	NULL
};

struct oxi_mem *
oxi_mem_open(const char *path, const struct oxi_mem_cfg *cfg,
    const struct oxi_mem_ai *ai, const char **err)
{
	struct oxi_mem *m;
	sqlite3 *db;

	if (!(db = oxi_db_open(path, migrations, err)))
		return NULL;
	/* the vector scan reads every vector of a person: from the page
	 * cache through mmap rather than a pread per page (bench/membench.py) */
	(void)oxi_db_exec(db, "PRAGMA mmap_size=4294967296", err);
	m = xcalloc(1, sizeof *m);
	m->db = db;
	m->cfg = *cfg;
	if (ai)
		m->ai = *ai;
	return m;
}

void
oxi_mem_close(struct oxi_mem *m)
{
	if (!m)
		return;
	sqlite3_close(m->db);
	free(m->cache.person);
	free(m->cache.ids);
	free(m->cache.q);
	free(m->cache.scale);
	free(m);
}

const char *
oxi_mem_dberr(struct oxi_mem *m)
{
	return sqlite3_errmsg(m->db);
}

long long
oxi_mem_now(const struct oxi_mem *m)
{
	return m->cfg.now ? m->cfg.now : (long long)time(NULL);
}

double
oxi_mem_decayed(const struct oxi_mem *m, double c, long long t)
{
	double age = (double)(oxi_mem_now(m) - t);

	if (age <= 0 || m->cfg.period <= 0)
		return c;
	return c * pow(m->cfg.decay, age / m->cfg.period);
}

sqlite3_stmt *
oxi_mem_prep(struct oxi_mem *m, const char *sql, const char **err)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = sqlite3_errmsg(m->db);
		errno = EAGAIN;
		return NULL;
	}
	return st;
}

void
oxi_mem_bind(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int
oxi_mem_done(struct oxi_mem *m, sqlite3_stmt *st, const char **err)
{
	int rc;

	m->gen++;	/* what recall.c holds in memory is out of date */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		*err = sqlite3_errmsg(m->db);
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

const char *
oxi_mem_person(struct oxi_mem *m, const char *scope, char *buf, size_t n)
{
	sqlite3_stmt *st;
	const char *err;

	snprintf(buf, n, "%s", scope);
	if (!(st = oxi_mem_prep(m, "SELECT person FROM links WHERE scope = ?1", &err)))
		return buf;
	sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

int
oxi_mem_link(struct oxi_mem *m, const char *scope, const char *person,
    const char **err)
{
	sqlite3_stmt *st;

	char was[512];

	oxi_mem_person(m, scope, was, sizeof was);
	if (oxi_db_exec(m->db, "BEGIN", err) < 0)
		return -1;
	st = oxi_mem_prep(m, person ? "INSERT OR REPLACE INTO links(scope, person) "
	    "VALUES (?1, ?2)" : "DELETE FROM links WHERE scope = ?1", err);
	if (!st)
		goto fail;
	sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
	if (person)
		sqlite3_bind_text(st, 2, person, -1, SQLITE_STATIC);
	if (oxi_mem_done(m, st, err) < 0)
		goto fail;
	/* what the scope said before it was linked goes with it: its facts
	 * were the scope's own person's (a person of several scopes keeps
	 * theirs when one scope is unlinked) */
	if (person && strcmp(was, scope) == 0) {
		if (!(st = oxi_mem_prep(m, "UPDATE facts SET person = ?2 WHERE person = "
		    "?1", err)))
			goto fail;
		sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, person, -1, SQLITE_STATIC);
		if (oxi_mem_done(m, st, err) < 0)
			goto fail;
	}
	return oxi_db_exec(m->db, "COMMIT", err);
fail:
	(void)oxi_db_exec(m->db, "ROLLBACK", &(const char *){ NULL });
	return -1;
}

jv
oxi_mem_links(struct oxi_mem *m)
{
	sqlite3_stmt *st;
	const char *err = "?";
	jv a = jv_array();

	if (!(st = oxi_mem_prep(m, "SELECT scope, person FROM links ORDER BY person, "
	    "scope", &err)))
		return jv_free(a), jv_invalid_with_msg(jv_string(err));
	while (sqlite3_step(st) == SQLITE_ROW)
		a = jv_array_append(a, JV_OBJECT(jv_string("scope"),
		    jv_string((const char *)sqlite3_column_text(st, 0)),
		    jv_string("person"),
		    jv_string((const char *)sqlite3_column_text(st, 1))));
	sqlite3_finalize(st);
	return a;
}

/* vectors */

int
oxi_memvec_from(jv v, struct oxi_memvec *out)
{
	int i, n;
	double s = 0, x;

	out->v = NULL;
	out->dim = 0;
	if (jv_get_kind(v) != JV_KIND_ARRAY || (n = jv_array_length(
	    jv_copy(v))) <= 0 || n > 65536) {
		jv_free(v);
		return -1;
	}
	out->v = xcalloc(n, sizeof *out->v);
	for (i = 0; i < n; i++) {
		jv e = jv_array_get(jv_copy(v), i);

		x = jv_get_kind(e) == JV_KIND_NUMBER ? jv_number_value(e) : 0;
		jv_free(e);
		out->v[i] = (float)x;
		s += x * x;
	}
	jv_free(v);
	out->dim = n;
	if (s > 0)
		for (s = sqrt(s), i = 0; i < n; i++)
			out->v[i] = (float)(out->v[i] / s);
	return 0;
}

jv
oxi_memvec_json(const void *blob, int bytes)
{
	const float *f = blob;
	jv a = jv_array();
	int i;

	for (i = 0; i < bytes / (int)sizeof(float); i++)
		a = jv_array_append(a, jv_number(f[i]));
	return a;
}

double
oxi_memvec_dot(const float *a, const float *b, int dim)
{
	float s = 0;
	int i;

	for (i = 0; i < dim; i++)
		s += a[i] * b[i];
	return s;
}

struct oxi_memvec *
oxi_memvec_embed(struct oxi_mem *m, jv texts, int n)
{
	struct oxi_memvec *vs;
	jv r;
	int i;

	if (!m->ai.embed) {
		jv_free(texts);
		return NULL;
	}
	r = m->ai.embed(m->ai.arg, texts);
	if (jv_get_kind(r) != JV_KIND_ARRAY || jv_array_length(jv_copy(r))
	    != n) {
		jv msg = jv_invalid_get_msg(jv_copy(r));

		oxi_warn("no embedding: %s", jv_get_kind(msg) ==
		    JV_KIND_STRING ? jv_string_value(msg) : "bad answer");
		jv_free(msg);
		jv_free(r);
		return NULL;
	}
	vs = xcalloc(n, sizeof *vs);
	for (i = 0; i < n; i++)
		(void)oxi_memvec_from(jv_array_get(jv_copy(r), i), &vs[i]);
	jv_free(r);
	return vs;
}

void
oxi_memvec_freeall(struct oxi_memvec *vs, int n)
{
	int i;

	if (!vs)
		return;
	for (i = 0; i < n; i++)
		free(vs[i].v);
	free(vs);
}

/* the active fact of person closest to v at or above cfg.dup (without
 * a vector: of the same text, case aside) in uid: 1, 0 none, -1.  A fact
 * with a key repeats only the fact of its key with its text: near in
 * meaning is not enough ("lives in Paris" after "lives in Berlin" is
 * close, and replaces it) */
static int
duplicate(struct oxi_mem *m, const char *person, const char *text,
    const char *key, const struct oxi_memvec *v, char *uid,
    const char **err)
{
	sqlite3_stmt *st;
	double best = -2, d;
	int found = 0;

	if (key && *key)
		v = NULL;
	if (key && *key)
		st = oxi_mem_prep(m, "SELECT uid FROM facts WHERE person = ?1 AND "
		    "superseded_by IS NULL AND key = ?3 AND lower(trim(text)) = "
		    "lower(trim(?2))", err);
	else if (v && v->dim > 0)
		st = oxi_mem_prep(m, "SELECT uid, vec FROM facts WHERE person = ?1 AND "
		    "superseded_by IS NULL AND length(vec) = ?2", err);
	else
		st = oxi_mem_prep(m, "SELECT uid FROM facts WHERE person = ?1 AND "
		    "superseded_by IS NULL AND lower(trim(text)) = "
		    "lower(trim(?2))", err);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
	if (v && v->dim > 0)
		sqlite3_bind_int(st, 2, v->dim * (int)sizeof(float));
	else
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (key && *key)
		sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		d = v && v->dim > 0 ? oxi_memvec_dot(v->v,
		    sqlite3_column_blob(st, 1), v->dim) : 1;
		if (d >= m->cfg.dup && d > best) {
			best = d;
			snprintf(uid, OXI_ID_LEN + 1, "%s",
			    sqlite3_column_text(st, 0));
			found = 1;
		}
	}
	sqlite3_finalize(st);
	return found;
}

int
oxi_mem_add(struct oxi_mem *m, const char *person, const char *text,
    const char *key, const char *source, double conf,
    const struct oxi_memvec *v, const char **action, char *uid, char *old,
    const char **err)
{
	sqlite3_stmt *st;
	long long now = oxi_mem_now(m);
	int r;

	old[0] = '\0';
	if ((r = duplicate(m, person, text, key, v, uid, err)) < 0)
		return -1;
	if (r == 1) {
		*action = "confirmed";
		if (!(st = oxi_mem_prep(m, "UPDATE facts SET confirmed = ?2, confidence "
		    "= max(confidence, ?3), source = coalesce(?4, source) "
		    "WHERE uid = ?1", err)))
			return -1;
		sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, now);
		sqlite3_bind_double(st, 3, conf);
		oxi_mem_bind(st, 4, source);
		return oxi_mem_done(m, st, err);
	}
	oxi_id_new(uid);
	*action = "new";
	if (key && *key) {
		if (!(st = oxi_mem_prep(m, "SELECT uid FROM facts WHERE person = ?1 AND "
		    "key = ?2 AND superseded_by IS NULL", err)))
			return -1;
		sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(old, OXI_ID_LEN + 1, "%s",
			    sqlite3_column_text(st, 0));
			*action = "replaced";
		}
		sqlite3_finalize(st);
		if (old[0] && (st = oxi_mem_prep(m, "UPDATE facts SET superseded_by = "
		    "?2 WHERE person = ?1 AND key = ?3 AND superseded_by IS "
		    "NULL", err))) {
			sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, uid, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
			if (oxi_mem_done(m, st, err) < 0)
				return -1;
		} else if (old[0])
			return -1;
	}
	if (!(st = oxi_mem_prep(m, "INSERT INTO facts(uid, person, text, key, source, "
	    "confidence, created, confirmed, vec) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)", err)))
		return -1;
	sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, person, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
	oxi_mem_bind(st, 4, key);
	oxi_mem_bind(st, 5, source);
	sqlite3_bind_double(st, 6, conf);
	sqlite3_bind_int64(st, 7, now);
	if (v && v->dim > 0)
		sqlite3_bind_blob(st, 8, v->v, v->dim * (int)sizeof(float),
		    SQLITE_STATIC);
	return oxi_mem_done(m, st, err);
}

long
oxi_mem_forget(struct oxi_mem *m, const char *person, const char *fact,
    const char *key, int all, const char **err)
{
	sqlite3_stmt *st;
	long n = 0;

	/* what the chosen facts superseded, all the way down, goes too */
	if (!(st = oxi_mem_prep(m, "WITH RECURSIVE gone(uid) AS ("
	    " SELECT uid FROM facts WHERE person = ?1 AND superseded_by IS NULL"
	    " AND (?4 OR uid = ?2 OR id = ?5 OR key = ?3)"
	    " UNION SELECT f.uid FROM facts f JOIN gone g"
	    " ON f.superseded_by = g.uid WHERE f.person = ?1)"
	    " DELETE FROM facts WHERE person = ?1 AND uid IN gone", err)))
		return -1;
	sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
	oxi_mem_bind(st, 2, fact);
	oxi_mem_bind(st, 3, key);
	sqlite3_bind_int(st, 4, all != 0);
	if (fact && strspn(fact, "0123456789") == strlen(fact) && *fact)
		sqlite3_bind_int64(st, 5, strtoll(fact, NULL, 10));
	else
		sqlite3_bind_null(st, 5);
	if (oxi_mem_done(m, st, err) < 0)
		return -1;
	n = sqlite3_changes(m->db);
	return n;
}

jv
oxi_mem_list(struct oxi_mem *m, const char *person)
{
	sqlite3_stmt *st;
	const char *err = "?";
	char ts[32];
	jv a = jv_array(), o;

	if (!(st = oxi_mem_prep(m, "SELECT uid, id, text, key, confidence, confirmed "
	    "FROM facts WHERE person = ?1 AND superseded_by IS NULL "
	    "ORDER BY confirmed DESC, id DESC", &err)))
		return jv_free(a), jv_invalid_with_msg(jv_string(err));
	sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		oxi_mem_rfc3339(sqlite3_column_int64(st, 5), ts);
		o = JV_OBJECT(jv_string("fact"),
		    jv_string((const char *)sqlite3_column_text(st, 0)),
		    jv_string("n"), jv_number(sqlite3_column_int64(st, 1)),
		    jv_string("text"),
		    jv_string((const char *)sqlite3_column_text(st, 2)),
		    jv_string("confidence"), jv_number(round(oxi_mem_decayed(m,
		    sqlite3_column_double(st, 4), sqlite3_column_int64(st, 5)) *
		    1000) / 1000), jv_string("confirmed"), jv_string(ts));
		if (sqlite3_column_type(st, 3) == SQLITE_TEXT)
			o = jv_object_set(o, jv_string("key"), jv_string(
			    (const char *)sqlite3_column_text(st, 3)));
		a = jv_array_append(a, o);
	}
	sqlite3_finalize(st);
	return a;
}

int
oxi_mem_episode(struct oxi_mem *m, const char *conv, const char *session,
    const char *text, const char *source, long long ts,
    const struct oxi_memvec *v, const char **err)
{
	sqlite3_stmt *st;

	/* a delete and an insert, so that the trigger keeps FTS5 true */
	if (!(st = oxi_mem_prep(m, "DELETE FROM episodes WHERE session = ?1", err)))
		return -1;
	sqlite3_bind_text(st, 1, session, -1, SQLITE_STATIC);
	if (oxi_mem_done(m, st, err) < 0)
		return -1;
	if (!(st = oxi_mem_prep(m, "INSERT INTO episodes(conv, session, text, source, "
	    "ts, vec) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", err)))
		return -1;
	sqlite3_bind_text(st, 1, conv, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, session, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
	oxi_mem_bind(st, 4, source);
	sqlite3_bind_int64(st, 5, ts ? ts : oxi_mem_now(m));
	if (v && v->dim > 0)
		sqlite3_bind_blob(st, 6, v->v, v->dim * (int)sizeof(float),
		    SQLITE_STATIC);
	return oxi_mem_done(m, st, err);
}

long
oxi_mem_spend(struct oxi_mem *m, const char *person, long add)
{
	sqlite3_stmt *st;
	const char *err;
	char day[32];
	long n = 0;

	oxi_mem_rfc3339(oxi_mem_now(m), day);
	day[10] = '\0';
	if (add > 0 && (st = oxi_mem_prep(m, "INSERT INTO spend(person, day, tokens) "
	    "VALUES (?1, ?2, ?3) ON CONFLICT(person, day) DO UPDATE SET "
	    "tokens = tokens + ?3", &err))) {
		sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, add);
		(void)oxi_mem_done(m, st, &err);
	}
	if (!(st = oxi_mem_prep(m, "SELECT tokens FROM spend WHERE person = ?1 AND "
	    "day = ?2", &err)))
		return 0;
	sqlite3_bind_text(st, 1, person, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

long
oxi_mem_prune(struct oxi_mem *m, const char **err)
{
	sqlite3_stmt *st;
	jv gone = jv_array();
	long n = 0;
	int i;

	if (!(st = oxi_mem_prep(m, "SELECT uid, person, confidence, confirmed FROM "
	    "facts WHERE superseded_by IS NULL", err)))
		return jv_free(gone), -1;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (oxi_mem_decayed(m, sqlite3_column_double(st, 2),
		    sqlite3_column_int64(st, 3)) < m->cfg.floor)
			gone = jv_array_append(gone, JV_ARRAY(jv_string(
			    (const char *)sqlite3_column_text(st, 0)), jv_string(
			    (const char *)sqlite3_column_text(st, 1))));
	sqlite3_finalize(st);
	for (i = 0; i < jv_array_length(jv_copy(gone)); i++) {
		jv g = jv_array_get(jv_copy(gone), i);
		jv u = jv_array_get(jv_copy(g), 0), p = jv_array_get(g, 1);
		long r = oxi_mem_forget(m, jv_string_value(p),
		    jv_string_value(u), NULL, 0, err);

		jv_free(u);
		jv_free(p);
		if (r < 0)
			return jv_free(gone), -1;
		n += r;
	}
	jv_free(gone);
	return n;
}

/* times */

void
oxi_mem_rfc3339(long long t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000Z",
	    &tm))
		snprintf(out, 32, "1970-01-01T00:00:00.000Z");
}

long long
oxi_mem_parsetime(const char *s)
{
	int y, mo, d, h, mi, sec;
	long long days;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi,
	    &sec) != 6 || mo < 1 || mo > 12)
		return -1;
	/* days from civil (H. Hinnant) */
	y -= mo <= 2;
	days = (long long)(y >= 0 ? y : y - 399) / 400 * 146097;
	{
		long long yoe = y - (long long)(y >= 0 ? y : y - 399) / 400 *
		    400;
		long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;

		days += yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
	}
	return days * 86400 + h * 3600 + mi * 60 + sec;
}
