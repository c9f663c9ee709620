/*
 * ssrf.c - URLs, the address policy of the web tools, and guarded HTTP
 *
 * A tool that fetches what a model asks for must not become a way into
 * the machine's own network (server-side request forgery).  So a URL is
 * parsed here, strictly, before libcurl sees it; its host is resolved
 * once; every address it resolves to must be public (not loopback,
 * private, link-local, shared, reserved, multicast, or an IPv6 form that
 * carries one of those: mapped, NAT64, 6to4, Teredo); and the connection
 * is pinned to the first address checked (CURLOPT_RESOLVE), which a
 * socket callback checks once more as libcurl opens the socket, so that
 * no second lookup (DNS rebinding) or proxy can lead elsewhere.
 * Redirects are followed here, one hop at a time, each checked again.
 *
 * Tests reach their server on 127.0.0.1 only through $OXI_SSRF_ALLOW,
 * which lists exact "127.0.0.1:PORT" pairs and nothing else.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>

#include "oxi.h"
#include "net/net.h"

#define MAXADDR		16	/* addresses of a host looked at */
#define MAXHEAD		(64 * 1024)	/* response headers kept */

static int sysresolve(const char *, struct sockaddr_storage *, int, char *,
    size_t);

int (*oxi_ssrf_resolve)(const char *, struct sockaddr_storage *, int, char *,
    size_t) = sysresolve;

void
oxi_url_free(struct oxi_url *u)
{
	free(u->path);
	free(u->url);
	u->path = u->url = NULL;
}

/* one part of an inet_aton address: 1 and *v, or 0 */
static int
atonpart(const char *s, size_t n, unsigned long long *v)
{
	unsigned long long x = 0;
	int base = 10, d;
	size_t i = 0;

	if (n == 0)
		return 0;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < n; i++) {
		if (isdigit((unsigned char)s[i]))
			d = s[i] - '0';
		else if (base == 16 && isxdigit((unsigned char)s[i]))
			d = tolower((unsigned char)s[i]) - 'a' + 10;
		else
			return 0;
		if (d >= base)
			return 0;
		x = x * base + d;
		if (x > 0xffffffffULL)
			return 0;
	}
	*v = x;
	return 1;
}

int
oxi_ssrf_aton(const char *s, unsigned long *out)
{
	unsigned long long part[4], v;
	const char *p = s, *dot;
	int n = 0, i;

	for (;;) {
		if (n == 4)
			return 0;
		dot = strchr(p, '.');
		if (!atonpart(p, dot ? (size_t)(dot - p) : strlen(p),
		    &part[n]))
			return 0;
		n++;
		if (!dot)
			break;
		p = dot + 1;
	}
	/* every part but the last is one byte; the last fills the rest */
	for (i = 0; i < n - 1; i++)
		if (part[i] > 255)
			return 0;
	if (part[n - 1] > (0xffffffffULL >> (8 * (n - 1))))
		return 0;
	v = part[n - 1];
	for (i = 0; i < n - 1; i++)
		v |= part[i] << (8 * (3 - i));
	*out = (unsigned long)v;
	return 1;
}

/* the last label of host ends in a number: it must then be IPv4 */
static int
endsinnumber(const char *host)
{
	const char *last = strrchr(host, '.');
	size_t i;

	last = last ? last + 1 : host;
	if (*last == '\0')
		return 0;
	if (last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
		for (i = 2; last[i]; i++)
			if (!isxdigit((unsigned char)last[i]))
				return 0;
		return 1;
	}
	for (i = 0; last[i]; i++)
		if (!isdigit((unsigned char)last[i]))
			return 0;
	return 1;
}

static int
fail(char *why, size_t len, const char *msg)
{
	snprintf(why, len, "%s", msg);
	return -1;
}

/* appends the path and query, percent-encoding what curl would refuse */
static int
catpath(struct oxi_buf *b, const char *p, char *why, size_t len)
{
	const unsigned char *u;

	if (*p != '/')
		oxi_buf_putc(b, '/');
	for (u = (const unsigned char *)p; *u && *u != '#'; u++) {
		if (*u < 0x20 || *u == 0x7f)
			return fail(why, len, "a control character in "
			    "the URL");
		if (*u == ' ' || *u == '"' || *u == '<' || *u == '>' ||
		    *u == '`' || *u >= 0x80)
			oxi_buf_printf(b, "%%%02X", *u);
		else
			oxi_buf_putc(b, *u);
	}
	return 0;
}

