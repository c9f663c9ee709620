/*
 * sk.h - the Slack channel's own header: the Web API client (skapi.c)
 * that its receiver (skrecv.c and the files beside it) and its sender
 * (sksend.c, skout.c) share, and their pieces.  Included only by
 * lib/channel/sk*.c, slack.c and tests.
 *
 * The tokens travel in the Authorization header only, never in a URL,
 * a diagnostic or a record.
 */
#ifndef OXI_SK_H
#define OXI_SK_H

#include "oxi.h"
#include "channel/channel.h"
#include "channel/ch.h"

#define SK_BASE		"https://slack.com/api"
#define SK_ACCOUNT	"main"
#define SK_FILE_MAX	(20UL * 1024 * 1024)	/* a file we fetch */
#define SK_TEXT_MAX	3000	/* a message's text we send, in UTF-16
				 * units: Slack shows 4000, takes 40000 */

/* a client of the Web API for one app */
struct sk {
	char *base;		/* $OXI_SLACK_API, no trailing "/" */
	char *bot;		/* $SLACK_BOT_TOKEN (xoxb-), or NULL; wiped */
	char *app;		/* $SLACK_APP_TOKEN (xapp-), or NULL; wiped */
	char *secret;		/* $SLACK_SIGNING_SECRET, or NULL; wiped */
	const char *account;	/* -a, $OXI_SLACK_ACCOUNT, or "main" */
	int sigfd;		/* the signal self-pipe, or -1 */
};
/* what sk_open needs from the environment */
enum { SK_NEED_BOT = 1, SK_NEED_APP = 2, SK_NEED_SECRET = 4 };

/* the outcome of a call */
struct sk_res {
	jv reply;		/* the reply (an object with "ok"), else null */
	long status;		/* the HTTP status, 0 if none came */
	int temp;		/* retrying may help: network, 429, 5xx */
	int auth;		/* the token was refused: retrying will not help */
	long retry_after;	/* seconds to wait (429), or -1 */
	char code[64];		/* Slack's "error" ("channel_not_found"), or "" */
	char err[384];		/* one line for a diagnostic, no token in it */
};

/*
 * Reads the tokens need asks for (dies 100 when one is missing or not of
 * its form: xoxb-..., xapp-...) and $OXI_SLACK_API (http or https, dies
 * 100 otherwise); account may be NULL ($OXI_SLACK_ACCOUNT, else "main").
 */
void sk_open(struct sk *, const char *account, int need);
void sk_close(struct sk *);
/*
 * POSTs params (a JSON object, consumed; null for none) to method with
 * the bot token (app: the app token), waiting up to 30 s: 0 with
 * res->reply when Slack said "ok":true, else -1 with res->err (and code,
 * temp, auth, retry_after).  Free res with sk_res_free.
 */
int sk_call(struct sk *, const char *method, jv params, int app,
    struct sk_res *res);
void sk_res_free(struct sk_res *);
/*
 * Fetches a file's url (url_private_download: https on a slack.com
 * host, or the API's own origin) with the bot token into dest (written
 * as dest.tmp, mode 0600, then renamed), refusing more than max bytes:
 * 0, or -1 with res->err.
 */
int sk_download(struct sk *, const char *url, size_t max, const char *dest,
    struct sk_res *res);
/* sleeps ms, less if SIGTERM comes (sk->sigfd) */
void sk_pause(struct sk *, long ms);
/*
 * sksig.c: the v0 signature of an HTTP request from Slack: 0 if sig
 * ("v0=<hex>") is HMAC-SHA256(secret, "v0:" ts ":" body) and ts is
 * within 300 s of now; else -1 with why ("stale timestamp").
 */
int sk_verify(const char *secret, const char *ts, const char *sig,
    const char *body, size_t len, long long now, const char **why);
/* HMAC-SHA256 with key of the nparts parts[i][0..lens[i]) one after
 * another, into out */
void sk_hmac_sha256(const void *key, size_t klen, const void *const *parts,
    const size_t *lens, int nparts, unsigned char out[32]);

/* skmd.c: Slack's mrkdwn, a writer for oxi_tgmd_render_as (tgmd.h) */
struct oxi_tgmd_markup;
extern const struct oxi_tgmd_markup sk_mrkdwn;

/*
 * skevent.c: an envelope of Socket Mode (the Events API's bodies wrapped
 * as one), borrowed, as records appended to *out (an array): a msg.in,
 * an approval.answer, or none.  Our bot's messages, and any bot's, are
 * dropped, its mentions taken out.  The files of a msg.in are each
 * handed to fetch, when set, which returns the attachment (consumed)
 * with its path or error.
 */
struct sk_ev {
	const char *account;	/* ours */
	const char *bot;	/* our bot user's id, or "" */
	int all;		/* OXI_SLACK_CHANNELS=all: every message of a
				 * channel, not only those that mention us */
	long long at;		/* unix time the envelope was recorded */
	jv (*fetch)(void *arg, jv file, jv att);	/* file borrowed */
	void *arg;
};
void sk_event(const struct sk_ev *, jv env, jv *out);
/*
 * The ledger key of an envelope (borrowed): "e:<event_id>" for an event
 * (a retry carries the same), "i:<user>:<action_ts>" for a click, else
 * "n:<envelope_id>"; "" when it has none.
 */
void sk_event_key(jv env, char *key, size_t len);

/*
 * The receiver: skrecv.c (Socket Mode, the run), skledger.c (the
 * ledger), skhook.c (the Events API over HTTP).
 */
struct skrx {
	struct sk sk;		/* the client */
	const struct oxi_chan_opts *o;	/* the options */
	struct sqlite3 *db;	/* the ledger: slack-<account>.db */
	struct sk_ev ev;	/* what sk_event needs */
	char bot[32];		/* our bot user's id (auth.test) */
	size_t filemax;		/* OXI_SLACK_FILE_MAX */
	char *filedir;		/* $OXI_HOME/files/slack */
};
/*
 * skledger.c: the envelopes as they came, by key; each marked once its
 * records are written.  put: 1 new, 0 known already (dies 111 when the
 * database fails).  next: the oldest not yet written (1), or none (0);
 * done marks it.
 */
void sk_ledger_open(struct skrx *);
void sk_ledger_close(struct skrx *);
int sk_ledger_put(struct skrx *, const char *key, const char *body,
    size_t len);
int sk_ledger_next(struct skrx *, long long *seq, jv *env, long long *at);
void sk_ledger_done(struct skrx *, long long seq);
void sk_ledger_prune(struct skrx *);
/* skrecv.c: writes the records of what the ledger holds unwritten: 0,
 * or -1 if stdout is gone */
int sk_drain(struct skrx *);
/*
 * skhook.c: the Events API on listen ("[addr:]port", 127.0.0.1 unless
 * given): each request signed (sk_verify), url_verification answered,
 * an event or a click in the ledger before its 200.  Dies 100 on a bad
 * setting, 111 if it cannot listen.  sk_hook_wait: serves requests for
 * up to ms or until the signal pipe: 0, or -1 with errno.
 */
struct skhook;
struct skhook *sk_hook_open(struct skrx *, const char *listen);
int sk_hook_wait(struct skhook *, int sigfd, int ms);
void sk_hook_close(struct skhook *);

/* the functions the channel table names (slack.c) */
int oxi_sk_recv(const struct oxi_chan_opts *, const char **what);
int oxi_sk_send(const struct oxi_chan_opts *, const char **what);

#endif
