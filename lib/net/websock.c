/*
 * websock.c - a WebSocket client (RFC 6455) on a connection that libcurl
 * makes and then leaves to us (CURLOPT_CONNECT_ONLY): TCP, or TLS with
 * libcurl's CA handling, no proxy.  The HTTP/1.1 Upgrade handshake and
 * the framing are ours (the pure parts in wsframe.c); curl_easy_send and
 * curl_easy_recv carry the bytes and poll(2) waits on the socket.
 * Debian 12's libcurl 7.88 has no WebSocket support of its own
 * (PROTOCOLS.md 5.9).
 *
 * A TLS layer may hold bytes that poll does not see, so a read is always
 * tried before a poll.  Bytes that came with the 101 response, and any
 * frames after the one a recv returns, stay buffered for the next recv.
 * A protocol error sends the close frame its code calls for (1002, 1007,
 * 1009) and fails the connection: every later recv gives -1.
 */
#include <sys/random.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "oxi.h"
#include "net/net.h"
#include "net/wsframe.h"

#define WS_MAX		(16 * 1024 * 1024)
#define WS_HEADMAX	16384	/* the handshake response's head */
#define WS_READ		16384	/* bytes asked of one read */
#define WS_SENDMS	10000	/* longest wait to send one frame */
#define WS_CLOSEMS	1000	/* longest wait for the close echo */

struct oxi_ws {
	CURL *curl;		/* the connection; NULL for oxi_ws_mem */
	int fd;			/* its socket, -1 for oxi_ws_mem */
	struct oxi_buf in;	/* bytes received, unparsed from pos on */
	size_t pos;		/* where the unparsed bytes start */
	struct oxi_buf msg;	/* the data message being joined */
	int msgop;		/* its opcode, 0 while none */
	int given;		/* msg was returned: reset it first */
	unsigned char ctl[126];	/* the last control payload, NUL ended */
	struct oxi_buf sent;	/* oxi_ws_mem: every byte sent */
	struct oxi_buf src;	/* oxi_ws_mem: the bytes to receive */
	size_t srcpos;		/* how many of them were received */
	size_t chunk;		/* how many one read takes at most */
	size_t max;		/* message cap */
	int closing;		/* our close frame is out */
	int dead;		/* closed, lost or failed: recv gives -1 */
	int deadcode;		/* the close code recv gives then */
	char err[256];		/* why, one line */
};

/* the error of ws, as printf; -1 */
static int
seterr(struct oxi_ws *ws, const char *fmt, const char *arg)
{
	snprintf(ws->err, sizeof ws->err, fmt, arg);
	return -1;
}

/* sends p[0..n) whole, waiting at most WS_SENDMS: 0 or -1 */
static int
rawsend(struct oxi_ws *ws, const unsigned char *p, size_t n)
{
	long long end = oxi_clock_ms() + WS_SENDMS, left;
	struct pollfd pfd;
	CURLcode rc;
	size_t k;

	if (!ws->curl) {
		oxi_buf_cat(&ws->sent, p, n);
		return 0;
	}
	while (n > 0) {
		k = 0;
		rc = curl_easy_send(ws->curl, p, n, &k);
		if (rc == CURLE_OK) {
			p += k, n -= k;
			continue;
		}
		if (rc != CURLE_AGAIN)
			return seterr(ws, "ws: send: %s",
			    curl_easy_strerror(rc));
		if ((left = end - oxi_clock_ms()) <= 0)
			return seterr(ws, "ws: send: %s", "timed out");
		pfd.fd = ws->fd, pfd.events = POLLOUT, pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return seterr(ws, "ws: poll: %s", strerror(errno));
	}
	return 0;
}

/*
 * Reads what there is into ws->in, waiting up to ms (-1: no limit):
 * 1 bytes came, 0 the time ran out, -1 the end of the stream or an error
 * (ws->err set).
 */
