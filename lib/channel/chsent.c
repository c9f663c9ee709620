/*
 * chsent.c - the sent-ledger of a channel's sender, its receipts, and
 * the hand-off that fills it (ch_sent_take)
 *
 * <channel>-send-<account>.db in the state directory (WAL, synchronous
 * NORMAL): telegram-send-main.db, slack-send-T0123.db.  A record to deliver (msg.out, approval.ask, an error shown) is
 * a row of outbox keyed by its id, put there before its bytes are
 * consumed from the input; a record whose id is there already is not
 * delivered again.  Each part that went out is a row of parts keyed by
 * the record and the part's number, so that after a kill the parts
 * delivered are skipped and the rest sent.  When the last part is out
 * (or the record failed for good) the row says so, its receipt is
 * written, and then the row says that too: a receipt owed is written at
 * the next start.  drafts maps a reply still being written to the
 * message that shows it, so that its final text edits that message even
 * across a restart.  The one window: a kill between the platform's answer
 * and the row of that part sends the part again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "oxi.h"
#include "channel/ch.h"

#define KEEP_S		(7 * 86400)	/* delivered rows are kept so long */

enum { TODO, SENT, FAILED };	/* outbox.state */

static const char *const migrations[] = {
	"CREATE TABLE outbox ("
	"  key TEXT PRIMARY KEY,"	/* the record's id, or error:<ref> */
	"  rec TEXT NOT NULL,"		/* the record as it came */
	"  state INTEGER NOT NULL DEFAULT 0,"	/* TODO, SENT, FAILED */
	"  rcpt INTEGER NOT NULL DEFAULT 0,"	/* its receipt is written */
	"  ref TEXT, inreply TEXT,"	/* what the receipt names */
	"  pid TEXT, error TEXT,"	/* the first part's id, or why not */
	"  at INTEGER NOT NULL);"	/* unix time it came */
	"CREATE INDEX outbox_todo ON outbox(state, rcpt);"
	"CREATE TABLE parts ("
	"  key TEXT NOT NULL, n INTEGER NOT NULL,"	/* record, part */
	"  chat TEXT NOT NULL, mid TEXT NOT NULL,"	/* the message */
	"  at INTEGER NOT NULL, PRIMARY KEY (key, n));"
	"CREATE TABLE drafts ("
	"  id TEXT PRIMARY KEY,"	/* the msg.out id */
	"  chat TEXT NOT NULL, mid TEXT NOT NULL, at INTEGER NOT NULL);",
	NULL
};

#define dbdie(tx, what)	ch_db_die((tx)->db, "sent-ledger", what)
#define prep(tx, sql)	ch_db_prep((tx)->db, "sent-ledger", sql)
#define exec(tx, sql)	ch_db_exec((tx)->db, "sent-ledger", sql)


/* runs st to its end and finalizes it; dies with what */
static void
done(struct ch_sent *tx, sqlite3_stmt *st, const char *what)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		dbdie(tx, what);
	sqlite3_finalize(st);
}


