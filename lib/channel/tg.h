/*
 * tg.h - the telegram channel's own header: the Bot API client
 * (tgapi.c) that its receiver (tgrecv.c and the files beside it) and its
 * sender (tgsend.c) share.  Included only by lib/channel/tg*.c and
 * telegram.c.
 *
 * The token travels in every URL (https://api.telegram.org/bot<token>/
 * <method>), so every message this client makes, and every dead letter
 * of the process, has it replaced by "<token>" first.  Diagnostics made
 * elsewhere from a tg_res or a URL must use tg_redact.
 */
#ifndef OXI_TG_H
#define OXI_TG_H

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"

#define TG_BASE		"https://api.telegram.org"
#define TG_ACCOUNT	"main"
#define TG_FILE_MAX	(20UL * 1024 * 1024)	/* the Bot API's getFile cap */
#define TG_REPLY_MAX	(16UL * 1024 * 1024)	/* an API reply we read */
#define TG_REDACTED	"<token>"

/* a client of the Bot API for one bot */
struct tg {
	char *base;		/* $OXI_TELEGRAM_BASE_URL, no trailing "/" */
	char *token;		/* $TELEGRAM_BOT_TOKEN, wiped by tg_close */
	char botid[24];		/* the token's bot id (public: getMe's id) */
	const char *account;	/* -a, $OXI_TELEGRAM_ACCOUNT, or "main" */
	struct oxi_http_loop *loop;	/* the transfers, ours and a caller's */
	int sigfd;		/* the signal self-pipe to watch, or -1 */
	int termstop;		/* SIGTERM ends the calls in flight (the
				 * receiver's long poll); else they finish */
};

/* the outcome of a call */
struct tg_res {
	int ok;			/* 1: the API said "ok":true */
	jv result;		/* its "result" (the caller's), else null */
	int kind;		/* OXI_HTTP_*: what the transport saw */
	long code;		/* "error_code", else the HTTP status, else 0 */
	int temp;		/* retrying may help: network, 429, 5xx */
	long retry_after;	/* seconds to wait (429), or -1 */
	char migrate[32];	/* "migrate_to_chat_id": the group became this
				 * supergroup, or "" */
	char desc[256];		/* the API's "description", or "" */
	char err[384];		/* one line for a diagnostic: "sendMessage:
				 * 400 Bad Request: chat not found"; the
				 * token is never in it */
};
/* called once when a call started by tg_start ends; res (and its
 * result) lives during the call only: jv_copy what is kept */
typedef void (*tg_done_fn)(void *arg, struct tg_res *res);

/*
 * Reads $TELEGRAM_BOT_TOKEN and $OXI_TELEGRAM_BASE_URL; account may be
 * NULL ($OXI_TELEGRAM_ACCOUNT, else "main").  Dies 100 if the token is
 * missing or malformed (digits, ":", 8 or more of A-Za-z0-9_-) or the
 * base URL is not http(s), 111 if libcurl cannot start.  From then on
 * the dead letters of the process have the token redacted.
 */
void tg_open(struct tg *, const char *account);
void tg_close(struct tg *);
/*
 * Starts method with params (a JSON object, consumed; null for none),
 * timing out after timeout_ms (0: 60 s).  done is called once, from a
 * later oxi_http_poll on tg->loop (tg_call, tg_wait or the caller's own
 * loop).  0, or -1 with res->err when it could not start (done is then
 * not called).
 */
int tg_start(struct tg *, const char *method, jv params, long timeout_ms,
    tg_done_fn done, void *arg, struct tg_res *res);
/*
 * The same, waiting for the answer: 0 with res->result the call's
 * result, or -1 with res->err (and res->code, temp, retry_after,
 * migrate).  With tg->termstop, SIGTERM (seen on tg->sigfd) ends the
 * wait at once as OXI_HTTP_ABORT.  Free res with tg_res_free.
 */
int tg_call(struct tg *, const char *method, jv params, long timeout_ms,
    struct tg_res *res);
void tg_res_free(struct tg_res *);
/*
 * Files: tg_getfile asks for file_id's File (res->result: file_path,
 * file_size, file_unique_id); tg_download fetches its file_path into
 * dest (written as dest.tmp, mode 0600, then renamed), refusing more
 * than max bytes.  0, or -1 with res->err.
 */
int tg_getfile(struct tg *, const char *file_id, struct tg_res *res);
int tg_download(struct tg *, const char *file_path, size_t max,
    const char *dest, struct tg_res *res);
/* sleeps ms; with tg->termstop, less if SIGTERM comes */
void tg_pause(struct tg *, long ms);
/* replaces every occurrence of the token in s (NUL-terminated, edited in
 * place: the replacement is shorter) by "<token>" */
void tg_redact(const struct tg *, char *s);
/* the integer obj[key] (borrowed), or dflt if that is not a number or
 * not an integer of at most 2^53 in magnitude (JSON numbers are doubles) */
long long tg_int(jv obj, const char *key, long long dflt);
/* a platform id (number or string, borrowed) as a string, or "" */
const char *tg_idstr(jv v, char *buf, size_t len);

