/*
 * request.c - llm.request records in flight
 *
 * oxi_llm_start() resolves the model (provider.c), has its dialect build
 * the body and the URL, and turns one llm.request into one HTTP transfer
 * on a shared loop; "tool_mode":"prompt" in a request (or the provider's
 * OXI_<PROVIDER>_TOOLS=prompt) puts prompt-guided tools (ptools.c) over
 * the dialect's reader.  It ends in exactly one callback: an
 * llm.response, or an error record whose message never holds the key.
 * The oxi_llm_job functions (a request in flight, its error records, its
 * POST) serve embed.c too.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oxi.h"
#include "llm/job.h"

#define SCRUB_MAX	300

struct job {
	struct oxi_llm_job q;		/* id, model, key, callbacks */
	const struct oxi_llm_dialect *d;	/* its dialect */
	void *rd;			/* the dialect's reply reader */
	struct oxi_ptools *pt;		/* or prompt-guided tools over it */
};

/* does s start with an API-key-like token at i? returns its length */
static size_t
keylike(const char *s, size_t i, size_t n)
{
	size_t j;

	if (i + 3 > n || memcmp(s + i, "sk-", 3) != 0 ||
	    (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '-')))
		return 0;
	for (j = i + 3; j < n && (isalnum((unsigned char)s[j]) ||
	    s[j] == '-' || s[j] == '_' || s[j] == '*' || s[j] == '.'); j++)
		;
	return j - i >= 11 ? j - i : 0;
}

void
oxi_llm_scrub(struct oxi_buf *out, const char *msg, size_t len,
    const char *key)
{
	size_t i, k, klen = key ? strlen(key) : 0;
	unsigned char c;

	oxi_buf_reset(out);
	for (i = 0; i < len; ) {
		if (klen >= 4 && i + klen <= len &&
		    memcmp(msg + i, key, klen) == 0) {
			oxi_buf_cats(out, "[REDACTED]");
			i += klen;
		} else if ((k = keylike(msg, i, len)) > 0) {
			oxi_buf_cats(out, "sk-[REDACTED]");
			i += k;
		} else {
			c = msg[i++];
			oxi_buf_putc(out, c < 0x20 || c == 0x7f ? ' ' : c);
		}
	}
	while (out->len > 0 && out->s[out->len - 1] == ' ')
		out->s[--out->len] = '\0';
	if (out->len > SCRUB_MAX) {
		out->len = oxi_utf8_cut(out->s, out->len, SCRUB_MAX);
		oxi_buf_cats(out, "...");
	}
}

void
oxi_llm_job_init(struct oxi_llm_job *q, const char *id, const char *model,
    const struct oxi_llm_target *t, const struct oxi_llm_cfg *cfg)
{
	q->id = xstrdup(id);
	q->model = xstrdup(model);
	q->key = t->key ? xstrdup(t->key) : NULL;
	q->prov = t->p->name;
	q->d = t->p->dialect;
	q->cfg = cfg;
}

void
oxi_llm_job_free(struct oxi_llm_job *q)
{
	if (q->key) {
		oxi_wipe(q->key, strlen(q->key));
		free(q->key);
	}
	free(q->id);
	free(q->model);
}

int
oxi_llm_job_target(jv rec, const struct oxi_llm_cfg *cfg,
    struct oxi_llm_target *t, const char **model, jv *err)
{
	const char *id = oxi_msg_peek(rec, "id");
	char msg[256];
	int nokey;

	if (!(*model = oxi_msg_peek(rec, "model")))
		*model = cfg->model;
	if (!*model) {
		*err = oxi_msg_error(id, "config", "no model: give \"model\""
		    " in the request, use -m, or set OXI_MODEL", 0);
		return -1;
	}
	if (oxi_llm_resolve(*model, t, msg, sizeof msg, &nokey) < 0) {
		*err = oxi_msg_error(id, nokey ? "auth" : "config", msg, 0);
		return -1;
	}
	return 0;
}

