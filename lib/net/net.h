/*
 * net.h - the net wing: HTTP over libcurl, Server-Sent Events, URLs and the
 * address policy of the web tools, guarded fetches, HTML as text, WebSocket
 */
#ifndef OXI_NET_H
#define OXI_NET_H

#include <stdint.h>

#include "oxi.h"

/* sse.c: Server-Sent Events parser (WHATWG HTML, "event stream") */
/*
 * Called once per dispatched event: type is "message" unless an event:
 * field set it; data is NUL-terminated with its last newline removed,
 * and may hold NUL bytes.  An event whose type holds a NUL byte is not
 * dispatched: no type given as a C string could name it (WHATWG).
 * Return non-zero to stop parsing (oxi_sse_feed then returns -1).
 */
typedef int (*oxi_sse_fn)(void *arg, const char *type, const char *data,
    size_t len);
struct oxi_sse {
	oxi_sse_fn fn;		/* event callback */
	void *arg;		/* its argument */
	struct oxi_buf line;	/* the line being assembled */
	struct oxi_buf data;	/* data of the event being assembled */
	struct oxi_buf event;	/* its type, empty for "message" */
	struct oxi_buf lastid;	/* last event id seen */
	long retry;		/* reconnection time from retry:, or -1 */
	size_t max;		/* cap on a line and on an event's data */
	int cr;			/* last byte was CR: skip a following LF */
	int bom;		/* 0 before the first byte, 1 after */
	int over;		/* the cap was exceeded */
};
void oxi_sse_init(struct oxi_sse *, oxi_sse_fn, void *arg);
/* feeds bytes split anywhere: 0, or -1 if the callback stopped or a
 * line went over max (then sse->over is set) */
int oxi_sse_feed(struct oxi_sse *, const char *, size_t);
void oxi_sse_free(struct oxi_sse *);

/* http.c: HTTP over libcurl, several transfers in flight on one loop */
struct pollfd;
struct oxi_http_loop;		/* transfers sharing a curl multi handle */
enum {
	OXI_HTTP_OK,		/* a complete 2xx reply */
	OXI_HTTP_STATUS,	/* a complete reply with another status */
	OXI_HTTP_TIMEOUT,	/* connect, idle or total time ran out */
	OXI_HTTP_NET,		/* resolve, connect, TLS, reset */
	OXI_HTTP_CUT,		/* the reply stopped short */
	OXI_HTTP_BIG,		/* the body went over the cap */
	OXI_HTTP_ABORT,		/* the data callback stopped the transfer */
	OXI_HTTP_CONFIG		/* a bad URL or scheme */
};
struct oxi_http_res {
	int kind;		/* OXI_HTTP_* */
	long status;		/* HTTP status, 0 if none arrived */
	int temp;		/* retrying may help: network, 408, 429, 5xx */
	long retry_after;	/* seconds from a Retry-After header, or -1 */
	char err[256];		/* one line; never holds a header value */
	struct oxi_buf body;	/* start of a non-2xx body (64 KiB at most) */
};
/* body bytes of a 2xx reply as they arrive; non-zero stops the transfer */
typedef int (*oxi_http_data_fn)(void *arg, const char *p, size_t n);
/* called once per transfer when it ends; res lives during the call only */
typedef void (*oxi_http_done_fn)(void *arg, struct oxi_http_res *res);
struct oxi_http_part {		/* a part of a multipart/form-data body */
	const char *name;	/* the field, or NULL: the end of the list */
	const char *value;	/* its text, or NULL for a file */
	const char *file;	/* the path of a file, read as it is sent */
	const char *filename;	/* the file's name as sent, or NULL */
	const char *type;	/* the part's Content-Type, or NULL */
};
struct oxi_http_req {
	const char *url;	/* http:// or https:// only */
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;	/* POST body, or NULL for a GET */
	size_t bodylen;		/* its length */
	const struct oxi_http_part *form;	/* else a multipart/form-data
				 * POST of these parts, or NULL */
	long connect_ms;	/* connect timeout; 0: 10 s */
	long idle_ms;		/* longest silence; 0: 60 s */
	long total_ms;		/* whole transfer; 0: 600 s */
	size_t max;		/* body cap in bytes; 0: 64 MiB */
	oxi_http_data_fn data;	/* body bytes, or NULL to drop them */
	oxi_http_done_fn done;	/* the end, or NULL */
	void *arg;		/* for both */
	const int *stop;	/* non-NULL and set: the transfer ends, as
				 * OXI_HTTP_ABORT, at the next poll */
	long min_bps;		/* > 0: below this many bytes a second,
				 * averaged over the idle time, it ends
				 * as OXI_HTTP_TIMEOUT */
	const char *method;	/* NULL: GET, or POST with a body; else this
				 * verb (PATCH, PUT, DELETE) */
	oxi_http_data_fn head;	/* each header line of the reply as it
				 * comes ("Name: value\r\n"), or NULL;
				 * non-zero stops the transfer */
};
/* a new loop (libcurl is initialised on first use); NULL on failure */
struct oxi_http_loop *oxi_http_loop_new(void);
/* drops whatever is in flight (no done calls) and frees the loop */
void oxi_http_loop_free(struct oxi_http_loop *);
/*
 * Starts a transfer.  Everything in req is copied (the file of a form's
 * part is read as it is sent); header values are wiped from our memory
 * when it ends, and never logged.  Returns 0 (done will be called once,
 * from a later oxi_http_poll), or -1 with a message in err.
 */
