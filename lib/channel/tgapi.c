/*
 * tgapi.c - the Telegram Bot API client of oxi-recv and oxi-send
 *
 * One call is a method and a JSON object of parameters, POSTed to
 * BASE/bot<token>/<method>; the answer is {"ok":true,"result":...} or
 * {"ok":false,"error_code":N,"description":"...","parameters":
 * {"retry_after":S,"migrate_to_chat_id":ID}}, which tg_res holds parsed.
 * Calls run on one oxi_http_loop (net/http.c): tg_start leaves the
 * waiting to the caller's loop, tg_call waits.  Files are fetched from
 * BASE/file/bot<token>/<file_path>.
 *
 * The token is in every URL and nowhere else: each message made here
 * passes tg_redact, libcurl is never verbose, and the dead-letter filter
 * set by tg_open redacts what other code writes there.  The token is
 * checked for its shape at start, so that it needs no escaping in a URL
 * and its one spelling is the one redacted.
 */
#define _GNU_SOURCE

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/tg.h"

#define CALL_MS		60000
#define URLMAX		4096

/* a call in flight */
struct call {
	struct tg *tg;		/* whose */
	char method[64];	/* for messages */
	struct oxi_buf body;	/* the 2xx reply so far */
	int fd;			/* a download's file, or -1 */
	int werr;		/* errno of a failed write to fd */
	size_t max;		/* body cap */
	int stop;		/* set: the transfer ends (OXI_HTTP_ABORT) */
	int *flag;		/* set to 1 when done (tg_call), or NULL */
	struct tg_res *out;	/* where tg_call wants the outcome */
	tg_done_fn done;	/* the caller's callback, or NULL */
	void *arg;		/* its argument */
};

/* the tg whose token the dead-letter filter redacts */
static const struct tg *redactor;

void
tg_redact(const struct tg *tg, char *s)
{
	const char *secret;
	size_t n, r = sizeof TG_REDACTED - 1;
	char *p;
	int pass;

	if (!tg || !tg->token || !s)
		return;
	secret = strchr(tg->token, ':') + 1;
	/* the whole token first, then its secret half wherever it stands
	 * alone: both are longer than TG_REDACTED */
	for (pass = 0; pass < 2; pass++) {
		const char *t = pass ? secret : tg->token;

		n = strlen(t);
		while ((p = strstr(s, t))) {
			memcpy(p, TG_REDACTED, r);
			memmove(p + r, p + n, strlen(p + n) + 1);
		}
	}
}

/* appends s[0..n) to out with every pat replaced by TG_REDACTED */
static void
subst(const char *s, size_t n, const char *pat, struct oxi_buf *out)
{
	const char *p, *end = s + n;
	size_t k = strlen(pat);

	while ((p = memmem(s, end - s, pat, k))) {
		oxi_buf_cat(out, s, p - s);
		oxi_buf_cats(out, TG_REDACTED);
		s = p + k;
	}
	oxi_buf_cat(out, s, end - s);
}

/* oxi_deadletter_filter: the token never reaches the dead-letter file,
 * whole or its secret half alone, NUL bytes or not */
static int
dlfilter(const char *data, size_t len, struct oxi_buf *out)
{
	struct oxi_buf tmp = OXI_BUF_INIT;
	const char *secret;

	if (!redactor || !redactor->token)
		return 0;
	secret = strchr(redactor->token, ':') + 1;
	if (!memmem(data, len, secret, strlen(secret)))
		return 0;
	subst(data, len, redactor->token, &tmp);
	subst(tmp.s, tmp.len, secret, out);
	oxi_buf_free(&tmp);
	return 1;
}

/* 1 if t looks like a bot token: digits ":" and 8 or more of
 * [A-Za-z0-9_-] */
static int
tokenok(const char *t)
{
	const char *p = t;
	size_t n;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == t || p - t > 20 || *p != ':')
		return 0;
	for (n = 0, p++; *p; p++, n++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return 0;
	return n >= 8;
}

static int
nameok(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ||
		    *s == '.'))
			return 0;
	return n > 0 && n <= 64;
}

