/*
 * llm.h - the face of the llm wing, what bin/oxi-llm.c uses: the call
 * machine (oxi_llmctl), model names and chains, the provider list, prices
 * and the spend ledger, and replay.  The dialects, the requests in flight
 * and the reply helpers are the wing's own business: llm/dialect.h.
 */
#ifndef OXI_LLM_H
#define OXI_LLM_H

#include "oxi.h"

struct oxi_http_loop;		/* net/net.h */
struct oxi_llm_dialect;		/* llm/dialect.h */

/* provider.c: the providers, a model name being "provider/model" */
struct oxi_llm_provider {
	const char *name;	/* prefix of model names: "openai" */
	const char *base;	/* default base URL */
	const char *keyenv;	/* variable holding the API key, or NULL */
	int needkey;		/* the default base requires the key */
	const struct oxi_llm_dialect *dialect;	/* its wire protocol */
	const char *baseenv;	/* a second base URL variable, or NULL */
};
/* the providers, ending with a NULL name */
extern const struct oxi_llm_provider oxi_llm_providers[];
/*
 * Checks a "provider/model" name and the provider's key, starting
 * nothing: 0, or -1 with a one-line reason in why.
 */
int oxi_llm_check(const char *model, char *why, size_t len);
/* oxi_llm_check of each model of a chain (level 0); level 1: a missing
 * key is no failure; level 2: only that it names a model */
int oxi_llm_check_chain(const char *models, int level, char *why,
    size_t len);
/* the priced models of the known providers, sorted, then the name, a
 * slash and a star for each provider without one (oxi-llm -M), an array
 * of strings; or an invalid jv with a message */
jv oxi_llm_models(void);

/* text of request id as it arrives */
typedef void (*oxi_llm_delta_fn)(void *arg, const char *id,
    const char *text, size_t len);
/* the end of request id: rec is an llm.response or an error (consumed) */
typedef void (*oxi_llm_done_fn)(void *arg, const char *id, jv rec);
enum {
	OXI_LLM_STARTED = 0,	/* in flight: done will be called once */
	OXI_LLM_BAD = -1,	/* the record is malformed */
	OXI_LLM_FAIL = -2	/* not started: model, provider, key */
};

/*
 * ctl.c: staying up around the requests in flight: retries with backoff,
 * circuit breakers per provider, failover chains ("anthropic/x,openai/y"),
 * usage and cost on every answer (account.c), budgets, and record and
 * replay.  See oxi-llm(1).  breaker.c: the mechanism, exported for
 * tests/unit/t-llmctl.c.
 */
struct oxi_breaker {
	int state;		/* OXI_BRK_CLOSED, _OPEN or _HALF */
	int fails;		/* failures in a row */
	int probing;		/* half-open: the probe is in flight */
	long long until;	/* open: monotonic ms when a probe may go */
};
enum { OXI_BRK_CLOSED, OXI_BRK_OPEN, OXI_BRK_HALF };
/* 0: refuse (open, or a probe in flight); 1: go; 2: go as the probe */
int oxi_breaker_allow(struct oxi_breaker *, long long now);
/* notes an outcome: ok closes; a failure counts, and opens it for cool
 * ms at max failures in a row or when the probe failed (max 0: never) */
void oxi_breaker_note(struct oxi_breaker *, int ok, int max, long cool,
    long long now);
/* ms to wait before retry n (1 for the first): base doubled n-1 times,
 * at most cap, jittered by rnd within its upper half; never less than
 * retry_after ms (< 0: none) */
long oxi_llm_backoff(int n, long base, long cap, long retry_after,
    unsigned long rnd);
/* splits a chain "a/x, b/y" at commas, blanks trimmed and empty parts
 * dropped: the count, and a NULL-ended array in *out */
int oxi_llm_chain(const char *, char ***out);
void oxi_llm_chain_free(char **, int n);

struct oxi_llmctl;
struct oxi_llmctl_cfg {
	const char *model;	/* default model or chain, or NULL */
	long connect_ms;	/* timeouts, 0 for http.c's defaults */
	long idle_ms;
	long total_ms;
	int retries;		/* retries per model after the first try */
	long base_ms;		/* first backoff */
	long cap_ms;		/* longest backoff (Retry-After may be more) */
	long window_ms;		/* no wait ends later than this after the
				 * call started */
	int brk_max;		/* failures in a row that open a breaker;
				 * 0: no breakers */
	long brk_ms;		/* how long it stays open */
	int min_bps;		/* a reply slower than this many bytes a
				 * second over the idle time is cut and
				 * retried; 0: none */
	double budget[3];	/* USD caps per UTC day, UTC month and
				 * session; < 0: none */
	const char *ledger;	/* spend database; NULL: $OXI_HOME/llm.db */
	const char *record;	/* file to append exchanges to, or NULL */
	const char *replay;	/* file to answer from, or NULL */
	oxi_llm_delta_fn delta;	/* may be NULL */
	oxi_llm_done_fn done;	/* required */
	void *arg;		/* for both */
};
/* the defaults: 2 retries, 0.5 s, 8 s, 60 s, breakers at 5 for 30 s, a
 * minimum rate of 2 bytes a second */
