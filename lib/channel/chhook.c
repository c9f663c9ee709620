/*
 * chhook.c - the listener of a platform's webhook (Telegram's updates,
 * Slack's Events API), over libmicrohttpd
 *
 * Listens on [addr:]port, 127.0.0.1 unless addr says otherwise: a proxy
 * that holds the TLS certificate forwards to it.  Only POST is taken
 * (405 otherwise); the channel's gate sees the headers before the body
 * is read and may refuse (a missing secret); a Content-Length or a body
 * over max is refused with 413; the whole body then goes to the
 * channel's handler, which answers.  One thread: the daemon runs from
 * the receiver's poll loop (MHD_USE_EPOLL).
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
#include "channel/ch.h"

#define CONNS		64		/* connections at once */
#define IDLE_S		30		/* a silent connection is closed */

struct ch_hook {
	struct MHD_Daemon *d;		/* the listener */
	int ep;				/* its epoll fd */
	size_t max;			/* body cap */
	const char *who;		/* "telegram": diagnostics name it */
	ch_hook_fn gate, fn;		/* the channel's */
	void *arg;
};

/* one request being read */
struct req {
	struct ch_hook_req q;		/* what the channel sees */
	struct oxi_buf body;		/* what came so far */
	int big;			/* it went over the cap */
};

const char *
ch_hook_header(const struct ch_hook_req *q, const char *name)
{
	return MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND, name);
}

static enum MHD_Result
answer(struct MHD_Connection *c, unsigned int code, const char *text,
    size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)text,
	    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* the channel's gate or handler, and its answer */
static enum MHD_Result
run(struct ch_hook *h, ch_hook_fn fn, const struct ch_hook_req *q,
    int *status)
{
	struct oxi_buf out = OXI_BUF_INIT;
	enum MHD_Result r = MHD_YES;

	oxi_buf_cats(&out, "");
	if ((*status = fn(h->arg, q, &out)) != 0)
		r = answer(q->conn, (unsigned)*status, out.s, out.len);
	oxi_buf_free(&out);
	return r;
}

static enum MHD_Result
onrequest(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *data,
    size_t *datalen, void **reqp)
{
	static const char nok[] = "{\"ok\":false}";
	struct ch_hook *h = cls;
	struct req *q = *reqp;
	struct ch_hook_req hq;
	enum MHD_Result r;
	const char *v;
	int status;

	(void)version;
	if (!q) {
		/* the headers: refuse before reading a body */
		if (strcmp(method, "POST") != 0)
			return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, nok,
			    sizeof nok - 1);
		memset(&hq, 0, sizeof hq);
		hq.conn = c;
		hq.path = url;
		if (h->gate && ((r = run(h, h->gate, &hq, &status)) != MHD_YES ||
		    status != 0))
			return r;
		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    "Content-Length");
		if (v && strtoull(v, NULL, 10) > h->max) {
			oxi_warn("%s: webhook: a body of %s bytes: refused",
			    h->who, v);
			return answer(c, MHD_HTTP_CONTENT_TOO_LARGE, nok,
			    sizeof nok - 1);
		}
		*reqp = q = xcalloc(1, sizeof *q);
		q->q = hq;
		return MHD_YES;
	}
	if (*datalen > 0) {
		if (*datalen > h->max - q->body.len)
			q->big = 1;
		else
			oxi_buf_cat(&q->body, data, *datalen);
		*datalen = 0;
		return MHD_YES;
	}
	if (q->big) {
		oxi_warn("%s: webhook: a body over %zu bytes: refused", h->who,
		    h->max);
		return answer(c, MHD_HTTP_CONTENT_TOO_LARGE, nok,
		    sizeof nok - 1);
	}
	oxi_buf_cats(&q->body, "");
	q->q.body = q->body.s;
	q->q.len = q->body.len;
	if ((r = run(h, h->fn, &q->q, &status)) == MHD_YES && status == 0)
		r = answer(c, MHD_HTTP_OK, "{\"ok\":true}", 11);
	return r;
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

struct ch_hook *
ch_hook_open(const char *listen, size_t max, const char *who,
    ch_hook_fn gate, ch_hook_fn fn, void *arg)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;
	struct ch_hook *h = xcalloc(1, sizeof *h);
	char host[64];

	h->max = max;
	h->who = who;
	h->gate = gate;
	h->fn = fn;
	h->arg = arg;
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
	oxi_info("%s: webhook on %s%s%s:%u", who,
	    ss.ss_family == AF_INET6 ? "[" : "", host,
	    ss.ss_family == AF_INET6 ? "]" : "", di ? di->port : 0);
	return h;
}

int
ch_hook_wait(struct ch_hook *h, int sigfd, int ms)
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

int
ch_hook_fd(const struct ch_hook *h)
{
	return h->ep;
}

void
ch_hook_close(struct ch_hook *h)
{
	MHD_stop_daemon(h->d);
	free(h);
}
