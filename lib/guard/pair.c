/*
 * pair.c - pairing: strangers' requests with their codes, the owner's
 * invitations, paired senders and the lockout of wrong codes, in one
 * SQLite database shared by oxi-guard in and oxi-guard pairing
 *
 * A code is 8 characters of Crockford's base32 (40 bits) from
 * getrandom(2) and lives OXI_PAIR_TTL seconds.  A stranger who sends
 * OXI_PAIR_TRIES wrong codes within OXI_PAIR_LOCK seconds of the first is
 * locked out until then.
 * The requests and the tries are OXI_PAIR_MAX rows each at most: when
 * full of live rows, a new stranger is not served (OXI_PAIR_FULL), so no
 * one can flood the table to forget a lockout.
 */
#include <sys/random.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

static const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

static const char *const migrations[] = {
	"CREATE TABLE paired (channel TEXT NOT NULL, sender TEXT NOT NULL, "
	"name TEXT, at INTEGER NOT NULL, via TEXT NOT NULL, "
	"PRIMARY KEY (channel, sender));"
	"CREATE TABLE pending (channel TEXT NOT NULL, sender TEXT NOT NULL, "
	"name TEXT, code TEXT NOT NULL UNIQUE, expires INTEGER NOT NULL, "
	"PRIMARY KEY (channel, sender));"
	"CREATE TABLE invites (code TEXT PRIMARY KEY, channel TEXT, "
	"expires INTEGER NOT NULL);"
	"CREATE TABLE tries (channel TEXT NOT NULL, sender TEXT NOT NULL, "
	"wrong INTEGER NOT NULL, until INTEGER NOT NULL, "
	"PRIMARY KEY (channel, sender));",
	NULL
};

struct oxi_pair {
	sqlite3 *db;		/* the database */
};

const char *
oxi_pair_path(void)
{
	static char path[4096];
	const char *dir = oxi_state_dir();

	if (!dir)
		return NULL;
	snprintf(path, sizeof path, "%s/pairing.db", dir);
	return path;
}

struct oxi_pair *
oxi_pair_open(const char *path, const char **err)
{
	struct oxi_pair *p;
	sqlite3 *db;

	if (!(db = oxi_db_open(path, migrations, err)))
		return NULL;
	/* who asked and their codes: the owner's alone */
	if (chmod(path, 0600) < 0)
		oxi_warnsys("pairing database '%s': chmod", path);
	p = xcalloc(1, sizeof *p);
	p->db = db;
	return p;
}

void
oxi_pair_close(struct oxi_pair *p)
{
	if (!p)
		return;
	sqlite3_close(p->db);
	free(p);
}

/* a statement with its text arguments bound (NULL binds null) */
static sqlite3_stmt *
prep(struct oxi_pair *p, const char *sql, const char *a, const char *b,
    const char *c, const char *d)
{
	sqlite3_stmt *st;
	const char *v[4];
	int i;

	if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
		oxi_warn("pairing database: %s", sqlite3_errmsg(p->db));
		return NULL;
	}
	v[0] = a;
	v[1] = b;
	v[2] = c;
	v[3] = d;
	for (i = 0; i < 4 && i < sqlite3_bind_parameter_count(st); i++)
		if (v[i])
			sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
	return st;
}

/* binds x to ?5 and y to ?6 where the statement has them */
static void
ints(sqlite3_stmt *st, long long x, long long y)
{
	if (sqlite3_bind_parameter_count(st) >= 5)
		sqlite3_bind_int64(st, 5, x);
	if (sqlite3_bind_parameter_count(st) >= 6)
		sqlite3_bind_int64(st, 6, y);
}

/* runs sql with texts ?1..?4 (T4 below) and integers ?5 ?6: the first
 * column of the first row (0 without rows), or -1 */
