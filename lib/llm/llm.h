/*
 * llm.h - the llm wing: providers, dialects, replies, control, costs,
 * replay and embeddings
 */
#ifndef OXI_LLM_H
#define OXI_LLM_H

#include "oxi.h"
#include "net/net.h"

/* llm_openai.c: the OpenAI Chat Completions dialect */
struct oxi_openai;		/* a reply being read */
/*
 * The Chat Completions request body for an llm.request (borrowed) and
 * a model name without its provider prefix; an invalid jv with a message
 * if the request is malformed.
 */
jv oxi_openai_body(jv req, const char *model);
/* a reply reader; delta (may be NULL) gets each text fragment */
struct oxi_openai *oxi_openai_new(void (*delta)(void *, const char *,
    size_t), void *arg);
/*
 * Feeds reply bytes, split anywhere: an event stream or one JSON
 * completion.  0, or -1 once the reply is known to have failed.
 */
int oxi_openai_feed(struct oxi_openai *, const char *, size_t);
/*
 * At the end of the reply: {"message","stop","usage"} as in llm.response,
 * or an invalid jv with a message, with *code and *retry set for the
 * error record ("truncated", "provider", "bad_tool_args", ...).
 */
jv oxi_openai_result(struct oxi_openai *, const char **code, int *retry);
/* 1 once "data: [DONE]" came and nothing failed before it */
int oxi_openai_done(const struct oxi_openai *);
void oxi_openai_free(struct oxi_openai *);
/* the message in an error body ({"error":{"message":…}} and kin), or
 * an invalid jv */
jv oxi_openai_errmsg(const char *body, size_t len);

/*
 * llm.c: model providers, wire dialects, and llm.request records in flight
 *
 * A dialect is one wire protocol.  oxi_llm_start() resolves the model's
 * provider (oxi_llm_resolve), has the provider's dialect build the body
 * and the URL, sends it, and feeds the reply bytes, split anywhere, to the
 * dialect's reader; at the end the reader's result becomes an llm.response
 * or an error record.  A reader's result is {"message","stop","usage"}:
 * message as in llm.response (with "thinking" blocks when the provider
 * sent some, see oxi(7)), stop one of end, tool_use, length, refusal, and
 * usage {"input","output","cache_read","cache_write","reasoning"} where
 * input counts every prompt token (cache reads and writes included) and
 * output every generated token (reasoning included).  Or it is an invalid
 * jv with a one-line message, and *code / *retry for the error record.
 */
struct oxi_llm_target;
/* a text fragment of the answer as it arrives */
typedef void (*oxi_llm_text_fn)(void *arg, const char *text, size_t len);
struct oxi_llm_dialect {
	const char *name;	/* "openai", "anthropic", ... */
	const char *auth;	/* key header, "Authorization: Bearer %s" */
	const char *const *hdrs;	/* fixed header lines, or NULL */
	const char *accept;	/* Accept header line of a streamed reply */
	/* the request body for an llm.request (borrowed); an invalid jv
	 * with a message if the request cannot be expressed */
	jv (*body)(jv req, const struct oxi_llm_target *);
	/* appends the endpoint to url (holding the base URL) */
	void (*url)(struct oxi_buf *url, const struct oxi_llm_target *,
	    int stream);
	/* a reply reader; text (may be NULL) gets the answer's text */
	void *(*reader)(oxi_llm_text_fn text, void *arg);
	/* reply bytes split anywhere: 0, or -1 once the reply failed */
	int (*feed)(void *rd, const char *, size_t);
	/* at the end: the result as above (the reader keeps working) */
	jv (*result)(void *rd, const char **code, int *retry);
	/* 1 once the terminal event came and nothing failed before it */
	int (*complete)(const void *rd);
	void (*free)(void *rd);
};
/* the dialects: llm_openai.c (Chat Completions), llm_anthropic.c,
 * llm_gemini.c, llm_ollama.c, llm_responses.c */
extern const struct oxi_llm_dialect oxi_dialect_openai, oxi_dialect_anthropic,
    oxi_dialect_gemini, oxi_dialect_ollama, oxi_dialect_responses;

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
/* a provider and model resolved from "provider/model" and the environment */
struct oxi_llm_target {
	const struct oxi_llm_provider *p;	/* the provider */
	const char *model;	/* the name after "provider/", borrowed */
	const char *key;	/* API key from the environment, or NULL */
	struct oxi_buf base;	/* base URL without a trailing '/' */
	char **hdrs;		/* extra "Name: value" lines, NULL-ended */
	int ptools;		/* OXI_<PROVIDER>_TOOLS=prompt */
};
/*
 * Resolves name (borrowed: t->model points into it): 0, or -1 with a
 * one-line reason in why and *nokey set when only the key is missing.
 * Reads OXI_<PROVIDER>_BASE_URL, the key variable, OXI_<PROVIDER>_HEADERS
 * and OXI_<PROVIDER>_TOOLS (PROVIDER upper case, '-' as '_').
 */
