/*
 * cost.c - prices of models, and the spend ledger behind budgets
 *
 * The price table is a JSON object: each key a model name,
 * "provider/model", or a glob(7) pattern of names; each value the USD
 * per million tokens for "input", "output", "cache_read" and
 * "cache_write" (the cache prices default to the input price).  A name
 * takes the entry of the same key, else that of the longest pattern that
 * matches it.  Keys starting with '_' are comments.
 *
 * The table is $OXI_PRICES if set, else the shipped prices.json with the
 * entries of prices.json in the configuration directory over it.  The
 * shipped file is looked for in $OXI_SHARE_DIR, then in ../share/oxi
 * beside the executable (a source tree, or an install under any prefix),
 * then in OXI_SHAREDIR, the compiled-in data directory.
 *
 * The ledger is a SQLite database ($OXI_HOME/llm.db) with one row per
 * answer that cost something: when, for which session, which model, its
 * tokens and its cost.  Budgets compare the sums for the current UTC day,
 * the current UTC month and a session with their caps.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "llm/llm.h"

#ifndef OXI_SHAREDIR
#define OXI_SHAREDIR	"/usr/local/share/oxi"
#endif
#define PRICES_MAX	(4 * 1024 * 1024)

struct oxi_price_ent {
	char *pat;			/* model name or glob pattern */
	int glob;			/* pat holds * ? or [ */
	struct oxi_price p;		/* its prices */
};

struct oxi_prices {
	struct oxi_price_ent *v;	/* entries */
	size_t n;			/* entries used */
	size_t cap;			/* entries allocated */
	char from[PATH_MAX];		/* the last file read, for messages */
};

struct oxi_ledger {
	sqlite3 *db;			/* the database */
	sqlite3_stmt *add;		/* INSERT of one answer */
	sqlite3_stmt *sum[3];		/* sums per day, month, session */
};

static const char *const migrations[] = {
	"CREATE TABLE spend("
	" seq INTEGER PRIMARY KEY,"
	" ts TEXT NOT NULL,"
	" day TEXT NOT NULL,"
	" month TEXT NOT NULL,"
	" session TEXT,"
	" request TEXT,"
	" model TEXT NOT NULL,"
	" input INTEGER NOT NULL DEFAULT 0,"
	" output INTEGER NOT NULL DEFAULT 0,"
	" cache_read INTEGER NOT NULL DEFAULT 0,"
	" cache_write INTEGER NOT NULL DEFAULT 0,"
	" reasoning INTEGER NOT NULL DEFAULT 0,"
	" cost_usd REAL NOT NULL);"
	"CREATE INDEX spend_day ON spend(day);"
	"CREATE INDEX spend_month ON spend(month);"
	"CREATE INDEX spend_session ON spend(session);",
	NULL
};

static double
numkey(jv o, const char *k, double dflt, int *bad)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	double d = dflt;

	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		d = jv_number_value(v);
		if (d < 0)
			*bad = 1;
	} else if (jv_get_kind(v) != JV_KIND_NULL &&
	    jv_get_kind(v) != JV_KIND_INVALID)
		*bad = 1;
	jv_free(v);
	return d;
}

/* adds or replaces the entry pat */
static void
put(struct oxi_prices *t, const char *pat, const struct oxi_price *p)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].pat, pat) == 0) {
			t->v[i].p = *p;
			return;
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n].pat = xstrdup(pat);
	t->v[t->n].glob = strpbrk(pat, "*?[") != NULL;
	t->v[t->n].p = *p;
	t->n++;
}

int
oxi_prices_add(struct oxi_prices *t, const char *text, size_t len,
    char *why, size_t wlen)
{
	struct oxi_price p;
	const char *k;
	jv o, v;
	int bad;

	o = oxi_json_parse(text, len);
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		if (!jv_is_valid(o)) {
			v = jv_invalid_get_msg(o);
			snprintf(why, wlen, "not JSON: %s",
			    jv_get_kind(v) == JV_KIND_STRING ?
			    jv_string_value(v) : "?");
			jv_free(v);
		} else {
			jv_free(o);
			snprintf(why, wlen, "not a JSON object");
		}
		return -1;
	}
	jv_object_foreach(o, key, val) {
		k = jv_string_value(key);
		if (k[0] == '_') {
			jv_free(key);
			jv_free(val);
			continue;
		}
		bad = jv_get_kind(val) != JV_KIND_OBJECT;
		if (!bad) {
			p.input = numkey(val, "input", 0, &bad);
			p.output = numkey(val, "output", 0, &bad);
			p.cache_read = numkey(val, "cache_read", p.input,
			    &bad);
			p.cache_write = numkey(val, "cache_write", p.input,
			    &bad);
		}
		if (bad || !strchr(k, '/')) {
			snprintf(why, wlen, "entry '%.80s': %s", k, bad ?
			    "prices must be non-negative numbers" :
			    "not provider/model");
			jv_free(key);
			jv_free(val);
			jv_free(o);
			return -1;
		}
		put(t, k, &p);
		jv_free(key);
		jv_free(val);
	}
	jv_free(o);
	return 0;
}