static long long
run(struct oxi_pair *p, const char *sql, const char *a, const char *b,
    const char *c, const char *d, long long x, long long y)
{
	sqlite3_stmt *st;
	long long r = 0;
	int rc;

	if (!(st = prep(p, sql, a, b, c, d)))
		return -1;
	ints(st, x, y);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		r = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE) {
		oxi_warn("pairing database: %s", sqlite3_errmsg(p->db));
		r = -1;
	}
	sqlite3_finalize(st);
	return r;
}

/* a fresh code of OXI_PAIR_CODELEN characters: 0, or -1 */
static int
newcode(char code[OXI_PAIR_CODELEN + 1])
{
	unsigned char rnd[OXI_PAIR_CODELEN];
	size_t i;

	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		return -1;
	for (i = 0; i < OXI_PAIR_CODELEN; i++)
		code[i] = alphabet[rnd[i] & 31];
	code[OXI_PAIR_CODELEN] = '\0';
	oxi_wipe(rnd, sizeof rnd);
	return 0;
}

/*
 * The code in s, normalised (upper case, O as 0, I and L as 1, dashes
 * and blanks dropped): 1 if s is a code and nothing else, with an
 * optional "/pair" before it.
 */
static int
parsecode(const char *s, char code[OXI_PAIR_CODELEN + 1])
{
	size_t n = 0;
	int c;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (strncmp(s, "/pair", 5) == 0 && (s[5] == ' ' || s[5] == '\t'))
		s += 5;
	for (; *s; s++) {
		c = (unsigned char)*s;
		if (c == ' ' || c == '-' || c == '\t' || c == '\n')
			continue;
		if (c >= 'a' && c <= 'z')
			c -= 32;
		if (c == 'O')
			c = '0';
		else if (c == 'I' || c == 'L')
			c = '1';
		if (!strchr(alphabet, c) || c == '\0' || n == OXI_PAIR_CODELEN)
			return 0;
		code[n++] = (char)c;
	}
	code[n] = '\0';
	return n == OXI_PAIR_CODELEN;
}

void
oxi_pair_show(const char *code, char out[OXI_PAIR_CODELEN + 2])
{
	memcpy(out, code, 4);
	out[4] = '-';
	memcpy(out + 5, code + 4, OXI_PAIR_CODELEN - 4);
	out[OXI_PAIR_CODELEN + 1] = '\0';
}

int
oxi_pair_known(struct oxi_pair *p, const char *channel, const char *from)
{
	return (int)run(p, "SELECT count(*) FROM paired WHERE channel = ?1 "
	    "AND sender = ?2", channel, from, NULL, NULL, 0, 0);
}

/* an invitation redeemed by channel:from: 0, or -1 (rolled back) */
static int
redeem(struct oxi_pair *p, const char *channel, const char *from,
    const char *name, const char *code, long long now)
{
	if (run(p, "BEGIN IMMEDIATE", NULL, NULL, NULL, NULL, 0, 0) < 0)
		return -1;
	if (run(p, "DELETE FROM invites WHERE code = ?1", code, NULL, NULL,
	    NULL, 0, 0) < 0 ||
	    run(p, "INSERT OR REPLACE INTO paired VALUES (?1, ?2, ?3, ?5, "
	    "'invite')", channel, from, name, NULL, now, 0) < 0 ||
	    run(p, "DELETE FROM tries WHERE channel = ?1 AND sender = ?2",
	    channel, from, NULL, NULL, 0, 0) < 0 ||
	    run(p, "DELETE FROM pending WHERE channel = ?1 AND sender = ?2",
	    channel, from, NULL, NULL, 0, 0) < 0) {
		run(p, "ROLLBACK", NULL, NULL, NULL, NULL, 0, 0);
		return -1;
	}
	return run(p, "COMMIT", NULL, NULL, NULL, NULL, 0, 0) < 0 ? -1 : 0;
}

/*
 * A code attempt by channel:from.  Each stranger's wrong codes are
 * counted for OXI_PAIR_LOCK seconds from the first; a stranger with no
 * row yet gets one only while the table has room for live rows.
 */