int
oxi_url_parse(struct oxi_url *u, const char *s, char *why, size_t len)
{
	struct oxi_buf b = OXI_BUF_INIT;
	struct in6_addr a6;
	struct in_addr a4;
	unsigned long v4;
	const char *p, *auth, *end, *hs, *he, *c;
	char port[8], v6[INET6_ADDRSTRLEN];
	size_t n, i, lab;
	long pn;
	int dflt;

	memset(u, 0, sizeof *u);
	if (strncasecmp(s, "http://", 7) == 0) {
		strcpy(u->scheme, "http");
		auth = s + 7;
		dflt = 80;
	} else if (strncasecmp(s, "https://", 8) == 0) {
		strcpy(u->scheme, "https");
		auth = s + 8;
		dflt = 443;
	} else
		return fail(why, len, "only absolute http:// and https:// "
		    "URLs are fetched");
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++) {
		if (*p == '@')
			return fail(why, len, "user info in a URL "
			    "(user@host) is not allowed");
		if (*p == '\\' || *p == '%' || (unsigned char)*p <= 0x20 ||
		    (unsigned char)*p >= 0x7f)
			return fail(why, len, "the host of the URL holds a "
			    "character that is not allowed");
	}
	if (*auth == '[') {
		hs = auth + 1;
		if (!(he = memchr(hs, ']', end - hs)))
			return fail(why, len, "unterminated [ in the URL's "
			    "host");
		c = he + 1;
		if (c < end && *c != ':')
			return fail(why, len, "bad host in the URL");
	} else {
		hs = auth;
		he = memchr(auth, ':', end - auth);
		if (!he)
			he = end;
		c = he;
	}
	n = he - hs;
	if (n == 0)
		return fail(why, len, "the URL has no host");
	if (n >= sizeof u->host)
		return fail(why, len, "the URL's host is too long");
	u->port = dflt;
	if (c < end) {	/* ":port" */
		c++;
		if ((size_t)(end - c) >= sizeof port)
			return fail(why, len, "bad port in the URL");
		memcpy(port, c, end - c);
		port[end - c] = '\0';
		for (i = 0; port[i]; i++)
			if (!isdigit((unsigned char)port[i]))
				return fail(why, len, "bad port in the URL");
		if (port[0]) {
			pn = strtol(port, NULL, 10);
			if (pn < 1 || pn > 65535)
				return fail(why, len, "bad port in the URL");
			u->port = (int)pn;
		}
	}
	for (i = 0; i < n; i++)
		u->host[i] = tolower((unsigned char)hs[i]);
	u->host[n] = '\0';
	if (*auth == '[') {
		if (strchr(u->host, '%') ||
		    inet_pton(AF_INET6, u->host, &a6) != 1)
			return fail(why, len, "bad IPv6 address in the URL");
		inet_ntop(AF_INET6, &a6, v6, sizeof v6);
		snprintf(u->host, sizeof u->host, "%s", v6);
		u->literal = 6;
	} else {
		if (n > 1 && u->host[n - 1] == '.')
			u->host[--n] = '\0';
		for (i = 0, lab = 0; i < n; i++) {
			c = &u->host[i];
			if (*c == '.') {
				if (lab == 0)
					return fail(why, len, "an empty "
					    "label in the URL's host");
				lab = 0;
				continue;
			}
			if (!isalnum((unsigned char)*c) && *c != '-' &&
			    *c != '_')
				return fail(why, len, "the host of the URL "
				    "holds a character that is not allowed");
			if (++lab > 63)
				return fail(why, len, "a label of the URL's "
				    "host is too long");
		}
		if (lab == 0)
			return fail(why, len, "an empty label in the URL's "
			    "host");
		if (endsinnumber(u->host)) {
			if (!oxi_ssrf_aton(u->host, &v4))
				return fail(why, len, "bad IPv4 address in "
				    "the URL");
			a4.s_addr = htonl((uint32_t)v4);
			inet_ntop(AF_INET, &a4, u->host, sizeof u->host);
			u->literal = 4;
		}
	}
	if (catpath(&b, end, why, len) < 0) {
		oxi_buf_free(&b);
		return -1;
	}
	u->path = b.s;
	b = (struct oxi_buf)OXI_BUF_INIT;
	if (u->port == dflt)
		snprintf(u->origin, sizeof u->origin, "%s://%s%s%s", u->scheme,
		    u->literal == 6 ? "[" : "", u->host,
		    u->literal == 6 ? "]" : "");
	else
		snprintf(u->origin, sizeof u->origin, "%s://%s%s%s:%d",
		    u->scheme, u->literal == 6 ? "[" : "", u->host,
		    u->literal == 6 ? "]" : "", u->port);
	oxi_buf_printf(&b, "%s%s", u->origin, u->path);
	u->url = b.s;
	return 0;
}

