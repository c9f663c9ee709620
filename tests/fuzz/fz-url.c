/*
 * fz-url.c - URL parsing and the address policy (net/url.c, ssrf.c), what
 * web_fetch and http_request apply to every URL a model asks for: a URL
 * that parses has a canonical form that parses to itself, an address
 * literal host is a real address, and the policy judges an IPv4 address
 * and its IPv4-mapped IPv6 form alike; the resolver is replaced by one
 * that answers with addresses taken from the input
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "fz.h"

static const uint8_t *in;	/* the input, for the resolver */
static size_t inlen;

/* up to 2 addresses from the input's last bytes: v4, v6, both or none */
static int
fakeresolve(const char *host, struct sockaddr_storage *out, int max,
    char *why, size_t len)
{
	struct sockaddr_in *s4;
	struct sockaddr_in6 *s6;
	int n = 0;

	(void)host;
	if (inlen < 21 || max < 2) {
		snprintf(why, len, "no address");
		return -1;
	}
	memset(out, 0, 2 * sizeof *out);
	if (in[inlen - 1] & 1) {
		s4 = (struct sockaddr_in *)&out[n++];
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, in + inlen - 5, 4);
	}
	if (in[inlen - 1] & 2) {
		s6 = (struct sockaddr_in6 *)&out[n++];
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, in + inlen - 21, 16);
	}
	if (n == 0) {		/* as getaddrinfo: never success and none */
		snprintf(why, len, "no address");
		return -1;
	}
	return n;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("OXI_SSRF_ALLOW");
	oxi_ssrf_resolve = fakeresolve;
	return 0;
}

static void
url(const char *s)
{
	struct sockaddr_storage pin;
	struct oxi_url u, again;
	unsigned char a[16];
	char why[256], why2[256];
	int fam;

	if (oxi_url_parse(&u, s, why, sizeof why) < 0) {
		FZ_CHECK(why[0] != '\0', "refused without a reason");
		return;
	}
	FZ_CHECK(strcmp(u.scheme, "http") == 0 || strcmp(u.scheme, "https") == 0,
	    "a scheme other than http(s)");
	FZ_CHECK(u.port > 0 && u.port < 65536, "a port out of range");
	FZ_CHECK(u.host[0] != '\0' && u.path && u.path[0] == '/' && u.url,
	    "an empty host or a path without /");
	FZ_CHECK(strncmp(u.url, u.origin, strlen(u.origin)) == 0,
	    "the URL does not start with its origin");
	if (u.literal) {
		fam = u.literal == 4 ? AF_INET : AF_INET6;
		FZ_CHECK(u.literal == 4 || u.literal == 6, "literal not 4 or 6");
		FZ_CHECK(inet_pton(fam, u.host, a) == 1,
		    "an address literal that is no address");
	}
	/* the canonical form is a fixed point */
	FZ_CHECK(oxi_url_parse(&again, u.url, why2, sizeof why2) == 0,
	    "the canonical URL does not parse");
	FZ_CHECK(strcmp(again.url, u.url) == 0 &&
	    strcmp(again.host, u.host) == 0 && again.port == u.port &&
	    again.literal == u.literal,
	    "the canonical URL parses to something else");
	oxi_url_free(&again);
	if (oxi_ssrf_pin(&u, &pin, why, sizeof why) == 0)
		FZ_CHECK(oxi_ssrf_addr((struct sockaddr *)&pin, why2,
		    sizeof why2) == 0, "a pinned address the policy refuses");
	oxi_url_free(&u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	unsigned char v6[16];
	unsigned long v4;
	char *s, why[256], why6[256];
	int r4, r6;

	in = d;
	inlen = n;
	s = malloc(n + 1);
	memcpy(s, d, n);
	s[n] = '\0';
	url(s);
	if (oxi_ssrf_aton(s, &v4))
		FZ_CHECK(v4 <= 0xffffffffUL, "an IPv4 address past 32 bits");
	free(s);

	/* 4 bytes as IPv4, and the same as ::ffff:a.b.c.d */
	if (n >= 4) {
		v4 = (unsigned long)d[0] << 24 | d[1] << 16 | d[2] << 8 | d[3];
		memset(v6, 0, sizeof v6);
		v6[10] = v6[11] = 0xff;
		memcpy(v6 + 12, d, 4);
		r4 = oxi_ssrf_v4(v4, why, sizeof why);
		r6 = oxi_ssrf_v6(v6, why6, sizeof why6);
		FZ_CHECK(r4 == r6, "IPv4 and IPv4-mapped judged apart");
	}
	if (n >= 16)
		(void)oxi_ssrf_v6(d, why, sizeof why);
	return 0;
}