static enum oxi_pair_res
attempt(struct oxi_pair *p, const char *channel, const char *from,
    const char *name, const char *code, long long now, int *left)
{
	long long wrong, n, ok;

	if ((wrong = run(p, "SELECT wrong FROM tries WHERE channel = ?1 AND "
	    "sender = ?2 AND until >= ?5", channel, from, NULL, NULL, now,
	    0)) < 0)
		return OXI_PAIR_ERROR;
	if (wrong >= OXI_PAIR_TRIES)
		return OXI_PAIR_LOCKED;
	if (wrong == 0) {
		n = run(p, "SELECT count(*) FROM tries WHERE until >= ?5", NULL,
		    NULL, NULL, NULL, now, 0);
		if (n >= OXI_PAIR_MAX)
			return OXI_PAIR_FULL;
		if (n < 0 || run(p, "DELETE FROM tries WHERE until < ?5", NULL,
		    NULL, NULL, NULL, now, 0) < 0)
			return OXI_PAIR_ERROR;
	}
	if ((ok = run(p, "SELECT count(*) FROM invites WHERE code = ?1 AND "
	    "(channel IS NULL OR channel = ?2) AND expires >= ?5", code,
	    channel, NULL, NULL, now, 0)) < 0)
		return OXI_PAIR_ERROR;
	if (ok > 0)
		return redeem(p, channel, from, name, code, now) < 0 ?
		    OXI_PAIR_ERROR : OXI_PAIR_OK;
	if (wrong == 0 ? run(p, "INSERT INTO tries VALUES (?1, ?2, 1, ?5)",
	    channel, from, NULL, NULL, now + OXI_PAIR_LOCK, 0) < 0 :
	    run(p, "UPDATE tries SET wrong = wrong + 1 WHERE channel = ?1 AND "
	    "sender = ?2", channel, from, NULL, NULL, 0, 0) < 0)
		return OXI_PAIR_ERROR;
	*left = (int)(OXI_PAIR_TRIES - wrong - 1);
	return wrong + 1 >= OXI_PAIR_TRIES ? OXI_PAIR_LOCKED : OXI_PAIR_WRONG;
}

enum oxi_pair_res
oxi_pair_request(struct oxi_pair *p, const char *channel, const char *from,
    const char *name, const char *text, long long now,
    char code[OXI_PAIR_CODELEN + 2], int *left)
{
	char c[OXI_PAIR_CODELEN + 1];
	long long n;

	*left = 0;
	code[0] = '\0';
	if (parsecode(text, c))
		return attempt(p, channel, from, name, c, now, left);
	if (run(p, "DELETE FROM pending WHERE expires < ?5", NULL, NULL, NULL,
	    NULL, now, 0) < 0 ||
	    (n = run(p, "SELECT count(*) FROM pending WHERE channel = ?1 AND "
	    "sender = ?2", channel, from, NULL, NULL, 0, 0)) < 0)
		return OXI_PAIR_ERROR;
	if (n > 0)
		return OXI_PAIR_QUIET;
	if ((n = run(p, "SELECT count(*) FROM pending", NULL, NULL, NULL, NULL,
	    0, 0)) < 0)
		return OXI_PAIR_ERROR;
	if (n >= OXI_PAIR_MAX)
		return OXI_PAIR_FULL;
	if (newcode(c) < 0 || run(p, "INSERT INTO pending VALUES (?1, ?2, ?3, "
	    "?4, ?5)", channel, from, name, c, now + OXI_PAIR_TTL, 0) < 0)
		return OXI_PAIR_ERROR;
	oxi_pair_show(c, code);
	return OXI_PAIR_PENDING;
}

