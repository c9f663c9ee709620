/*
 * dcapi.c - the Discord REST client of oxi-recv and oxi-send
 *
 * A call is a verb, a path under the API base ($OXI_DISCORD_API, else
 * https://discord.com/api/v10) and a JSON body, with "Authorization: Bot
 * <token>".  A 2xx answers JSON (or nothing, 204); anything else
 * {"code":N,"message":"..."}, and a 429 {"retry_after":S,"global":B}.
 *
 * Rate limits: every answer's X-RateLimit-Remaining and
 * X-RateLimit-Reset-After are kept for its route (the caller names it:
 * the verb and the path up to its major parameter, the channel), so that
 * dc_wait_ms tells the sender how long a route must wait before it is
 * used up; a 429 holds its route for retry_after, or every route when
 * it says "global" (X-RateLimit-Global).
 *
 * The token is only in a request header, which net/http.c never logs;
 * the dead-letter filter redacts it from what other code writes there.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/dc.h"

#define CALL_MS		30000
#define URLMAX		4096
#define NBUCKETS	256	/* routes remembered, at most */

/* a route's rate limit as its last answer said */
struct dcbucket {
	struct dcbucket *next;
	char route[128];
	long long reset;	/* monotonic ms it fills again */
	int remaining;		/* calls left before then */
};

/* a call in flight */
struct call {
	struct dc *dc;		/* whose */
	char what[160];		/* "POST /channels/1/messages", for messages */
	char route[128];	/* its bucket */
	struct oxi_buf body;	/* the 2xx reply so far */
	int fd;			/* a download's file, or -1 */
	int werr;		/* errno of a failed write to fd */
	size_t max;		/* body cap */
	int stop;		/* set: the transfer ends */
	int remaining;		/* X-RateLimit-Remaining, or -1 */
	double reset_after;	/* X-RateLimit-Reset-After, or -1 */
	int global;		/* X-RateLimit-Global: true */
	int *flag;		/* set when done (dc_call), or NULL */
	struct dc_res *out;	/* where dc_call wants the outcome */
	dc_done_fn done;	/* the caller's callback, or NULL */
	void *arg;		/* its argument */
};

/* the dc whose token the dead-letter filter redacts */
static const struct dc *redactor;

void
dc_redact(const struct dc *dc, char *s)
{
	size_t n, r = sizeof DC_REDACTED - 1;
	char *p;

	if (!dc || !dc->token || !s)
		return;
	n = strlen(dc->token);
	while ((p = strstr(s, dc->token))) {
		memcpy(p, DC_REDACTED, r);
		memmove(p + r, p + n, strlen(p + n) + 1);
	}
}

/* oxi_deadletter_filter: the token never reaches the dead-letter file */
static int
dlfilter(const char *data, size_t len, struct oxi_buf *out)
{
	const char *p, *end = data + len, *t;
	size_t k;

	if (!redactor || !(t = redactor->token) ||
	    !memmem(data, len, t, strlen(t)))
		return 0;
	k = strlen(t);
	while ((p = memmem(data, end - data, t, k))) {
		oxi_buf_cat(out, data, p - data);
		oxi_buf_cats(out, DC_REDACTED);
		data = p + k;
	}
	oxi_buf_cat(out, data, end - data);
	return 1;
}

/* 1 if t looks like a bot token: 20 to 200 of [A-Za-z0-9._-] */
static int
tokenok(const char *t)
{
	size_t n = strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	    "WXYZ0123456789._-");

	return t[n] == '\0' && n >= 20 && n <= 200;
}

static int
nameok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	    "WXYZ0123456789._-");

	return s[n] == '\0' && n > 0 && n <= 64 && s[0] != '.';
}