/* binds text or NULL */
static void
bind(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void
ch_sent_open(struct ch_sent *tx, const char *channel, const char *account,
    int rcptfd)
{
	struct oxi_buf p = OXI_BUF_INIT;

	tx->channel = channel;
	tx->account = account;
	tx->rcptfd = rcptfd;
	tx->rcptgone = 0;
	oxi_buf_printf(&p, "%s-send-%s.db", channel, account);
	/* NORMAL: a WAL commit outlives a kill -9 without waiting for the
	 * disk, and the window in which a part that went out is not yet here
	 * (a kill then sends it again) is the time of an insert, not of a
	 * sync; only the loss of power loses more */
	tx->db = ch_db_open(p.s, migrations, "sent-ledger",
	    "PRAGMA synchronous=NORMAL");
	oxi_buf_free(&p);
}

void
ch_sent_close(struct ch_sent *tx)
{
	sqlite3_close(tx->db);
	tx->db = NULL;
}

void
ch_sent_begin(struct ch_sent *tx)
{
	exec(tx, "BEGIN IMMEDIATE");
}

void
ch_sent_commit(struct ch_sent *tx)
{
	exec(tx, "COMMIT");
}

int
ch_sent_put(struct ch_sent *tx, const char *key, const char *line, size_t len)
{
	sqlite3_stmt *st = prep(tx, "INSERT OR IGNORE INTO outbox(key, rec, "
	    "at) VALUES(?, ?, ?)");

	bind(st, 1, key);
	sqlite3_bind_text(st, 2, line, (int)len, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	done(tx, st, "unable to record");
	return sqlite3_changes(tx->db) > 0;
}

int
ch_sent_state(struct ch_sent *tx, const char *key)
{
	sqlite3_stmt *st = prep(tx, "SELECT state FROM outbox WHERE key = ?");
	int state = -1;

	bind(st, 1, key);
	if (sqlite3_step(st) == SQLITE_ROW)
		state = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return state;
}

void
ch_sent_receipt(struct ch_sent *tx, const char *ref, const char *inreply,
    const char *pid, const char *error)
{
	if (tx->rcptgone || !ref)
		return;
	if (oxi_msg_receipt(tx->rcptfd, tx->channel, ref, inreply, pid,
	    error == NULL, error) == 0)
		return;
	if (errno != EPIPE)
		oxi_diesys(OXI_EX_TEMP, "unable to write a receipt");
	oxi_warn("receipts: no one reads them any more");
	tx->rcptgone = 1;
}

static void
rcpt_written(struct ch_sent *tx, const char *key)
{
	sqlite3_stmt *st = prep(tx, "UPDATE outbox SET rcpt = 1 WHERE key = ?");

	bind(st, 1, key);
	done(tx, st, "unable to mark a receipt");
}

/* column i as text, or NULL */
static const char *
col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

void
ch_sent_load(struct ch_sent *tx, void (*fn)(void *arg, const char *key,
    jv rec), void *arg)
{
	sqlite3_stmt *st;
	jv rec;
	int r;

	st = prep(tx, "SELECT key, rec FROM outbox WHERE state = 0 "
	    "ORDER BY rowid");
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		rec = oxi_json_parse(col(st, 1), sqlite3_column_bytes(st, 1));
		if (oxi_jis(rec, JV_KIND_OBJECT))
			fn(arg, col(st, 0), rec);
		else
			jv_free(rec);
	}
	if (r != SQLITE_DONE)
		dbdie(tx, "unable to read");
	sqlite3_finalize(st);
	/* a kill between a delivery and its receipt */
	st = prep(tx, "SELECT key, ref, inreply, pid, error FROM outbox "
	    "WHERE state != 0 AND rcpt = 0 ORDER BY rowid");
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		ch_sent_receipt(tx, col(st, 1), col(st, 2), col(st, 3), col(st, 4));
		rcpt_written(tx, col(st, 0));
	}
	if (r != SQLITE_DONE)
		dbdie(tx, "unable to read");
	sqlite3_finalize(st);
}

void
ch_sent_part(struct ch_sent *tx, const char *key, int n, const char *chat,
    const char *mid)
{
	sqlite3_stmt *st = prep(tx, "INSERT OR REPLACE INTO parts(key, n, "
	    "chat, mid, at) VALUES(?, ?, ?, ?, ?)");

	bind(st, 1, key);
	sqlite3_bind_int(st, 2, n);
	bind(st, 3, chat);
	bind(st, 4, mid);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)time(NULL));
	done(tx, st, "unable to record a part");
}

int
ch_sent_parts(struct ch_sent *tx, const char *key, char *pid, size_t len)
{
	sqlite3_stmt *st = prep(tx, "SELECT n, chat, mid FROM parts WHERE "
	    "key = ? ORDER BY n");
	int n = 0;

	pid[0] = '\0';
	bind(st, 1, key);
	/* the parts delivered one after another from the first */
	while (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_int(st, 0) == n) {
		if (n++ == 0)
			snprintf(pid, len, "%s:%s", col(st, 1), col(st, 2));
	}
	sqlite3_finalize(st);
	return n;
}

void
ch_sent_done(struct ch_sent *tx, const char *key, const char *ref,
    const char *inreply, const char *pid, const char *error)
{
	sqlite3_stmt *st = prep(tx, "UPDATE outbox SET state = ?, ref = ?, "
	    "inreply = ?, pid = ?, error = ? WHERE key = ?");

	if (error)
		pid = NULL;

	sqlite3_bind_int(st, 1, error ? FAILED : SENT);
	bind(st, 2, ref);
	bind(st, 3, inreply);
	bind(st, 4, pid);
	bind(st, 5, error);
	bind(st, 6, key);
	done(tx, st, "unable to mark a delivery");
	ch_sent_receipt(tx, ref, inreply, pid, error);
	rcpt_written(tx, key);
}

void
ch_sent_draft(struct ch_sent *tx, const char *id, const char *chat,
    const char *mid)
{
	sqlite3_stmt *st;

	if (mid) {
		st = prep(tx, "INSERT OR REPLACE INTO drafts(id, chat, mid, at) "
		    "VALUES(?, ?, ?, ?)");
		bind(st, 2, chat);
		bind(st, 3, mid);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
	} else
		st = prep(tx, "DELETE FROM drafts WHERE id = ?");
	bind(st, 1, id);
	done(tx, st, "unable to record a draft");
}

