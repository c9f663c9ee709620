/*
 * http.c - HTTP over libcurl: a thin wrapper around one multi handle
 *
 * The multi handle is driven by its sockets (curl_multi_socket_action,
 * with an epoll set and libcurl's timer), so that an event costs what
 * its own transfer costs: a thousand transfers in flight are not all
 * polled and walked for each byte that arrives.
 *
 * Each transfer gets a connect timeout, a total timeout, an idle timeout
 * (checked here, so that it counts silence precisely rather than an
 * average rate), a body cap, CURLOPT_NOSIGNAL and an error buffer.  The
 * body of a 2xx reply goes to a callback as it arrives; the start of any
 * other body is kept for the caller to read the server's message.
 * Outcomes are sorted the qmail way: transport trouble, 408, 429 and 5xx
 * are temporary, other 4xx permanent.  Header values (the Authorization
 * header holds an API key) are never logged, and are wiped when a
 * transfer ends.  Redirects are not followed: a key must not travel to a
 * host the user did not name.
 */
#define _GNU_SOURCE

#include <sys/epoll.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "oxi.h"
#include "net/net.h"

#define HTTP_CONNECT_MS	10000
#define HTTP_IDLE_MS	60000
#define HTTP_TOTAL_MS	600000
#define HTTP_MAX	(64UL * 1024 * 1024)
#define HTTP_ERRBODY	(64 * 1024)
#define HTTP_MAXFDS	8
#define HTTP_EVENTS	256	/* socket events taken per epoll_wait */

struct oxi_http {
	CURL *easy;			/* the transfer */
	struct curl_slist *hdrs;	/* request headers, wiped at the end */
	curl_mime *mime;		/* a multipart body, or NULL */
	struct oxi_http_loop *loop;	/* where it runs */
	struct oxi_http *prev, *next;	/* the loop's list */
	oxi_http_data_fn data;		/* body callback */
	oxi_http_data_fn head;		/* header callback, or NULL */
	oxi_http_done_fn done;		/* end callback */
	void *arg;			/* for both */
	long long idle_ms;		/* longest silence allowed */
	long long last;			/* monotonic ms of the last byte */
	size_t max;			/* body cap */
	size_t got;			/* body bytes so far */
	int aborted;			/* the data callback said stop */
	const int *stop;		/* the caller's stop flag, or NULL */
	int big;			/* the body went over max */
	curl_off_t ul;			/* bytes sent so far */
	struct oxi_http_res res;	/* filled as it goes */
	char errbuf[CURL_ERROR_SIZE];	/* libcurl's message */
};

struct oxi_http_loop {
	CURLM *multi;			/* the multi handle */
	struct oxi_http *head;		/* transfers in flight */
	int running;			/* how many */
	int ep;				/* epoll: the sockets libcurl watches */
	long long timer;		/* libcurl's timeout (monotonic ms), or
					 * -1 */
};

int
oxi_curl_init(void)
{
	static int ready;

	if (!ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return -1;
		ready = 1;
	}
	return 0;
}

void
oxi_curl_base(void *easy, const char *url, char *errbuf, long connect_ms,
    long total_ms)
{
	CURL *e = easy;

	curl_easy_setopt(e, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS,
	    CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, total_ms);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "oxi/" OXI_VERSION);
}

void
oxi_curl_io(void *easy, void *hdrs, oxi_curl_fn body, oxi_curl_fn head,
    void *arg)
{
	CURL *e = easy;

	curl_easy_setopt(e, CURLOPT_HTTPHEADER, (struct curl_slist *)hdrs);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, arg);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, head);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, arg);
}

int
oxi_http_temp(long status)
{
	return status == 408 || status == 429 || status >= 500;
}

/* libcurl says which events a socket waits for: into the epoll set */
static int
onsocket(CURL *e, curl_socket_t s, int what, void *arg, void *sockp)
{
	struct oxi_http_loop *l = arg;
	struct epoll_event ev;

	(void)e;
	(void)sockp;
	if (what == CURL_POLL_REMOVE) {
		(void)epoll_ctl(l->ep, EPOLL_CTL_DEL, s, NULL);
		return 0;
	}
	memset(&ev, 0, sizeof ev);
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) |
	    (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	ev.data.fd = s;
	if (epoll_ctl(l->ep, EPOLL_CTL_MOD, s, &ev) < 0 && errno == ENOENT)
		(void)epoll_ctl(l->ep, EPOLL_CTL_ADD, s, &ev);
	return 0;
}

/* libcurl wants to be called back in ms (-1: never) */
static int
ontimer(CURLM *m, long ms, void *arg)
{
	struct oxi_http_loop *l = arg;

	(void)m;
	l->timer = ms < 0 ? -1 : oxi_clock_ms() + ms;
	return 0;
}

