/*
 * ch.h - what the chat channels share beside the registry: the SQLite of
 * their ledgers (chdb.c) and the sent-ledger of a sender with its
 * receipts (chsent.c).  Included only by lib/channel/ files.
 */
#ifndef OXI_CH_H
#define OXI_CH_H

#include "oxi.h"

struct sqlite3;
struct sqlite3_stmt;

/*
 * chdb.c: a ledger's SQLite, each failure dying 111 with the ledger's
 * name ("ledger", "sent-ledger"): open file (in the state directory,
 * migrations, then pragma), prepare, run
 */
struct sqlite3 *ch_db_open(const char *file, const char *const *migrations,
    const char *name, const char *pragma);
struct sqlite3_stmt *ch_db_prep(struct sqlite3 *, const char *name,
    const char *sql);
void ch_db_exec(struct sqlite3 *, const char *name, const char *sql);
OXI_NORETURN void ch_db_die(struct sqlite3 *, const char *name,
    const char *what);
/* a receiver's ledger, <channel>-<account>.db (synchronous=FULL), and
 * the directory of its files, $OXI_HOME/files/<channel> (*filedir, the
 * caller's to free) */
struct sqlite3 *ch_db_ledger(const char *channel, const char *account,
    const char *const *migrations, char **filedir);
/* a receiver's ledger's table meta (k TEXT PRIMARY KEY, v TEXT): the
 * value of k in buf ("" when none), or k set to v */
void ch_db_meta(struct sqlite3 *, const char *name, const char *k, char *buf,
    size_t len);
void ch_db_setmeta(struct sqlite3 *, const char *name, const char *k,
    const char *v);
/* the records of an event (an array, consumed) on stdout, one write(2)
 * each: 0, or -1 with errno when stdout is gone */
int ch_records(jv out);

/*
 * chsent.c: the sent-ledger of a sender.  Each msg.out, approval.ask and
 * error shown is a row keyed by its id (an error: "error:<ref>"), put
 * there before its bytes are consumed; each part delivered is a row
 * keyed by the part's number (0 for the first).  All die 111 when the
 * database fails.
 */
struct ch_sent {
	struct sqlite3 *db;	/* <channel>-send-<account>.db */
	const char *channel;	/* named by the receipts */
	const char *account;	/* the records taken name it, or none */
	int rcptfd;		/* where receipts go */
	int rcptgone;		/* their reader has gone */
};
void ch_sent_open(struct ch_sent *, const char *channel, const char *account,
    int rcptfd);
void ch_sent_close(struct ch_sent *);
void ch_sent_begin(struct ch_sent *);
void ch_sent_commit(struct ch_sent *);
/* line[0..len) (a record) under key: 1 if new, 0 if known already */
int ch_sent_put(struct ch_sent *, const char *key, const char *line,
    size_t len);
/* key's row: -1 none, 0 to deliver, 1 delivered, 2 failed */
int ch_sent_state(struct ch_sent *, const char *key);
/* the records not yet delivered, oldest first, each to fn (rec consumed);
 * then the receipts owed, written */
void ch_sent_load(struct ch_sent *, void (*fn)(void *arg, const char *key,
    jv rec), void *arg);
/* part n (0 for the first) of key went out as message mid of chat */
void ch_sent_part(struct ch_sent *, const char *key, int n, const char *chat,
    const char *mid);
/* the parts of key delivered so far; the first's "chat:mid" in pid */
int ch_sent_parts(struct ch_sent *, const char *key, char *pid, size_t len);
/*
 * key is done: delivered (error NULL, pid the platform id of its first
 * part) or failed (pid ignored); its receipt written, for ref answering
 * inreply
 */
void ch_sent_done(struct ch_sent *, const char *key, const char *ref,
    const char *inreply, const char *pid, const char *error);
/* the message that shows the draft of msg.out id in chat: mid, or NULL
 * to forget it; ch_sent_draft_get: it, or "" */
void ch_sent_draft(struct ch_sent *, const char *id, const char *chat,
    const char *mid);
void ch_sent_draft_get(struct ch_sent *, const char *id, char *mid,
    size_t len);
/* a receipt for ref answering inreply: delivered as pid, or not for
 * error; none once their reader has gone (EPIPE), else dies 111 */
void ch_sent_receipt(struct ch_sent *, const char *ref, const char *inreply,
    const char *pid, const char *error);
