/*
 * skapi.c - the Slack Web API client of oxi-recv slack and oxi-send
 * slack: POST <base>/<method> with a JSON body and the token in the
 * Authorization header, one call at a time (guarded fetch of net, no
 * address policy: the base is ours), and the files of messages
 *
 * Slack answers 200 with "ok":false for most failures: "error" names
 * it.  A 429 carries Retry-After; ratelimited, internal_error and 5xx
 * are worth retrying; invalid_auth and the like never are.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/sk.h"

#define CALL_MS		30000		/* a call's time */
#define REPLY_MAX	(4UL << 20)	/* an API reply we read */

/* the errors that say the token is no good */
static const char *const authcodes[] = { "invalid_auth", "not_authed",
	"account_inactive", "token_revoked", "token_expired", "no_permission",
	"missing_scope", "not_allowed_token_type", NULL };
/* the errors worth a retry */
static const char *const tempcodes[] = { "ratelimited", "internal_error",
	"fatal_error", "service_unavailable", "request_timeout", NULL };

static int
among(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/* a token from name: prefix then 8 or more of A-Za-z0-9-; dies 100 */
static char *
token(const char *name, const char *prefix, int need)
{
	const char *t = oxi_getenv(name), *p;

	if (!t) {
		if (need)
			oxi_die(OXI_EX_USAGE, "%s is not set", name);
		return NULL;
	}
	for (p = t + strlen(prefix); *p && strchr("abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", *p); p++)
		;
	if (strncmp(t, prefix, strlen(prefix)) != 0 || *p ||
	    p - t < (long)strlen(prefix) + 8)
		oxi_die(OXI_EX_USAGE, "%s is not a Slack token (%s followed by "
		    "letters, digits and -)", name, prefix);
	return xstrdup(t);
}

/* 1 if s is an account name: 1 to 64 of A-Za-z0-9_-. */
static int
nameok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	    "WXYZ0123456789_-.");

	return n > 0 && n <= 64 && s[n] == '\0' && s[0] != '.';
}

void
sk_open(struct sk *sk, const char *account, int need)
{
	const char *b, *s;
	size_t n;

	memset(sk, 0, sizeof *sk);
	sk->sigfd = -1;
	if (!account)
		account = oxi_getenv("OXI_SLACK_ACCOUNT");
	sk->account = account ? account : SK_ACCOUNT;
	if (!nameok(sk->account))
		oxi_die(OXI_EX_USAGE, "invalid slack account '%s': 1 to 64 of "
		    "A-Z a-z 0-9 _ - .", sk->account);
	sk->bot = token("SLACK_BOT_TOKEN", "xoxb-", need & SK_NEED_BOT);
	sk->app = token("SLACK_APP_TOKEN", "xapp-", need & SK_NEED_APP);
	if ((s = oxi_getenv("SLACK_SIGNING_SECRET")))
		sk->secret = xstrdup(s);
	else if (need & SK_NEED_SECRET)
		oxi_die(OXI_EX_USAGE, "SLACK_SIGNING_SECRET is not set");
	b = oxi_getenv("OXI_SLACK_API");
	sk->base = xstrdup(b ? b : SK_BASE);
	for (n = strlen(sk->base); n > 0 && sk->base[n - 1] == '/'; n--)
		sk->base[n - 1] = '\0';
	if ((strncmp(sk->base, "http://", 7) != 0 &&
	    strncmp(sk->base, "https://", 8) != 0) || strlen(sk->base) > 1024)
		oxi_die(OXI_EX_USAGE, "OXI_SLACK_API is not an http(s) URL");
}

static void
wipe(char **s)
{
	if (*s) {
		oxi_wipe(*s, strlen(*s));
		free(*s);
		*s = NULL;
	}
}

void
sk_close(struct sk *sk)
{
	wipe(&sk->bot);
	wipe(&sk->app);
	wipe(&sk->secret);
	free(sk->base);
	sk->base = NULL;
}

void
sk_res_free(struct sk_res *res)
{
	jv_free(res->reply);
	res->reply = jv_null();
}

void
sk_pause(struct sk *sk, long ms)
{
	long long end = oxi_clock_ms() + ms, left;
	struct pollfd p;

	while (!oxi_sig_term && (left = end - oxi_clock_ms()) > 0) {
		p.fd = sk->sigfd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, sk->sigfd >= 0, (int)left) > 0)
			oxi_sig_drain();
	}
}

/* the seconds of a Retry-After header in head, or -1 */
static long
retryafter(const struct oxi_buf *head)
{
	const char *p = head->s;

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncasecmp(p, "Retry-After:", 12) == 0)
			return strtol(p + 12, NULL, 10);
	return -1;
}

/* an authorization header line for tok, in memory that is wiped */
static char *
bearer(const char *tok)
{
	size_t n = strlen(tok) + 32;
	char *h = xmalloc(n);

	snprintf(h, n, "Authorization: Bearer %s", tok);
	return h;
}

int
sk_call(struct sk *sk, const char *method, jv params, int app,
    struct sk_res *res)
{
	struct oxi_buf url = OXI_BUF_INIT;
	struct oxi_web_req rq;
	struct oxi_web_res w;
	const char *tok = app ? sk->app : sk->bot, *hdrs[3];
	char *auth;
	jv body, v;
	int r = -1, ok;