struct oxi_http_loop *
oxi_http_loop_new(void)
{
	struct oxi_http_loop *l;

	if (oxi_curl_init() < 0)
		return NULL;
	l = xcalloc(1, sizeof *l);
	l->timer = -1;
	if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		free(l);
		return NULL;
	}
	if (!(l->multi = curl_multi_init())) {
		close(l->ep);
		free(l);
		return NULL;
	}
	curl_multi_setopt(l->multi, CURLMOPT_SOCKETFUNCTION, onsocket);
	curl_multi_setopt(l->multi, CURLMOPT_SOCKETDATA, l);
	curl_multi_setopt(l->multi, CURLMOPT_TIMERFUNCTION, ontimer);
	curl_multi_setopt(l->multi, CURLMOPT_TIMERDATA, l);
	return l;
}

static void
wipe_headers(struct curl_slist *h)
{
	struct curl_slist *p;

	for (p = h; p; p = p->next)
		if (p->data)
			explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

/* the multipart body of parts on e, or NULL if libcurl failed */
static curl_mime *
form(CURL *e, const struct oxi_http_part *p)
{
	curl_mime *m = curl_mime_init(e);
	curl_mimepart *mp;
	CURLcode rc = m ? CURLE_OK : CURLE_OUT_OF_MEMORY;

	for (; rc == CURLE_OK && p->name; p++) {
		if (!(mp = curl_mime_addpart(m)) ||
		    (rc = curl_mime_name(mp, p->name)) != CURLE_OK)
			break;
		if (p->file)
			rc = curl_mime_filedata(mp, p->file);
		else
			rc = curl_mime_data(mp, p->value ? p->value : "",
			    CURL_ZERO_TERMINATED);
		if (rc == CURLE_OK && p->filename)
			rc = curl_mime_filename(mp, p->filename);
		if (rc == CURLE_OK && p->type)
			rc = curl_mime_type(mp, p->type);
	}
	if (rc != CURLE_OK || p->name) {
		curl_mime_free(m);
		return NULL;
	}
	return m;
}

/* unlinks and frees a transfer */
static void
drop(struct oxi_http *t)
{
	struct oxi_http_loop *l = t->loop;

	curl_multi_remove_handle(l->multi, t->easy);
	curl_easy_cleanup(t->easy);
	curl_mime_free(t->mime);
	wipe_headers(t->hdrs);
	if (t->prev)
		t->prev->next = t->next;
	else
		l->head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	l->running--;
	oxi_buf_free(&t->res.body);
	free(t);
}

void
oxi_http_loop_free(struct oxi_http_loop *l)
{
	if (!l)
		return;
	while (l->head)
		drop(l->head);
	curl_multi_cleanup(l->multi);
	close(l->ep);
	free(l);
}

int
oxi_http_running(const struct oxi_http_loop *l)
{
	return l->running;
}

static size_t
onbody(char *p, size_t size, size_t nmemb, void *arg)
{
	struct oxi_http *t = arg;
	size_t n = size * nmemb, room;
	long status = 0;

	t->last = oxi_clock_ms();
	t->got += n;
	if (t->got > t->max) {
		t->big = 1;
		return 0;
	}
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299) {
		room = HTTP_ERRBODY - t->res.body.len;
		oxi_buf_cat(&t->res.body, p, n < room ? n : room);
		return n;
	}
	if (t->data && t->data(t->arg, p, n) != 0) {
		t->aborted = 1;
		return 0;
	}
	return n;
}

/* notes activity and Retry-After; header values are never printed */
static size_t
onheader(char *p, size_t size, size_t nmemb, void *arg)
{
	struct oxi_http *t = arg;
	size_t n = size * nmemb;
	char num[16];
	size_t i, k;

	t->last = oxi_clock_ms();
	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0)
		t->res.retry_after = -1;
	else if (n > 12 && strncasecmp(p, "retry-after:", 12) == 0) {
		for (i = 12; i < n && (p[i] == ' ' || p[i] == '\t'); i++)
			;
		for (k = 0; i < n && k < sizeof num - 1 &&
		    p[i] >= '0' && p[i] <= '9'; i++)
			num[k++] = p[i];
		num[k] = '\0';
		if (k > 0 && k < 9)
			t->res.retry_after = atol(num);
	}
	if (t->head && t->head(t->arg, p, n) != 0) {
		t->aborted = 1;
		return 0;
	}
	return n;
}

/* upload progress counts as activity */
static int
onprogress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	struct oxi_http *t = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	if (ulnow != t->ul) {
		t->ul = ulnow;
		t->last = oxi_clock_ms();
	}
	return 0;
}