jv
oxi_llm_job_error(const struct oxi_llm_job *q, const char *code,
    const char *msg, size_t len, int retry, long retry_after)
{
	struct oxi_buf b = OXI_BUF_INIT, m = OXI_BUF_INIT;
	jv r;

	oxi_llm_scrub(&m, msg, len, q->key);
	oxi_buf_printf(&b, "%s: %s", q->prov, m.s ? m.s : "");
	r = oxi_msg_error(q->id, code, b.s, retry);
	if (retry_after >= 0)
		r = jv_object_set(r, jv_string("retry_after"),
		    jv_number(retry_after));
	r = jv_object_set(r, jv_string("model"), jv_string(q->model));
	oxi_buf_free(&b);
	oxi_buf_free(&m);
	return r;
}

jv
oxi_llm_job_fail(const struct oxi_llm_job *q, const char *code, jv r,
    int retry)
{
	jv m = jv_invalid_get_msg(r), e;

	e = oxi_llm_job_error(q, code, jv_string_value(m),
	    jv_string_length_bytes(jv_copy(m)), retry, -1);
	jv_free(m);
	return e;
}

static const char *
statuscode(long status)
{
	if (status == 401 || status == 403)
		return "auth";
	if (status == 429)
		return "rate_limit";
	if (status == 408)
		return "timeout";
	if (status >= 500)
		return "server";
	return "bad_request";
}

jv
oxi_llm_job_httperr(const struct oxi_llm_job *q,
    const struct oxi_http_res *res)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *code;
	jv m, r;

	switch (res->kind) {
	case OXI_HTTP_STATUS:
		code = statuscode(res->status);
		m = (q->d->errmsg ? q->d->errmsg : oxi_llm_errmsg)(res->body.s,
		    res->body.len);
		if (jv_is_valid(m))
			oxi_buf_printf(&b, "HTTP %ld: %s", res->status,
			    jv_string_value(m));
		else
			oxi_buf_printf(&b, "HTTP %ld", res->status);
		jv_free(m);
		break;
	case OXI_HTTP_TIMEOUT:
		code = "timeout";
		break;
	case OXI_HTTP_CUT:
		code = "truncated";
		break;
	case OXI_HTTP_BIG:
		code = "too_large";
		break;
	case OXI_HTTP_CONFIG:
		code = "config";
		break;
	default:
		code = "network";
		break;
	}
	if (b.len == 0)
		oxi_buf_cats(&b, res->err);
	r = oxi_llm_job_error(q, code, b.s, b.len, res->temp,
	    res->retry_after);
	oxi_buf_free(&b);
	return r;
}

int
oxi_llm_job_post(const struct oxi_llm_job *q, struct oxi_http_loop *loop,
    const struct oxi_llm_target *t, const char *accept,
    struct oxi_http_req *req, jv body, jv *err)
{
	struct oxi_buf auth = OXI_BUF_INIT;
	const char *hdrs[8 + OXI_LLM_MAXHDRS];
	char msg[256];
	int r = OXI_LLM_STARTED, i, n;
	jv s = jv_dump_string(body, 0);

	if (t->key)
		oxi_buf_printf(&auth, q->d->auth, t->key);
	n = oxi_llm_headers(hdrs, sizeof hdrs / sizeof hdrs[0], t, auth.s,
	    accept);
	req->headers = hdrs;
	/* a form's Content-Type is libcurl's, with the boundary */
	for (i = n - 1; req->form && i >= 0; i--)
		if (strncasecmp(hdrs[i], "Content-Type:", 13) == 0) {
			memmove(&hdrs[i], &hdrs[i + 1], (n - i) *
			    sizeof hdrs[0]);
			n--;
		}
	if (!req->form) {
		req->body = jv_string_value(s);
		req->bodylen = jv_string_length_bytes(jv_copy(s));
	}
	req->connect_ms = q->cfg->connect_ms;
	req->idle_ms = q->cfg->idle_ms;
	req->min_bps = q->cfg->min_bps;
	req->total_ms = q->cfg->total_ms;
	if (req->form)
		oxi_debug("request %s: POST %s (a form)", q->id, req->url);
	else
		oxi_debug("request %s: POST %s (%zu bytes)", q->id, req->url,
		    req->bodylen);
	if (oxi_http_start(loop, req, msg, sizeof msg) < 0) {
		*err = oxi_llm_job_error(q, "network", msg, strlen(msg), 1,
		    -1);
		r = OXI_LLM_FAIL;
	}
	req->headers = NULL;
	if (auth.s)
		oxi_wipe(auth.s, auth.cap);
	oxi_buf_free(&auth);
	jv_free(s);
	return r;
}

