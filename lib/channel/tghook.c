/*
 * tghook.c - the webhook of oxi-recv telegram, over libmicrohttpd
 *
 * Listens on [addr:]port, 127.0.0.1 unless addr says otherwise: a proxy
 * that holds the TLS certificate (Telegram posts only to https on ports
 * 443, 80, 88 or 8443) forwards to it.  Each request must be a POST with
 * the header X-Telegram-Bot-Api-Secret-Token equal to
 * $OXI_TELEGRAM_WEBHOOK_SECRET (compared in constant time): 401 without
 * it, 403 with another.  A body over maxline is refused with 413, one
 * that is not an update with 400; an update is answered 200 only once it
 * is in the ledger (500 if the ledger fails: Telegram posts it again).
 * One thread: the daemon runs from our poll loop (MHD_USE_EPOLL).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"

#define SECRET_HDR	"X-Telegram-Bot-Api-Secret-Token"
#define CONNS		64		/* connections at once */
#define IDLE_S		30		/* a silent connection is closed */

struct tghook {
	struct tgrx *rx;		/* the receiver */
	struct MHD_Daemon *d;		/* the listener */
	int ep;				/* its epoll fd */
	char secret[257];		/* the shared secret */
	size_t max;			/* body cap */
};

/* one request being read */
struct req {
	struct oxi_buf body;		/* what came so far */
	int big;			/* it went over the cap */
};

/* 1 if a equals the secret s, in a time that depends on s only */
static int
same(const char *a, const char *s)
{
	size_t la = strlen(a), ls = strlen(s), i;
	unsigned char d = la != ls;

	for (i = 0; i < ls; i++)
		d |= (unsigned char)(i < la ? a[i] : 0) ^ (unsigned char)s[i];
	return d == 0;
}

static enum MHD_Result
answer(struct MHD_Connection *c, unsigned int code, const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
	    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* the body of a request, all read: into the ledger */
static enum MHD_Result
take(struct tghook *h, struct MHD_Connection *c, struct req *q)
{
	const char *why, *err;
	jv u;

	if (q->big) {
		oxi_warn("telegram: webhook: a body over %zu bytes: refused",
		    h->max);
		return answer(c, MHD_HTTP_CONTENT_TOO_LARGE,
		    "{\"ok\":false,\"description\":\"too large\"}");
	}
	if (oxi_json_check(q->body.s ? q->body.s : "", q->body.len, &why) < 0)
		u = jv_invalid();
	else
		u = oxi_json_parse(q->body.s, q->body.len);
	if (!oxi_jis(u, JV_KIND_OBJECT)) {
		jv_free(u);
		oxi_deadletter("webhook", 0, "not a Telegram update",
		    q->body.s ? q->body.s : "", q->body.len);
		oxi_warn("telegram: webhook: a body that is not an update: "
		    "refused, dead-lettered");
		return answer(c, MHD_HTTP_BAD_REQUEST,
		    "{\"ok\":false,\"description\":\"not an update\"}");
	}
	if (tg_ledger_put(h->rx, u, &err) < 0) {
		if (errno == EINVAL) {
			oxi_deadletter("webhook", 0, err, q->body.s,
			    q->body.len);
			oxi_warn("telegram: webhook: %s: refused, dead-lettered",
			    err);
			return answer(c, MHD_HTTP_BAD_REQUEST,
			    "{\"ok\":false,\"description\":\"not an update\"}");
		}
		oxi_warn("telegram: webhook: ledger: %s", err);
		return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "{\"ok\":false}");
	}
	return answer(c, MHD_HTTP_OK, "{\"ok\":true}");
}

static enum MHD_Result
onrequest(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *data,
    size_t *datalen, void **reqp)
{
	struct tghook *h = cls;
	struct req *q = *reqp;
	const char *v;
	size_t room;

	(void)url;
	(void)version;
	if (!q) {
		/* the headers: refuse before reading a body */
		if (strcmp(method, "POST") != 0)
			return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "{\"ok\":false}");
		if (!(v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    SECRET_HDR))) {
			oxi_warn("telegram: webhook: a request without the "
			    "secret: refused");
			return answer(c, MHD_HTTP_UNAUTHORIZED,
			    "{\"ok\":false}");
		}
		if (!same(v, h->secret)) {
			oxi_warn("telegram: webhook: a request with a wrong "
			    "secret: refused");
			return answer(c, MHD_HTTP_FORBIDDEN, "{\"ok\":false}");
		}
		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    "Content-Length");
		if (v && strtoull(v, NULL, 10) > h->max) {
			oxi_warn("telegram: webhook: a body of %s bytes: "
			    "refused", v);
			return answer(c, MHD_HTTP_CONTENT_TOO_LARGE,
			    "{\"ok\":false}");
		}
		*reqp = q = xcalloc(1, sizeof *q);
		return MHD_YES;
	}
	if (*datalen > 0) {
		room = h->max - q->body.len;
		if (*datalen > room)
			q->big = 1;
		else
			oxi_buf_cat(&q->body, data, *datalen);
		*datalen = 0;
		return MHD_YES;
	}
	return take(h, c, q);
}