int
oxi_http_start(struct oxi_http_loop *l, const struct oxi_http_req *req,
    char *err, size_t errlen)
{
	struct oxi_http *t;
	struct curl_slist *h;
	const char *const *hp;
	CURL *e;

	if (!(e = curl_easy_init())) {
		snprintf(err, errlen, "unable to start a transfer");
		return -1;
	}
	t = xcalloc(1, sizeof *t);
	t->easy = e;
	t->loop = l;
	t->data = req->data;
	t->head = req->head;
	t->done = req->done;
	t->arg = req->arg;
	t->stop = req->stop;
	t->idle_ms = req->idle_ms > 0 ? req->idle_ms : HTTP_IDLE_MS;
	t->max = req->max > 0 ? req->max : HTTP_MAX;
	t->res.retry_after = -1;
	for (hp = req->headers; hp && *hp; hp++) {
		if (!(h = curl_slist_append(t->hdrs, *hp)))
			goto nomem;
		t->hdrs = h;
	}
	/* no "Expect: 100-continue" round trip for big bodies */
	if (!(h = curl_slist_append(t->hdrs, "Expect:")))
		goto nomem;
	t->hdrs = h;

	oxi_curl_base(e, req->url, t->errbuf,
	    req->connect_ms > 0 ? req->connect_ms : (long)HTTP_CONNECT_MS,
	    req->total_ms > 0 ? req->total_ms : (long)HTTP_TOTAL_MS);
	oxi_curl_io(e, t->hdrs, onbody, onheader, t);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	/* a streamed reply comes in small events: a smaller receive buffer
	 * than libcurl's 16 KiB keeps a thousand transfers in less memory */
	curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 4096L);
	/* a server that trickles a byte now and then is as good as gone */
	if (req->min_bps > 0) {
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, req->min_bps);
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)((req->idle_ms >
		    0 ? req->idle_ms : HTTP_IDLE_MS) + 999) / 1000);
	}
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, onprogress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, t);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, t);
	if (req->form) {
		if (!(t->mime = form(e, req->form)))
			goto nomem;
		curl_easy_setopt(e, CURLOPT_MIMEPOST, t->mime);
	} else if (req->body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)req->bodylen);
		curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, req->body);
	}
	if (req->method)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
	if (curl_multi_add_handle(l->multi, e) != CURLM_OK) {
		snprintf(err, errlen, "unable to start a transfer");
		curl_easy_cleanup(e);
		curl_mime_free(t->mime);
		wipe_headers(t->hdrs);
		free(t);
		return -1;
	}
	t->last = oxi_clock_ms();
	t->next = l->head;
	if (l->head)
		l->head->prev = t;
	l->head = t;
	l->running++;
	return 0;
nomem:
	curl_easy_cleanup(e);
	curl_mime_free(t->mime);
	wipe_headers(t->hdrs);
	free(t);
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* one line from libcurl's error buffer, or its generic message */
static void
curlmsg(struct oxi_http *t, CURLcode rc)
{
	const char *m = t->errbuf[0] ? t->errbuf : curl_easy_strerror(rc);
	size_t n = strlen(m);

	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == '\r'))
		n--;
	snprintf(t->res.err, sizeof t->res.err, "%.*s", (int)n, m);
}

/* 1 if the transfer reached a server: what went wrong after that (an
 * answer that is not HTTP, which libcurl calls HTTP/0.9 and refuses as
 * an unsupported protocol) is the server's, and temporary */
static int
connected(struct oxi_http *t)
{
	char *ip = NULL;

	return curl_easy_getinfo(t->easy, CURLINFO_PRIMARY_IP, &ip) ==
	    CURLE_OK && ip && *ip;
}

/* sorts the outcome of a transfer into res */
static void
classify(struct oxi_http *t, CURLcode rc)
{
	struct oxi_http_res *r = &t->res;

	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &r->status);
	r->temp = 1;
	if (t->big) {
		r->kind = OXI_HTTP_BIG;
		r->temp = 0;
		snprintf(r->err, sizeof r->err, "reply over %zu bytes",
		    t->max);
	} else if (t->aborted) {
		r->kind = OXI_HTTP_ABORT;
		r->temp = 0;
		snprintf(r->err, sizeof r->err, "transfer stopped");
	} else if (rc == CURLE_OK) {
		if (r->status >= 200 && r->status <= 299) {
			r->kind = OXI_HTTP_OK;
			r->temp = 0;
			r->err[0] = '\0';
		} else {
			r->kind = OXI_HTTP_STATUS;
			r->temp = oxi_http_temp(r->status);
			snprintf(r->err, sizeof r->err, "HTTP %ld", r->status);
		}
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		r->kind = OXI_HTTP_TIMEOUT;
		curlmsg(t, rc);
	} else if (r->status != 0 && (rc == CURLE_PARTIAL_FILE ||
	    rc == CURLE_RECV_ERROR || rc == CURLE_HTTP2_STREAM)) {
		r->kind = OXI_HTTP_CUT;
		curlmsg(t, rc);
	} else if (rc == CURLE_URL_MALFORMAT ||
	    (rc == CURLE_UNSUPPORTED_PROTOCOL && !connected(t))) {
		r->kind = OXI_HTTP_CONFIG;
		r->temp = 0;
		curlmsg(t, rc);
	} else {
		r->kind = OXI_HTTP_NET;
		if (rc == CURLE_PEER_FAILED_VERIFICATION ||
		    rc == CURLE_SSL_CERTPROBLEM ||
		    rc == CURLE_SSL_CACERT_BADFILE)
			r->temp = 0;
		curlmsg(t, rc);
	}
}