static int
rawrecv(struct oxi_ws *ws, long long ms)
{
	long long end = ms >= 0 ? oxi_clock_ms() + ms : -1, left;
	struct pollfd pfd;
	CURLcode rc;
	size_t k;
	int r;

	if (ws->pos > 0) {
		oxi_buf_consume(&ws->in, ws->pos);
		ws->pos = 0;
	}
	if (!ws->curl && ws->srcpos < ws->src.len) {
		k = ws->src.len - ws->srcpos;
		k = k < ws->chunk ? k : ws->chunk;
		oxi_buf_cat(&ws->in, ws->src.s + ws->srcpos, k);
		ws->srcpos += k;
		return 1;
	}
	if (!ws->curl)
		return seterr(ws, "ws: %s", "the connection was closed");
	oxi_buf_grow(&ws->in, WS_READ);
	for (;;) {
		k = 0;
		rc = curl_easy_recv(ws->curl, ws->in.s + ws->in.len, WS_READ,
		    &k);
		if (rc == CURLE_OK && k == 0)
			return seterr(ws, "ws: %s", "the connection was "
			    "closed");
		if (rc == CURLE_OK) {
			ws->in.len += k;
			ws->in.s[ws->in.len] = '\0';
			return 1;
		}
		if (rc != CURLE_AGAIN)
			return seterr(ws, "ws: recv: %s",
			    curl_easy_strerror(rc));
		left = end < 0 ? -1 : end - oxi_clock_ms();
		if (end >= 0 && left <= 0)
			return 0;
		pfd.fd = ws->fd, pfd.events = POLLIN, pfd.revents = 0;
		r = poll(&pfd, 1, left > 0x7fffffff ? 0x7fffffff : (int)left);
		if (r < 0 && errno != EINTR)
			return seterr(ws, "ws: poll: %s", strerror(errno));
		if (r == 0 && end >= 0)
			return 0;
	}
}

/* one frame, masked with fresh random bytes: 0 or -1 */
static int
sendframe(struct oxi_ws *ws, int op, const void *p, size_t n)
{
	unsigned char mask[4], *f;
	size_t h;
	int r;

	if (getrandom(mask, sizeof mask, 0) != (ssize_t)sizeof mask)
		return seterr(ws, "ws: getrandom: %s", strerror(errno));
	f = xmalloc(n + 14);
	h = (size_t)oxi_ws_frame_head(f, 1, op, n, mask);
	if (n)
		memcpy(f + h, p, n);
	oxi_ws_mask(f + h, n, mask, 0);
	r = rawsend(ws, f, h + n);
	free(f);
	return r;
}

/* a close frame with code (none if 1005) and reason (may be NULL) */
static int
sendclose(struct oxi_ws *ws, int code, const char *reason)
{
	unsigned char b[125];
	size_t n = 0;

	ws->closing = 1;
	if (code != 1005) {
		b[0] = (unsigned char)(code >> 8), b[1] = (unsigned char)code;
		n = reason ? oxi_utf8_cut(reason, strlen(reason), 123) : 0;
		if (n)
			memcpy(b + 2, reason, n);
		n += 2;
	}
	return sendframe(ws, OXI_WS_CLOSE, b, n);
}

/* fails the connection with code (why in ws->err, or given): -1 */
static int
fail(struct oxi_ws *ws, struct oxi_ws_msg *m, int code, const char *why)
{
	char keep[sizeof ws->err];

	if (why)
		snprintf(ws->err, sizeof ws->err, "ws: %s", why);
	if (code != 1006 && !ws->closing && !ws->dead) {
		memcpy(keep, ws->err, sizeof keep);
		sendclose(ws, code, NULL);
		memcpy(ws->err, keep, sizeof keep);
	}
	ws->dead = 1;
	ws->deadcode = m->close_code = code;
	return -1;
}

/* a control frame's payload p[0..n) into m: 1, 2 (a ping: go on), -1 */
static int
control(struct oxi_ws *ws, int op, const unsigned char *p, size_t n,
    struct oxi_ws_msg *m)
{
	int code = 1005;

	memcpy(ws->ctl, p, n);
	ws->ctl[n] = '\0';
	if (op == OXI_WS_PING) {
		if (!ws->closing && sendframe(ws, OXI_WS_PONG, p, n) < 0)
			return fail(ws, m, 1006, NULL);
		return 2;
	}
	m->op = op;
	m->data = ws->ctl;
	m->len = n;
	if (op == OXI_WS_PONG)
		return 1;
	if (n == 1)
		return fail(ws, m, 1002, "a close frame of one byte");
	if (n >= 2) {
		code = p[0] << 8 | p[1];
		if (!oxi_ws_code_ok(code))
			return fail(ws, m, 1002, "a close frame with a bad "
			    "code");
		if (!oxi_utf8_valid((const char *)p + 2, n - 2, 0))
			return fail(ws, m, 1007, "a close reason that is not "
			    "UTF-8");
		memmove(ws->ctl, ws->ctl + 2, n - 1);
		m->len = n - 2;
	}
	m->close_code = code;
	if (!ws->closing)
		sendclose(ws, code, NULL);
	snprintf(ws->err, sizeof ws->err, "ws: closed by the server (%d)",
	    code);
	ws->dead = 1;
	ws->deadcode = code;
	return 1;
}