static void
ondone(void *cls, struct MHD_Connection *c, void **reqp,
    enum MHD_RequestTerminationCode why)
{
	struct req *q = *reqp;

	(void)cls;
	(void)c;
	(void)why;
	if (q) {
		oxi_buf_free(&q->body);
		free(q);
		*reqp = NULL;
	}
}

/* "[addr:]port" into ss; dies 100 */
static void
parse_listen(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char addr[64] = "127.0.0.1";
	const char *colon = strrchr(s, ':'), *port = s, *end;
	unsigned long p;
	size_t n;

	if (colon) {
		n = colon - s;
		if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
			s++;
			n -= 2;
		}
		if (n == 0 || n >= sizeof addr)
			goto bad;
		memcpy(addr, s, n);
		addr[n] = '\0';
		port = colon + 1;
	}
	p = strtoul(port, (char **)&end, 10);
	if (!*port || *end || p > 65535 || *port == '-' || *port == '+')
		goto bad;
	memset(ss, 0, sizeof *ss);
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)p);
		return;
	}
	if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)p);
		return;
	}
bad:
	oxi_die(OXI_EX_USAGE, "invalid webhook address '%s': [addr:]port with "
	    "addr an IP address", s);
}

/* the secret: 1 to 256 of A-Z a-z 0-9 _ -, as setWebhook takes it */
static void
secret(struct tghook *h)
{
	const char *s = oxi_getenv("OXI_TELEGRAM_WEBHOOK_SECRET"), *p;

	if (!s)
		oxi_die(OXI_EX_USAGE, "the webhook needs "
		    "OXI_TELEGRAM_WEBHOOK_SECRET");
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			break;
	if (*p || p - s > 256)
		oxi_die(OXI_EX_USAGE, "OXI_TELEGRAM_WEBHOOK_SECRET must be 1 to "
		    "256 of A-Z a-z 0-9 _ -");
	memcpy(h->secret, s, p - s + 1);
}

/* setWebhook, when we are told the public URL */
static void
register_url(struct tghook *h)
{
	const char *url = oxi_getenv("OXI_TELEGRAM_WEBHOOK_URL");
	struct tg_res res;
	jv p;

	if (!url)
		return;
	p = jv_object_set(jv_object(), jv_string("url"), jv_string(url));
	p = jv_object_set(p, jv_string("secret_token"), jv_string(h->secret));
	p = jv_object_set(p, jv_string("allowed_updates"), jv_parse(
	    "[\"message\",\"edited_message\",\"callback_query\"]"));
	if (tg_call(&h->rx->tg, "setWebhook", p, 30000, &res) < 0) {
		if (res.code == 401 || res.code == 404 || (!res.temp &&
		    !oxi_sig_term))
			oxi_die(OXI_EX_USAGE, "telegram: %s", res.err);
		oxi_warn("telegram: %s: the webhook is not registered",
		    res.err);
	}
	tg_res_free(&res);
}

struct tghook *
tg_hook_open(struct tgrx *rx, const char *listen)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;
	struct tghook *h = xcalloc(1, sizeof *h);
	char host[64];

	h->rx = rx;
	h->max = rx->o->max;
	secret(h);
	parse_listen(listen, &ss);
	h->d = MHD_start_daemon(MHD_USE_EPOLL | (ss.ss_family == AF_INET6 ?
	    MHD_USE_IPv6 : 0), 0, NULL, NULL, onrequest, h,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CONNS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)IDLE_S,
	    MHD_OPTION_NOTIFY_COMPLETED, ondone, h,
	    MHD_OPTION_END);
	if (!h->d)
		oxi_die(OXI_EX_TEMP, "webhook: unable to listen on '%s'",
		    listen);
	if (!(di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD)))
		oxi_die(OXI_EX_TEMP, "webhook: no epoll descriptor");
	h->ep = di->epoll_fd;
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
		    host, sizeof host);
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
		    host, sizeof host);
	oxi_info("telegram: webhook on %s%s%s:%u",
	    ss.ss_family == AF_INET6 ? "[" : "", host,
	    ss.ss_family == AF_INET6 ? "]" : "", di ? di->port : 0);
	register_url(h);
	return h;
}

int
tg_hook_wait(struct tghook *h, int sigfd, int ms)
{
	struct pollfd p[2];
	MHD_UNSIGNED_LONG_LONG t;

	if (MHD_get_timeout(h->d, &t) == MHD_YES && (ms < 0 ||
	    t < (MHD_UNSIGNED_LONG_LONG)ms))
		ms = (int)t;
	p[0].fd = h->ep;
	p[0].events = POLLIN;
	p[1].fd = sigfd;
	p[1].events = POLLIN;
	p[0].revents = p[1].revents = 0;
	if (poll(p, sigfd >= 0 ? 2 : 1, ms) < 0)
		return -1;
	if (p[1].revents & POLLIN)
		oxi_sig_drain();
	if (MHD_run(h->d) != MHD_YES) {
		errno = EIO;
		return -1;
	}
	return 0;
}

void
tg_hook_close(struct tghook *h)
{
	MHD_stop_daemon(h->d);
	oxi_wipe(h->secret, sizeof h->secret);
	free(h);
}
