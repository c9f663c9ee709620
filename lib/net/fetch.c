/*
 * fetch.c - guarded HTTP for the web tools
 *
 * One blocking request with its own curl handle.  With the guard on, the
 * URL's host is resolved and checked once by the address policy
 * (ssrf.c), the connection is pinned to the address checked
 * (CURLOPT_RESOLVE), and a socket callback checks once more as libcurl
 * opens the socket, so that no second lookup (DNS rebinding) or proxy
 * can lead elsewhere.  Redirects are followed here, one hop at a time,
 * each target parsed, checked and pinned again; the caller's headers do
 * not follow a redirect to another origin.
 */
#define _GNU_SOURCE

#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "oxi.h"
#include "net/net.h"

#define MAXHEAD		(64 * 1024)	/* response headers kept */

/* the state of one hop */
struct hop {
	struct oxi_web_res *res;	/* where the reply goes */
	size_t max;			/* body cap */
	int guard;			/* the socket must be the pinned one */
	struct sockaddr_storage pin;	/* the address checked */
	int refused;			/* curl tried another address */
};

static size_t
onbody(char *p, size_t size, size_t nmemb, void *arg)
{
	struct hop *h = arg;
	size_t n = size * nmemb, room = h->max - h->res->body.len;

	if (n > room) {
		oxi_buf_cat(&h->res->body, p, room);
		h->res->cut = 1;
		return 0;
	}
	oxi_buf_cat(&h->res->body, p, n);
	return n;
}

static size_t
onheader(char *p, size_t size, size_t nmemb, void *arg)
{
	struct hop *h = arg;
	struct oxi_web_res *r = h->res;
	size_t n = size * nmemb, k = n, v;

	while (k > 0 && (p[k - 1] == '\n' || p[k - 1] == '\r'))
		k--;
	if (k >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* a new reply (after 100 Continue, say): start again */
		oxi_buf_reset(&r->head);
		oxi_buf_reset(&r->ctype);
		return n;
	}
	if (k == 0 || !memchr(p, ':', k))
		return n;
	if (r->head.len + k + 1 <= MAXHEAD) {
		oxi_buf_cat(&r->head, p, k);
		oxi_buf_putc(&r->head, '\n');
	}
	if (k > 13 && strncasecmp(p, "content-type:", 13) == 0) {
		for (v = 13; v < k && (p[v] == ' ' || p[v] == '\t'); v++)
			;
		oxi_buf_reset(&r->ctype);
		oxi_buf_cat(&r->ctype, p + v, k - v < 200 ? k - v : 200);
	}
	return n;
}

static int
sameaddr(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

	if (a->sa_family != b->ss_family)
		return 0;
	if (a->sa_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		    a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port &&
		    memcmp(&a6->sin6_addr, &b6->sin6_addr, 16) == 0;
	return 0;
}

/* the last check: the socket goes to the address checked, or nowhere */
static curl_socket_t
onsocket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct hop *h = arg;

	if (purpose != CURLSOCKTYPE_IPCXN ||
	    (h->guard && !sameaddr(&a->addr, &h->pin))) {
		h->refused = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static void seterr(struct oxi_web_res *, const char *, ...) OXI_PRINTF(2, 3);

static void
seterr(struct oxi_web_res *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
}

/*
 * One request, no redirect followed: 0 (a reply, status in res), or -1.
 * *next gets the redirect target, if any (free it).
 */
static int
onehop(const struct oxi_web_req *req, const struct oxi_url *u,
    const char *method, const char *body, size_t bodylen, int hdrs,
    long ms, struct oxi_web_res *res, char **next)
{
	struct curl_slist *hl = NULL, *rl = NULL, *t;
	const char *const *hp;
	char errbuf[CURL_ERROR_SIZE], txt[INET6_ADDRSTRLEN], ent[400];
	char why[256], *loc = NULL;
	struct hop h;
	CURLcode rc;
	CURL *e;
	int ret = -1;

	*next = NULL;
	memset(&h, 0, sizeof h);
	h.res = res;
	h.max = req->max;
	h.guard = req->guard;
	if (req->guard && oxi_ssrf_pin(u, &h.pin, why, sizeof why) < 0) {
		seterr(res, "'%.200s' refused: %s", u->url, why);
		return -1;
	}
	if (!(e = curl_easy_init())) {
		seterr(res, "%s", "unable to start a transfer");
		return -1;
	}
	oxi_buf_reset(&res->head);
	oxi_buf_reset(&res->ctype);
	oxi_buf_reset(&res->body);
	res->cut = 0;
	res->status = 0;
	errbuf[0] = '\0';
	if (req->guard && !u->literal) {
		oxi_ssrf_ntop(&h.pin, txt, sizeof txt);
		snprintf(ent, sizeof ent, "%s:%d:%s%s%s", u->host, u->port,
		    h.pin.ss_family == AF_INET6 ? "[" : "", txt,
		    h.pin.ss_family == AF_INET6 ? "]" : "");
		if (!(rl = curl_slist_append(NULL, ent)))
			goto nomem;
		curl_easy_setopt(e, CURLOPT_RESOLVE, rl);
	}
	for (hp = req->headers; hdrs && hp && *hp; hp++) {
		if (!(t = curl_slist_append(hl, *hp)))
			goto nomem;
		hl = t;
	}
	if (!(t = curl_slist_append(hl, "Expect:")))
		goto nomem;
	hl = t;
	oxi_curl_base(e, u->url, errbuf, ms < 10000 ? ms : 10000L, ms);
	oxi_curl_io(e, hl, onbody, onheader, &h);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROXY, "");
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, onsocket);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &h);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	else if (strcmp(method, "GET") != 0 || body)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)bodylen);
		curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, body);
	}
	oxi_buf_reset(&res->url);
	oxi_buf_cats(&res->url, u->url);
	oxi_buf_reset(&res->origin);
	oxi_buf_cats(&res->origin, u->origin);
	rc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &res->status);
	if (h.refused)
		seterr(res, "'%s' refused: the connection went to another "
		    "address than the one checked", u->url);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		snprintf(res->err, sizeof res->err, "'%.200s': timed out "
		    "after %.1f s", u->url, req->total_ms / 1000.0);
	else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && res->cut))
		seterr(res, "'%.200s': %s", u->url, errbuf[0] ? errbuf :
		    curl_easy_strerror(rc));
	else {
		if (res->status >= 300 && res->status < 400 &&
		    curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &loc) ==
		    CURLE_OK && loc)
			*next = xstrdup(loc);
		ret = 0;
	}
	goto done;