static void
ondelta(void *arg, const char *text, size_t len)
{
	struct job *j = arg;

	if (j->q.cfg->delta)
		j->q.cfg->delta(j->q.cfg->arg, j->q.id, text, len);
}

static int
ondata(void *arg, const char *p, size_t n)
{
	struct job *j = arg;

	if (j->q.cfg->stop && *j->q.cfg->stop)
		return 1;
	if (j->pt)
		return oxi_ptools_feed(j->pt, p, n) < 0;
	return j->d->feed(j->rd, p, n) < 0;
}

static void
jobfree(struct job *j)
{
	if (j->rd)
		j->d->free(j->rd);
	oxi_ptools_free(j->pt);
	oxi_llm_job_free(&j->q);
	free(j);
}

static void
ondone(void *arg, struct oxi_http_res *res)
{
	struct job *j = arg;
	const char *code;
	int retry;
	jv r, rec;

	/* trouble after the terminal event (a server that keeps the
	 * stream open, a reset) does not undo a complete reply */
	if (res->kind == OXI_HTTP_OK || res->kind == OXI_HTTP_ABORT ||
	    (res->status / 100 == 2 && (j->pt ? oxi_ptools_complete(j->pt) :
	    j->d->complete(j->rd)))) {
		r = j->pt ? oxi_ptools_result(j->pt, &code, &retry) :
		    j->d->result(j->rd, &code, &retry);
		if (jv_is_valid(r)) {
			rec = oxi_msg_new("llm.response");
			rec = jv_object_set(rec, jv_string("id"),
			    jv_string(j->q.id));
			rec = jv_object_set(rec, jv_string("message"),
			    jv_object_get(jv_copy(r), jv_string("message")));
			rec = jv_object_set(rec, jv_string("stop"),
			    jv_object_get(jv_copy(r), jv_string("stop")));
			rec = jv_object_set(rec, jv_string("usage"),
			    jv_object_get(r, jv_string("usage")));
			rec = jv_object_set(rec, jv_string("cost_usd"),
			    jv_null());
			rec = jv_object_set(rec, jv_string("model"),
			    jv_string(j->q.model));
		} else {
			rec = oxi_llm_job_fail(&j->q, code ? code :
			    "provider", r, retry);
		}
	} else
		rec = oxi_llm_job_httperr(&j->q, res);
	j->q.cfg->done(j->q.cfg->arg, j->q.id, rec);
	jobfree(j);
}

/*
 * Whether request rec (borrowed) goes with prompt-guided tools: asked
 * by "tool_mode" or else by the provider's setting, and only when there
 * are tools or tool calls in it.
 */
static int
ptools(jv rec, int dflt)
{
	jv v = jv_object_get(jv_copy(rec), jv_string("tool_mode")), m, k;
	int on = dflt, i, n, any = 0;

	if (jv_get_kind(v) == JV_KIND_STRING)
		on = strcmp(jv_string_value(v), "prompt") == 0;
	jv_free(v);
	if (!on)
		return 0;
	v = jv_object_get(jv_copy(rec), jv_string("tools"));
	any = jv_get_kind(v) == JV_KIND_ARRAY && jv_array_length(jv_copy(v));
	jv_free(v);
	v = jv_object_get(jv_copy(rec), jv_string("messages"));
	n = jv_get_kind(v) == JV_KIND_ARRAY ? jv_array_length(jv_copy(v)) : 0;
	for (i = 0; i < n && !any; i++) {
		m = jv_array_get(jv_copy(v), i);
		if (jv_get_kind(m) == JV_KIND_OBJECT) {
			k = jv_object_get(jv_copy(m), jv_string("role"));
			any = jv_get_kind(k) == JV_KIND_STRING &&
			    strcmp(jv_string_value(k), "tool") == 0;
			jv_free(k);
		}
		jv_free(m);
	}
	jv_free(v);
	return any;
}