int oxi_http_start(struct oxi_http_loop *, const struct oxi_http_req *,
    char *err, size_t errlen);
/* transfers in flight */
int oxi_http_running(const struct oxi_http_loop *);
/*
 * Waits up to timeout ms (-1: until something happens) for network
 * activity or for one of the nfds extra descriptors (their revents are
 * set), moves the transfers on and calls done for each that ended.
 * Returns 0, or -1 if libcurl failed.
 */
int oxi_http_poll(struct oxi_http_loop *, struct pollfd *fds, int nfds,
    int timeout);
/* 1 if a reply with this status is worth retrying: 408, 429, 5xx */
int oxi_http_temp(long status);
/*
 * For the wing's own transfers (http.c, fetch.c); easy is a CURL *.
 * oxi_curl_init: libcurl initialised once, 0 or -1.  oxi_curl_base: what
 * every transfer has: url, http and https only, no signals, libcurl's
 * message in errbuf (CURL_ERROR_SIZE bytes), the connect and total
 * timeouts, our User-Agent.  oxi_curl_io: the header list hdrs (a struct
 * curl_slist, kept until the transfer ends), and libcurl's write and
 * header callbacks with their argument.
 */
typedef size_t (*oxi_curl_fn)(char *p, size_t size, size_t nmemb, void *arg);
int oxi_curl_init(void);
void oxi_curl_base(void *easy, const char *url, char *errbuf, long connect_ms,
    long total_ms);
void oxi_curl_io(void *easy, void *hdrs, oxi_curl_fn body, oxi_curl_fn head,
    void *arg);

/* url.c: absolute http and https URLs */
struct sockaddr;
struct sockaddr_storage;
struct oxi_url {
	char scheme[8];		/* "http" or "https" */
	char host[256];		/* lower case, no trailing dot; an address
				 * literal in canonical form, IPv6 bare */
	int port;		/* given, or the scheme's */
	int literal;		/* 4 or 6 for an address literal, else 0 */
	char *path;		/* path and query from "/", no fragment */
	char *url;		/* the canonical URL built from the above */
	char origin[300];	/* scheme://host[:port] */
};
/*
 * Parses an absolute http or https URL the strict way: no user info
 * ("http://a@b"), no backslash, percent or non-ASCII byte in the host,
 * a host that ends in a number must be an IPv4 address in any of the
 * inet_aton(3) forms (2130706433, 0177.0.0.1, 0x7f.1), which is
 * normalised to dotted quad.  Spaces and non-ASCII bytes of the path are
 * percent-encoded, the fragment dropped.  0, or -1 with a reason in why.
 * Free with oxi_url_free.
 */