nomem:
	seterr(res, "%s", "out of memory");
done:
	curl_easy_cleanup(e);
	curl_slist_free_all(rl);
	if (hl) {
		for (t = hl; t; t = t->next)
			explicit_bzero(t->data, strlen(t->data));
		curl_slist_free_all(hl);
	}
	return ret;
}

int
oxi_web_request(const struct oxi_web_req *req, struct oxi_web_res *res)
{
	struct oxi_url u;
	const char *method, *body = req->body;
	char why[256], *url, *next = NULL, origin[300];
	long long t0 = oxi_clock_ms(), left;
	int hop, r, hdrs = 1;

	memset(res, 0, sizeof *res);
	if (oxi_curl_init() < 0) {
		seterr(res, "%s", "unable to initialise libcurl");
		return -1;
	}
	method = req->method ? req->method : body ? "POST" : "GET";
	url = xstrdup(req->url);
	origin[0] = '\0';
	for (hop = 0;; hop++) {
		if (oxi_url_parse(&u, url, why, sizeof why) < 0) {
			if (hop == 0)
				seterr(res, "'%.200s': %s", url, why);
			else
				seterr(res, "redirect to '%.200s' refused: %s",
				    url, why);
			free(url);
			return -1;
		}
		/* caller headers (keys, cookies) stay with their origin */
		if (origin[0] && strcmp(origin, u.origin) != 0)
			hdrs = 0;
		snprintf(origin, sizeof origin, "%s", u.origin);
		left = req->total_ms - (oxi_clock_ms() - t0);
		if (left <= 0) {
			snprintf(res->err, sizeof res->err, "'%.200s': timed "
			    "out after %.1f s", u.url, req->total_ms / 1000.0);
			r = -1;
		} else
			r = onehop(req, &u, method, body, req->bodylen, hdrs,
			    (long)left, res, &next);
		if (r < 0 && hop > 0 && strncmp(res->err, "'", 1) == 0) {
			/* name the redirect in the message */
			snprintf(why, sizeof why, "%s", res->err);
			snprintf(res->err, sizeof res->err, "redirect to %.240s",
			    why);
		}
		oxi_url_free(&u);
		free(url);
		url = NULL;
		if (r < 0 || !next || hop >= req->redirects) {
			if (r == 0 && next && req->redirects > 0) {
				snprintf(res->err, sizeof res->err, "stopped "
				    "after %d redirects", req->redirects);
				r = -1;
			}
			free(next);
			return r;
		}
		/* 303, and 301/302 after a POST, go on as a GET */
		if (res->status == 303 || ((res->status == 301 ||
		    res->status == 302) && strcmp(method, "POST") == 0)) {
			method = "GET";
			body = NULL;
		}
		res->redirected++;
		url = next;
		next = NULL;
	}
}

void
oxi_web_res_free(struct oxi_web_res *r)
{
	oxi_buf_free(&r->url);
	oxi_buf_free(&r->origin);
	oxi_buf_free(&r->head);
	oxi_buf_free(&r->ctype);
	oxi_buf_free(&r->body);
}