void
dc_open(struct dc *dc, const char *account)
{
	struct oxi_buf a = OXI_BUF_INIT;
	const char *t, *b;
	size_t n;

	memset(dc, 0, sizeof *dc);
	dc->sigfd = -1;
	if (!account)
		account = oxi_getenv("OXI_DISCORD_ACCOUNT");
	dc->account = account ? account : DC_ACCOUNT;
	if (!nameok(dc->account))
		oxi_die(OXI_EX_USAGE, "invalid discord account '%s': 1 to 64 "
		    "of A-Z a-z 0-9 _ - .", dc->account);
	if (!(t = oxi_getenv("DISCORD_BOT_TOKEN")))
		oxi_die(OXI_EX_USAGE, "DISCORD_BOT_TOKEN is not set");
	if (!tokenok(t))
		oxi_die(OXI_EX_USAGE, "DISCORD_BOT_TOKEN is not a bot token "
		    "(20 to 200 letters, digits, '.', '_' and '-')");
	dc->token = xstrdup(t);
	oxi_buf_printf(&a, "Authorization: Bot %s", t);
	dc->auth = a.s;
	b = oxi_getenv("OXI_DISCORD_API");
	dc->base = xstrdup(b ? b : DC_API);
	for (n = strlen(dc->base); n > 0 && dc->base[n - 1] == '/'; n--)
		dc->base[n - 1] = '\0';
	if (strncmp(dc->base, "http://", 7) != 0 &&
	    strncmp(dc->base, "https://", 8) != 0)
		oxi_die(OXI_EX_USAGE, "OXI_DISCORD_API is not an http(s) URL");
	if (strlen(dc->base) > URLMAX / 2)
		oxi_die(OXI_EX_USAGE, "OXI_DISCORD_API is too long");
	redactor = dc;
	oxi_deadletter_filter = dlfilter;
	if (!(dc->loop = oxi_http_loop_new()))
		oxi_die(OXI_EX_TEMP, "unable to start libcurl");
}

void
dc_close(struct dc *dc)
{
	struct dcbucket *b;

	oxi_http_loop_free(dc->loop);
	dc->loop = NULL;
	while ((b = dc->buckets)) {
		dc->buckets = b->next;
		free(b);
	}
	if (dc->token) {
		oxi_wipe(dc->token, strlen(dc->token));
		oxi_wipe(dc->auth, strlen(dc->auth));
		free(dc->token);
		free(dc->auth);
		dc->token = dc->auth = NULL;
	}
	free(dc->base);
	dc->base = NULL;
	if (redactor == dc) {
		redactor = NULL;
		oxi_deadletter_filter = NULL;
	}
}

void
dc_res_free(struct dc_res *res)
{
	jv_free(res->body);
	res->body = jv_null();
}

const char *
dc_idstr(jv v, char *buf, size_t len)
{
	double d;

	buf[0] = '\0';
	if (jv_get_kind(v) == JV_KIND_STRING &&
	    strlen(jv_string_value(v)) < len)
		snprintf(buf, len, "%s", jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_NUMBER &&
	    (d = jv_number_value(v)) >= 0 && d <= 9007199254740992.0 &&
	    d == (double)(long long)d)
		snprintf(buf, len, "%lld", (long long)d);
	return buf;
}

const char *
dc_id(jv obj, const char *key, char *buf)
{
	jv v = oxi_jis(obj, JV_KIND_OBJECT) ? oxi_jget(obj, key) : jv_null();

	dc_idstr(v, buf, DC_ID);
	jv_free(v);
	return buf;
}

static void
res_init(struct dc_res *res)
{
	memset(res, 0, sizeof *res);
	res->body = jv_null();
	res->retry_ms = -1;
}

static void
res_err(struct call *c, struct dc_res *res, const char *fmt, ...)
	OXI_PRINTF(3, 4);
static void
res_err(struct call *c, struct dc_res *res, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(res->err, sizeof res->err, "%s: ", c->what);
	if (n < 0 || (size_t)n >= sizeof res->err)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(res->err + n, sizeof res->err - n, fmt, ap);
	va_end(ap);
	dc_redact(c->dc, res->err);
}

