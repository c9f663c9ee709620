/*
 * embed.c - embed.request records in flight
 *
 * {"type":"embed.request","id","model":"provider/model","input":[...]}
 * becomes one HTTP request to the provider's embedding endpoint, as its
 * dialect's embed table (struct oxi_llm_embed) builds it and reads the
 * reply.  It ends in one callback, as oxi_llm_start does: an embed.response
 * {"id","model","vectors":[[...],...],"usage":{"input":N}} (input null
 * when the provider does not count), or an error record.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oxi.h"
#include "llm/job.h"

#define EMBED_MAXIN	2048		/* texts in one request */

struct ejob {
	struct oxi_llm_job q;		/* id, model, key, callbacks */
	const struct oxi_llm_embed *e;	/* the dialect's embeddings */
	int n;				/* texts sent */
	struct oxi_buf body;		/* the reply */
};

/* the vectors and the token count of a reply, or an invalid jv */
static jv
parse(struct ejob *j, jv *tokens)
{
	jv r, out;

	*tokens = jv_null();
	r = oxi_json_parse(j->body.s ? j->body.s : "", j->body.len);
	if (jv_get_kind(r) != JV_KIND_OBJECT) {
		jv_free(r);
		return jv_invalid_with_msg(jv_string("the reply is not a"
		    " JSON object"));
	}
	out = j->e->vectors(r, j->n, tokens);
	jv_free(r);
	return out;
}

static int
ondata(void *arg, const char *p, size_t n)
{
	struct ejob *j = arg;

	oxi_buf_cat(&j->body, p, n);
	return 0;
}

static void
jfree(struct ejob *j)
{
	oxi_llm_job_free(&j->q);
	oxi_buf_free(&j->body);
	free(j);
}

static void
ondone(void *arg, struct oxi_http_res *res)
{
	struct ejob *j = arg;
	jv rec, vecs, tokens;

	if (res->kind == OXI_HTTP_OK) {
		vecs = parse(j, &tokens);
		if (jv_is_valid(vecs)) {
			rec = oxi_msg_new("embed.response");
			rec = jv_object_set(rec, jv_string("id"),
			    jv_string(j->q.id));
			rec = jv_object_set(rec, jv_string("model"),
			    jv_string(j->q.model));
			rec = jv_object_set(rec, jv_string("vectors"), vecs);
			rec = jv_object_set(rec, jv_string("usage"),
			    jv_object_set(jv_object(), jv_string("input"),
			    tokens));
			rec = jv_object_set(rec, jv_string("cost_usd"),
			    jv_null());
		} else {
			rec = oxi_llm_job_fail(&j->q, "bad_reply", vecs, 0);
			jv_free(tokens);
		}
	} else
		rec = oxi_llm_job_httperr(&j->q, res);
	j->q.cfg->done(j->q.cfg->arg, j->q.id, rec);
	jfree(j);
}

/* the texts of an embed.request: an array of strings, or invalid */
static jv
texts(jv rec, const char **why)
{
	jv in = oxi_jget(rec, "input"), s;
	int i, n;

	if (jv_get_kind(in) == JV_KIND_STRING)
		return jv_array_append(jv_array(), in);
	if (jv_get_kind(in) != JV_KIND_ARRAY ||
	    (n = jv_array_length(jv_copy(in))) == 0 || n > EMBED_MAXIN) {
		jv_free(in);
		*why = "embed.request needs \"input\": a string or an array"
		    " of 1 to 2048 strings";
		return jv_invalid();
	}
	for (i = 0; i < n; i++) {
		s = jv_array_get(jv_copy(in), i);
		if (jv_get_kind(s) != JV_KIND_STRING) {
			jv_free(s);
			jv_free(in);
			*why = "embed.request \"input\" must hold strings only";
			return jv_invalid();
		}
		jv_free(s);
	}
	return in;
}

int
oxi_embed_check(jv rec, const char **why)
{
	jv t;

	if (!oxi_msg_peek(rec, "id")) {
		*why = "embed.request record needs \"id\" (a string)";
		return -1;
	}
	t = oxi_jget(rec, "model");
	if (jv_is_valid(t) && jv_get_kind(t) != JV_KIND_STRING &&
	    jv_get_kind(t) != JV_KIND_NULL) {
		jv_free(t);
		*why = "embed.request \"model\" must be a string";
		return -1;
	}
	jv_free(t);
	t = texts(rec, why);
	if (!jv_is_valid(t))
		return -1;
	jv_free(t);
	return 0;
}

int
oxi_embed_start(struct oxi_http_loop *loop, const struct oxi_llm_cfg *cfg,
    jv rec, jv *err)
{
	struct oxi_http_req req;
	struct oxi_llm_target t;
	struct oxi_buf url = OXI_BUF_INIT;
	const struct oxi_llm_dialect *d;
	const char *id, *model, *why;
	struct ejob *j;
	const struct oxi_llm_embed *e;
	char msg[200];
	int n;
	jv in;

	id = oxi_msg_peek(rec, "id");
	if (oxi_embed_check(rec, &why) < 0) {
		*err = oxi_msg_error(id, "invalid", why, 0);
		return OXI_LLM_BAD;
	}
	if (oxi_llm_job_target(rec, cfg, &t, &model, err) < 0)
		return OXI_LLM_FAIL;
	d = t.p->dialect;
	if (!(e = d->embed)) {		/* not a guess at an endpoint */
		snprintf(msg, sizeof msg, "%s: no embeddings: the provider's"
		    " API offers none", t.p->name);
		*err = jv_object_set(oxi_msg_error(id, "config", msg, 0),
		    jv_string("model"), jv_string(model));
		oxi_llm_target_free(&t);
		return OXI_LLM_FAIL;
	}
	in = texts(rec, &why);
	j = xcalloc(1, sizeof *j);
	j->n = jv_array_length(jv_copy(in));
	oxi_buf_cat(&url, t.base.s, t.base.len);
	e->url(&url, &t);

	oxi_llm_job_init(&j->q, id, model, &t, cfg);
	j->e = e;
	memset(&req, 0, sizeof req);
	req.url = url.s;
	req.data = ondata;
	req.done = ondone;
	req.arg = j;
	if ((n = oxi_llm_job_post(&j->q, loop, &t, "Accept: application/json",
	    &req, e->body(&t, in, oxi_jget(rec, "dimensions")), err)) !=
	    OXI_LLM_STARTED)
		jfree(j);
	oxi_buf_free(&url);
	oxi_llm_target_free(&t);
	return n;
}