void
tg_open(struct tg *tg, const char *account)
{
	const char *t, *b;
	size_t n;

	memset(tg, 0, sizeof *tg);
	tg->sigfd = -1;
	if (!account)
		account = oxi_getenv("OXI_TELEGRAM_ACCOUNT");
	tg->account = account ? account : TG_ACCOUNT;
	if (!nameok(tg->account) || tg->account[0] == '.')
		oxi_die(OXI_EX_USAGE, "invalid telegram account '%s': 1 to 64 "
		    "of A-Z a-z 0-9 _ - .", tg->account);
	if (!(t = oxi_getenv("TELEGRAM_BOT_TOKEN")))
		oxi_die(OXI_EX_USAGE, "TELEGRAM_BOT_TOKEN is not set");
	if (!tokenok(t))
		oxi_die(OXI_EX_USAGE, "TELEGRAM_BOT_TOKEN is not a bot token "
		    "(digits, ':', then letters, digits, _ and -)");
	tg->token = xstrdup(t);
	n = strchr(t, ':') - t;
	memcpy(tg->botid, t, n);
	tg->botid[n] = '\0';
	b = oxi_getenv("OXI_TELEGRAM_BASE_URL");
	tg->base = xstrdup(b ? b : TG_BASE);
	for (n = strlen(tg->base); n > 0 && tg->base[n - 1] == '/'; n--)
		tg->base[n - 1] = '\0';
	if (strncmp(tg->base, "http://", 7) != 0 &&
	    strncmp(tg->base, "https://", 8) != 0)
		oxi_die(OXI_EX_USAGE, "OXI_TELEGRAM_BASE_URL is not an http(s) "
		    "URL");
	if (strlen(tg->base) > URLMAX / 2)
		oxi_die(OXI_EX_USAGE, "OXI_TELEGRAM_BASE_URL is too long");
	redactor = tg;
	oxi_deadletter_filter = dlfilter;
	if (!(tg->loop = oxi_http_loop_new()))
		oxi_die(OXI_EX_TEMP, "unable to start libcurl");
}

void
tg_close(struct tg *tg)
{
	oxi_http_loop_free(tg->loop);
	tg->loop = NULL;
	if (tg->token) {
		oxi_wipe(tg->token, strlen(tg->token));
		free(tg->token);
		tg->token = NULL;
	}
	free(tg->base);
	tg->base = NULL;
	if (redactor == tg) {
		redactor = NULL;
		oxi_deadletter_filter = NULL;
	}
}

void
tg_res_free(struct tg_res *res)
{
	jv_free(res->result);
	res->result = jv_null();
}

#define INTMAX53	9007199254740992.0

/* 1 if v is an integral number of at most 2^53 in magnitude */
static int
integral(jv v)
{
	double d;

	if (jv_get_kind(v) != JV_KIND_NUMBER)
		return 0;
	d = jv_number_value(v);
	return d >= -INTMAX53 && d <= INTMAX53 && d == (double)(long long)d;
}

long long
tg_int(jv obj, const char *key, long long dflt)
{
	jv v = oxi_jget(obj, key);
	long long r = integral(v) ? (long long)jv_number_value(v) : dflt;

	jv_free(v);
	return r;
}

const char *
tg_idstr(jv v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (jv_get_kind(v) == JV_KIND_STRING)
		snprintf(buf, len, "%s", jv_string_value(v));
	else if (integral(v))
		snprintf(buf, len, "%lld", (long long)jv_number_value(v));
	return buf;
}

static void
res_init(struct tg_res *res)
{
	memset(res, 0, sizeof *res);
	res->result = jv_null();
	res->retry_after = -1;
}

/* the one line of res->err: "method: what", the token redacted */
static void
res_err(struct call *c, struct tg_res *res, const char *fmt, ...)
	OXI_PRINTF(3, 4);
static void
res_err(struct call *c, struct tg_res *res, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(res->err, sizeof res->err, "%s: ", c->method);
	if (n < 0 || (size_t)n >= sizeof res->err)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(res->err + n, sizeof res->err - n, fmt, ap);
	va_end(ap);
	tg_redact(c->tg, res->err);
}

