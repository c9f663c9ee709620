/*
 * ctl.c - staying up: retries, circuit breakers, failover chains,
 * budgets, accounting, record and replay
 *
 * A call is one llm.request, embed.request or transcribe.  Its model may
 * be a chain, "anthropic/x,openai/y": each attempt goes to one model of
 * it through oxi_llm_start(), oxi_embed_start() or
 * oxi_transcribe_start(), and the call ends in exactly one done callback,
 * as they do.
 *
 * An attempt that fails with a retryable error (429, 5xx, overloaded,
 * timeout, network, truncated) is tried again on the same model after a
 * capped exponential backoff with jitter, never sooner than Retry-After,
 * while attempts are left and the wait ends within the retry window of
 * the call; then the next model of the chain gets it.  A 429 moves on to
 * the next model at once when there is one.  Errors that are not
 * retryable (auth, bad request) end the call.  Once text of an answer
 * went out as llm.delta, the call is never tried again: the error ends
 * it (with "partial":true), so that text is neither doubled nor mixed.
 *
 * Each provider has a circuit breaker (breaker.c): after max retryable
 * failures in a row it opens, and calls skip that provider's models (or
 * fail at once with "circuit_open") until the cool-down is over; then one
 * attempt goes through as a probe, and its outcome closes or reopens it.
 *
 * Every answer gets its usage and cost, booked in the ledger, and a call
 * is refused while a budget is spent (account.c).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oxi.h"
#include "llm/job.h"

struct brk {
	char *prov;			/* provider name */
	struct oxi_breaker b;		/* its state */
};

struct call {
	struct oxi_llmctl *ctl;		/* owner */
	struct call *prev, *next;	/* the owner's list */
	char *reqs;			/* the request, compact: its parsed
					 * tree is many times its size, and a
					 * thousand wait at once */
	char *id;			/* its id */
	char *session;			/* its "session", or NULL */
	char *chain;			/* the model chain as asked */
	char **models;			/* the chain split */
	int nmodels;			/* its length */
	int cur;			/* the model being tried */
	int tries;			/* attempts on it so far */
	int attempts;			/* attempts in all */
	int embed;			/* an embed.request */
	int transcribe;			/* a transcribe */
	int inflight;			/* an attempt is running */
	int probe;			/* that attempt probes a breaker */
	int net;			/* an attempt was sent */
	int ndelta;			/* deltas passed on */
	int cancelled;			/* llm.cancel: ends without a word */
	long long t0;			/* monotonic ms at the start */
	long long due;			/* next attempt at, or 0 */
	jv last;			/* the last error, or invalid */
	struct oxi_buf rec;		/* --record: delta lines so far */
	struct oxi_llm_cfg cfg;		/* for the attempts, arg = call */
};

struct oxi_llmctl {
	struct oxi_http_loop *loop;	/* where transfers run */
	struct oxi_llmctl_cfg cfg;	/* settings */
	struct call *head;		/* calls in flight or waiting */
	int ncalls;			/* how many */
	struct brk *brk;		/* breakers */
	size_t nbrk;			/* how many */
	struct oxi_llm_acct acct;	/* prices, ledger, budgets */
	struct oxi_replay *replay;	/* --replay */
	int recfd;			/* --record, or -1 */
	int draining;			/* no new attempts */
	int warming;			/* warm-up transfers running */
};

void
oxi_llmctl_defaults(struct oxi_llmctl_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->retries = 2;
	c->base_ms = 500;
	c->cap_ms = 8000;
	c->window_ms = 60000;
	c->brk_max = 5;
	c->brk_ms = 30000;
	c->min_bps = 2;
	c->budget[0] = c->budget[1] = c->budget[2] = -1;
}