int
oxi_pair_approve(struct oxi_pair *p, const char *code, long long now,
    char *who, size_t n)
{
	char c[OXI_PAIR_CODELEN + 1], ch[256], from[256], name[256];
	sqlite3_stmt *st;
	int rc, live;

	if (!parsecode(code, c))
		return 0;
	if (!(st = prep(p, "DELETE FROM pending WHERE code = ?1 RETURNING "
	    "channel, sender, coalesce(name, ''), expires", c, NULL, NULL,
	    NULL)))
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(ch, sizeof ch, "%s", sqlite3_column_text(st, 0));
		snprintf(from, sizeof from, "%s", sqlite3_column_text(st, 1));
		snprintf(name, sizeof name, "%s", sqlite3_column_text(st, 2));
		live = sqlite3_column_int64(st, 3) >= now;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	if (!live)
		return 0;
	snprintf(who, n, "%s:%s", ch, from);
	return run(p, "INSERT OR REPLACE INTO paired VALUES (?1, ?2, ?3, ?5, "
	    "'approved')", ch, from, name, NULL, now, 0) < 0 ? -1 : 1;
}

int
oxi_pair_invite(struct oxi_pair *p, const char *channel, long long now,
    char code[OXI_PAIR_CODELEN + 2])
{
	char c[OXI_PAIR_CODELEN + 1];

	if (run(p, "DELETE FROM invites WHERE expires < ?5", NULL, NULL, NULL,
	    NULL, now, 0) < 0 || newcode(c) < 0 ||
	    run(p, "INSERT INTO invites VALUES (?1, ?2, ?5)", c, channel, NULL,
	    NULL, now + OXI_PAIR_TTL, 0) < 0)
		return -1;
	oxi_pair_show(c, code);
	return 0;
}

int
oxi_pair_revoke(struct oxi_pair *p, const char *who)
{
	static const char *const sql[] = {
		"DELETE FROM paired WHERE channel = ?1 AND sender = ?2",
		"DELETE FROM pending WHERE channel = ?1 AND sender = ?2",
		"DELETE FROM tries WHERE channel = ?1 AND sender = ?2",
	};
	const char *colon = strchr(who, ':');
	char ch[256];
	size_t i;
	int n = 0;

	if (!colon || colon == who || (size_t)(colon - who) >= sizeof ch)
		return -1;
	memcpy(ch, who, (size_t)(colon - who));
	ch[colon - who] = '\0';
	for (i = 0; i < sizeof sql / sizeof sql[0]; i++) {
		if (run(p, sql[i], ch, colon + 1, NULL, NULL, 0, 0) < 0)
			return -1;
		n += sqlite3_changes(p->db);
	}
	return n;
}

int
oxi_pair_list(struct oxi_pair *p, long long now,
    void (*fn)(const char *, const char *, const char *, const char *,
    long long, void *), void *arg)
{
	static const char *const sql[] = {
		"SELECT 'paired', channel || ':' || sender, name, '', at "
		"FROM paired WHERE ?5 IS NOT NULL ORDER BY at",
		"SELECT 'pending', channel || ':' || sender, name, code, "
		"expires FROM pending WHERE expires >= ?5 ORDER BY expires",
		"SELECT 'invite', coalesce(channel, '*') || ':*', '', code, "
		"expires FROM invites WHERE expires >= ?5 ORDER BY expires",
		"SELECT 'locked', channel || ':' || sender, '', '', until "
		"FROM tries WHERE until >= ?5 AND wrong >= 5 ORDER BY until",
	};
	char show[OXI_PAIR_CODELEN + 2];
	const char *code;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < sizeof sql / sizeof sql[0]; i++) {
		if (!(st = prep(p, sql[i], NULL, NULL, NULL, NULL)))
			return -1;
		ints(st, now, 0);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			code = (const char *)sqlite3_column_text(st, 3);
			if (code && strlen(code) == OXI_PAIR_CODELEN)
				oxi_pair_show(code, show);
			else
				show[0] = '\0';
			fn((const char *)sqlite3_column_text(st, 0),
			    (const char *)sqlite3_column_text(st, 1),
			    (const char *)sqlite3_column_text(st, 2), show,
			    sqlite3_column_int64(st, 4), arg);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return -1;
	}
	return 0;
}
