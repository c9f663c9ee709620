/*
 * dc.h - the discord channel's own header: the REST client (dcapi.c)
 * that its receiver (dcrecv.c and the files beside it) and its sender
 * (dcsend.c) share.  Included only by lib/channel/dc*.c and discord.c.
 *
 * The token travels in the Authorization header and the Gateway's
 * identify and resume payloads, never in a URL; the dead letters of the
 * process have it replaced by "<token>" (dc_open).
 */
#ifndef OXI_DC_H
#define OXI_DC_H

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"

#define DC_API		"https://discord.com/api/v10"
#define DC_GATEWAY	"wss://gateway.discord.gg/?v=10&encoding=json"
#define DC_ACCOUNT	"main"
#define DC_TEXT_MAX	2000		/* characters of a message's content */
#define DC_FILE_MAX	(25UL * 1024 * 1024)	/* an attachment we fetch */
#define DC_REPLY_MAX	(4UL * 1024 * 1024)	/* an API reply we read */
#define DC_REDACTED	"<token>"
#define DC_ID		32		/* a snowflake as text, with room */

struct dcbucket;
/* a client of the REST API for one bot */
struct dc {
	char *base;		/* $OXI_DISCORD_API, no trailing "/" */
	char *token;		/* $DISCORD_BOT_TOKEN, wiped by dc_close */
	char *auth;		/* "Authorization: Bot <token>", wiped too */
	const char *account;	/* -a, $OXI_DISCORD_ACCOUNT, or "main" */
	struct oxi_http_loop *loop;	/* the transfers */
	int sigfd;		/* the signal self-pipe to watch, or -1 */
	int termstop;		/* SIGTERM ends the calls in flight */
	struct dcbucket *buckets;	/* the rate limits seen, by route */
	long long global_until;	/* a global 429: no call before */
};

/* the outcome of a call */
struct dc_res {
	int ok;			/* 1: a 2xx */
	jv body;		/* its JSON (the caller's), else null */
	int kind;		/* OXI_HTTP_*: what the transport saw */
	long status;		/* the HTTP status, else 0 */
	long code;		/* Discord's JSON error "code", else 0 */
	int temp;		/* retrying may help: network, 429, 5xx */
	long retry_ms;		/* 429: ms to wait, else -1 */
	int global;		/* the 429 was the global limit */
	char msg[256];		/* Discord's "message", or "" */
	char err[384];		/* one line for a diagnostic: "POST
				 * /channels/1/messages: 403 Missing Access";
				 * the token never in it */
};
typedef void (*dc_done_fn)(void *arg, struct dc_res *res);

/*
 * Reads $DISCORD_BOT_TOKEN and $OXI_DISCORD_API; account may be NULL
 * ($OXI_DISCORD_ACCOUNT, else "main").  Dies 100 if the token is missing
 * or malformed (20 to 200 of A-Za-z0-9._-) or the base is not http(s),
 * 111 if libcurl cannot start.
 */
void dc_open(struct dc *, const char *account);
void dc_close(struct dc *);
/*
 * Starts verb (GET POST PATCH PUT DELETE) on path ("/channels/1/
 * messages") with body (a JSON value, consumed; null for none), under
 * the rate-limit bucket of route (NULL: path).  done is called once from
 * a later oxi_http_poll on dc->loop.  0, or -1 with res->err.
 */
int dc_start(struct dc *, const char *verb, const char *path,
    const char *route, jv body, dc_done_fn done, void *arg,
    struct dc_res *res);
/* the same, waiting: 0 with res->body, or -1 with res->err; with
 * dc->termstop SIGTERM ends it as OXI_HTTP_ABORT */
int dc_call(struct dc *, const char *verb, const char *path, jv body,
    struct dc_res *res);
void dc_res_free(struct dc_res *);
/* ms before route (or any route, for the global limit) may be called */
long dc_wait_ms(struct dc *, const char *route);
/* GET url (any http(s), no token sent) into dest (dest.tmp, 0600, then
 * renamed), at most max bytes: 0, or -1 with res->err */
int dc_download(struct dc *, const char *url, size_t max, const char *dest,
    struct dc_res *res);