int oxi_url_parse(struct oxi_url *, const char *s, char *why, size_t len);
void oxi_url_free(struct oxi_url *);
/* an IPv4 address in an inet_aton form (1 to 4 parts, each decimal,
 * octal or hex) in host order: 1, or 0 if s is not one */
int oxi_ssrf_aton(const char *s, unsigned long *out);

/* ssrf.c: the address policy of the web tools */
/*
 * The policy: 0 if the address is public, else -1 with the kind of
 * address in why ("a loopback address").  v4 is in host order; v6 is 16
 * bytes; IPv4-mapped and NAT64 64:ff9b::/96 are judged by the IPv4
 * address they hold.
 */
int oxi_ssrf_v4(unsigned long v4, char *why, size_t len);
int oxi_ssrf_v6(const unsigned char *v6, char *why, size_t len);
int oxi_ssrf_addr(const struct sockaddr *, char *why, size_t len);
/*
 * The test switch $OXI_SSRF_ALLOW: 1 if address sa with port is listed
 * there ("127.0.0.1:PORT" entries only), 0 if not, -1 if the variable
 * holds anything else.
 */
int oxi_ssrf_allowed(const struct sockaddr *sa, int port);
/* the resolver, replaceable by tests: up to max addresses of host into
 * out (port 0), returning how many, or -1 with a reason in why */
extern int (*oxi_ssrf_resolve)(const char *host,
    struct sockaddr_storage *out, int max, char *why, size_t len);
/*
 * Resolves u once and checks every address: 0 with the first one (and
 * u's port) in *pin, the address to connect to, or -1 with why.
 */
int oxi_ssrf_pin(const struct oxi_url *, struct sockaddr_storage *pin,
    char *why, size_t len);
/* the address of an AF_INET or AF_INET6 ss as text, without its port */
void oxi_ssrf_ntop(const struct sockaddr_storage *ss, char *buf, size_t len);

/* fetch.c: guarded HTTP of the web tools */
/* an HTTP request of a tool, made with its own curl handle, blocking */
struct oxi_web_req {
	const char *method;	/* NULL: GET, or POST with a body */
	const char *url;	/* absolute http or https URL */
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;	/* request body, or NULL */
	size_t bodylen;		/* its length */
	size_t max;		/* body bytes kept; more cut the transfer */
	long total_ms;		/* for the request and its redirects */
	int redirects;		/* how many to follow, each checked again */
	int guard;		/* apply the address policy and pin */
};
struct oxi_web_res {
	long status;		/* HTTP status of the last reply */
	struct oxi_buf url;	/* the URL that gave the last reply */
	struct oxi_buf origin;	/* its origin, scheme://host[:port] */
	struct oxi_buf head;	/* its headers, "Name: value\n" each */
	struct oxi_buf ctype;	/* its Content-Type, or empty */
	struct oxi_buf body;	/* its body, max bytes at most */
	int cut;		/* the body went over max and was cut */
	int redirected;		/* redirects followed */
	char err[256];		/* one line, on failure */
};
/*
 * Makes the request: redirects (301, 302, 303, 307, 308) are followed
 * by hand, each target parsed and (guard) resolved, checked and pinned
 * again; caller headers are dropped when the origin changes.  No proxy
 * from the environment is used.  0 with any reply in res, or -1 with
 * res->err (a refused address, a timeout, a network error).  Free res
 * with oxi_web_res_free, whatever the outcome.
 */
