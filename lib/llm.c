/*
 * llm.c - model providers, and llm.request records in flight
 *
 * A model name is "provider/model"; the provider gives the base URL
 * (overridable by OXI_<PROVIDER>_BASE_URL) and the variable holding its
 * key.  Every provider here speaks the OpenAI Chat Completions dialect
 * (llm_openai.c).  oxi_llm_start() turns one llm.request into one HTTP
 * transfer on a shared loop, and ends in exactly one callback: an
 * llm.response, or an error record whose message never holds the key.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"

#define SCRUB_MAX	300

const struct oxi_llm_provider oxi_llm_providers[] = {
	{ "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", 1 },
	{ "ollama", "http://localhost:11434/v1", NULL, 0 },
	{ "llamacpp", "http://localhost:8080/v1", "LLAMA_API_KEY", 0 },
	{ "vllm", "http://localhost:8000/v1", "VLLM_API_KEY", 0 },
	{ "openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
	    1 },
	{ "groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", 1 },
	{ "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", 1 },
	{ NULL, NULL, NULL, 0 }
};

struct target {
	const struct oxi_llm_provider *p;	/* the provider */
	const char *model;	/* the model name after "provider/" */
	const char *key;	/* API key from the environment, or NULL */
	struct oxi_buf url;	/* base URL + "/chat/completions" */
};

struct job {
	char *id;			/* request id */
	char *model;			/* "provider/model" as requested */
	const char *key;		/* API key, to mask, or NULL */
	const char *prov;		/* provider name, for messages */
	struct oxi_openai *rd;		/* reply reader */
	const struct oxi_llm_cfg *cfg;	/* callbacks */
};

/* fills t from "provider/model": 0, or -1 with a reason in why */
static int
resolve(const char *name, struct target *t, char *why, size_t len,
    int *nokey)
{
	const struct oxi_llm_provider *p;
	const char *slash = strchr(name, '/'), *base;
	char var[64];
	size_t n, i;

	*nokey = 0;
	memset(t, 0, sizeof *t);
	if (!slash || slash == name || !slash[1]) {
		snprintf(why, len, "model '%.80s' is not provider/model,"
		    " e.g. openai/gpt-4o-mini", name);
		return -1;
	}
	n = slash - name;
	for (p = oxi_llm_providers; p->name; p++)
		if (strlen(p->name) == n && memcmp(p->name, name, n) == 0)
			break;
	if (!p->name) {
		snprintf(why, len, "unknown provider '%.*s' (known: openai,"
		    " ollama, llamacpp, vllm, openrouter, groq, deepseek)",
		    (int)(n > 40 ? 40 : n), name);
		return -1;
	}
	snprintf(var, sizeof var, "OXI_%s_BASE_URL", p->name);
	for (i = 4; var[i]; i++)
		var[i] = toupper((unsigned char)var[i]);
	base = oxi_getenv(var);
	t->p = p;
	t->model = slash + 1;
	t->key = p->keyenv ? oxi_getenv(p->keyenv) : NULL;
	if (!t->key && p->needkey && !base) {
		snprintf(why, len, "no API key for %s: set %s", p->name,
		    p->keyenv);
		*nokey = 1;
		return -1;
	}
	if (!base)
		base = p->base;
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	oxi_buf_cat(&t->url, base, n);
	oxi_buf_cats(&t->url, "/chat/completions");
	return 0;
}

int
oxi_llm_check(const char *model, char *why, size_t len)
{
	struct target t;
	int nokey, r;

	r = resolve(model, &t, why, len, &nokey);
	oxi_buf_free(&t.url);
	return r;
}

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
	size_t i, k, klen = key ? strlen(key) : 0, n;
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
		n = SCRUB_MAX;
		while (n > 0 && ((unsigned char)out->s[n] & 0xc0) == 0x80)
			n--;	/* not inside a UTF-8 sequence */
		out->len = n;
		oxi_buf_cats(out, "...");
	}
}