int oxi_llm_resolve(const char *name, struct oxi_llm_target *t, char *why,
    size_t len, int *nokey);
/* wipes the header values and frees t's memory */
void oxi_llm_target_free(struct oxi_llm_target *);
/* text of request id as it arrives */
typedef void (*oxi_llm_delta_fn)(void *arg, const char *id,
    const char *text, size_t len);
/* the end of request id: rec is an llm.response or an error (consumed) */
typedef void (*oxi_llm_done_fn)(void *arg, const char *id, jv rec);
struct oxi_llm_cfg {
	const char *model;	/* default "provider/model", or NULL */
	long connect_ms;	/* timeouts, 0 for http.c's defaults */
	long idle_ms;
	long total_ms;
	oxi_llm_delta_fn delta;	/* may be NULL */
	oxi_llm_done_fn done;	/* required */
	void *arg;		/* for both */
};
enum {
	OXI_LLM_STARTED = 0,	/* in flight: done will be called once */
	OXI_LLM_BAD = -1,	/* the record is malformed */
	OXI_LLM_FAIL = -2	/* not started: model, provider, key */
};
/*
 * Checks a "provider/model" name and the provider's key, starting
 * nothing: 0, or -1 with a one-line reason in why.
 */
int oxi_llm_check(const char *model, char *why, size_t len);
/*
 * Starts the llm.request rec (borrowed).  Returns OXI_LLM_STARTED, or
 * OXI_LLM_BAD / OXI_LLM_FAIL with an error record for the caller in *err.
 * cfg must live until done is called.
 */
int oxi_llm_start(struct oxi_http_loop *, const struct oxi_llm_cfg *,
    jv rec, jv *err);
/*
 * Makes a provider's message fit for an error record: one line, at most
 * 300 bytes, with key (if any) and anything like an API key masked.
 */
void oxi_llm_scrub(struct oxi_buf *out, const char *msg, size_t len,
    const char *key);
/*
 * A request in flight, as llm.c and embed.c keep it for its callbacks
 * and error records.
 */
struct oxi_llm_job {
	char *id;			/* request id */
	char *model;			/* "provider/model" as requested */
	char *key;			/* API key, to mask, or NULL */
	const char *prov;		/* provider name, for messages */
	const struct oxi_llm_cfg *cfg;	/* callbacks */
};
/*
 * Resolves the model of request rec (borrowed): its "model", else cfg's.
 * 0 with *model (borrowed from rec or cfg) and *t set, or -1 with an
 * error record in *err.
 */
int oxi_llm_job_target(jv rec, const struct oxi_llm_cfg *,
    struct oxi_llm_target *t, const char **model, jv *err);
/* copies id, model, and t's key and provider name; keeps cfg */
void oxi_llm_job_init(struct oxi_llm_job *, const char *id,
    const char *model, const struct oxi_llm_target *t,
    const struct oxi_llm_cfg *);
/* wipes the key and frees the copies (not the struct) */
void oxi_llm_job_free(struct oxi_llm_job *);
/*
 * An error record about the job: "provider: msg" with msg[0..len)
 * scrubbed, its "model", and "retry_after" when retry_after >= 0.
 */
jv oxi_llm_job_error(const struct oxi_llm_job *, const char *code,
    const char *msg, size_t len, int retry, long retry_after);
/* the error record of a transfer that ended without a 2xx reply */
jv oxi_llm_job_httperr(const struct oxi_llm_job *,
    const struct oxi_http_res *);
/*
 * Starts req (url, headers, data, done and arg set by the caller) with
 * the JSON text s (borrowed) as its body and the job's timeouts.
 * OXI_LLM_STARTED, or OXI_LLM_FAIL with an error record in *err.
 */
int oxi_llm_job_post(const struct oxi_llm_job *, struct oxi_http_loop *,
    struct oxi_http_req *req, jv s, jv *err);

/*
 * llm_reply.c: a reply as the dialects assemble it.  A thinking block is
 * the provider's own block, item or part, tagged "dialect": name, kept in
 * the message's "thinking" array and sent back (untagged) only to the
 * same dialect.
 */