/* the IPv4 ranges that are not public, most specific first */
static const struct {
	uint32_t net, mask;
	const char *what;
} v4bad[] = {
	{ 0xffffffff, 0xffffffff, "the broadcast address" },
	{ 0x00000000, 0xff000000, "a \"this network\" address (0/8)" },
	{ 0x0a000000, 0xff000000, "a private address (10/8)" },
	{ 0x64400000, 0xffc00000, "a shared (CGNAT) address (100.64/10)" },
	{ 0x7f000000, 0xff000000, "a loopback address (127/8)" },
	{ 0xa9fea9fe, 0xffffffff, "the cloud metadata address" },
	{ 0xa9fe0000, 0xffff0000, "a link-local address (169.254/16)" },
	{ 0xac100000, 0xfff00000, "a private address (172.16/12)" },
	{ 0xc0000000, 0xffffff00, "an IETF protocol address (192.0.0/24)" },
	{ 0xc0000200, 0xffffff00, "a documentation address (192.0.2/24)" },
	{ 0xc0586300, 0xffffff00, "a 6to4 relay address (192.88.99/24)" },
	{ 0xc0a80000, 0xffff0000, "a private address (192.168/16)" },
	{ 0xc6120000, 0xfffe0000, "a benchmarking address (198.18/15)" },
	{ 0xc6336400, 0xffffff00, "a documentation address (198.51.100/24)" },
	{ 0xcb007100, 0xffffff00, "a documentation address (203.0.113/24)" },
	{ 0xe0000000, 0xf0000000, "a multicast address (224/4)" },
	{ 0xf0000000, 0xf0000000, "a reserved address (240/4)" },
	{ 0, 0, NULL }
};

int
oxi_ssrf_v4(unsigned long v4, char *why, size_t len)
{
	uint32_t a = (uint32_t)v4;
	int i;

	for (i = 0; v4bad[i].what; i++)
		if ((a & v4bad[i].mask) == v4bad[i].net) {
			snprintf(why, len, "%s", v4bad[i].what);
			return -1;
		}
	return 0;
}

static uint32_t
v4at(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* the first n bits of a and p agree */
static int
prefix(const unsigned char *a, const unsigned char *p, int bits)
{
	int full = bits / 8, rest = bits % 8;

	if (memcmp(a, p, full) != 0)
		return 0;
	return rest == 0 ||
	    ((a[full] ^ p[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

int
oxi_ssrf_v6(const unsigned char *a, char *why, size_t len)
{
	static const unsigned char mapped[12] =
	    { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff };
	static const unsigned char nat64[12] =
	    { 0,0x64,0xff,0x9b, 0,0,0,0, 0,0,0,0 };
	static const unsigned char nat64l[6] = { 0,0x64,0xff,0x9b,0,1 };
	static const unsigned char p2002[2] = { 0x20, 0x02 };
	static const unsigned char p2001[4] = { 0x20, 0x01, 0, 0 };
	static const unsigned char pdoc[4] = { 0x20, 0x01, 0x0d, 0xb8 };
	static const unsigned char pdoc2[3] = { 0x3f, 0xff, 0x00 };
	static const unsigned char zero[16];
	char sub[128];
	const char *what = NULL;

	if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1))
		what = a[15] ? "the IPv6 loopback address (::1)" :
		    "the unspecified IPv6 address (::)";
	else if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0) {
		if (oxi_ssrf_v4(v4at(a + 12), sub, sizeof sub) < 0) {
			snprintf(why, len, "an IPv6 address (%s) holding %s",
			    a[10] ? "IPv4-mapped" : "NAT64", sub);
			return -1;
		}
		return 0;
	} else if (prefix(a, zero, 96))
		what = "an IPv4-compatible IPv6 address (::/96)";
	else if (prefix(a, nat64l, 48))
		what = "a local NAT64 address (64:ff9b:1::/48)";
	else if (prefix(a, p2002, 16))
		what = "a 6to4 address (2002::/16)";
	else if (prefix(a, p2001, 32))
		what = "a Teredo address (2001::/32)";
	else if (prefix(a, pdoc, 32) || prefix(a, pdoc2, 20))
		what = "an IPv6 documentation address";
	else if (prefix(a, p2001, 23))
		what = "an IETF special-purpose IPv6 address (2001::/23)";
	else if (a[0] == 0xff)
		what = "an IPv6 multicast address (ff00::/8)";
	else if ((a[0] & 0xfe) == 0xfc)
		what = "a unique local IPv6 address (fc00::/7)";
	else if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		what = "a link-local IPv6 address (fe80::/10)";
	else if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		what = "a site-local IPv6 address (fec0::/10)";
	else if ((a[0] & 0xe0) != 0x20)
		what = "an IPv6 address outside global unicast (2000::/3)";
	if (!what)
		return 0;
	snprintf(why, len, "%s", what);
	return -1;
}

int
oxi_ssrf_addr(const struct sockaddr *sa, char *why, size_t len)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET)
		return oxi_ssrf_v4(ntohl(s4->sin_addr.s_addr), why, len);
	if (sa->sa_family == AF_INET6)
		return oxi_ssrf_v6(s6->sin6_addr.s6_addr, why, len);
	snprintf(why, len, "not an Internet address");
	return -1;
}