static struct dcbucket *
bucket(struct dc *dc, const char *route, int make)
{
	struct dcbucket *b, **pb;
	int n = 0;

	for (pb = &dc->buckets; (b = *pb); pb = &b->next, n++)
		if (strcmp(b->route, route) == 0)
			return b;
	if (!make)
		return NULL;
	/* the oldest forgotten when there are too many */
	if (n >= NBUCKETS) {
		for (pb = &dc->buckets; (*pb)->next; pb = &(*pb)->next)
			;
		free(*pb);
		*pb = NULL;
	}
	b = xcalloc(1, sizeof *b);
	snprintf(b->route, sizeof b->route, "%s", route);
	b->remaining = 1;
	b->next = dc->buckets;
	dc->buckets = b;
	return b;
}

long
dc_wait_ms(struct dc *dc, const char *route)
{
	long long now = oxi_clock_ms(), t = dc->global_until;
	struct dcbucket *b = route ? bucket(dc, route, 0) : NULL;

	if (b && b->remaining <= 0 && b->reset > t)
		t = b->reset;
	return t > now ? (long)(t - now) : 0;
}

/* a number at the start of a header's value, or -1 */
static double
hnum(const char *p, size_t n)
{
	char num[32];
	size_t k;

	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	for (k = 0; k < n && k < sizeof num - 1 && strchr("0123456789.",
	    p[k]); k++)
		num[k] = p[k];
	num[k] = '\0';
	return k > 0 ? atof(num) : -1;
}

/* the rate-limit headers; no value is ever printed */
static int
onhead(void *arg, const char *p, size_t n)
{
	struct call *c = arg;
	static const char rem[] = "x-ratelimit-remaining:",
	    rst[] = "x-ratelimit-reset-after:", glb[] = "x-ratelimit-global:";

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		c->remaining = -1;
		c->reset_after = -1;
		c->global = 0;
	} else if (n > sizeof rem - 1 && !strncasecmp(p, rem, sizeof rem - 1))
		c->remaining = (int)hnum(p + sizeof rem - 1, n - sizeof rem + 1);
	else if (n > sizeof rst - 1 && !strncasecmp(p, rst, sizeof rst - 1))
		c->reset_after = hnum(p + sizeof rst - 1, n - sizeof rst + 1);
	else if (n > sizeof glb - 1 && !strncasecmp(p, glb, sizeof glb - 1))
		c->global = memmem(p, n, "true", 4) != NULL;
	return 0;
}

/* the error JSON of a non-2xx answer in body[0..len) into res */
static void
parse_err(struct call *c, const char *body, size_t len, struct dc_res *res)
{
	jv doc = len ? oxi_json_parse(body, len) : jv_invalid(), v;
	double ra;

	if (oxi_jis(doc, JV_KIND_OBJECT)) {
		res->code = (long)oxi_jnum(doc, "code", 0);
		v = oxi_jget(doc, "message");
		if (jv_get_kind(v) == JV_KIND_STRING)
			snprintf(res->msg, sizeof res->msg, "%s",
			    jv_string_value(v));
		jv_free(v);
		if ((ra = oxi_jnum(doc, "retry_after", -1)) >= 0)
			res->retry_ms = (long)(ra * 1000 + 0.5);
		v = oxi_jget(doc, "global");
		if (jv_get_kind(v) == JV_KIND_TRUE)
			res->global = 1;
		jv_free(v);
	}
	jv_free(doc);
	dc_redact(c->dc, res->msg);
	if (res->msg[0])
		res_err(c, res, "%ld %s", res->status, res->msg);
	else
		res_err(c, res, "HTTP %ld", res->status);
}

