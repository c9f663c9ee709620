/*
 * ssrf.c - the address policy of the web tools
 *
 * A tool that fetches what a model asks for must not become a way into
 * the machine's own network (server-side request forgery).  So the host
 * of a URL (parsed by url.c) is resolved once; every address it resolves
 * to must be public (not loopback, private, link-local, shared, reserved,
 * multicast, or an IPv6 form that carries one of those: mapped, NAT64,
 * 6to4, Teredo); and the first address checked is the one to connect to
 * (fetch.c pins the connection to it).
 *
 * Tests reach their server on 127.0.0.1 only through $OXI_SSRF_ALLOW,
 * which lists exact "127.0.0.1:PORT" pairs and nothing else.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"

#define MAXADDR		16	/* addresses of a host looked at */

static int sysresolve(const char *, struct sockaddr_storage *, int, char *,
    size_t);

int (*oxi_ssrf_resolve)(const char *, struct sockaddr_storage *, int, char *,
    size_t) = sysresolve;

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

void
oxi_ssrf_ntop(const struct sockaddr_storage *ss, char *buf, size_t len)
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
	if (n == 0) {		/* a resolver may answer with nothing */
		snprintf(why, len, "'%s' resolves to no address", u->host);
		return -1;
	}
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
		oxi_ssrf_ntop(&a[i], txt, sizeof txt);
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
