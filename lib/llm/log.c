/*
 * log.c - the log of oxi-llm's prompts and replies
 *
 * A SQLite database, llm-logs.db in the state directory, with one row
 * per answered prompt of the human mode: its id, the conversation it
 * belongs to (the id of the conversation's first prompt), the time, the
 * model that answered, the system prompt, the prompt, its attachments
 * (without their data), the reply, the -o options, the usage, the cost
 * and how long it took.  An entry is the JSON object of a row, as
 * "oxi-llm logs --json" prints it.  Logging is off while llm-logs-off
 * exists in the configuration directory, unless OXI_LLM_LOG says
 * otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "llm/dialect.h"

static const char *const migrations[] = {
	"CREATE TABLE responses ("
	" id TEXT PRIMARY KEY,"		/* request id, a ULID */
	" cid TEXT NOT NULL,"		/* id of the conversation's first */
	" time TEXT NOT NULL,"		/* RFC 3339, when it was asked */
	" model TEXT NOT NULL,"		/* the model that answered */
	" system TEXT,"
	" prompt TEXT NOT NULL,"
	" attachments TEXT,"		/* JSON array, or NULL */
	" reply TEXT NOT NULL,"
	" options TEXT,"		/* JSON object, or NULL */
	" usage TEXT,"			/* JSON object, or NULL */
	" cost_usd REAL,"
	" ms INTEGER);"
	"CREATE INDEX responses_cid ON responses(cid);",
	NULL
};

/* the columns, in the order of the table; J: a JSON text, N: a number */
static const char *const cols[] = {
	"id", "cid", "time", "model", "system", "prompt", "Jattachments",
	"reply", "Joptions", "Jusage", "Ncost_usd", "Nms", NULL
};

struct oxi_llm_log {
	sqlite3 *db;		/* the database */
};

static const char *
offpath(void)
{
	static char path[4096];

	return oxi_llm_path(path, sizeof path, oxi_config_dir(),
	    "llm-logs-off");
}

const char *
oxi_llm_log_path(void)
{
	static char path[4096];

	return oxi_llm_path(path, sizeof path, oxi_state_dir(),
	    "llm-logs.db");
}

int
oxi_llm_log_on(void)
{
	const char *v = oxi_getenv("OXI_LLM_LOG"), *off;

	if (v)
		return strcmp(v, "0") != 0;
	return !(off = offpath()) || access(off, F_OK) != 0;
}

int
oxi_llm_log_set(int on)
{
	const char *off = offpath();
	FILE *f;

	if (!off)
		return -1;
	if (on)
		return unlink(off) < 0 && errno != ENOENT ? -1 : 0;
	if (!(f = fopen(off, "w")))
		return -1;
	return fclose(f) == 0 ? 0 : -1;
}

struct oxi_llm_log *
oxi_llm_log_open(const char *path, const char **err)
{
	struct oxi_llm_log *l;
	sqlite3 *db;

	if (!(db = oxi_db_open(path, migrations, err)))
		return NULL;
	l = xcalloc(1, sizeof *l);
	l->db = db;
	return l;
}

void
oxi_llm_log_close(struct oxi_llm_log *l)
{
	if (!l)
		return;
	sqlite3_close(l->db);
	free(l);
}

static int
fail(struct oxi_llm_log *l, sqlite3_stmt *st, const char **err)
{
	static char msg[256];

	snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(l->db));
	*err = msg;
	sqlite3_finalize(st);
	errno = EAGAIN;
	return -1;
}