int
oxi_llm_headers(const char **h, size_t max, const struct oxi_llm_target *t,
    const char *auth, const char *accept)
{
	const struct oxi_llm_dialect *d = t->p->dialect;
	const char *ours[8];
	size_t n = 0, k = 0, i, e, len;
	const char *c;

	ours[k++] = "Content-Type: application/json";
	ours[k++] = accept;
	for (i = 0; d->hdrs && d->hdrs[i] && k < 6; i++)
		ours[k++] = d->hdrs[i];
	if (auth)
		ours[k++] = auth;
	for (i = 0; i < k; i++) {
		len = strcspn(ours[i], ":");
		for (e = 0; t->hdrs[e]; e++) {
			c = strchr(t->hdrs[e], ':');
			if ((size_t)(c - t->hdrs[e]) == len &&
			    strncasecmp(t->hdrs[e], ours[i], len) == 0)
				break;
		}
		if (!t->hdrs[e] && n < max - 1)
			h[n++] = ours[i];
	}
	for (e = 0; t->hdrs[e] && n < max - 1; e++)
		h[n++] = t->hdrs[e];
	h[n] = NULL;
	return (int)n;
}

int
oxi_llm_start(struct oxi_http_loop *loop, const struct oxi_llm_cfg *cfg,
    jv rec, jv *err)
{
	struct oxi_http_req req;
	struct oxi_llm_target t;
	struct oxi_buf url = OXI_BUF_INIT;
	const struct oxi_llm_dialect *d;
	const char *id, *model, *why;
	struct job *j;
	int stream, n, pt;
	jv body, v;

	id = oxi_msg_peek(rec, "id");
	if (oxi_msg_check(rec, &why) < 0 || !id) {
		*err = oxi_msg_error(id, "invalid", id ? why :
		    "llm.request record needs \"id\" (a string)", 0);
		return OXI_LLM_BAD;
	}
	if (oxi_llm_job_target(rec, cfg, &t, &model, err) < 0)
		return OXI_LLM_FAIL;
	d = t.p->dialect;
	stream = oxi_llm_stream(rec);
	pt = ptools(rec, t.ptools);
	if (pt) {
		v = oxi_ptools_request(rec);
		body = jv_is_valid(v) ? d->body(v, &t) : jv_copy(v);
		jv_free(v);
	} else
		body = d->body(rec, &t);
	if (!jv_is_valid(body)) {
		v = jv_invalid_get_msg(body);
		*err = oxi_msg_error(id, "invalid", jv_string_value(v), 0);
		jv_free(v);
		oxi_llm_target_free(&t);
		return OXI_LLM_BAD;
	}
	oxi_buf_cat(&url, t.base.s, t.base.len);
	if (d->path)
		oxi_buf_cats(&url, d->path);
	else
		d->url(&url, &t, stream);

	j = xcalloc(1, sizeof *j);
	oxi_llm_job_init(&j->q, id, model, &t, cfg);
	j->d = d;
	if (pt)
		j->pt = oxi_ptools_new(d, stream ? ondelta : NULL, j);
	else
		j->rd = d->reader(stream ? ondelta : NULL, j);
	memset(&req, 0, sizeof req);
	req.url = url.s;
	req.data = ondata;
	req.stop = j->q.cfg->stop;
	req.done = ondone;
	req.arg = j;
	if ((n = oxi_llm_job_post(&j->q, loop, &t, stream ? d->accept :
	    "Accept: application/json", &req, body, err)) != OXI_LLM_STARTED)
		jobfree(j);
	oxi_buf_free(&url);
	oxi_llm_target_free(&t);
	return n;
}
