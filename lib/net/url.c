/*
 * url.c - absolute http and https URLs, parsed the strict way
 *
 * A URL a model hands a web tool is parsed here before libcurl or the
 * address policy (ssrf.c) sees it: no user info, no backslash, percent
 * or non-ASCII byte in the host, a host that ends in a number must be an
 * IPv4 address in one of the inet_aton(3) forms and is normalised to a
 * dotted quad, an IPv6 literal is put in canonical form.  What libcurl
 * would refuse in the path is percent-encoded and the fragment dropped,
 * so that the URL the policy judged is the URL that is fetched.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oxi.h"
#include "net/net.h"

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