struct oxi_prices *
oxi_prices_new(void)
{
	return xcalloc(1, sizeof(struct oxi_prices));
}

/* reads path into t: 1, 0 if it does not exist, -1 with why */
static int
addfile(struct oxi_prices *t, const char *path, char *why, size_t wlen)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char m[200];

	if (oxi_readfile(path, &b, PRICES_MAX) < 0) {
		oxi_buf_free(&b);
		if (errno == ENOENT)
			return 0;
		snprintf(why, wlen, "unable to read prices '%.200s': %s",
		    path, strerror(errno));
		return -1;
	}
	if (oxi_prices_add(t, b.s ? b.s : "", b.len, m, sizeof m) < 0) {
		snprintf(why, wlen, "prices '%.200s': %s", path, m);
		oxi_buf_free(&b);
		return -1;
	}
	snprintf(t->from, sizeof t->from, "%s", path);
	oxi_buf_free(&b);
	return 1;
}

const char *
oxi_share_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX], *s;
	const char *v;
	ssize_t n;

	if (dir[0])
		return dir;
	if ((v = oxi_getenv("OXI_SHARE_DIR"))) {
		snprintf(dir, sizeof dir, "%s", v);
		return dir;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((s = strrchr(exe, '/'))) {
			*s = '\0';
			if ((s = strrchr(exe, '/'))) {
				*s = '\0';
				if ((size_t)snprintf(dir, sizeof dir,
				    "%s/share/oxi", exe) < sizeof dir &&
				    access(dir, F_OK) == 0)
					return dir;
			}
		}
	}
	snprintf(dir, sizeof dir, "%s", OXI_SHAREDIR);
	return dir;
}

struct oxi_prices *
oxi_prices_load(char *why, size_t wlen)
{
	struct oxi_prices *t = oxi_prices_new();
	char path[PATH_MAX + 16];
	const char *v, *dir;
	int r;

	if ((v = oxi_getenv("OXI_PRICES"))) {
		if ((r = addfile(t, v, why, wlen)) == 0)
			snprintf(why, wlen, "no prices file '%.200s'", v);
		if (r <= 0)
			goto fail;
		return t;
	}
	snprintf(path, sizeof path, "%s/prices.json", oxi_share_dir());
	if (addfile(t, path, why, wlen) < 0)
		goto fail;
	if ((dir = oxi_config_dir())) {
		snprintf(path, sizeof path, "%s/prices.json", dir);
		if (addfile(t, path, why, wlen) < 0)
			goto fail;
	}
	return t;
fail:
	oxi_prices_free(t);
	return NULL;
}

void
oxi_prices_free(struct oxi_prices *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].pat);
	free(t->v);
	free(t);
}

const struct oxi_price *
oxi_prices_find(const struct oxi_prices *t, const char *model)
{
	const struct oxi_price_ent *best = NULL;
	size_t i, len = 0, l;

	if (!t || !model)
		return NULL;
	for (i = 0; i < t->n; i++)
		if (!t->v[i].glob && strcmp(t->v[i].pat, model) == 0)
			return &t->v[i].p;
	for (i = 0; i < t->n; i++) {
		if (!t->v[i].glob || fnmatch(t->v[i].pat, model, 0) != 0)
			continue;
		if (!best || (l = strlen(t->v[i].pat)) > len) {
			best = &t->v[i];
			len = strlen(best->pat);
		}
	}
	return best ? &best->p : NULL;
}

const char *
oxi_prices_key(const struct oxi_prices *t, size_t i)
{
	return t && i < t->n ? t->v[i].pat : NULL;
}

static double
tok(jv usage, const char *k)
{
	jv v = jv_get_kind(usage) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(usage), jv_string(k)) : jv_invalid();
	double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : 0;

	jv_free(v);
	return d > 0 ? d : 0;
}