/* reads the API's answer in body[0..len) into res: 1 if it was one */
static int
parse(struct call *c, const char *body, size_t len, struct tg_res *res)
{
	jv doc, ok, p, v;
	char id[32];

	if (len == 0)
		return 0;
	doc = oxi_json_parse(body, len);
	if (!oxi_jis(doc, JV_KIND_OBJECT)) {
		jv_free(doc);
		return 0;
	}
	ok = oxi_jget(doc, "ok");
	if (jv_get_kind(ok) == JV_KIND_TRUE) {
		jv_free(ok);
		res->ok = 1;
		res->result = oxi_jget(doc, "result");
		if (!jv_is_valid(res->result))
			res->result = jv_null();
		jv_free(doc);
		return 1;
	}
	if (jv_get_kind(ok) != JV_KIND_FALSE) {
		jv_free(ok);
		jv_free(doc);
		return 0;
	}
	jv_free(ok);
	res->code = (long)tg_int(doc, "error_code", res->code);
	v = oxi_jget(doc, "description");
	if (jv_get_kind(v) == JV_KIND_STRING) {
		snprintf(res->desc, sizeof res->desc, "%s", jv_string_value(v));
		tg_redact(c->tg, res->desc);
	}
	jv_free(v);
	p = oxi_jget(doc, "parameters");
	if (oxi_jis(p, JV_KIND_OBJECT)) {
		res->retry_after = (long)tg_int(p, "retry_after",
		    res->retry_after);
		v = oxi_jget(p, "migrate_to_chat_id");
		snprintf(res->migrate, sizeof res->migrate, "%s",
		    tg_idstr(v, id, sizeof id));
		jv_free(v);
	}
	jv_free(p);
	jv_free(doc);
	if (res->retry_after > 86400)
		res->retry_after = 86400;
	res->temp = res->code == 429 || res->code >= 500;
	if (res->code > 0 && res->desc[0])
		res_err(c, res, "%ld %s", res->code, res->desc);
	else if (res->desc[0])
		res_err(c, res, "%s", res->desc);
	else
		res_err(c, res, "error %ld", res->code);
	return 1;
}

static int
ondata(void *arg, const char *p, size_t n)
{
	struct call *c = arg;

	if (c->fd < 0) {
		oxi_buf_cat(&c->body, p, n);
		return 0;
	}
	return (c->werr = ch_write(c->fd, p, n)) != 0;
}

static void
ondone(void *arg, struct oxi_http_res *hr)
{
	struct call *c = arg;
	struct tg_res res;
	const char *body = hr->kind == OXI_HTTP_OK ? c->body.s : hr->body.s;
	size_t len = hr->kind == OXI_HTTP_OK ? c->body.len : hr->body.len;

	res_init(&res);
	res.kind = hr->kind;
	res.code = hr->status;
	res.retry_after = hr->retry_after;
	if (c->fd >= 0 && hr->kind == OXI_HTTP_OK) {
		res.ok = 1;
		res.result = jv_true();
	} else if (c->fd >= 0 && c->werr) {
		res_err(c, &res, "unable to write the file: %s",
		    strerror(c->werr));
	} else if (c->fd >= 0 && hr->kind == OXI_HTTP_BIG) {
		res_err(c, &res, "file over %zu bytes", c->max);
	} else if ((hr->kind == OXI_HTTP_OK || hr->kind == OXI_HTTP_STATUS) &&
	    parse(c, body, len, &res)) {
		if (!res.ok && res.code == 0)
			res.code = hr->status;
	} else if (hr->kind == OXI_HTTP_OK) {
		res_err(c, &res, "not an answer of the Bot API");
		res.temp = 1;
	} else {
		res.temp = hr->temp;
		res_err(c, &res, "%s", hr->err[0] ? hr->err : "failed");
	}
	if (c->out) {
		tg_res_free(c->out);
		*c->out = res;
	} else {
		if (c->done)
			c->done(c->arg, &res);
		tg_res_free(&res);
	}
	if (c->flag)
		*c->flag = 1;
	oxi_buf_free(&c->body);
	free(c);
}

/* starts a transfer of url (with the token: wiped here) */
static struct call *
start(struct tg *tg, const char *method, struct oxi_buf *url, jv params,
    long timeout_ms, size_t max, int fd, struct tg_res *res)
{
	static const char *const hdrs[] = {
		"Content-Type: application/json", NULL
	};
	struct oxi_http_req req;
	struct call *c;
	jv body = jv_null();
	char err[256];
	int r;

	c = xcalloc(1, sizeof *c);
	c->tg = tg;
	c->fd = fd;
	c->max = max;
	snprintf(c->method, sizeof c->method, "%s", method);
	memset(&req, 0, sizeof req);
	req.url = url->s;
	if (jv_get_kind(params) != JV_KIND_NULL || fd < 0) {
		if (jv_get_kind(params) != JV_KIND_OBJECT) {
			jv_free(params);
			params = jv_object();
		}
		body = jv_dump_string(params, 0);
		req.headers = hdrs;
		req.body = jv_string_value(body);
		req.bodylen = jv_string_length_bytes(jv_copy(body));
	} else
		jv_free(params);
	req.connect_ms = 15000;
	req.idle_ms = timeout_ms > 0 ? timeout_ms : CALL_MS;
	req.total_ms = (timeout_ms > 0 ? timeout_ms : CALL_MS) + 5000;
	req.max = max;
	req.data = ondata;
	req.done = ondone;
	req.arg = c;
	req.stop = &c->stop;
	r = oxi_http_start(tg->loop, &req, err, sizeof err);
	jv_free(body);
	oxi_wipe(url->s, url->len);
	oxi_buf_free(url);
	if (r < 0) {
		res_init(res);
		res_err(c, res, "%s", err);
		res->temp = 1;
		free(c);
		return NULL;
	}
	return c;
}

