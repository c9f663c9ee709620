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

/* the functions the channel table names (discord.c) */
int oxi_dc_recv(const struct oxi_chan_opts *, const char **what);
int oxi_dc_send(const struct oxi_chan_opts *, const char **what);

#endif