void oxi_llmctl_defaults(struct oxi_llmctl_cfg *);
/* settings.c: the OXI_LLM_* timeouts, retries, backoff and breakers and
 * the OXI_BUDGET_* of the environment, and a budget "day=USD",
 * "month=USD" or "session=USD": 0, or -1 with why naming the bad one */
int oxi_llmctl_env(struct oxi_llmctl_cfg *, char *why, size_t len);
int oxi_llmctl_budget(struct oxi_llmctl_cfg *, const char *, char *why,
    size_t len);
/* loads prices, the replay file, opens the recording: NULL with why */
struct oxi_llmctl *oxi_llmctl_new(struct oxi_http_loop *,
    const struct oxi_llmctl_cfg *, char *why, size_t len);
void oxi_llmctl_free(struct oxi_llmctl *);
/*
 * Starts an llm.request, embed.request or transcribe (borrowed) as
 * oxi_llm_start does: OXI_LLM_STARTED (done will be called once,
 * perhaps already called for a replayed answer), or OXI_LLM_BAD /
 * OXI_LLM_FAIL with an error record in *err ("budget", "replay_miss", "circuit_open", ...).
 * raw, when not NULL, is rec's own text (rawlen bytes), kept instead of
 * writing rec out again.
 */
int oxi_llmctl_start(struct oxi_llmctl *, jv rec, const char *raw,
    size_t rawlen, jv *err);
/* calls in flight or waiting for a retry */
int oxi_llmctl_running(const struct oxi_llmctl *);
/* ms until a retry is due (a poll timeout), or -1 */
int oxi_llmctl_timeout(const struct oxi_llmctl *);
/* starts the retries that are due; call after each oxi_http_poll */
void oxi_llmctl_tick(struct oxi_llmctl *);
/* SIGTERM: no more attempts; calls waiting end with their last error */
void oxi_llmctl_drain(struct oxi_llmctl *);
/* llm.cancel of request id: it ends without a record (a transfer in
 * flight stops at the next poll); 1, or 0 if no such request is ours */
int oxi_llmctl_cancel(struct oxi_llmctl *, const char *id);
/* opens a connection to the base URL of each model of the chain (GET
 * .../models); the number of warm-up transfers running */
int oxi_llmctl_warm(struct oxi_llmctl *, const char *models);
int oxi_llmctl_warming(const struct oxi_llmctl *);
const struct oxi_prices *oxi_llmctl_prices(const struct oxi_llmctl *);

/*
 * serve.c: record mode (oxi-llm -j): the llm.request, embed.request and
 * transcribe records of stdin answered on stdout, with cfg (its callbacks set
 * here), lines of at most maxline bytes (0: the default), readiness on
 * notif, the connections to cfg's model opened first if warm; until EOF
 * or SIGTERM.  The exit status; a fatal one (100, 111) with why set.
 */
int oxi_llm_serve(struct oxi_llmctl_cfg *cfg, size_t maxline, int notif,
    int warm, char *why, size_t len);

/* cost.c: prices of models, and the spend ledger */
struct oxi_price {
	double input;		/* USD per million input tokens */
	double output;		/* per million output tokens */
	double cache_read;	/* per million tokens read from a cache */
	double cache_write;	/* per million tokens written to a cache */
};
struct oxi_prices;
/* the data directory: $OXI_SHARE_DIR, else ../share/oxi beside the
 * executable if it exists, else OXI_SHAREDIR; a static string */
const char *oxi_share_dir(void);
/* $OXI_PRICES, else the shipped prices.json with the configuration
 * directory's prices.json over it; NULL with why for a bad file */
struct oxi_prices *oxi_prices_load(char *why, size_t len);
struct oxi_prices *oxi_prices_new(void);
/* adds the entries of a JSON text, replacing those of the same key */
int oxi_prices_add(struct oxi_prices *, const char *text, size_t len,
    char *why, size_t wlen);
/* the entry of model: its own, else the longest glob matching it */
const struct oxi_price *oxi_prices_find(const struct oxi_prices *,
    const char *model);
/* key i of the table, or NULL past the end */
const char *oxi_prices_key(const struct oxi_prices *, size_t i);
/* the cost in USD of usage (consumed) for model, or null if unpriced;
 * "input" counts cache reads and writes, priced apart */
jv oxi_prices_cost(const struct oxi_prices *, const char *model, jv usage);
void oxi_prices_free(struct oxi_prices *);
struct oxi_ledger;
struct oxi_ledger *oxi_ledger_open(const char *path, const char **err);
/* books an answer's usage (consumed) and cost: 0, or -1 with *err */
int oxi_ledger_add(struct oxi_ledger *, const char *session,
    const char *id, const char *model, jv usage, double cost,
    const char **err);
/* USD spent this UTC day, this UTC month, and in session (0 if NULL) */
int oxi_ledger_spent(struct oxi_ledger *, const char *session,
    double out[3], const char **err);
void oxi_ledger_close(struct oxi_ledger *);