/* sleeps ms; with dc->termstop, less if SIGTERM comes */
void dc_pause(struct dc *, long ms);
/* replaces the token in s (NUL-terminated, in place) by "<token>" */
void dc_redact(const struct dc *, char *s);
/* a snowflake (string or number, borrowed) as text in buf, or "" */
const char *dc_idstr(jv v, char *buf, size_t len);
/* the snowflake obj[key] as text in buf (DC_ID bytes), or "" */
const char *dc_id(jv obj, const char *key, char *buf);

/*
 * dcsig.c: an HTTP interaction's signature: Ed25519 of timestamp + body
 * by the application's public key (hex, 64 digits), the signature in
 * hex (128 digits).  0 if it verifies, -1 otherwise (any malformed hex).
 */
int dc_verify(const char *pubhex, const char *sighex, const char *ts,
    const char *body, size_t len);

/*
 * The receiver: dcrecv.c (the run, the Gateway's connection), dcgw.c
 * (a Gateway payload read, and ours written), dcledger.c (the ledger),
 * dcmsg.c (an event as records, its files, the buttons answered).
 */
#define DC_INTENTS	(1 | 512 | 4096 | 32768)	/* GUILDS,
		 * GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT */
enum {			/* Gateway opcodes */
	DC_OP_DISPATCH = 0, DC_OP_HEARTBEAT = 1, DC_OP_IDENTIFY = 2,
	DC_OP_RESUME = 6, DC_OP_RECONNECT = 7, DC_OP_INVALID = 9,
	DC_OP_HELLO = 10, DC_OP_ACK = 11
};
/* a Gateway payload as read */
struct dc_gw {
	int op;			/* DC_OP_*, or -1 if it is none */
	long long s;		/* its sequence number, or -1 */
	char t[48];		/* a dispatch's event name, or "" */
	jv d;			/* its data (the caller's), or null */
};
/*
 * dcgw.c: reads the payload text[0..len) into g: 0, or -1 with *why
 * (not JSON, not an object, no op).  Free g->d.
 */
int dc_gw_read(const char *text, size_t len, struct dc_gw *g,
    const char **why);
/* the payloads we send, as text (the caller's, to wipe: identify and
 * resume hold the token) */
jv dc_gw_identify(const char *token, long intents);
jv dc_gw_resume(const char *token, const char *session, long long seq);
jv dc_gw_heartbeat(long long seq);
/* the first heartbeat's delay: interval times a jitter in [0, 1) */
long dc_gw_jitter(long interval);
/* a close code: 1 fatal (exit 100, *why says what to fix), 2 the session
 * is gone (identify anew), 0 reconnect and resume */
int dc_gw_close(int code, const char **why);

struct sqlite3;
struct dchook;
struct dcrx {
	struct dc dc;		/* the client */
	const struct oxi_chan_opts *o;	/* the options */
	struct sqlite3 *db;	/* the ledger: discord-<account>.db */
	char botid[DC_ID];	/* the bot's user id (READY), or "" */
	char botname[64];	/* its username, or "" */
	int guilds_all;		/* OXI_DISCORD_GUILDS=all: every message of
				 * a guild channel, not only those for us */
	size_t filemax;		/* OXI_DISCORD_FILE_MAX */
	char *filedir;		/* $OXI_HOME/files/discord */
	struct dchook *hook;	/* the interactions endpoint (-w), or NULL */
};
/*
 * dcmsg.c: the records of event t with data d (borrowed), recorded at
 * unix time at, appended to *out (an array): a msg.in, an
 * approval.answer, or none (a message not for us, a bot's).  Files of a
 * message for us are fetched; a button's interaction is answered
 * (answer: 0 when the event is read again from the ledger later than
 * Discord waits).  0, or -1: SIGTERM stopped it; the event is left for
 * the next start.
 */
int dc_event(struct dcrx *, const char *t, jv d, long long at, int answer,
    jv *out);
/* 1 if dc_event takes events named t: the ledger keeps only those */
int dc_event_kept(const char *t);
/* the name in the ledger of an interaction posted to dchook.c */
#define DC_HTTP_INTERACTION	"INTERACTION_HTTP"
/* the answer to interaction d (borrowed), a button's: its message
 * updated to say the choice, buttons gone (type 7), else acknowledged
 * (type 6) */