static jv
errrec(struct job *j, const char *code, const char *msg, size_t len,
    int retry, long retry_after)
{
	struct oxi_buf b = OXI_BUF_INIT, m = OXI_BUF_INIT;
	jv r;

	oxi_llm_scrub(&m, msg, len, j->key);
	oxi_buf_printf(&b, "%s: %s", j->prov, m.s ? m.s : "");
	r = oxi_msg_error(j->id, code, b.s, retry);
	if (retry_after >= 0)
		r = jv_object_set(r, jv_string("retry_after"),
		    jv_number(retry_after));
	r = jv_object_set(r, jv_string("model"), jv_string(j->model));
	oxi_buf_free(&b);
	oxi_buf_free(&m);
	return r;
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

static jv
httperr(struct job *j, struct oxi_http_res *res)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *code;
	jv m, r;

	switch (res->kind) {
	case OXI_HTTP_STATUS:
		code = statuscode(res->status);
		m = oxi_openai_errmsg(res->body.s, res->body.len);
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
	r = errrec(j, code, b.s, b.len, res->temp, res->retry_after);
	oxi_buf_free(&b);
	return r;
}

static void
ondelta(void *arg, const char *text, size_t len)
{
	struct job *j = arg;

	if (j->cfg->delta)
		j->cfg->delta(j->cfg->arg, j->id, text, len);
}

static int
ondata(void *arg, const char *p, size_t n)
{
	struct job *j = arg;

	return oxi_openai_feed(j->rd, p, n) < 0;
}

static void
ondone(void *arg, struct oxi_http_res *res)
{
	struct job *j = arg;
	const char *code;
	int retry;
	jv r, rec, m;

	/* trouble after "data: [DONE]" (a server that keeps the stream
	 * open, a reset) does not undo a complete reply */
	if (res->kind == OXI_HTTP_OK || res->kind == OXI_HTTP_ABORT ||
	    (res->status / 100 == 2 && oxi_openai_done(j->rd))) {
		r = oxi_openai_result(j->rd, &code, &retry);
		if (jv_is_valid(r)) {
			rec = oxi_msg_new("llm.response");
			rec = jv_object_set(rec, jv_string("id"),
			    jv_string(j->id));
			rec = jv_object_set(rec, jv_string("message"),
			    jv_object_get(jv_copy(r), jv_string("message")));
			rec = jv_object_set(rec, jv_string("stop"),
			    jv_object_get(jv_copy(r), jv_string("stop")));
			rec = jv_object_set(rec, jv_string("usage"),
			    jv_object_get(r, jv_string("usage")));
			rec = jv_object_set(rec, jv_string("cost_usd"),
			    jv_null());
			rec = jv_object_set(rec, jv_string("model"),
			    jv_string(j->model));
		} else {
			m = jv_invalid_get_msg(r);
			rec = errrec(j, code, jv_string_value(m),
			    jv_string_length_bytes(jv_copy(m)), retry, -1);
			jv_free(m);
		}
	} else
		rec = httperr(j, res);
	j->cfg->done(j->cfg->arg, j->id, rec);
	oxi_openai_free(j->rd);
	free(j->id);
	free(j->model);
	free(j);
}

int
oxi_llm_start(struct oxi_http_loop *loop, const struct oxi_llm_cfg *cfg,
    jv rec, jv *err)
{
	struct oxi_http_req req;
	struct target t;
	struct oxi_buf auth = OXI_BUF_INIT;
	const char *id, *model, *why, *hdrs[5];
	char msg[256];
	struct job *j;
	int nokey, stream, n = 0;
	jv body, s, v;

	id = oxi_msg_peek(rec, "id");
	if (oxi_msg_check(rec, &why) < 0 || !id) {
		*err = oxi_msg_error(id, "invalid", id ? why :
		    "llm.request record needs \"id\" (a string)", 0);
		return OXI_LLM_BAD;
	}
	if (!(model = oxi_msg_peek(rec, "model")))
		model = cfg->model;
	if (!model) {
		*err = oxi_msg_error(id, "config", "no model: give \"model\""
		    " in the request, use -m, or set OXI_MODEL", 0);
		return OXI_LLM_FAIL;
	}
	if (resolve(model, &t, msg, sizeof msg, &nokey) < 0) {
		*err = oxi_msg_error(id, nokey ? "auth" : "config", msg, 0);
		return OXI_LLM_FAIL;
	}
	body = oxi_openai_body(rec, t.model);
	if (!jv_is_valid(body)) {
		v = jv_invalid_get_msg(body);
		*err = oxi_msg_error(id, "invalid", jv_string_value(v), 0);
		jv_free(v);
		oxi_buf_free(&t.url);
		return OXI_LLM_BAD;
	}
	v = jv_object_get(jv_copy(body), jv_string("stream"));
	stream = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	s = jv_dump_string(body, 0);

	j = xcalloc(1, sizeof *j);
	j->id = xstrdup(id);
	j->model = xstrdup(model);
	j->key = t.key;
	j->prov = t.p->name;
	j->cfg = cfg;
	j->rd = oxi_openai_new(stream ? ondelta : NULL, j);
	hdrs[n++] = "Content-Type: application/json";
	hdrs[n++] = stream ? "Accept: text/event-stream" :
	    "Accept: application/json";
	if (t.key) {
		oxi_buf_printf(&auth, "Authorization: Bearer %s", t.key);
		hdrs[n++] = auth.s;
	}
	hdrs[n] = NULL;
	memset(&req, 0, sizeof req);
	req.url = t.url.s;
	req.headers = hdrs;
	req.body = jv_string_value(s);
	req.bodylen = jv_string_length_bytes(jv_copy(s));
	req.connect_ms = cfg->connect_ms;
	req.idle_ms = cfg->idle_ms;
	req.total_ms = cfg->total_ms;
	req.data = ondata;
	req.done = ondone;
	req.arg = j;
	oxi_debug("request %s: POST %s (%zu bytes)", id, t.url.s, req.bodylen);
	if (oxi_http_start(loop, &req, msg, sizeof msg) < 0) {
		*err = errrec(j, "network", msg, strlen(msg), 1, -1);
		oxi_openai_free(j->rd);
		free(j->id);
		free(j->model);
		free(j);
		n = OXI_LLM_FAIL;
	} else
		n = OXI_LLM_STARTED;
	if (auth.s)
		explicit_bzero(auth.s, auth.cap);
	oxi_buf_free(&auth);
	oxi_buf_free(&t.url);
	jv_free(s);
	return n;
}