	memset(res, 0, sizeof *res);
	res->reply = jv_null();
	res->retry_after = -1;
	if (!tok) {
		jv_free(params);
		snprintf(res->err, sizeof res->err, "%s: no %s token", method,
		    app ? "app" : "bot");
		res->auth = 1;
		return -1;
	}
	if (jv_get_kind(params) == JV_KIND_NULL) {
		jv_free(params);
		params = jv_object();
	}
	body = jv_dump_string(params, 0);
	oxi_buf_printf(&url, "%s/%s", sk->base, method);
	auth = bearer(tok);
	hdrs[0] = auth;
	hdrs[1] = "Content-Type: application/json; charset=utf-8";
	hdrs[2] = NULL;
	memset(&rq, 0, sizeof rq);
	rq.method = "POST";
	rq.url = url.s;
	rq.headers = hdrs;
	rq.body = jv_string_value(body);
	rq.bodylen = (size_t)jv_string_length_bytes(jv_copy(body));
	rq.max = REPLY_MAX;
	rq.total_ms = CALL_MS;
	if (oxi_web_request(&rq, &w) < 0) {
		res->temp = 1;
		snprintf(res->err, sizeof res->err, "%s: %s", method, w.err);
		goto out;
	}
	res->status = w.status;
	res->retry_after = retryafter(&w.head);
	res->reply = oxi_json_parse(w.body.s ? w.body.s : "", w.body.len);
	if (!oxi_jis(res->reply, JV_KIND_OBJECT)) {
		jv_free(res->reply);
		res->reply = jv_null();
	}
	v = oxi_jget(res->reply, "error");
	if (jv_get_kind(v) == JV_KIND_STRING)
		snprintf(res->code, sizeof res->code, "%s", jv_string_value(v));
	jv_free(v);
	v = oxi_jget(res->reply, "ok");
	ok = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	if (w.status == 200 && ok) {
		r = 0;
		goto out;
	}
	if (w.status == 429 || oxi_http_temp(w.status) ||
	    among(res->code, tempcodes))
		res->temp = 1;
	if (w.status == 401 || w.status == 403 || among(res->code, authcodes))
		res->auth = 1;
	if (w.status == 429 && res->retry_after < 0)
		res->retry_after = 1;
	snprintf(res->err, sizeof res->err, "%s: %ld%s%s", method, w.status,
	    res->code[0] ? " " : "", res->code);
out:
	oxi_web_res_free(&w);
	oxi_wipe(auth, strlen(auth));
	free(auth);
	jv_free(body);
	oxi_buf_free(&url);
	return r;
}

/* 1 if url may have the bot token: https on slack.com or one of its
 * hosts, or the origin of the API we talk to */
static int
fileurlok(const struct sk *sk, const char *url)
{
	struct oxi_url u, b;
	char why[128];
	size_t n;
	int ok = 0;

	if (oxi_url_parse(&u, url, why, sizeof why) < 0)
		return 0;
	if (oxi_url_parse(&b, sk->base, why, sizeof why) == 0) {
		ok = strcmp(u.origin, b.origin) == 0;
		oxi_url_free(&b);
	}
	n = strlen(u.host);
	if (strcmp(u.scheme, "https") == 0 && (strcmp(u.host, "slack.com") ==
	    0 || (n > 10 && strcmp(u.host + n - 10, ".slack.com") == 0)))
		ok = 1;
	oxi_url_free(&u);
	return ok;
}

int
sk_download(struct sk *sk, const char *url, size_t max, const char *dest,
    struct sk_res *res)
{
	struct oxi_buf tmp = OXI_BUF_INIT;
	struct oxi_web_req rq;
	struct oxi_web_res w;
	const char *hdrs[2];
	char *auth;
	int fd, r = -1;

	memset(res, 0, sizeof *res);
	res->reply = jv_null();
	res->retry_after = -1;
	if (!sk->bot || !fileurlok(sk, url)) {
		snprintf(res->err, sizeof res->err, "%s", sk->bot ? "not a "
		    "Slack file URL" : "no bot token to fetch files with");
		return -1;
	}
	auth = bearer(sk->bot);
	hdrs[0] = auth;
	hdrs[1] = NULL;
	memset(&rq, 0, sizeof rq);
	rq.url = url;
	rq.headers = hdrs;
	rq.max = max + 1;
	rq.total_ms = 120000;
	if (oxi_web_request(&rq, &w) < 0) {
		res->temp = 1;
		snprintf(res->err, sizeof res->err, "%s", w.err);
		goto out;
	}
	res->status = w.status;
	if (w.status != 200) {
		res->temp = oxi_http_temp(w.status);
		snprintf(res->err, sizeof res->err, "HTTP %ld", w.status);
		goto out;
	}
	if (w.cut || w.body.len > max) {
		snprintf(res->err, sizeof res->err, "over %zu bytes", max);
		goto out;
	}
	oxi_buf_printf(&tmp, "%s.tmp", dest);
	if ((fd = open(tmp.s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0 || oxi_writeall(fd, w.body.s ? w.body.s : "",
	    w.body.len) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
	    rename(tmp.s, dest) < 0) {
		snprintf(res->err, sizeof res->err, "unable to write '%s': %s",
		    dest, strerror(errno));
		res->temp = 1;
		unlink(tmp.s);
		goto out;
	}
	r = 0;
out:
	oxi_buf_free(&tmp);
	oxi_web_res_free(&w);
	oxi_wipe(auth, strlen(auth));
	free(auth);
	return r;
}