static struct oxi_breaker *
breaker(struct oxi_llmctl *c, const char *model)
{
	size_t n = strcspn(model, "/"), i;

	for (i = 0; i < c->nbrk; i++)
		if (strlen(c->brk[i].prov) == n &&
		    memcmp(c->brk[i].prov, model, n) == 0)
			return &c->brk[i].b;
	c->brk = xrealloc(c->brk, (c->nbrk + 1) * sizeof *c->brk);
	memset(&c->brk[c->nbrk], 0, sizeof c->brk[c->nbrk]);
	c->brk[c->nbrk].prov = xstrndup(model, n);
	return &c->brk[c->nbrk++].b;
}

struct oxi_llmctl *
oxi_llmctl_new(struct oxi_http_loop *loop, const struct oxi_llmctl_cfg *cfg,
    char *why, size_t len)
{
	struct oxi_llmctl *c = xcalloc(1, sizeof *c);

	c->loop = loop;
	c->cfg = *cfg;
	c->recfd = -1;
	c->acct.path = cfg->ledger;
	memcpy(c->acct.budget, cfg->budget, sizeof c->acct.budget);
	if (!(c->acct.prices = oxi_prices_load(why, len)) ||
	    oxi_llm_acct_priced(&c->acct, cfg->model, why, len) < 0)
		goto fail;
	if (cfg->replay && !(c->replay = oxi_replay_load(cfg->replay, why,
	    len)))
		goto fail;
	if (cfg->record && (c->recfd = open(cfg->record, O_WRONLY |
	    O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		snprintf(why, len, "unable to open '%.200s': %s",
		    cfg->record, strerror(errno));
		goto fail;
	}
	srandom((unsigned)getpid() ^ (unsigned)oxi_clock_ms());
	return c;
fail:
	oxi_llmctl_free(c);
	return NULL;
}

void
oxi_llmctl_free(struct oxi_llmctl *c)
{
	size_t i;

	if (!c)
		return;
	while (c->head) {
		struct call *k = c->head;

		c->head = k->next;
		free(k->reqs);
		jv_free(k->last);
		free(k->id);
		free(k->session);
		free(k->chain);
		oxi_llm_chain_free(k->models, k->nmodels);
		oxi_buf_free(&k->rec);
		free(k);
	}
	for (i = 0; i < c->nbrk; i++)
		free(c->brk[i].prov);
	free(c->brk);
	oxi_llm_acct_free(&c->acct);
	oxi_replay_free(c->replay);
	if (c->recfd >= 0)
		close(c->recfd);
	free(c);
}

const struct oxi_prices *
oxi_llmctl_prices(const struct oxi_llmctl *c)
{
	return c->acct.prices;
}

int
oxi_llmctl_running(const struct oxi_llmctl *c)
{
	return c->ncalls;
}

int
oxi_llmctl_timeout(const struct oxi_llmctl *c)
{
	const struct call *k;
	long long now = oxi_clock_ms(), best = -1, left;

	for (k = c->head; k; k = k->next) {
		if (!k->due)
			continue;
		left = k->due > now ? k->due - now : 0;
		if (best < 0 || left < best)
			best = left;
	}
	return best > 86400000 ? 86400000 : (int)best;
}

static void
unlink_call(struct oxi_llmctl *c, struct call *k)
{
	if (k->prev)
		k->prev->next = k->next;
	else
		c->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	c->ncalls--;
}

/* appends the request and its records to the --record file */
static void
record(struct oxi_llmctl *c, struct call *k, jv fin)
{
	struct oxi_buf b = OXI_BUF_INIT;
	jv req, s;

	req = jv_object_set(oxi_json_parse(k->reqs, strlen(k->reqs)),
	    jv_string("model"), jv_string(k->chain));
	s = jv_dump_string(req, 0);
	oxi_buf_cats(&b, jv_string_value(s));
	oxi_buf_putc(&b, '\n');
	jv_free(s);
	oxi_buf_cat(&b, k->rec.s, k->rec.len);
	s = jv_dump_string(jv_copy(fin), 0);
	oxi_buf_cats(&b, jv_string_value(s));
	oxi_buf_putc(&b, '\n');
	jv_free(s);
	if (oxi_writeall(c->recfd, b.s, b.len) < 0)
		oxi_warnsys("unable to append to the recording");
	oxi_buf_free(&b);
}

/* ends a call with rec (consumed), and frees it */
static void
finish(struct oxi_llmctl *c, struct call *k, jv rec)
{
	const char *type = oxi_msg_type_peek(rec);

	if (strcmp(type, "error") != 0)
		rec = oxi_llm_account(&c->acct, rec, k->embed ||
		    k->transcribe, k->session, k->id);
	else if (k->ndelta > 0)
		rec = jv_object_set(rec, jv_string("partial"), jv_true());
	if (k->attempts > 1)
		rec = jv_object_set(rec, jv_string("attempts"),
		    jv_number(k->attempts));
	if (c->recfd >= 0 && k->net)
		record(c, k, rec);
	unlink_call(c, k);
	if (k->cancelled)
		jv_free(rec);
	else
		c->cfg.done(c->cfg.arg, k->id, rec);
	free(k->reqs);
	jv_free(k->last);
	free(k->id);
	free(k->session);
	free(k->chain);
	oxi_llm_chain_free(k->models, k->nmodels);
	oxi_buf_free(&k->rec);
	free(k);
}

static void
ondelta(void *arg, const char *id, const char *text, size_t len)
{
	struct call *k = arg;
	struct oxi_llmctl *c = k->ctl;
	jv r, s;

	if (len == 0)
		return;
	k->ndelta++;
	if (c->recfd >= 0) {
		r = oxi_msg_new("llm.delta");
		r = jv_object_set(r, jv_string("id"), jv_string(id));
		r = jv_object_set(r, jv_string("text"),
		    jv_string_sized(text, (int)len));
		s = jv_dump_string(r, 0);
		oxi_buf_cats(&k->rec, jv_string_value(s));
		oxi_buf_putc(&k->rec, '\n');
		jv_free(s);
	}
	if (c->cfg.delta)
		c->cfg.delta(c->cfg.arg, id, text, len);
}

static jv
circuit(struct call *k, const char *model, const struct oxi_breaker *b)
{
	struct oxi_buf m = OXI_BUF_INIT;
	long long left = b->until - oxi_clock_ms();
	size_t n = strcspn(model, "/");
	jv r;

	if (b->state == OXI_BRK_OPEN && left > 0)
		oxi_buf_printf(&m, "%.*s: circuit open after %d failures in a"
		    " row; next try in %.1f s", (int)n, model, b->fails,
		    left / 1000.0);
	else
		oxi_buf_printf(&m, "%.*s: circuit half-open, a probe is in"
		    " flight", (int)n, model);
	r = oxi_msg_error(k->id, "circuit_open", m.s, 1);
	r = jv_object_set(r, jv_string("model"), jv_string(model));
	oxi_buf_free(&m);
	return r;
}

static void
setlast(struct call *k, jv e)
{
	jv_free(k->last);
	k->last = e;
}

/*
 * Starts the next attempt: the current model of the chain, or the first
 * after it whose breaker lets it through.  OXI_LLM_STARTED, or BAD/FAIL
 * with the error to end the call with in *err.
 */
static int
attempt(struct oxi_llmctl *c, struct call *k, jv *err)
{
	struct oxi_breaker *b;
	const char *model;
	int r, allow;
	jv e, req;

	for (; k->cur < k->nmodels; k->cur++, k->tries = 0) {
		model = k->models[k->cur];
		b = breaker(c, model);
		allow = c->cfg.brk_max > 0 ? oxi_breaker_allow(b,
		    oxi_clock_ms()) : 1;
		if (!allow) {
			oxi_debug("request %s: skipping %s: circuit open",
			    k->id, model);
			setlast(k, circuit(k, model, b));
			continue;
		}
		req = jv_object_set(oxi_json_parse(k->reqs,
		    strlen(k->reqs)), jv_string("model"), jv_string(model));
		k->cfg.model = NULL;
		r = (k->transcribe ? oxi_transcribe_start : k->embed ?
		    oxi_embed_start : oxi_llm_start)(c->loop, &k->cfg, req, &e);
		jv_free(req);
		if (r == OXI_LLM_STARTED) {
			k->inflight = 1;
			k->probe = allow == 2;
			k->net = 1;
			k->tries++;
			k->attempts++;
			return r;
		}
		if (allow == 2)		/* the probe never left */
			b->probing = 0;
		if (r == OXI_LLM_BAD) {
			*err = e;
			return r;
		}
		setlast(k, e);
	}
	*err = jv_is_valid(k->last) ? jv_copy(k->last) :
	    oxi_msg_error(k->id, "config", "no model to try", 0);
	return OXI_LLM_FAIL;
}

/* retryable failures that say the provider is in trouble */
static int
sick(const char *code, int retry)
{
	return retry && strcmp(code, "rate_limit") != 0;
}

static void
ondone(void *arg, const char *id, jv rec)
{
	struct call *k = arg;
	struct oxi_llmctl *c = k->ctl;
	struct oxi_breaker *b = breaker(c, k->models[k->cur]);
	const char *code;
	long long now = oxi_clock_ms();
	long ra = -1, wait;
	int retry;
	jv v;

	(void)id;
	k->inflight = 0;
	if (k->cancelled) {
		finish(c, k, rec);
		return;
	}
	if (strcmp(oxi_msg_type_peek(rec), "error") != 0) {
		oxi_breaker_note(b, 1, c->cfg.brk_max, c->cfg.brk_ms, now);
		finish(c, k, rec);
		return;
	}
	code = oxi_msg_peek(rec, "code");
	if (!code)
		code = "provider";
	v = jv_object_get(jv_copy(rec), jv_string("retryable"));
	retry = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	v = jv_object_get(jv_copy(rec), jv_string("retry_after"));
	if (jv_get_kind(v) == JV_KIND_NUMBER)
		ra = (long)(jv_number_value(v) * 1000);
	jv_free(v);
	if (c->cfg.brk_max > 0) {
		int was = b->state;

		oxi_breaker_note(b, !sick(code, retry), c->cfg.brk_max,
		    c->cfg.brk_ms, now);
		if (b->state == OXI_BRK_OPEN && was != OXI_BRK_OPEN)
			oxi_info("provider %.*s: circuit open for %.1f s after"
			    " %d failures", (int)strcspn(k->models[k->cur],
			    "/"), k->models[k->cur], c->cfg.brk_ms / 1000.0,
			    b->fails);
	}
	setlast(k, rec);
	if (!retry || k->ndelta > 0 || c->draining) {
		finish(c, k, jv_copy(k->last));
		return;
	}
	if (strcmp(code, "rate_limit") == 0 && k->cur + 1 < k->nmodels) {
		oxi_info("request %s: rate_limit from %s, trying %s", k->id,
		    k->models[k->cur], k->models[k->cur + 1]);
		k->cur++;
		k->tries = 0;
		k->due = now;
		return;
	}
	if (k->tries <= c->cfg.retries) {
		wait = oxi_llm_backoff(k->tries, c->cfg.base_ms, c->cfg.cap_ms,
		    ra, (unsigned long)random());
		if (now + wait - k->t0 <= c->cfg.window_ms) {
			oxi_info("request %s: %s from %s, retry %d in %ld ms",
			    k->id, code, k->models[k->cur], k->tries, wait);
			k->due = now + wait;
			return;
		}
	}
	if (k->cur + 1 < k->nmodels) {
		oxi_info("request %s: %s from %s, trying %s", k->id, code,
		    k->models[k->cur], k->models[k->cur + 1]);
		k->cur++;
		k->tries = 0;
		k->due = now;
		return;
	}
	finish(c, k, jv_copy(k->last));
}

void
oxi_llmctl_tick(struct oxi_llmctl *c)
{
	struct call *k, *next;
	long long now = oxi_clock_ms();
	jv err;

	for (k = c->head; k; k = next) {
		next = k->next;
		if (!k->due || k->due > now || k->inflight)
			continue;
		k->due = 0;
		if (attempt(c, k, &err) != OXI_LLM_STARTED)
			finish(c, k, err);
	}
}

int
oxi_llmctl_cancel(struct oxi_llmctl *c, const char *id)
{
	struct call *k;

	for (k = c->head; k && strcmp(k->id, id); k = k->next)
		;
	if (!k)
		return 0;
	k->cancelled = 1;
	oxi_debug("request %s: cancelled", id);
	if (!k->inflight)
		finish(c, k, jv_null());
	return 1;
}

void
oxi_llmctl_drain(struct oxi_llmctl *c)
{
	struct call *k, *next;

	c->draining = 1;
	for (k = c->head; k; k = next) {
		next = k->next;
		if (k->due && !k->inflight)
			finish(c, k, jv_copy(k->last));
	}
}

/* plays a recorded answer back, ids re-stamped; consumes recs */
static void
playback(struct oxi_llmctl *c, const char *id, jv recs)
{
	const char *type;
	jv r, t;
	int i, n = jv_array_length(jv_copy(recs));

	for (i = 0; i < n; i++) {
		r = jv_array_get(jv_copy(recs), i);
		type = oxi_msg_type_peek(r);
		if (strcmp(type, "llm.delta") == 0) {
			t = jv_object_get(jv_copy(r), jv_string("text"));
			if (jv_get_kind(t) == JV_KIND_STRING && c->cfg.delta)
				c->cfg.delta(c->cfg.arg, id,
				    jv_string_value(t),
				    jv_string_length_bytes(jv_copy(t)));
			jv_free(t);
			jv_free(r);
			continue;
		}
		r = jv_object_set(r, jv_string(strcmp(type, "error") == 0 ?
		    "ref" : "id"), jv_string(id));
		c->cfg.done(c->cfg.arg, id, r);
		break;
	}
	jv_free(recs);
}

int
oxi_llmctl_start(struct oxi_llmctl *c, jv rec, const char *raw,
    size_t rawlen, jv *err)
{
	const char *type = oxi_msg_type_peek(rec), *id, *model, *why;
	char key[OXI_REPLAY_KEYLEN + 1];
	struct call *k;
	int embed = strcmp(type, "embed.request") == 0, r;
	int tr = strcmp(type, "transcribe") == 0;
	jv e, recs, s;

	id = oxi_msg_peek(rec, "id");
	if (tr ? oxi_transcribe_check(rec, &why) < 0 : embed ?
	    oxi_embed_check(rec, &why) < 0 :
	    oxi_msg_check(rec, &why) < 0 || !id) {
		*err = oxi_msg_error(id, "invalid", id || embed || tr ? why :
		    "llm.request record needs \"id\" (a string)", 0);
		return OXI_LLM_BAD;
	}
	if (tr && !(model = oxi_transcribe_model(rec))) {
		*err = oxi_msg_error(id, "unconfigured", "no transcription:"
		    " the model is \"none\"", 0);
		return OXI_LLM_FAIL;
	}
	if (!tr && !(model = oxi_msg_peek(rec, "model")))
		model = c->cfg.model;
	if (!model) {
		*err = oxi_msg_error(id, "config", "no model: give \"model\""
		    " in the request, use -m, or set OXI_MODEL", 0);
		return OXI_LLM_FAIL;
	}
	if (c->replay) {
		oxi_replay_key(rec, model, key);
		recs = oxi_replay_find(c->replay, key);
		if (!jv_is_valid(recs)) {
			jv_free(recs);
			*err = oxi_msg_error(id, "replay_miss", "no recorded"
			    " answer for this request", 0);
			return OXI_LLM_FAIL;
		}
		oxi_debug("request %s: replayed (key %s)", id, key);
		playback(c, id, recs);
		return OXI_LLM_STARTED;
	}
	e = oxi_llm_overbudget(&c->acct, id, oxi_msg_peek(rec, "session"),
	    model);
	if (jv_is_valid(e)) {
		*err = e;
		return OXI_LLM_FAIL;
	}
	jv_free(e);

	k = xcalloc(1, sizeof *k);
	k->ctl = c;
	if (raw) {
		k->reqs = xmalloc(rawlen + 1);
		memcpy(k->reqs, raw, rawlen);
		k->reqs[rawlen] = '\0';
	} else {
		s = jv_dump_string(jv_copy(rec), 0);
		k->reqs = xstrdup(jv_string_value(s));
		jv_free(s);
	}
	k->id = xstrdup(id);
	k->session = oxi_msg_peek(rec, "session") ?
	    xstrdup(oxi_msg_peek(rec, "session")) : NULL;
	k->chain = xstrdup(model);
	k->nmodels = oxi_llm_chain(model, &k->models);
	k->embed = embed;
	k->transcribe = tr;
	k->t0 = oxi_clock_ms();
	k->last = jv_invalid();
	k->cfg.connect_ms = c->cfg.connect_ms;
	k->cfg.idle_ms = c->cfg.idle_ms;
	k->cfg.min_bps = c->cfg.min_bps;
	k->cfg.total_ms = c->cfg.total_ms;
	k->cfg.delta = ondelta;
	k->cfg.done = ondone;
	k->cfg.arg = k;
	k->cfg.stop = &k->cancelled;
	r = attempt(c, k, err);
	if (r != OXI_LLM_STARTED) {
		free(k->reqs);
		jv_free(k->last);
		free(k->id);
		free(k->session);
		free(k->chain);
		oxi_llm_chain_free(k->models, k->nmodels);
		free(k);
		return r;
	}
	k->next = c->head;
	if (c->head)
		c->head->prev = k;
	c->head = k;
	c->ncalls++;
	return r;
}

/* warm-up */

static void
warmdone(void *arg, struct oxi_http_res *res)
{
	struct oxi_llmctl *c = arg;

	c->warming--;
	if (res->kind == OXI_HTTP_OK || res->kind == OXI_HTTP_STATUS)
		oxi_debug("warm-up: connected (HTTP %ld)", res->status);
	else
		oxi_debug("warm-up: %s", res->err);
}

int
oxi_llmctl_warm(struct oxi_llmctl *c, const char *models)
{
	struct oxi_http_req req;
	struct oxi_llm_target t;
	struct oxi_buf url = OXI_BUF_INIT;
	char **v, **seen, why[256];
	int n, i, j, nokey, nseen = 0;

	n = oxi_llm_chain(models, &v);
	seen = xcalloc(n + 1, sizeof *seen);
	for (i = 0; i < n; i++) {
		if (oxi_llm_resolve(v[i], &t, why, sizeof why, &nokey) < 0)
			continue;
		oxi_buf_reset(&url);
		oxi_buf_cat(&url, t.base.s, t.base.len);
		oxi_buf_cats(&url, "/models");
		oxi_llm_target_free(&t);
		for (j = 0; j < nseen && strcmp(seen[j], url.s) != 0; j++)
			;
		if (j < nseen)		/* one connection per base URL */
			continue;
		seen[nseen++] = xstrdup(url.s);
		memset(&req, 0, sizeof req);
		req.url = url.s;
		req.connect_ms = c->cfg.connect_ms;
		req.total_ms = c->cfg.connect_ms > 0 ? 2 * c->cfg.connect_ms :
		    20000;
		req.max = 1024 * 1024;
		req.done = warmdone;
		req.arg = c;
		oxi_debug("warm-up: GET %s", url.s);
		if (oxi_http_start(c->loop, &req, why, sizeof why) < 0)
			oxi_debug("warm-up: %s", why);
		else
			c->warming++;
	}
	for (j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
	oxi_buf_free(&url);
	oxi_llm_chain_free(v, n);
	return c->warming;
}

int
oxi_llmctl_warming(const struct oxi_llmctl *c)
{
	return c->warming;
}