int
oxi_llm_log_add(struct oxi_llm_log *l, jv e, const char **err)
{
	sqlite3_stmt *st;
	const char *c;
	jv v;
	int i, rc;

	if (sqlite3_prepare_v2(l->db, "INSERT INTO responses VALUES"
	    "(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		jv_free(e);
		return fail(l, NULL, err);
	}
	for (i = 0; (c = cols[i]); i++) {
		v = oxi_jget(e, c + (*c == 'J' || *c == 'N'));
		if (*c == 'J' && jv_is_valid(v) && !oxi_jis(v, JV_KIND_NULL))
			v = jv_dump_string(v, 0);
		if (oxi_jis(v, JV_KIND_STRING))
			sqlite3_bind_text(st, i + 1, jv_string_value(v), -1,
			    SQLITE_TRANSIENT);
		else if (oxi_jis(v, JV_KIND_NUMBER))
			sqlite3_bind_double(st, i + 1, jv_number_value(v));
		jv_free(v);
	}
	jv_free(e);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		return fail(l, st, err);
	sqlite3_finalize(st);
	return 0;
}

/* the entry of the row st is on */
static jv
entry(sqlite3_stmt *st)
{
	jv e = jv_object(), v;
	const char *c, *s;
	int i;

	for (i = 0; (c = cols[i]); i++) {
		s = (const char *)sqlite3_column_text(st, i);
		if (sqlite3_column_type(st, i) == SQLITE_NULL || !s)
			v = jv_null();
		else if (*c == 'N')
			v = jv_number(sqlite3_column_double(st, i));
		else if (*c == 'J') {
			v = oxi_json_parse(s, strlen(s));
			if (!jv_is_valid(v)) {
				jv_free(v);
				v = jv_null();
			}
		} else
			v = jv_string(s);
		e = jv_object_set(e, jv_string(c + (*c == 'J' || *c == 'N')),
		    v);
	}
	return e;
}

jv
oxi_llm_log_list(struct oxi_llm_log *l, const char *cid, int n,
    const char **err)
{
	sqlite3_stmt *st;
	jv out = jv_array();
	int rc;

	if (sqlite3_prepare_v2(l->db, "SELECT id, cid, time, model, system,"
	    " prompt, attachments, reply, options, usage, cost_usd, ms FROM"
	    " (SELECT rowid AS r, * FROM responses WHERE ?1 IS NULL OR"
	    " cid = ?1 ORDER BY rowid DESC LIMIT ?2) ORDER BY r", -1, &st,
	    NULL) != SQLITE_OK) {
		fail(l, NULL, err);
		jv_free(out);
		return jv_invalid();
	}
	if (cid)
		sqlite3_bind_text(st, 1, cid, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, n > 0 ? n : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		out = jv_array_append(out, entry(st));
	if (rc != SQLITE_DONE) {
		fail(l, st, err);
		jv_free(out);
		return jv_invalid();
	}
	sqlite3_finalize(st);
	return out;
}

/* the single text or number of a query, as a string in out */
static int
one(struct oxi_llm_log *l, const char *sql, char *out, size_t len,
    const char **err)
{
	sqlite3_stmt *st;
	const char *s;
	int rc;

	*out = '\0';
	if (sqlite3_prepare_v2(l->db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(l, NULL, err);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    (s = (const char *)sqlite3_column_text(st, 0)))
		snprintf(out, len, "%s", s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(l, st, err);
	sqlite3_finalize(st);
	return 0;
}

int
oxi_llm_log_last(struct oxi_llm_log *l, char *cid, size_t len,
    const char **err)
{
	return one(l, "SELECT cid FROM responses ORDER BY rowid DESC LIMIT 1",
	    cid, len, err);
}

int
oxi_llm_log_count(struct oxi_llm_log *l, long long n[2], const char **err)
{
	char s[32];

	if (one(l, "SELECT count(DISTINCT cid) FROM responses", s, sizeof s,
	    err) < 0)
		return -1;
	n[0] = atoll(s);
	if (one(l, "SELECT count(*) FROM responses", s, sizeof s, err) < 0)
		return -1;
	n[1] = atoll(s);
	return 0;
}

void
oxi_llm_usage_text(struct oxi_buf *b, jv rec)
{
	static const char *const k[][2] = {
		{ "input", "input" }, { "output", "output" },
		{ "cache_read", "cache read" }, { "cache_write", "cache write" },
		{ "reasoning", "reasoning" }, { NULL, NULL }
	};
	jv u = oxi_jget(rec, "usage"), cost = oxi_jget(rec, "cost_usd");
	double v;
	int i;

	for (i = 0; k[i][0]; i++) {
		v = oxi_jnum(u, k[i][0], 0);
		if (i < 2 || v > 0)
			oxi_buf_printf(b, "%s%.0f %s", i ? ", " : "", v,
			    k[i][1]);
	}
	if (oxi_jis(cost, JV_KIND_NUMBER))
		oxi_buf_printf(b, ", cost $%.6f", jv_number_value(cost));
	else
		oxi_buf_cats(b, ", cost unknown");
	jv_free(cost);
	jv_free(u);
	jv_free(rec);
}

/* "\n## title\n\n" and the string at key of e, if it has one */
static void
section(struct oxi_buf *b, jv e, const char *key, const char *title)
{
	const char *s = oxi_msg_peek(e, key);

	if (s)
		oxi_buf_printf(b, "\n## %s\n\n%s\n", title, s);
}

void
oxi_llm_log_text(struct oxi_buf *b, jv e)
{
	jv a, p, u;
	const char *s;
	int i, n;

	oxi_buf_printf(b, "# %s    conversation: %s\n\nModel: **%s**\n",
	    oxi_msg_peek(e, "time"), oxi_msg_peek(e, "cid"),
	    oxi_msg_peek(e, "model"));
	section(b, e, "system", "System");
	section(b, e, "prompt", "Prompt");
	a = oxi_jget(e, "attachments");
	n = oxi_jis(a, JV_KIND_ARRAY) ? jv_array_length(jv_copy(a)) : 0;
	if (n > 0)
		oxi_buf_cats(b, "\n### Attachments\n\n");
	for (i = 0; i < n; i++) {
		p = jv_array_get(jv_copy(a), i);
		if (!(s = oxi_msg_peek(p, "path")))
			s = oxi_msg_peek(p, "url");
		oxi_buf_printf(b, "%d. %s: %s\n", i + 1,
		    oxi_msg_peek(p, "media_type"), s ? s : "(stdin)");
		jv_free(p);
	}
	jv_free(a);
	section(b, e, "reply", "Response");
	u = oxi_jget(e, "usage");
	if (oxi_jis(u, JV_KIND_OBJECT)) {
		oxi_buf_cats(b, "\n## Token usage\n\n");
		oxi_llm_usage_text(b, jv_copy(e));
		oxi_buf_putc(b, '\n');
	}
	jv_free(u);
	jv_free(e);
}

/* e with key set to v (consumed), or null if v is invalid */
static jv
set(jv e, const char *key, jv v)
{
	if (!jv_is_valid(v)) {
		jv_free(v);
		v = jv_null();
	}
	return jv_object_set(e, jv_string(key), v);
}

jv
oxi_llm_log_entry(jv req, jv ans)
{
	static const char *const opts[] = {
		"temperature", "top_p", "top_k", "max_tokens", "seed", "stop",
		"thinking", NULL
	};
	struct oxi_buf b = OXI_BUF_INIT;
	const char *model = oxi_msg_peek(ans, "model");
	jv msgs = oxi_jget(req, "messages"), m, e = jv_object(), o, v;
	int i, n;

	if (!model && !(model = oxi_msg_peek(req, "model")))
		model = "";
	e = set(e, "id", oxi_jget(req, "id"));
	e = jv_object_set(e, jv_string("model"), jv_string(model));
	n = oxi_jis(msgs, JV_KIND_ARRAY) ? jv_array_length(jv_copy(msgs)) : 0;
	m = jv_array_get(jv_copy(msgs), 0);
	v = oxi_jget(m, "role");
	if (n > 1 && oxi_jstr_is(v, "system"))
		e = jv_object_set(e, jv_string("system"), oxi_jget(m,
		    "content"));
	jv_free(v);
	jv_free(m);
	m = jv_array_get(msgs, n - 1);
	v = oxi_jget(m, "content");
	oxi_llm_content_cat(&b, v);
	e = jv_object_set(e, jv_string("prompt"), jv_string_sized(b.s ? b.s :
	    "", (int)b.len));
	jv_free(v);
	jv_free(m);
	m = oxi_jget(ans, "message");
	v = oxi_jget(m, "content");
	e = jv_object_set(e, jv_string("reply"), oxi_jis(v, JV_KIND_STRING) ?
	    jv_copy(v) : jv_string(""));
	jv_free(v);
	jv_free(m);
	for (o = jv_object(), i = 0; opts[i]; i++)
		if (jv_is_valid(v = oxi_jget(req, opts[i])))
			o = jv_object_set(o, jv_string(opts[i]), v);
		else
			jv_free(v);
	if (jv_object_length(jv_copy(o)) == 0) {
		jv_free(o);
		o = jv_null();
	}
	e = jv_object_set(e, jv_string("options"), o);
	e = set(e, "usage", oxi_jget(ans, "usage"));
	e = set(e, "cost_usd", oxi_jget(ans, "cost_usd"));
	oxi_buf_free(&b);
	jv_free(req);
	jv_free(ans);
	return e;
}