static void
finish(struct oxi_http *t)
{
	if (t->done)
		t->done(t->arg, &t->res);
	drop(t);
}

/* moves on the transfers whose sockets are ready, and libcurl's timer
 * when due: 0, or -1 if libcurl failed */
static int
act(struct oxi_http_loop *l, int ready)
{
	struct epoll_event ev[HTTP_EVENTS];
	int i, n, flags, still, rounds;

	n = ready ? epoll_wait(l->ep, ev, HTTP_EVENTS, 0) : 0;
	for (i = 0; i < n; i++) {
		flags = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
		    (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
		    (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR :
		    0);
		if (curl_multi_socket_action(l->multi, ev[i].data.fd, flags,
		    &still) != CURLM_OK)
			return -1;
	}
	/* a timer of 0 asks to be run now, and may ask again */
	for (rounds = 0; rounds < 8 && l->timer >= 0 && l->timer <=
	    oxi_clock_ms(); rounds++) {
		l->timer = -1;
		if (curl_multi_socket_action(l->multi, CURL_SOCKET_TIMEOUT, 0,
		    &still) != CURLM_OK)
			return -1;
	}
	return 0;
}

int
oxi_http_poll(struct oxi_http_loop *l, struct pollfd *fds, int nfds,
    int timeout)
{
	struct pollfd p[HTTP_MAXFDS + 1];
	struct oxi_http *t, *next;
	CURLMsg *m;
	void *priv;
	long long now, left;
	int i, n, r;

	if (nfds > HTTP_MAXFDS)
		nfds = HTTP_MAXFDS;
	/* what the caller stopped ends first, without waiting for bytes */
	for (t = l->head; t; t = next) {
		next = t->next;
		if (t->stop && *t->stop) {
			t->aborted = 1;
			classify(t, CURLE_OK);
			finish(t);
			timeout = 0;
		}
	}
	/* wake up in time for libcurl's timer and the nearest idle
	 * deadline */
	now = oxi_clock_ms();
	if (l->timer >= 0) {
		left = l->timer > now ? l->timer - now : 0;
		if (timeout < 0 || left < timeout)
			timeout = (int)left;
	}
	for (t = l->head; t; t = t->next) {
		left = t->last + t->idle_ms - now;
		if (left < 0)
			left = 0;
		if (timeout < 0 || left < timeout)
			timeout = (int)left;
	}
	if (timeout < 0)
		timeout = 60000;
	p[0].fd = l->ep;
	p[0].events = POLLIN;
	for (i = 0; i < nfds; i++) {
		p[i + 1].fd = fds[i].fd;
		p[i + 1].events = fds[i].events;
		p[i + 1].revents = 0;
		fds[i].revents = 0;
	}
	if ((r = poll(p, nfds + 1, timeout)) < 0) {
		if (errno != EINTR)
			return -1;
		p[0].revents = 0;
	} else
		for (i = 0; i < nfds; i++)
			fds[i].revents = p[i + 1].revents;
	if (act(l, r > 0 && p[0].revents) < 0)
		return -1;
	while ((m = curl_multi_info_read(l->multi, &n)))
		if (m->msg == CURLMSG_DONE) {
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
			    &priv);
			t = priv;
			classify(t, m->data.result);
			finish(t);
		}
	now = oxi_clock_ms();
	for (t = l->head; t; t = next) {
		next = t->next;
		if (now - t->last < t->idle_ms)
			continue;
		t->res.kind = OXI_HTTP_TIMEOUT;
		t->res.temp = 1;
		curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE,
		    &t->res.status);
		snprintf(t->res.err, sizeof t->res.err,
		    "no data for %lld ms", t->idle_ms);
		finish(t);
	}
	return 0;
}