static void
apiurl(struct tg *tg, struct oxi_buf *url, const char *method)
{
	oxi_buf_printf(url, "%s/bot%s/%s", tg->base, tg->token, method);
}

int
tg_start(struct tg *tg, const char *method, jv params, long timeout_ms,
    tg_done_fn done, void *arg, struct tg_res *res)
{
	struct oxi_buf url = OXI_BUF_INIT;
	struct call *c;

	apiurl(tg, &url, method);
	if (!(c = start(tg, method, &url, params, timeout_ms, TG_REPLY_MAX,
	    -1, res)))
		return -1;
	c->done = done;
	c->arg = arg;
	return 0;
}

void
tg_pause(struct tg *tg, long ms)
{
	ch_pause(tg->sigfd, tg->termstop, ms);
}

int
tg_call(struct tg *tg, const char *method, jv params, long timeout_ms,
    struct tg_res *res)
{
	struct oxi_buf url = OXI_BUF_INIT;
	struct call *c;
	int flag = 0;

	res_init(res);
	apiurl(tg, &url, method);
	if (!(c = start(tg, method, &url, params, timeout_ms, TG_REPLY_MAX,
	    -1, res)))
		return -1;
	c->out = res;
	c->flag = &flag;
	ch_http_wait(tg->loop, tg->sigfd, tg->termstop, &c->stop,
	    &flag);
	return res->ok ? 0 : -1;
}

int
tg_getfile(struct tg *tg, const char *file_id, struct tg_res *res)
{
	jv p = jv_object_set(jv_object(), jv_string("file_id"),
	    jv_string(file_id));

	if (tg_call(tg, "getFile", p, 30000, res) < 0)
		return -1;
	if (!oxi_jis(res->result, JV_KIND_OBJECT)) {
		snprintf(res->err, sizeof res->err, "getFile: no file");
		res->ok = 0;
		return -1;
	}
	return 0;
}

/* 1 if a file_path from getFile is safe in a URL: [A-Za-z0-9_./-], no
 * "..", not absolute */
static int
pathok(const char *p)
{
	const char *s;

	if (!*p || *p == '/' || strstr(p, ".."))
		return 0;
	for (s = p; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ||
		    *s == '.' || *s == '/'))
			return 0;
	return s - p < 1024;
}

int
tg_download(struct tg *tg, const char *path, size_t max, const char *dest,
    struct tg_res *res)
{
	struct oxi_buf url = OXI_BUF_INIT, tmp = OXI_BUF_INIT;
	struct call *c;
	int fd, flag = 0;

	res_init(res);
	if (!pathok(path)) {
		snprintf(res->err, sizeof res->err,
		    "download: an unusable file path");
		return -1;
	}
	if ((fd = ch_file_open(dest, &tmp, &res->temp, res->err,
	    sizeof res->err)) < 0) {
		oxi_buf_free(&tmp);
		return -1;
	}
	oxi_buf_printf(&url, "%s/file/bot%s/%s", tg->base, tg->token, path);
	if (!(c = start(tg, "download", &url, jv_null(), 120000, max, fd,
	    res))) {
		close(fd);
		unlink(tmp.s);
		oxi_buf_free(&tmp);
		return -1;
	}
	c->out = res;
	c->flag = &flag;
	ch_http_wait(tg->loop, tg->sigfd, tg->termstop, &c->stop,
	    &flag);
	res->ok = ch_file_done(fd, &tmp, dest, res->ok, res->err,
	    sizeof res->err);
	return res->ok ? 0 : -1;
}