struct oxi_llm_call {
	long index;		/* the wire's index or position */
	struct oxi_buf id;	/* call id, made up if empty */
	struct oxi_buf name;	/* tool name */
	struct oxi_buf args;	/* arguments, a JSON text */
	jv extra;		/* more keys for the call ("signature"), or null */
};
struct oxi_llm_reply {
	struct oxi_buf text;	/* the answer's text so far */
	struct oxi_llm_call *calls;	/* tool calls, in order */
	size_t ncalls;		/* calls used */
	size_t capcalls;	/* calls allocated */
	jv thinking;		/* thinking blocks, an array */
	double input, output, cache_read, cache_write, reasoning; /* usage */
	const char *stop;	/* "end" "tool_use" "length" "refusal", or NULL */
	int ended;		/* the terminal event came */
	int failed;		/* the reply failed: code, retry, err */
	const char *code;	/* error code for the error record */
	int retry;		/* the error is temporary */
	struct oxi_buf err;	/* its message */
	oxi_llm_text_fn delta;	/* text callback, or NULL */
	void *arg;		/* its argument */
};
void oxi_llm_reply_init(struct oxi_llm_reply *, oxi_llm_text_fn, void *);
void oxi_llm_reply_free(struct oxi_llm_reply *);
/* appends answer text and passes it to the callback */
void oxi_llm_reply_text(struct oxi_llm_reply *, const char *, size_t);
/* a new tool call / the last one with this index, or NULL */
struct oxi_llm_call *oxi_llm_reply_call(struct oxi_llm_reply *, long index);
struct oxi_llm_call *oxi_llm_reply_find(struct oxi_llm_reply *, long index);
/* the first failure sticks */
void oxi_llm_reply_fail(struct oxi_llm_reply *, const char *code, int retry,
    const char *fmt, ...) OXI_PRINTF(4, 5);
/* fails with a provider's error object or string (consumed), its code and
 * retryability from its type, code or status */
void oxi_llm_reply_perror(struct oxi_llm_reply *, jv err);
/* appends a thinking block (consumed), tagged with the dialect */
void oxi_llm_reply_think(struct oxi_llm_reply *, const char *dialect, jv);
/* the normalised usage object */
jv oxi_llm_reply_usage(const struct oxi_llm_reply *);
/* the result as a dialect's result() returns it */
jv oxi_llm_reply_result(struct oxi_llm_reply *, const char **code,
    int *retry);
/* the thinking blocks of message msg (borrowed) for dialect, untagged */
jv oxi_llm_thinking(jv msg, const char *dialect);
/*
 * A reply that is one JSON document or an event stream, told apart by
 * its first byte that is not white space (the readers of
 * llm_anthropic.c, llm_gemini.c and llm_responses.c keep one).
 */
enum { OXI_LLM_UNSEEN, OXI_LLM_SSE, OXI_LLM_JSON };
struct oxi_llm_wire {
	struct oxi_sse sse;	/* event stream parser */
	int mode;		/* OXI_LLM_UNSEEN, _SSE or _JSON */
	int eof;		/* the reply ended: flushing the last event */
	struct oxi_buf json;	/* a JSON reply, whole */
};
/* an empty wire whose events go to fn with arg */
void oxi_llm_wire_init(struct oxi_llm_wire *, oxi_sse_fn fn, void *arg);
void oxi_llm_wire_free(struct oxi_llm_wire *);
/*
 * Decides *mode, once, at the first byte of *p[0..*n) that is not white
 * space, skipping the white space before it: OXI_LLM_JSON if that byte
 * is one of json ("{" or "{["), else OXI_LLM_SSE.  Returns *mode, or 0
 * when no byte is left (*n is 0).
 */
int oxi_llm_sniff(int *mode, const char *json, const char **p, size_t *n);
/*
 * Reply bytes split anywhere, json as for oxi_llm_sniff: a JSON reply is
 * kept in w->json, an event stream goes to w->sse.  0, or -1 once r has
 * failed (an event over the size cap fails it as "bad_reply").
 */
int oxi_llm_wire_feed(struct oxi_llm_wire *, struct oxi_llm_reply *r,
    const char *json, const char *p, size_t n);
/* fails r for an event whose data is not JSON: "truncated" when the
 * stream ended inside it, else "bad_reply" */
void oxi_llm_wire_badevent(const struct oxi_llm_wire *,
    struct oxi_llm_reply *r);
/*
 * At the end of the reply, after its JSON (if any) was read: dispatches
 * the event the stream ended without its blank line (w->eof set first),
 * and fails r as "truncated" if no byte came.
 */
void oxi_llm_wire_end(struct oxi_llm_wire *, struct oxi_llm_reply *r);
/* pieces of request bodies: a jv argument is consumed, as the rule at
 * the top says, unless it is marked borrowed */
/* {"type":type,"text":text}, or {"text":text} when type is NULL */
jv oxi_llm_textpart(const char *type, jv text);
/* appends the text of message content c (borrowed): a string, or the
 * strings and "text" of the parts of an array */
void oxi_llm_content_cat(struct oxi_buf *, jv c);
/* the "args" of tool call tc (borrowed) as an object: a JSON text is
 * parsed, anything but an object becomes {} */
jv oxi_llm_call_args(jv tc);
/* a tool definition: t's "function" if that is an object (OpenAI's
 * shape), else t */