jv dc_answer(jv d);
/*
 * dchook.c: the HTTP interactions endpoint on listen ("[addr:]port"),
 * each request's Ed25519 signature checked with $DISCORD_PUBLIC_KEY
 * (dies 100 if it is missing or malformed): 401 unless it verifies, a
 * PING answered, a button's interaction in the ledger before its answer
 * (dc_answer).  dc_hook_fd: to poll; dc_hook_serve: serves what is due.
 */
struct dchook;
struct dchook *dc_hook_open(struct dcrx *, const char *listen);
int dc_hook_fd(const struct dchook *);
int dc_hook_serve(struct dchook *);
void dc_hook_close(struct dchook *);
/*
 * dcledger.c: the ledger.  A failing database dies 111.  put: records
 * event t (d consumed) under key (its platform id) unless it is there;
 * with seq >= 0 the session's sequence number too, in the same
 * transaction.  next: the oldest event not yet written (1) or none (0);
 * done marks it.  meta: small values by key ("" when none).
 */
void dc_ledger_open(struct dcrx *);	/* also sets rx->filedir */
void dc_ledger_close(struct dcrx *);
void dc_ledger_put(struct dcrx *, const char *key, const char *t, jv d,
    long long seq);
int dc_ledger_next(struct dcrx *, long long *row, char *t, size_t tlen,
    jv *d, long long *at);
void dc_ledger_done(struct dcrx *, long long row);
void dc_ledger_prune(struct dcrx *);
void dc_ledger_meta(struct dcrx *, const char *k, char *buf, size_t len);
void dc_ledger_setmeta(struct dcrx *, const char *k, const char *v);
/* a thread and its channel (THREAD_CREATE, GUILD_CREATE): parent of
 * thread in buf, or "" if it is none we know */
void dc_ledger_thread(struct dcrx *, const char *thread, const char *parent);
void dc_ledger_parent(struct dcrx *, const char *thread, char *buf,
    size_t len);

/*
 * The sender: dcsend.c (the stage: records in, the run), dcout.c (the
 * deliveries: a queue a channel, the calls and their answers, drafts and
 * typing), over the sent-ledger of channel/ch.h.
 */
#include "channel/ch.h"
struct dcchan;
struct dctx {
	struct dc dc;		/* the client */
	const struct oxi_chan_opts *o;	/* the options */
	struct ch_sent sent;	/* discord-send-<account>.db, receipts */
	struct dcchan *chans;	/* channels with something to send */
	int inflight;		/* calls in flight */
	long edit_ms;		/* drafts: the least time between two edits */
	long typing_ms;		/* typing: the least time between two */
	int stopping;		/* SIGTERM: start no new call */
};
/*
 * dcout.c: dc_out_job queues a record of the ledger (consumed) under key;
 * dc_out_draft and dc_out_typing take a msg.draft or typing (borrowed):
 * the struct ch_sink of ch_sent_take.
 * dc_out_due starts the calls that are due and returns the ms until the
 * next one is, or -1; dc_out_busy: jobs queued or calls in flight.
 */
void dc_out_job(void *tx, const char *key, jv rec);
void dc_out_draft(void *tx, jv rec);
void dc_out_typing(void *tx, jv rec);
long dc_out_due(struct dctx *);
int dc_out_busy(const struct dctx *);
void dc_out_free(struct dctx *);

/*
 * dcmd.c: text[0..len), Markdown when md is set, else plain text, as
 * Discord Markdown in messages of at most max characters (UTF-16 code
 * units, markup counted): the number of parts (0 when nothing would
 * show), each a string in *parts to free with dc_md_free; -1 with errno
 * (ENOMEM, EINVAL for a max under 64).
 */
int dc_md_render(const char *text, size_t len, int md, size_t max,
    char ***parts);
void dc_md_free(char **parts, int n);

/* the functions the channel table names (discord.c) */
int oxi_dc_recv(const struct oxi_chan_opts *, const char **what);
int oxi_dc_send(const struct oxi_chan_opts *, const char **what);

#endif