int
oxi_ssrf_allowed(const struct sockaddr *sa, int port)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	const char *v = oxi_getenv("OXI_SSRF_ALLOW"), *p;
	char ent[32];
	size_t k;
	long pn;
	int hit = 0;

	for (p = v; p && *p; p += k) {
		p += strspn(p, ", \t");
		if (!(k = strcspn(p, ", \t")))
			break;
		if (k >= sizeof ent || k <= 10 ||
		    strncmp(p, "127.0.0.1:", 10) != 0)
			return -1;
		memcpy(ent, p + 10, k - 10);
		ent[k - 10] = '\0';
		if (strspn(ent, "0123456789") != k - 10 ||
		    (pn = strtol(ent, NULL, 10)) < 1 || pn > 65535)
			return -1;
		if (sa->sa_family == AF_INET && pn == port &&
		    ntohl(s4->sin_addr.s_addr) == 0x7f000001)
			hit = 1;
	}
	return hit;
}

static int
sysresolve(const char *host, struct sockaddr_storage *out, int max, char *why,
    size_t len)
{
	struct addrinfo hints, *res, *ai;
	int r, n = 0;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(host, NULL, &hints, &res);
	if (r != 0) {
		snprintf(why, len, "unable to resolve '%s': %s", host,
		    r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		return -1;
	}
	for (ai = res; ai && n < max; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof *out)
			continue;
		memset(&out[n], 0, sizeof out[n]);
		memcpy(&out[n], ai->ai_addr, ai->ai_addrlen);
		n++;
	}
	freeaddrinfo(res);
	if (n == 0) {
		snprintf(why, len, "unable to resolve '%s': no address", host);
		return -1;
	}
	return n;
}

static void
setport(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static void
addrtext(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
		    buf, len);
	else
		inet_ntop(AF_INET6,
		    &((const struct sockaddr_in6 *)ss)->sin6_addr, buf, len);
}

int
oxi_ssrf_pin(const struct oxi_url *u, struct sockaddr_storage *pin, char *why,
    size_t len)
{
	struct sockaddr_storage a[MAXADDR];
	char what[128], txt[INET6_ADDRSTRLEN];
	int n, i, ok;

	memset(a, 0, sizeof a);
	if (u->literal == 4) {
		a[0].ss_family = AF_INET;
		inet_pton(AF_INET, u->host,
		    &((struct sockaddr_in *)&a[0])->sin_addr);
		n = 1;
	} else if (u->literal == 6) {
		a[0].ss_family = AF_INET6;
		inet_pton(AF_INET6, u->host,
		    &((struct sockaddr_in6 *)&a[0])->sin6_addr);
		n = 1;
	} else if ((n = oxi_ssrf_resolve(u->host, a, MAXADDR, why, len)) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		setport(&a[i], u->port);
		if (oxi_ssrf_addr((struct sockaddr *)&a[i], what,
		    sizeof what) == 0)
			continue;
		ok = oxi_ssrf_allowed((struct sockaddr *)&a[i], u->port);
		if (ok < 0) {
			snprintf(why, len, "OXI_SSRF_ALLOW may only list "
			    "127.0.0.1:PORT entries");
			return -1;
		}
		if (ok)
			continue;
		addrtext(&a[i], txt, sizeof txt);
		if (u->literal)
			snprintf(why, len, "%s is %s", txt, what);
		else
			snprintf(why, len, "'%s' resolves to %s, %s", u->host,
			    txt, what);
		return -1;
	}
	*pin = a[0];
	return 0;
}

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
		addrtext(&h.pin, txt, sizeof txt);
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
	curl_easy_setopt(e, CURLOPT_URL, u->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS,
	    CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROXY, "");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, ms < 10000 ? ms :
	    10000L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "oxi/" OXI_VERSION);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, onbody);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &h);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, onheader);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, &h);
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
	static int ready;
	struct oxi_url u;
	const char *method, *body = req->body;
	char why[256], *url, *next = NULL, origin[300];
	long long t0 = oxi_clock_ms(), left;
	int hop, r, hdrs = 1;

	memset(res, 0, sizeof *res);
	if (!ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			seterr(res, "%s", "unable to initialise libcurl");
			return -1;
		}
		ready = 1;
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