void
ch_sent_draft_get(struct ch_sent *tx, const char *id, char *mid, size_t len)
{
	sqlite3_stmt *st = prep(tx, "SELECT mid FROM drafts WHERE id = ?");

	mid[0] = '\0';
	bind(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(mid, len, "%s", col(st, 0));
	sqlite3_finalize(st);
}

void
ch_sent_prune(struct ch_sent *tx)
{
	sqlite3_stmt *st;
	sqlite3_int64 old = (sqlite3_int64)(time(NULL) - KEEP_S);

	st = prep(tx, "DELETE FROM parts WHERE key IN (SELECT key FROM outbox "
	    "WHERE state != 0 AND rcpt = 1 AND at < ?)");
	sqlite3_bind_int64(st, 1, old);
	done(tx, st, "unable to prune");
	st = prep(tx, "DELETE FROM outbox WHERE state != 0 AND rcpt = 1 AND "
	    "at < ?");
	sqlite3_bind_int64(st, 1, old);
	done(tx, st, "unable to prune");
	st = prep(tx, "DELETE FROM drafts WHERE at < ?");
	sqlite3_bind_int64(st, 1, old);
	done(tx, st, "unable to prune");
}

/* the kinds of record the sender takes */
enum { R_OUT, R_ASK, R_ERR, R_DRAFT, R_TYPING, R_NONE };

static int
kind(const char *type)
{
	static const char *const types[] = { "msg.out", "approval.ask",
		"error", "msg.draft", "typing", NULL };
	int i;

	for (i = 0; types[i] && strcmp(types[i], type) != 0; i++)
		;
	return i;
}

/*
 * One record (borrowed) of in.  Ours to deliver goes into the ledger
 * (*txn says a transaction is open) and the queue.  0, or 1 if it was
 * rejected.
 */
static int
take(struct ch_sent *tx, struct oxi_nd *in, jv rec,
    const struct ch_sink *to, int *txn)
{
	const char *type = oxi_msg_type_peek(rec), *why, *v, *id, *ref;
	struct oxi_buf key = OXI_BUF_INIT;
	char ulid[OXI_ID_LEN + 1];
	int k = kind(type);

	if (k == R_NONE) {
		oxi_debug("%s:%lu: %s record ignored, not for a chat",
		    in->name, in->lineno, type);
		return 0;
	}
	if (((v = oxi_msg_peek(rec, "channel")) && strcmp(v, tx->channel)) ||
	    ((v = oxi_msg_peek(rec, "account")) && strcmp(v,
	    tx->account))) {
		oxi_debug("%s:%lu: %s record for another channel or account "
		    "ignored", in->name, in->lineno, type);
		return 0;
	}
	id = oxi_msg_peek(rec, "id");
	if (oxi_msg_check(rec, &why) < 0 || (k == R_DRAFT && !id &&
	    (why = "msg.draft record needs \"id\" (a string)"))) {
		oxi_nd_reject(in, why);
		if (k == R_OUT && id)
			ch_sent_receipt(tx, id, oxi_msg_peek(rec,
			    "in_reply_to"), NULL, why);
		return 1;
	}
	if (k == R_DRAFT) {
		to->draft(to->arg, rec);
		return 0;
	}
	if (k == R_TYPING) {
		to->typing(to->arg, rec);
		return 0;
	}
	ref = oxi_msg_peek(rec, "ref");
	if (k == R_ERR && !(oxi_msg_peek(rec, "channel") &&
	    oxi_msg_peek(rec, "chat"))) {
		oxi_warn("%s: %s", oxi_msg_peek(rec, "code"),
		    oxi_msg_peek(rec, "message"));
		return 0;
	}
	/* the ledger's key: the record's id; an error's, its ref's */
	if (k == R_ERR && !id && ref)
		oxi_buf_printf(&key, "error:%s", ref);
	else if (id)
		oxi_buf_cats(&key, id);
	else {
		/* no id, nothing to know it again by */
		oxi_id_new(ulid);
		oxi_buf_printf(&key, "noid:%s", ulid);
	}
	if (!*txn) {
		ch_sent_begin(tx);
		*txn = 1;
	}
	if (ch_sent_put(tx, key.s, in->line, in->linelen))
		to->job(to->arg, key.s, jv_copy(rec));
	else
		oxi_debug("%s:%lu: %s %s is known: not sent again", in->name,
		    in->lineno, type, key.s);
	oxi_buf_free(&key);
	return 0;
}

int
ch_sent_take(struct ch_sent *tx, struct oxi_nd *in, const struct ch_sink *to)
{
	int r, txn = 0, status = 0;
	jv rec;

	while ((r = oxi_nd_take(in, &rec)) == OXI_ND_OK || r == OXI_ND_BAD) {
		if (r == OXI_ND_BAD) {
			status = OXI_EX_FALSE;
			continue;
		}
		if (take(tx, in, rec, to, &txn))
			status = OXI_EX_FALSE;
		jv_free(rec);
	}
	if (txn)
		ch_sent_commit(tx);
	/* in the ledger, or of no use later: the input may let go */
	if (oxi_nd_consume(in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	return status;
}