/*
 * Takes the next frame from ws->in: 1 a message or control frame in m,
 * 2 one taken, nothing to return yet, 0 more bytes needed, -1 failed.
 */
static int
frame(struct oxi_ws *ws, struct oxi_ws_msg *m)
{
	const unsigned char *p;
	size_t n = ws->in.len - ws->pos;
	struct oxi_ws_frame f;
	int r;

	if (n == 0)
		return 0;
	p = (unsigned char *)ws->in.s + ws->pos;
	if ((r = oxi_ws_frame_parse(p, n, &f, UINT64_MAX)) <= 0)
		return r < 0 ? fail(ws, m, 1002, "a bad frame header") : 0;
	if (f.masked)
		return fail(ws, m, 1002, "a masked frame from the server");
	if (f.op < OXI_WS_CLOSE && (f.len > ws->max ||
	    ws->msg.len + f.len > ws->max))
		return fail(ws, m, 1009, "a message over the size cap");
	if (n - f.hdr < f.len)
		return 0;
	p += f.hdr;
	ws->pos += f.hdr + (size_t)f.len;
	if (f.op >= OXI_WS_CLOSE)
		return control(ws, f.op, p, (size_t)f.len, m);
	if (f.op == OXI_WS_CONT && !ws->msgop)
		return fail(ws, m, 1002, "a continuation with no message");
	if (f.op != OXI_WS_CONT && ws->msgop)
		return fail(ws, m, 1002, "a new message inside a fragmented "
		    "one");
	if (f.op != OXI_WS_CONT)
		ws->msgop = f.op;
	oxi_buf_cat(&ws->msg, p, (size_t)f.len);
	if (!f.fin)
		return 2;
	if (ws->msgop == OXI_WS_TEXT && !oxi_utf8_valid(ws->msg.s,
	    ws->msg.len, 0))
		return fail(ws, m, 1007, "a text message that is not UTF-8");
	m->op = ws->msgop;
	m->data = (unsigned char *)ws->msg.s;
	m->len = ws->msg.len;
	ws->given = 1;
	return 1;
}

int
oxi_ws_recv(struct oxi_ws *ws, struct oxi_ws_msg *m, int timeout_ms)
{
	long long end = timeout_ms >= 0 ? oxi_clock_ms() + timeout_ms : -1;
	long long left;
	int r;

	memset(m, 0, sizeof *m);
	if (ws->given) {
		oxi_buf_reset(&ws->msg);
		ws->msgop = ws->given = 0;
	}
	for (;;) {
		if (ws->dead) {
			m->close_code = ws->deadcode;
			return -1;
		}
		while ((r = frame(ws, m)) == 2)
			;
		if (r != 0)
			return r;
		left = end < 0 ? -1 : end - oxi_clock_ms();
		if (end >= 0 && left < 0)
			left = 0;
		if ((r = rawrecv(ws, left)) < 0)
			return fail(ws, m, 1006, NULL);
		if (r == 0)
			return 0;
	}
}

int
oxi_ws_send(struct oxi_ws *ws, int op, const void *p, size_t n)
{
	if (ws->dead || ws->closing) {
		errno = EPIPE;
		return ws->dead ? -1 : seterr(ws, "ws: %s", "the connection "
		    "is closing");
	}
	if ((op >= OXI_WS_CLOSE && n > 125) || op == OXI_WS_CONT ||
	    (op > OXI_WS_BINARY && op < OXI_WS_CLOSE) || op > OXI_WS_PONG) {
		errno = EINVAL;
		return seterr(ws, "ws: %s", "a frame the protocol forbids");
	}
	if (op == OXI_WS_TEXT && !oxi_utf8_valid(p, n, 0)) {
		errno = EINVAL;
		return seterr(ws, "ws: %s", "a text message that is not UTF-8");
	}
	if (op == OXI_WS_CLOSE)
		ws->closing = 1;
	if (sendframe(ws, op, p, n) < 0) {
		ws->dead = 1;
		ws->deadcode = 1006;
		return -1;
	}
	return 0;
}

int
oxi_ws_close(struct oxi_ws *ws, int code, const char *reason)
{
	long long end = oxi_clock_ms() + WS_CLOSEMS, left;
	struct oxi_ws_msg m;
	int r;

	if (ws->dead)
		return 0;
	if (!oxi_ws_code_ok(code))
		code = 1000;
	if (reason && !oxi_utf8_valid(reason, strlen(reason), 0))
		reason = NULL;
	if (!ws->closing && sendclose(ws, code, reason) < 0) {
		ws->dead = 1;
		ws->deadcode = 1006;
		return -1;
	}
	while ((left = end - oxi_clock_ms()) > 0) {
		if ((r = oxi_ws_recv(ws, &m, (int)left)) < 0)
			return ws->deadcode == 1006 ? -1 : 0;
		if (r == 0)
			break;
		if (m.op == OXI_WS_CLOSE)
			return 0;
	}
	ws->dead = 1;
	ws->deadcode = 1006;
	return seterr(ws, "ws: %s", "no answer to our close frame");
}