/* what the answer says of the route's limit */
static void
limits(struct call *c, struct dc_res *res)
{
	struct dc *dc = c->dc;
	struct dcbucket *b;
	long long now = oxi_clock_ms();

	if (res->status == 429) {
		if (res->retry_ms < 0)
			res->retry_ms = res->kind == OXI_HTTP_STATUS &&
			    c->reset_after >= 0 ? (long)(c->reset_after * 1000) :
			    1000;
		if (res->retry_ms > 3600000)
			res->retry_ms = 3600000;
		res->global |= c->global;
		if (res->global)
			dc->global_until = now + res->retry_ms;
		else {
			b = bucket(dc, c->route, 1);
			b->remaining = 0;
			b->reset = now + res->retry_ms;
		}
		return;
	}
	if (c->remaining >= 0 && c->reset_after >= 0) {
		b = bucket(dc, c->route, 1);
		b->remaining = c->remaining;
		b->reset = now + (long long)(c->reset_after * 1000 + 0.5);
	}
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
	struct dc_res res;

	res_init(&res);
	res.kind = hr->kind;
	res.status = hr->status;
	if (hr->retry_after >= 0)
		res.retry_ms = hr->retry_after * 1000;
	if (hr->kind == OXI_HTTP_OK) {
		res.ok = 1;
		if (c->fd >= 0)
			res.body = jv_true();
		else if (c->body.len > 0) {
			res.body = oxi_json_parse(c->body.s, c->body.len);
			if (!jv_is_valid(res.body)) {
				jv_free(res.body);
				res.body = jv_null();
				res.ok = 0;
				res.temp = 1;
				res_err(c, &res, "not an answer of the API");
			}
		}
		if (c->werr) {
			res.ok = 0;
			res_err(c, &res, "unable to write the file: %s",
			    strerror(c->werr));
		}
	} else if (hr->kind == OXI_HTTP_STATUS) {
		res.temp = oxi_http_temp(hr->status);
		parse_err(c, hr->body.s, hr->body.len, &res);
	} else if (c->fd >= 0 && hr->kind == OXI_HTTP_BIG)
		res_err(c, &res, "file over %zu bytes", c->max);
	else {
		res.temp = hr->temp;
		res_err(c, &res, "%s", hr->err[0] ? hr->err : "failed");
	}
	if (c->fd < 0)
		limits(c, &res);
	if (c->out) {
		dc_res_free(c->out);
		*c->out = res;
	} else {
		if (c->done)
			c->done(c->arg, &res);
		dc_res_free(&res);
	}
	if (c->flag)
		*c->flag = 1;
	oxi_buf_free(&c->body);
	free(c);
}

/* starts a transfer of url; hdrs says whether it is an API call */
static struct call *
start(struct dc *dc, const char *verb, const char *url, const char *what,
    const char *route, jv body, size_t max, int fd, struct dc_res *res)
{
	const char *hdrs[] = { dc->auth, "Content-Type: application/json",
		"User-Agent: DiscordBot (https://oxi.invalid, 1)", NULL };
	struct oxi_http_req req;
	struct call *c;
	jv s = jv_null();
	char err[256];

	c = xcalloc(1, sizeof *c);
	c->dc = dc;
	c->fd = fd;
	c->max = max;
	c->remaining = -1;
	c->reset_after = -1;
	snprintf(c->what, sizeof c->what, "%s", what);
	snprintf(c->route, sizeof c->route, "%s", route ? route : what);
	memset(&req, 0, sizeof req);
	req.url = url;
	if (fd < 0) {
		req.headers = hdrs;
		req.head = onhead;
	}
	if (jv_get_kind(body) != JV_KIND_NULL) {
		s = jv_dump_string(body, 0);
		req.body = jv_string_value(s);
		req.bodylen = strlen(req.body);
	} else {
		jv_free(body);
		/* a POST with no body still says its length */
		if (strcmp(verb, "GET") != 0) {
			req.body = "";
			req.bodylen = 0;
		}
	}
	if (strcmp(verb, "GET") != 0 && strcmp(verb, "POST") != 0)
		req.method = verb;
	req.connect_ms = 15000;
	req.idle_ms = fd >= 0 ? 120000 : CALL_MS;
	req.total_ms = fd >= 0 ? 600000 : CALL_MS + 5000;
	req.max = max;
	req.data = ondata;
	req.done = ondone;
	req.arg = c;
	req.stop = &c->stop;
	if (oxi_http_start(dc->loop, &req, err, sizeof err) < 0) {
		jv_free(s);
		res_init(res);
		res_err(c, res, "%s", err);
		res->temp = 1;
		free(c);
		return NULL;
	}
	jv_free(s);
	return c;
}