jv
oxi_prices_cost(const struct oxi_prices *t, const char *model, jv usage)
{
	const struct oxi_price *p = oxi_prices_find(t, model);
	double in, cr, cw, plain, c;

	if (!p || jv_get_kind(usage) != JV_KIND_OBJECT) {
		jv_free(usage);
		return jv_null();
	}
	in = tok(usage, "input");
	cr = tok(usage, "cache_read");
	cw = tok(usage, "cache_write");
	plain = in - cr - cw;
	if (plain < 0)
		plain = 0;
	c = (plain * p->input + cr * p->cache_read + cw * p->cache_write +
	    tok(usage, "output") * p->output) / 1e6;
	jv_free(usage);
	/* ten decimal places: far below a cent, and prints short */
	return jv_number((double)llround(c * 1e10) / 1e10);
}

/* the ledger */

static void
finalize(struct oxi_ledger *l)
{
	int i;

	sqlite3_finalize(l->add);
	for (i = 0; i < 3; i++)
		sqlite3_finalize(l->sum[i]);
}

struct oxi_ledger *
oxi_ledger_open(const char *path, const char **err)
{
	static const char *const sums[3] = {
		"SELECT total(cost_usd) FROM spend WHERE day = ?",
		"SELECT total(cost_usd) FROM spend WHERE month = ?",
		"SELECT total(cost_usd) FROM spend WHERE session = ?"
	};
	struct oxi_ledger *l;
	sqlite3 *db;
	int i;

	if (!(db = oxi_db_open(path, migrations, err)))
		return NULL;
	l = xcalloc(1, sizeof *l);
	l->db = db;
	if (sqlite3_prepare_v2(db, "INSERT INTO spend(ts, day, month,"
	    " session, request, model, input, output, cache_read,"
	    " cache_write, reasoning, cost_usd)"
	    " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &l->add, NULL) !=
	    SQLITE_OK)
		goto fail;
	for (i = 0; i < 3; i++)
		if (sqlite3_prepare_v2(db, sums[i], -1, &l->sum[i], NULL) !=
		    SQLITE_OK)
			goto fail;
	return l;
fail:
	{
		static char msg[256];

		snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(db));
		*err = msg;
	}
	finalize(l);
	sqlite3_close(db);
	free(l);
	errno = EINVAL;
	return NULL;
}

void
oxi_ledger_close(struct oxi_ledger *l)
{
	if (!l)
		return;
	finalize(l);
	sqlite3_close(l->db);
	free(l);
}

/* "2026-11-22" and "2026-11" of now, in UTC */
static void
periods(char day[16], char month[16])
{
	char ts[32];

	oxi_time_now(ts);
	snprintf(day, 16, "%.10s", ts);
	snprintf(month, 16, "%.7s", ts);
}

static void
bindopt(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int
oxi_ledger_add(struct oxi_ledger *l, const char *session, const char *id,
    const char *model, jv usage, double cost, const char **err)
{
	static const char *const k[5] = {
		"input", "output", "cache_read", "cache_write", "reasoning"
	};
	sqlite3_stmt *st = l->add;
	char ts[32], day[16], month[16];
	int i, rc;

	oxi_time_now(ts);
	periods(day, month);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sqlite3_bind_text(st, 1, ts, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, month, -1, SQLITE_TRANSIENT);
	bindopt(st, 4, session);
	bindopt(st, 5, id);
	sqlite3_bind_text(st, 6, model ? model : "?", -1, SQLITE_TRANSIENT);
	for (i = 0; i < 5; i++)
		sqlite3_bind_int64(st, 7 + i, (sqlite3_int64)tok(usage, k[i]));
	sqlite3_bind_double(st, 12, cost);
	jv_free(usage);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		*err = sqlite3_errmsg(l->db);
		errno = (rc & 0xff) == SQLITE_BUSY ? EAGAIN : EIO;
		return -1;
	}
	return 0;
}

int
oxi_ledger_spent(struct oxi_ledger *l, const char *session, double out[3],
    const char **err)
{
	char day[16], month[16];
	const char *arg[3];
	int i, rc;

	periods(day, month);
	arg[0] = day;
	arg[1] = month;
	arg[2] = session;
	for (i = 0; i < 3; i++) {
		out[i] = 0;
		if (!arg[i])
			continue;
		sqlite3_reset(l->sum[i]);
		sqlite3_bind_text(l->sum[i], 1, arg[i], -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(l->sum[i]);
		if (rc == SQLITE_ROW)
			out[i] = sqlite3_column_double(l->sum[i], 0);
		sqlite3_reset(l->sum[i]);
		if (rc != SQLITE_ROW) {
			*err = sqlite3_errmsg(l->db);
			return -1;
		}
	}
	return 0;
}