/* replay.c: recorded answers (oxi-llm --record) played back */
#define OXI_REPLAY_KEYLEN	16
struct oxi_replay;
/* the key of a request: a hash of its type, model, messages, tools and
 * input, with sorted keys; hex in out */
void oxi_replay_key(jv req, const char *model,
    char out[OXI_REPLAY_KEYLEN + 1]);
struct oxi_replay *oxi_replay_load(const char *path, char *why,
    size_t len);
/* answers recorded */
size_t oxi_replay_count(const struct oxi_replay *);
/* the records answering the next request with this key (deltas, then
 * the final record), or an invalid jv */
jv oxi_replay_find(struct oxi_replay *, const char *key);
void oxi_replay_free(struct oxi_replay *);

/* attach.c: files and URLs as content parts of a message (oxi(7)) */
#define OXI_LLM_ATTACH_MAX	(20 * 1024 * 1024)	/* bytes, at most */
/*
 * The part of arg, a file, "-" for stdin or an http(s) URL, of media
 * type mime (NULL: told by the file's first bytes, or the URL's
 * extension): png, jpeg, gif, webp or pdf.  An invalid jv with a
 * one-line message for another type, a file that cannot be read or one
 * over OXI_LLM_ATTACH_MAX.
 */
jv oxi_llm_attach(const char *arg, const char *mime);
/* appends all of stdin to b, at most max bytes: 0, or -1 with errno
 * (EFBIG past max) */
int oxi_llm_readin(struct oxi_buf *b, size_t max);
/* part p (consumed) of arg as the log keeps it: a file's part without
 * its data, with its absolute "path" */
jv oxi_llm_attach_ref(jv p, const char *arg);
/* a logged part (consumed) whole again: its file read anew */
jv oxi_llm_attach_again(jv ref);

/* log.c: the log of prompts and replies (oxi-llm logs) */
struct oxi_llm_log;
/* llm-logs.db in the state directory (static), or NULL */
const char *oxi_llm_log_path(void);
/* 1 if prompts are logged: $OXI_LLM_LOG (0: no), else no llm-logs-off
 * file in the configuration directory */
int oxi_llm_log_on(void);
/* creates or removes llm-logs-off: 0, or -1 with errno */
int oxi_llm_log_set(int on);
/* the functions below return 0 / NULL / invalid with a message in *err,
 * and errno as for oxi_db_open */
struct oxi_llm_log *oxi_llm_log_open(const char *path, const char **err);
void oxi_llm_log_close(struct oxi_llm_log *);
/* adds entry e (consumed): {"id","cid","time","model","system","prompt",
 * "attachments","reply","options","usage","cost_usd","ms"} */
int oxi_llm_log_add(struct oxi_llm_log *, jv e, const char **err);
/* the last n entries (n <= 0: all), of conversation cid if not NULL,
 * oldest first: an array */
jv oxi_llm_log_list(struct oxi_llm_log *, const char *cid, int n,
    const char **err);
/* the conversation of the last entry in cid, "" if none */
int oxi_llm_log_last(struct oxi_llm_log *, char *cid, size_t len,
    const char **err);
/* the conversations and the entries logged */
int oxi_llm_log_count(struct oxi_llm_log *, long long n[2],
    const char **err);
/* the entry of llm.request req answered by ans (both consumed): its
 * system message, the text of its last message, its -o fields as
 * "options", and the answer's model, text, usage and cost; the caller
 * adds "cid", "time", "ms" and "attachments" */
jv oxi_llm_log_entry(jv req, jv ans);
/* entry e (consumed) as Markdown */
void oxi_llm_log_text(struct oxi_buf *, jv e);
/* "8 input, 3 output, cost $0.000003" of the "usage" and "cost_usd" of
 * rec (consumed), an entry or an llm.response */
void oxi_llm_usage_text(struct oxi_buf *, jv rec);

/* human.c: the human mode's pieces */
/* dir/name in buf[len], or NULL if dir is NULL (no such directory) */
const char *oxi_llm_path(char *buf, size_t len, const char *dir,
    const char *name);
/* request fields o (consumed) with -o key val: temperature, top_p,
 * top_k, max_tokens, seed, stop (again: an array), reasoning_effort (as
 * "thinking":{"effort"}); an invalid jv with a message if bad */
jv oxi_llm_option(jv o, const char *key, const char *val);
/* a user message of text[0..len) and attachment parts (consumed) */
jv oxi_llm_user(const char *text, size_t len, jv parts);
/* the messages of logged entries (consumed), their attachments read
 * again, after the system message sys, else the conversation's last */
jv oxi_llm_turns(jv entries, const char *sys);
/* the model in default-model of the configuration directory (static),
 * or NULL; and setting it: 0, or -1 with errno */
const char *oxi_llm_default_model(void);
int oxi_llm_set_default_model(const char *model);
/* the first (last) fenced code block of s[0..n), as llm -x finds it:
 * 1 with its text at s[*off..*off + *len), else 0 */
int oxi_llm_fenced(const char *s, size_t n, int last, size_t *off,
    size_t *len);

#endif