/* the call of verb on path: its URL in url, "VERB path" in what */
static int
prepare(struct dc *dc, const char *verb, const char *path,
    struct oxi_buf *url, char *what, size_t len)
{
	if (strlen(path) > URLMAX / 2 || path[0] != '/')
		return -1;
	oxi_buf_printf(url, "%s%s", dc->base, path);
	/* an interaction's token is in its path: never in a message */
	if (strncmp(path, "/interactions/", 14) == 0)
		snprintf(what, len, "%s /interactions/%.*s/<token>/callback",
		    verb, (int)strcspn(path + 14, "/"), path + 14);
	else
		snprintf(what, len, "%s %s", verb, path);
	return 0;
}

int
dc_start(struct dc *dc, const char *verb, const char *path,
    const char *route, jv body, dc_done_fn done, void *arg,
    struct dc_res *res)
{
	struct oxi_buf url = OXI_BUF_INIT;
	struct call *c;
	char what[160];

	res_init(res);
	if (prepare(dc, verb, path, &url, what, sizeof what) < 0) {
		jv_free(body);
		snprintf(res->err, sizeof res->err, "%s: a bad path", verb);
		return -1;
	}
	c = start(dc, verb, url.s, what, route, body, DC_REPLY_MAX, -1, res);
	oxi_buf_free(&url);
	if (!c)
		return -1;
	c->done = done;
	c->arg = arg;
	return 0;
}

void
dc_pause(struct dc *dc, long ms)
{
	ch_pause(dc->sigfd, dc->termstop, ms);
}

int
dc_call(struct dc *dc, const char *verb, const char *path, jv body,
    struct dc_res *res)
{
	struct oxi_buf url = OXI_BUF_INIT;
	struct call *c;
	char what[160];
	int flag = 0;

	res_init(res);
	if (prepare(dc, verb, path, &url, what, sizeof what) < 0) {
		jv_free(body);
		snprintf(res->err, sizeof res->err, "%s: a bad path", verb);
		return -1;
	}
	c = start(dc, verb, url.s, what, NULL, body, DC_REPLY_MAX, -1, res);
	oxi_buf_free(&url);
	if (!c)
		return -1;
	c->out = res;
	c->flag = &flag;
	ch_http_wait(dc->loop, dc->sigfd, dc->termstop, &c->stop,
	    &flag);
	return res->ok ? 0 : -1;
}

int
dc_download(struct dc *dc, const char *url, size_t max, const char *dest,
    struct dc_res *res)
{
	struct oxi_buf tmp = OXI_BUF_INIT;
	struct call *c;
	int fd, flag = 0;

	res_init(res);
	if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7)) {
		snprintf(res->err, sizeof res->err, "download: not an http(s) "
		    "URL");
		return -1;
	}
	if ((fd = ch_file_open(dest, &tmp, &res->temp, res->err,
	    sizeof res->err)) < 0) {
		oxi_buf_free(&tmp);
		return -1;
	}
	if (!(c = start(dc, "GET", url, "download", NULL, jv_null(), max, fd,
	    res))) {
		close(fd);
		unlink(tmp.s);
		oxi_buf_free(&tmp);
		return -1;
	}
	c->out = res;
	c->flag = &flag;
	ch_http_wait(dc->loop, dc->sigfd, dc->termstop, &c->stop,
	    &flag);
	res->ok = ch_file_done(fd, &tmp, dest, res->ok, res->err,
	    sizeof res->err);
	return res->ok ? 0 : -1;
}