int
oxi_ws_fd(const struct oxi_ws *ws)
{
	return ws->fd;
}

const char *
oxi_ws_error(const struct oxi_ws *ws)
{
	return ws->err[0] ? ws->err : "ws: no error";
}

void
oxi_ws_free(struct oxi_ws *ws)
{
	if (!ws)
		return;
	if (ws->curl)
		curl_easy_cleanup(ws->curl);
	oxi_buf_free(&ws->in);
	oxi_buf_free(&ws->msg);
	oxi_buf_free(&ws->sent);
	oxi_buf_free(&ws->src);
	free(ws);
}

static struct oxi_ws *
wsnew(size_t max)
{
	struct oxi_ws *ws = xcalloc(1, sizeof *ws);

	ws->fd = -1;
	ws->max = max ? max : WS_MAX;
	return ws;
}

struct oxi_ws *
oxi_ws_mem(const void *p, size_t n, size_t max)
{
	struct oxi_ws *ws = wsnew(max);

	oxi_buf_cat(&ws->src, p, n);
	ws->chunk = n ? n : 1;
	return ws;
}

void
oxi_ws_mem_chunk(struct oxi_ws *ws, size_t chunk)
{
	ws->chunk = chunk ? chunk : 1;
}

const struct oxi_buf *
oxi_ws_sent(const struct oxi_ws *ws)
{
	return &ws->sent;
}

/* the value of header name in the head h (lines after the status), or
 * NULL; *len gets its length, blanks trimmed */