/* forgets what was delivered long ago */
void ch_sent_prune(struct ch_sent *);
/*
 * The hand-off of a sender (oxi(7)): the records of in read so far, for
 * our channel and account.  A msg.out, an approval.ask and an error
 * that names a chat go into the ledger, all in one transaction, and to
 * job unless their key is there already; msg.draft and typing go to
 * draft and typing; an error without a chat is warned; others are
 * ignored.  Then in is consumed.  The status: 0, or 1 if some record
 * was rejected (dead-lettered; a msg.out's receipt says why).
 */
struct ch_sink {
	void (*job)(void *arg, const char *key, jv rec);	/* consumes */
	void (*draft)(void *arg, jv rec);	/* borrowed */
	void (*typing)(void *arg, jv rec);	/* borrowed */
	void *arg;
};
int ch_sent_take(struct ch_sent *, struct oxi_nd *in, const struct ch_sink *);

/*
 * chhook.c: the listener of a platform's webhook on listen
 * ("[addr:]port", addr 127.0.0.1 unless given).  POST only; gate (may
 * be NULL) sees each request's headers before its body, fn the whole
 * request; each returns the HTTP status with its body in out (JSON), or
 * 0: go on (gate), 200 {"ok":true} (fn).  A body over max is 413.  open
 * dies 100 on a bad address, 111 if it cannot listen; wait serves
 * requests for up to ms (-1: for ever) or until the signal pipe: 0, or
 * -1 with errno.
 */
struct ch_hook;
struct ch_hook_req {
	void *conn;		/* libmicrohttpd's connection */
	const char *path;	/* the request's path */
	const char *body;	/* the body (NUL-terminated), fn only */
	size_t len;		/* its length */
};
typedef int (*ch_hook_fn)(void *arg, const struct ch_hook_req *,
    struct oxi_buf *out);
/* a request header by name, or NULL */
const char *ch_hook_header(const struct ch_hook_req *, const char *name);
struct ch_hook *ch_hook_open(const char *listen, size_t max, const char *who,
    ch_hook_fn gate, ch_hook_fn fn, void *arg);
int ch_hook_wait(struct ch_hook *, int sigfd, int ms);
/* the fd to poll(2) for POLLIN beside others; then ch_hook_wait(h, -1, 0) */
int ch_hook_fd(const struct ch_hook *);
void ch_hook_close(struct ch_hook *);

/*
 * chwait.c: the channels' HTTP clients.  ch_http_wait runs loop until
 * *flag is set, setting *stop when SIGTERM comes (with termstop) or
 * libcurl fails, the signal pipe sigfd (or -1) drained; ch_pause sleeps
 * ms, less when SIGTERM comes (with termstop).  ch_write: all of p to
 * fd, 0 or an errno.  A download: ch_file_open creates dest.tmp (0600)
 * in tmp, an fd or -1 with err (and *temp: retrying may help);
 * ch_file_done closes it and renames it to dest if ok, else removes
 * it: ok, or 0 with err when closing or renaming failed.
 */
struct oxi_http_loop;
void ch_http_wait(struct oxi_http_loop *loop, int sigfd, int termstop,
    int *stop, const int *flag);
void ch_pause(int sigfd, int termstop, long ms);
int ch_write(int fd, const char *p, size_t n);
int ch_file_open(const char *dest, struct oxi_buf *tmp, int *temp, char *err,
    size_t len);
int ch_file_done(int fd, struct oxi_buf *tmp, const char *dest, int ok,
    char *err, size_t len);
/*
 * chwait.c: the loop of a sender, until its input ends and all is
 * delivered, or SIGTERM and the calls in flight have ended: records of
 * in taken into sent (ch_sent_take, to sink), out's calls started
 * (due: ms to the next one due, or -1) and their answers read on loop,
 * with in and the signal pipe sigfd; sent pruned every hour.  The
 * status of ch_sent_take.  Dies 111 when stdin or libcurl fails.
 */
#define CH_PRUNE_MS	3600000
struct ch_out {
	long (*due)(void *arg);	/* starts what is due: ms to the next */
	int (*busy)(void *arg);	/* jobs queued or calls in flight */
	int *inflight;		/* calls in flight */
	int *stopping;		/* set at SIGTERM: nothing new starts */
	void *arg;
};
int ch_sent_run(struct ch_sent *, struct oxi_nd *in, const struct ch_sink *,
    const struct ch_out *, struct oxi_http_loop *loop, int sigfd);

/* chopt.c: a setting of two words: $name (else dflt) as its index in
 * words (a NULL-terminated list of two); dies 100 on another value */
int ch_choose(const char *name, const char *dflt, const char *const *words);

#endif