/*
 * The receiver: tgrecv.c (the long poll, the run), tgledger.c (the
 * ledger), tgmsg.c (an update as records, its files), tghook.c (the
 * webhook).
 */
#define TG_NWARN	32	/* update kinds warned about, at most */
struct sqlite3;
struct sqlite3_stmt;
struct tgrx {
	struct tg tg;		/* the client */
	const struct oxi_chan_opts *o;	/* the options */
	struct sqlite3 *db;	/* the ledger: telegram-<account>.db */
	char botname[64];	/* the bot's username (getMe), or "" */
	int groups_all;		/* OXI_TELEGRAM_GROUPS=all: every message of
				 * a group, not only those addressed to us */
	int edits_new;		/* OXI_TELEGRAM_EDITS=new */
	size_t filemax;		/* OXI_TELEGRAM_FILE_MAX */
	char *filedir;		/* $OXI_HOME/files/telegram */
	char warned[TG_NWARN][40];	/* kinds of update skipped with a
					 * warning, each warned once */
	int nwarned;		/* how many */
};
/*
 * tgmsg.c: the records for update (borrowed), recorded at unix time at,
 * appended to *out (an array): a msg.in, an approval.answer (its
 * callback answered at once), or none (skipped: a message not for us,
 * a kind we do not take).  Files of a message for us are fetched.
 * 0, or -1: SIGTERM stopped it; the update is left for the next start.
 */
int tg_update(struct tgrx *, jv update, long long at, jv *out);
/*
 * tgledger.c: the ledger.  A failing database dies 111, but for put.
 * put: records update (consumed), not yet written, unless its update_id
 * is there already: 0, or -1 with *err (a bad update: EINVAL; the
 * database: EAGAIN).  next: the first update not yet written (1), or none
 * (0); done marks it written.  offset: past the newest update, or 0.
 */
void tg_ledger_open(struct tgrx *);	/* also sets rx->filedir */
void tg_ledger_close(struct tgrx *);
void tg_ledger_exec(struct tgrx *, const char *sql);
int tg_ledger_put(struct tgrx *, jv update, const char **err);
int tg_ledger_next(struct tgrx *, long long *id, jv *update,
    long long *at);
void tg_ledger_done(struct tgrx *, long long id);
long long tg_ledger_offset(struct tgrx *);
void tg_ledger_prune(struct tgrx *);	/* forgets the old written ones */
/* meta: small values by key ("" when there is none) */
void tg_ledger_meta(struct tgrx *, const char *k, char *buf, size_t len);
void tg_ledger_setmeta(struct tgrx *, const char *k, const char *v);
/*
 * tghook.c: the webhook on listen ("[addr:]port", addr 127.0.0.1 unless
 * given), its secret from $OXI_TELEGRAM_WEBHOOK_SECRET; setWebhook is
 * called if $OXI_TELEGRAM_WEBHOOK_URL is set.  Dies 100 on a bad
 * setting, 111 if it cannot listen.  Each update posted to it is in the
 * ledger before its 200.  tg_hook_wait: waits up to ms (-1: for ever)
 * for requests or the signal pipe and serves them: 0, or -1 with errno.
 */
struct tghook;
struct tghook *tg_hook_open(struct tgrx *, const char *listen);
int tg_hook_wait(struct tghook *, int sigfd, int ms);
void tg_hook_close(struct tghook *);

/*
 * The sender: tgsend.c (the stage: records in, the run), tgout.c (the
 * deliveries: a queue a chat, the calls and their answers, drafts and
 * typing); the sent-ledger and the receipts are chsent.c's (ch.h).
 */
struct tgchat;
struct tgtx {
	struct tg tg;		/* the client */
	const struct oxi_chan_opts *o;	/* the options */
	struct ch_sent sent;	/* the sent-ledger: telegram-send-<account>.db;
				 * receipts to -r fd, else stdout */
	struct tgchat *chats;	/* chats with something to send */
	int inflight;		/* calls in flight */
	long edit_ms;		/* drafts: the least time between two calls in
				 * a private chat (thrice that in a group) */
	long typing_ms;		/* typing: the least time between two */
	int stopping;		/* SIGTERM: start no new call */
};
/*
 * tgout.c: tg_out_job queues a record of the ledger (consumed) under
 * key; tg_out_draft and tg_out_typing take a msg.draft or typing
 * (borrowed).  tg_out_due starts the calls that are due and returns the
 * ms until the next one is, or -1; tg_out_busy: jobs queued or calls in
 * flight.
 */
void tg_out_job(struct tgtx *, const char *key, jv rec);
void tg_out_draft(struct tgtx *, jv rec);
void tg_out_typing(struct tgtx *, jv rec);
long tg_out_due(struct tgtx *);
int tg_out_busy(const struct tgtx *);
void tg_out_free(struct tgtx *);

/* the functions the channel table names (telegram.c) */
int oxi_tg_recv(const struct oxi_chan_opts *, const char **what);
int oxi_tg_send(const struct oxi_chan_opts *, const char **what);

#endif