static const char *
hvalue(const char *h, const char *name, size_t *len)
{
	size_t nl = strlen(name);
	const char *e;

	for (; (h = strstr(h, "\r\n")) && h[2] != '\r'; ) {
		h += 2;
		if (strncasecmp(h, name, nl) != 0 || h[nl] != ':')
			continue;
		for (h += nl + 1; *h == ' ' || *h == '\t'; h++)
			;
		e = strstr(h, "\r\n");
		while (e > h && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*len = (size_t)(e - h);
		return h;
	}
	return NULL;
}

/* 1 if the value v[0..n) holds token tok, case aside (comma lists) */
static int
hastoken(const char *v, size_t n, const char *tok)
{
	size_t tl = strlen(tok), i;

	for (i = 0; i + tl <= n; i++)
		if (strncasecmp(v + i, tok, tl) == 0 &&
		    (i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
		    (i + tl == n || v[i + tl] == ',' || v[i + tl] == ' '))
			return 1;
	return 0;
}

/* sends the Upgrade request and checks the 101 response: 0 or -1 */
static int
handshake(struct oxi_ws *ws, const struct oxi_url *u, const char *host,
    const struct oxi_ws_opts *o, long long end)
{
	unsigned char nonce[16];
	char key[25], accept[29], *head;
	struct oxi_buf req = OXI_BUF_INIT;
	const char *const *h;
	const char *v;
	size_t i, len;
	long long left;
	int r, status;

	if (getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
		return seterr(ws, "ws: getrandom: %s", strerror(errno));
	oxi_ws_key(nonce, key);
	oxi_ws_accept(key, accept);
	oxi_buf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
	    "User-Agent: oxi/" OXI_VERSION "\r\n", u->path, host, key);
	for (h = o ? o->headers : NULL; h && *h; h++) {
		if (strpbrk(*h, "\r\n")) {
			oxi_wipe(req.s, req.len);
			oxi_buf_free(&req);
			return seterr(ws, "ws: %s", "a header holds a line "
			    "break");
		}
		oxi_buf_printf(&req, "%s\r\n", *h);
	}
	oxi_buf_cats(&req, "\r\n");
	r = rawsend(ws, (unsigned char *)req.s, req.len);
	oxi_wipe(req.s, req.len);
	oxi_buf_free(&req);
	if (r < 0)
		return -1;
	for (;;) {
		head = ws->in.s;
		for (i = 0; head && i + 3 < ws->in.len; i++)
			if (memcmp(head + i, "\r\n\r\n", 4) == 0)
				break;
		if (head && i + 3 < ws->in.len)
			break;
		if (ws->in.len > WS_HEADMAX)
			return seterr(ws, "ws: %s", "the handshake response "
			    "is too long");
		if ((left = end - oxi_clock_ms()) <= 0)
			return seterr(ws, "ws: %s", "the handshake timed out");
		if ((r = rawrecv(ws, left)) <= 0)
			return r < 0 ? -1 : seterr(ws, "ws: %s", "the "
			    "handshake timed out");
	}
	head[i + 2] = '\0';	/* the head ends in one CRLF, for hvalue */
	ws->pos = i + 4;
	if (sscanf(head, "HTTP/1.%*d %d", &status) != 1)
		return seterr(ws, "ws: %s", "not an HTTP response to the "
		    "handshake");
	if (status != 101) {
		snprintf(ws->err, sizeof ws->err, "ws: the server refused "
		    "the upgrade: HTTP %d", status);
		return -1;
	}
	if (!(v = hvalue(head, "Upgrade", &len)) || len != 9 ||
	    strncasecmp(v, "websocket", 9) != 0 ||
	    !(v = hvalue(head, "Connection", &len)) ||
	    !hastoken(v, len, "upgrade"))
		return seterr(ws, "ws: %s", "the 101 response does not "
		    "upgrade to websocket");
	if (!(v = hvalue(head, "Sec-WebSocket-Accept", &len)) ||
	    len != 28 || memcmp(v, accept, 28) != 0)
		return seterr(ws, "ws: %s", "a wrong Sec-WebSocket-Accept");
	if (hvalue(head, "Sec-WebSocket-Extensions", &len))
		return seterr(ws, "ws: %s", "an extension we did not ask for");
	return 0;
}

/* the host and port to name in errors and the Host header */
static const char *
hostport(const struct oxi_url *u)
{
	const char *s = strstr(u->origin, "://");

	return s ? s + 3 : u->origin;
}

struct oxi_ws *
oxi_ws_open(const char *url, const struct oxi_ws_opts *o,
    struct oxi_buf *err)
{
	char why[256], ebuf[CURL_ERROR_SIZE], *http;
	long connect_ms = o && o->connect_ms > 0 ? o->connect_ms : 10000;
	long long end = oxi_clock_ms() + connect_ms;
	struct oxi_url u;
	struct oxi_ws *ws;
	curl_socket_t s;
	CURLcode rc;
	size_t skip;

	if (strncasecmp(url, "ws://", 5) == 0)
		skip = 2;
	else if (strncasecmp(url, "wss://", 6) == 0)
		skip = 3;
	else {
		if (err)
			oxi_buf_cats(err, "ws: only ws:// and wss:// URLs");
		return NULL;
	}
	http = xmalloc(strlen(url) + 8);
	snprintf(http, strlen(url) + 8, "%s%s", skip == 2 ? "http" : "https",
	    url + skip);
	if (oxi_url_parse(&u, http, why, sizeof why) < 0) {
		free(http);
		if (err)
			oxi_buf_printf(err, "ws: %s", why);
		return NULL;
	}
	free(http);
	ws = wsnew(o ? o->max_msg : 0);
	if (oxi_curl_init() < 0 || !(ws->curl = curl_easy_init())) {
		seterr(ws, "ws: %s", "unable to start libcurl");
		goto bad;
	}
	ebuf[0] = '\0';
	curl_easy_setopt(ws->curl, CURLOPT_URL, u.origin);
	curl_easy_setopt(ws->curl, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(ws->curl, CURLOPT_HTTP_VERSION,
	    (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(ws->curl, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	curl_easy_setopt(ws->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(ws->curl, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(ws->curl, CURLOPT_ERRORBUFFER, ebuf);
	if (o && o->cafile)
		curl_easy_setopt(ws->curl, CURLOPT_CAINFO, o->cafile);
	if ((rc = curl_easy_perform(ws->curl)) != CURLE_OK) {
		snprintf(ws->err, sizeof ws->err, "ws: unable to connect to "
		    "%.100s: %.120s", hostport(&u), ebuf[0] ? ebuf :
		    curl_easy_strerror(rc));
		goto bad;
	}
	curl_easy_setopt(ws->curl, CURLOPT_ERRORBUFFER, NULL);
	if (curl_easy_getinfo(ws->curl, CURLINFO_ACTIVESOCKET, &s) !=
	    CURLE_OK || s == CURL_SOCKET_BAD) {
		seterr(ws, "ws: %s", "no socket from libcurl");
		goto bad;
	}
	ws->fd = (int)s;
	if (handshake(ws, &u, hostport(&u), o, end) < 0)
		goto bad;
	oxi_url_free(&u);
	return ws;
bad:
	if (err)
		oxi_buf_cats(err, ws->err);
	oxi_url_free(&u);
	oxi_ws_free(ws);
	return NULL;
}