int oxi_web_request(const struct oxi_web_req *, struct oxi_web_res *);
void oxi_web_res_free(struct oxi_web_res *);

/* html.c: HTML as readable text */
/*
 * Appends the text of an HTML document to out: script, style, nav,
 * header, footer, aside, form and other non-content elements dropped,
 * headings as "#" lines, paragraphs and blocks separated by blank lines,
 * list items as "- " or "N. ", table cells separated by " | ", pre
 * blocks kept as they are, entities decoded, white space collapsed,
 * links as "text [N]" followed by a "Links:" list of their URLs,
 * resolved against base (may be NULL).  Invalid UTF-8 (each maximal
 * subpart of an ill-formed sequence) and NUL bytes become U+FFFD.
 * *title (may be NULL) gets a copy of the title (free it), or NULL.
 */
void oxi_html_text(const char *html, size_t len, const char *base,
    struct oxi_buf *out, char **title);
/* appends s with character references decoded (&amp; &#233; &#x1F600;) */
void oxi_html_unescape(struct oxi_buf *out, const char *s, size_t len);

/* websock.c, wsframe.c: a WebSocket client (RFC 6455) over libcurl's
 * connection (CURLOPT_CONNECT_ONLY), ws:// and wss:// */
enum { OXI_WS_CONT = 0, OXI_WS_TEXT = 1, OXI_WS_BINARY = 2, OXI_WS_CLOSE = 8,
	OXI_WS_PING = 9, OXI_WS_PONG = 10 };
struct oxi_ws_opts {
	long connect_ms;	/* connect and handshake; 0: 10000 */
	size_t max_msg;		/* reassembled message cap; 0: 16 MiB */
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *cafile;	/* NULL: the system's */
};
struct oxi_ws;
struct oxi_ws_msg {
	int op;			/* OXI_WS_TEXT, _BINARY, _PONG or _CLOSE */
	unsigned char *data;	/* owned by ws, valid until the next recv */
	size_t len;		/* its length (NUL-terminated as well) */
	int close_code;		/* CLOSE: its code, 1005 none; recv -1:
				 * 1006 lost, 1002 protocol, 1007 text,
				 * 1009 big, or the code of a close had */
};
/* NULL with a one-line reason in err (never the URL's path or query) */
struct oxi_ws *oxi_ws_open(const char *url, const struct oxi_ws_opts *,
    struct oxi_buf *err);
/* poll(2) it for POLLIN, then recv with timeout 0 until it gives 0:
 * one read may bring several messages, and poll shows them no more */
int oxi_ws_fd(const struct oxi_ws *);
/* one whole message or control frame, masked: 0 or -1 */
int oxi_ws_send(struct oxi_ws *, int op, const void *p, size_t n);
/*
 * 1: a whole message (fragments joined), a pong, or a close (answered);
 * pings are answered and not returned.  0: timeout_ms ran out (-1: no
 * limit).  -1: connection lost or a protocol error (see close_code),
 * the reason in oxi_ws_error.  Bytes received are buffered across calls.
 */
int oxi_ws_recv(struct oxi_ws *, struct oxi_ws_msg *m, int timeout_ms);
const char *oxi_ws_error(const struct oxi_ws *);
/* sends a close (reason may be NULL), waits up to 1 s for the echo */
int oxi_ws_close(struct oxi_ws *, int code, const char *reason);
void oxi_ws_free(struct oxi_ws *);
/* wsframe.c: the pure parts */
struct oxi_ws_frame { int fin, op, masked; uint64_t len; size_t hdr;
	unsigned char mask[4]; };
/* 1 header complete (f filled), 0 need more, -1 protocol error (RSV
 * bits, a reserved opcode, a control frame over 125 bytes or fragmented,
 * len over max, a length not in its shortest form or with the MSB set) */
int oxi_ws_frame_parse(const unsigned char *p, size_t n,
    struct oxi_ws_frame *f, uint64_t max);

#endif
