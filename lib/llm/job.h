/*
 * job.h - requests in flight, for the llm wing's own files and
 * tests/unit/ only: llm.request (request.c), embed.request (embed.c)
 * and transcribe (transcribe.c) as one HTTP transfer each, and the job
 * they share.  ctl.c drives them.
 */
#ifndef OXI_LLM_JOB_H
#define OXI_LLM_JOB_H

#include "oxi.h"
#include "net/net.h"
#include "llm/llm.h"
#include "llm/dialect.h"

struct oxi_llm_cfg {
	const char *model;	/* default "provider/model", or NULL */
	long connect_ms;	/* timeouts, 0 for http.c's defaults */
	long idle_ms;
	long total_ms;
	long min_bps;		/* slower than this is cut (http.c) */
	oxi_llm_delta_fn delta;	/* may be NULL */
	oxi_llm_done_fn done;	/* required */
	void *arg;		/* for both */
	const int *stop;	/* non-NULL and set: the transfer stops at
				 * the next poll (done still comes) */
};
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
 * A request in flight, as request.c and embed.c keep it for its callbacks
 * and error records.
 */
struct oxi_llm_job {
	char *id;			/* request id */
	char *model;			/* "provider/model" as requested */
	char *key;			/* API key, to mask, or NULL */
	const char *prov;		/* provider name, for messages */
	const struct oxi_llm_dialect *d;	/* its dialect */
	const struct oxi_llm_cfg *cfg;	/* callbacks */
};
/*
 * Resolves the model of request rec (borrowed): its "model", else cfg's.
 * 0 with *model (borrowed from rec or cfg) and *t set, or -1 with an
 * error record in *err.
 */
int oxi_llm_job_target(jv rec, const struct oxi_llm_cfg *,
    struct oxi_llm_target *t, const char **model, jv *err);
/* copies id, model, and t's key; keeps its provider name, its dialect
 * and cfg */
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
/* the error record of failure r, an invalid jv with a message (consumed) */
jv oxi_llm_job_fail(const struct oxi_llm_job *, const char *code, jv r,
    int retry);
/* the error record of a transfer that ended without a 2xx reply */
jv oxi_llm_job_httperr(const struct oxi_llm_job *,
    const struct oxi_http_res *);
/*
 * Starts req (url, data, done and arg set by the caller) with body
 * (consumed) as its JSON text, or with req->form instead (body is then
 * null, and no Content-Type line of ours goes), the header lines of t
 * (oxi_llm_headers, with t's key in the dialect's auth line, and
 * accept) and the job's timeouts.  OXI_LLM_STARTED, or OXI_LLM_FAIL with an error record in
 * *err.
 */
int oxi_llm_job_post(const struct oxi_llm_job *, struct oxi_http_loop *,
    const struct oxi_llm_target *t, const char *accept,
    struct oxi_http_req *req, jv body, jv *err);

/*
 * The header lines of a request to t's provider, NULL-ended in h[max]:
 * Content-Type, accept, the dialect's fixed lines and auth (if not NULL),
 * each unless an OXI_<PROVIDER>_HEADERS line has its name, then those
 * lines.  Returns their count.
 */
int oxi_llm_headers(const char **h, size_t max,
    const struct oxi_llm_target *t, const char *auth, const char *accept);

/* embed.c: embed.request records, as oxi_llm_start does llm.request */
/* 0, or -1 with a static reason */
int oxi_embed_check(jv rec, const char **why);
int oxi_embed_start(struct oxi_http_loop *, const struct oxi_llm_cfg *,
    jv rec, jv *err);

/* transcribe.c: transcribe records, as oxi_embed_* do embed.request */
/* 0, or -1 with a static reason */
int oxi_transcribe_check(jv rec, const char **why);
/* the model of rec (borrowed): its own, else $OXI_TRANSCRIBE_MODEL, else
 * the default; NULL when that is "none" */
const char *oxi_transcribe_model(jv rec);
int oxi_transcribe_start(struct oxi_http_loop *, const struct oxi_llm_cfg *,
    jv rec, jv *err);

/* account.c: usage and cost of answers, the spend ledger, budgets */
struct oxi_llm_acct {
	struct oxi_prices *prices;	/* the price table */
	const char *path;		/* ledger; NULL: $OXI_HOME/llm.db */
	double budget[3];		/* as in struct oxi_llmctl_cfg */
	struct oxi_ledger *ledger;	/* opened on first use */
	int noledger;			/* it could not be opened */
	char ledgerr[200];		/* why */
};
/*
 * Answer rec (consumed) with its "usage" normalised (an embedding's or
 * a transcription's, embed set: as it is, input null when unknown) and
 * its "cost_usd", the cost booked in the ledger under session (or NULL)
 * and request id.
 */
jv oxi_llm_account(struct oxi_llm_acct *, jv rec, int embed,
    const char *session, const char *id);
/* the "budget" error for request id, or an invalid jv within the caps;
 * a budget with a model of the chain models unpriced is refused too */
jv oxi_llm_overbudget(struct oxi_llm_acct *, const char *id,
    const char *session, const char *models);
/* budgets fail closed: -1 with why when a budget is set and a model of
 * the chain models (may be NULL) has no price */
int oxi_llm_acct_priced(const struct oxi_llm_acct *, const char *models,
    char *why, size_t len);
/* frees the prices and closes the ledger */
void oxi_llm_acct_free(struct oxi_llm_acct *);

#endif