jv oxi_llm_tool_fn(jv t);
/* a tool's parameter schema v, or {"type":"object","properties":{}}
 * when v is not an object */
jv oxi_llm_params(jv v);
/*
 * o with the "name" and "description" of tool t (borrowed), tools[i] of
 * the request; an invalid jv with a message if t has no name
 */
jv oxi_llm_tool_head(jv o, jv t, int i);
/* the "messages" of request req (borrowed), a non-empty array; else an
 * invalid jv with a message */
jv oxi_llm_messages(jv req);
/* 0 if request req (borrowed) has "stream": false, else 1 */
int oxi_llm_stream(jv req);
/*
 * Appends {"role":role,key:items} to msgs, or items to the key array of
 * the last message if it has that role, so that consecutive messages of
 * one role merge.  Empty items add nothing.
 */
jv oxi_llm_push(jv msgs, const char *role, const char *key, jv items);

/*
 * llm_ptools.c: prompt-guided tools, for models without native tool
 * calling.  The request is rewritten: the tools are described in the
 * system prompt with the instruction to answer with
 * <tool_call>{"name":…,"arguments":{…}}</tool_call> blocks, earlier calls
 * become such blocks in assistant text, and tool results user text.  The
 * reader wraps the dialect's own: the blocks are cut out of the text
 * (text that may start one is held back until it is known) and become
 * tool calls.
 */
struct oxi_ptools;
/* the rewritten request (req borrowed), or an invalid jv with a message */
jv oxi_ptools_request(jv req);
struct oxi_ptools *oxi_ptools_new(const struct oxi_llm_dialect *,
    oxi_llm_text_fn, void *arg);
int oxi_ptools_feed(struct oxi_ptools *, const char *, size_t);
jv oxi_ptools_result(struct oxi_ptools *, const char **code, int *retry);
int oxi_ptools_complete(const struct oxi_ptools *);
void oxi_ptools_free(struct oxi_ptools *);

/*
 * llm_ctl.c: staying up around oxi_llm_start and oxi_embed_start:
 * retries with backoff, circuit breakers per provider, failover chains
 * ("anthropic/x,openai/y"), usage and cost on every answer, budgets, and
 * record and replay.  See oxi-llm(1).
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
	double budget[3];	/* USD caps per UTC day, UTC month and
				 * session; < 0: none */
	const char *ledger;	/* spend database; NULL: $OXI_HOME/llm.db */
	const char *record;	/* file to append exchanges to, or NULL */
	const char *replay;	/* file to answer from, or NULL */
	oxi_llm_delta_fn delta;	/* may be NULL */
	oxi_llm_done_fn done;	/* required */
	void *arg;		/* for both */
};
/* the defaults: 2 retries, 0.5 s, 8 s, 60 s, breakers at 5 for 30 s */
void oxi_llmctl_defaults(struct oxi_llmctl_cfg *);
/* loads prices, the replay file, opens the recording: NULL with why */
struct oxi_llmctl *oxi_llmctl_new(struct oxi_http_loop *,
    const struct oxi_llmctl_cfg *, char *why, size_t len);
void oxi_llmctl_free(struct oxi_llmctl *);
/*
 * Starts an llm.request or embed.request (borrowed) as oxi_llm_start
 * does: OXI_LLM_STARTED (done will be called once, perhaps already
 * called for a replayed answer), or OXI_LLM_BAD / OXI_LLM_FAIL with an
 * error record in *err ("budget", "replay_miss", "circuit_open", ...).
 */
int oxi_llmctl_start(struct oxi_llmctl *, jv rec, jv *err);
/* calls in flight or waiting for a retry */
int oxi_llmctl_running(const struct oxi_llmctl *);
/* ms until a retry is due (a poll timeout), or -1 */
int oxi_llmctl_timeout(const struct oxi_llmctl *);
/* starts the retries that are due; call after each oxi_http_poll */
void oxi_llmctl_tick(struct oxi_llmctl *);
/* SIGTERM: no more attempts; calls waiting end with their last error */
void oxi_llmctl_drain(struct oxi_llmctl *);
/* opens a connection to the base URL of each model of the chain (GET
 * .../models); the number of warm-up transfers running */
int oxi_llmctl_warm(struct oxi_llmctl *, const char *models);
int oxi_llmctl_warming(const struct oxi_llmctl *);
const struct oxi_prices *oxi_llmctl_prices(const struct oxi_llmctl *);

/* llm_cost.c: prices of models, and the spend ledger */
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

/* llm_replay.c: recorded answers (oxi-llm --record) played back */
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

/* embed.c: embed.request records, as oxi_llm_start does llm.request */
/* 0, or -1 with a static reason */
int oxi_embed_check(jv rec, const char **why);
int oxi_embed_start(struct oxi_http_loop *, const struct oxi_llm_cfg *,
    jv rec, jv *err);

#endif
