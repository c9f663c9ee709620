/*
 * t-ssrf.c - the address policy of the web tools: URL parsing, odd IPv4
 * notations, every range refused, the test switch, resolution checked
 * in full, and DNS rebinding defeated by pinning the first answer
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "tap.h"

/* the fake resolver's answers, one list per call; the last repeats */
static const char *answers[4][4];
static int nanswers, calls;

static int
fakeresolve(const char *host, struct sockaddr_storage *out, int max,
    char *why, size_t len)
{
	const char *const *a;
	int n = 0, k = calls < nanswers ? calls : nanswers - 1;

	(void)host;
	calls++;
	if (nanswers == 0) {
		snprintf(why, len, "no answer");
		return -1;
	}
	for (a = answers[k]; *a && n < max; a++, n++) {
		memset(&out[n], 0, sizeof out[n]);
		if (strchr(*a, ':')) {
			out[n].ss_family = AF_INET6;
			inet_pton(AF_INET6, *a,
			    &((struct sockaddr_in6 *)&out[n])->sin6_addr);
		} else {
			out[n].ss_family = AF_INET;
			inet_pton(AF_INET, *a,
			    &((struct sockaddr_in *)&out[n])->sin_addr);
		}
	}
	return n;
}

static void
answer(int k, const char *a, const char *b)
{
	answers[k][0] = a;
	answers[k][1] = b;
	answers[k][2] = NULL;
	nanswers = k + 1;
}

/* parses url and checks it against the policy: 0 allowed, -1 refused */
static int
pin(const char *url, char *why, size_t len, char *addr, size_t alen)
{
	struct sockaddr_storage ss;
	struct oxi_url u;
	int r;

	why[0] = '\0';
	if (oxi_url_parse(&u, url, why, len) < 0)
		return -1;
	r = oxi_ssrf_pin(&u, &ss, why, len);
	if (r == 0 && addr) {
		if (ss.ss_family == AF_INET)
			inet_ntop(AF_INET,
			    &((struct sockaddr_in *)&ss)->sin_addr, addr, alen);
		else
			inet_ntop(AF_INET6,
			    &((struct sockaddr_in6 *)&ss)->sin6_addr, addr,
			    alen);
	}
	oxi_url_free(&u);
	return r;
}

static int
v4(const char *s, char *why)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return 99;
	return oxi_ssrf_v4(ntohl(a.s_addr), why, 128);
}

static int
v6(const char *s, char *why)
{
	struct in6_addr a;

	if (inet_pton(AF_INET6, s, &a) != 1)
		return 99;
	return oxi_ssrf_v6(a.s6_addr, why, 128);
}

/* a one-shot HTTP server on 127.0.0.1 in a child: its port */
static pid_t server;

static int
serve(void)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	char buf[4096];
	static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n"
	    "Connection: close\r\n\r\npinned";
	int s, c, n;

	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(0x7f000001);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(s, 8) < 0 || getsockname(s, (struct sockaddr *)&sa,
	    &sl) < 0) {
		perror("server");
		exit(2);
	}
	if ((server = fork()) == 0) {
		for (;;) {
			if ((c = accept(s, NULL, NULL)) < 0)
				continue;
			n = read(c, buf, sizeof buf);
			if (n > 0 && write(c, reply, sizeof reply - 1) < 0)
				_exit(1);
			close(c);
		}
	}
	close(s);
	return ntohs(sa.sin_port);
}

int
main(void)
{
	static const char *bad4[] = {
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255",
		"100.64.0.1", "100.127.255.254", "127.0.0.1", "127.255.0.9",
		"169.254.169.254", "169.254.0.1", "172.16.0.1",
		"172.31.255.255", "192.0.0.1", "192.0.0.170", "192.0.2.1",
		"192.168.0.1", "192.168.255.255", "198.18.0.1",
		"198.19.255.255", "198.51.100.7", "203.0.113.9",
		"224.0.0.1", "239.255.255.250", "240.0.0.1",
		"255.255.255.254", "255.255.255.255", NULL
	};
	static const char *good4[] = {
		"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0",
		"100.63.255.255", "100.128.0.0", "126.255.255.255",
		"128.0.0.0", "169.253.255.255", "169.255.0.0",
		"172.15.255.255", "172.32.0.0", "192.0.1.1", "192.167.1.1",
		"192.169.0.1", "198.17.255.255", "198.20.0.0",
		"223.255.255.255", NULL
	};
	static const char *bad6[] = {
		"::", "::1", "fc00::1", "fd12:3456::1", "fe80::1",
		"febf::ffff", "fec0::1", "ff02::1", "ff0e::114",
		"::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.1.2.3",
		"::ffff:169.254.169.254", "::ffff:192.168.1.1",
		"::ffff:0.0.0.0", "::127.0.0.1", "::8.8.8.8",
		"64:ff9b::127.0.0.1", "64:ff9b::a00:1",
		"64:ff9b::169.254.169.254", "64:ff9b:1::1",
		"64:ff9b:1:ffff::8.8.8.8", "2002:7f00:1::1",
		"2002:808:808::1", "2001::1", "2001:0:4136:e378:8000::1",
		"2001:db8::1", "2001:2::1", "3fff::1", "100::1",
		"1000::1", "4000::1", NULL
	};
	static const char *good6[] = {
		"2606:4700:4700::1111", "2a00:1450:4001::200e",
		"::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2400:cb00::1", NULL
	};
	static const struct { const char *in; unsigned long v; } aton[] = {
		{ "2130706433", 0x7f000001 }, { "0177.0.0.1", 0x7f000001 },
		{ "0x7f.1", 0x7f000001 }, { "127.1", 0x7f000001 },
		{ "0x7F000001", 0x7f000001 }, { "017700000001", 0x7f000001 },
		{ "127.0.1", 0x7f000001 }, { "0x7f.0x0.0x0.0x1", 0x7f000001 },
		{ "1.2.3.4", 0x01020304 }, { "0", 0 }, { "0x", 0 },
		{ "10.0x10203", 0x0a010203 }, { "4294967295", 0xffffffff },
		{ NULL, 0 }
	};
	static const char *notaton[] = {
		"1.2.3.4.5", "256.1.1.1", "1.2.3.256", "08", "0x1g",
		"4294967296", "1..2", "1.2.3.", "", "1.65536.1", "a.b", NULL
	};
	/* URLs whose host is an address that must be refused */
	static const char *badurls[] = {
		"http://127.0.0.1/", "http://2130706433/",
		"http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/",
		"http://0x7f000001/", "http://017700000001/",
		"http://127.0.0.1./", "HTTP://0X7F.0.0.1:80/a",
		"http://0/", "http://0.0.0.0:8080/", "http://10.1.2.3/",
		"http://012.1.2.3/", "http://172.16.0.1/",
		"http://192.168.1.1/", "http://169.254.169.254/latest/",
		"http://0xa9fea9fe/", "http://2852039166/",
		"http://100.64.0.1/", "http://[::1]/", "http://[::]/",
		"http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
		"http://[::ffff:a9fe:a9fe]/", "http://[0:0:0:0:0:ffff:127.0.0.1]/",
		"http://[64:ff9b::127.0.0.1]/", "http://[64:ff9b:1::a]/",
		"http://[2002:7f00:1::]/", "http://[2001::5ef5:79fd]/",
		"http://[fc00::1]/", "http://[fe80::1]/", "http://[ff02::1]/",
		"https://[::1]:443/", NULL
	};
	static const char *badsyntax[] = {
		"http://evil@127.0.0.1/", "http://user:pw@example.com/",
		"http://example.com@127.0.0.1/", "http://@127.0.0.1/",
		"ftp://example.com/", "file:///etc/passwd",
		"gopher://127.0.0.1/", "//example.com/", "example.com",
		"http://", "http:///x", "http://exa mple.com/",
		"http://example.com:0/", "http://example.com:65536/",
		"http://example.com:8x/", "http://[::1/",
		"http://[fe80::1%25eth0]/", "http://ex%41mple.com/",
		"http://example.com\\@127.0.0.1/", "http://a..b/",
		"http://1.2.3.4.5/", "http://256.0.0.1/", "http://08.0.0.1/",
		"http://caf\xc3\xa9.example/", "http://example.com/\n", NULL
	};
	char why[256], addr[64];
	const char *const *p;
	struct oxi_url u;
	unsigned long a;
	int i, n, r, port, status;
	struct oxi_web_req req;
	struct oxi_web_res res;

	plan(34);
	unsetenv("OXI_SSRF_ALLOW");
	oxi_ssrf_resolve = fakeresolve;

	for (n = 0, r = 0, p = bad4; *p; p++, n++)
		if (v4(*p, why) != -1) {
			printf("# %s not refused\n", *p);
			r++;
		}
	ok(r == 0, "every non-public IPv4 range is refused (%d)", n);
	for (r = 0, p = good4; *p; p++)
		if (v4(*p, why) != 0) {
			printf("# %s refused: %s\n", *p, why);
			r++;
		}
	ok(r == 0, "the public addresses at their edges are not");
	for (n = 0, r = 0, p = bad6; *p; p++, n++)
		if (v6(*p, why) != -1) {
			printf("# %s not refused\n", *p);
			r++;
		}
	ok(r == 0, "every non-public IPv6 form is refused (%d)", n);
	for (r = 0, p = good6; *p; p++)
		if (v6(*p, why) != 0) {
			printf("# %s refused: %s\n", *p, why);
			r++;
		}
	ok(r == 0, "public IPv6, and public IPv4 mapped or NAT64, are not");
	v6("::ffff:127.0.0.1", why);
	is_str(why, "an IPv6 address (IPv4-mapped) holding a loopback "
	    "address (127/8)", "a mapped address is judged by its IPv4");
	v4("169.254.169.254", why);
	is_str(why, "the cloud metadata address", "the metadata address "
	    "is named");

	for (r = 0, i = 0; aton[i].in; i++)
		if (!oxi_ssrf_aton(aton[i].in, &a) || a != aton[i].v) {
			printf("# %s\n", aton[i].in);
			r++;
		}
	ok(r == 0, "inet_aton forms: decimal, octal, hex, short");
	for (r = 0, p = notaton; *p; p++)
		if (oxi_ssrf_aton(*p, &a)) {
			printf("# %s accepted\n", *p);
			r++;
		}
	ok(r == 0, "and what inet_aton refuses");

	is_int(oxi_url_parse(&u, "HTTP://Example.COM./a b/\xc3\xa9?q=1#frag",
	    why, sizeof why), 0, "a URL with a space and UTF-8 parses");
	is_str(u.url, "http://example.com/a%20b/%C3%A9?q=1",
	    "lower-cased host, no trailing dot, encoded path, no fragment");
	ok(u.port == 80 && u.literal == 0 && strcmp(u.origin,
	    "http://example.com") == 0, "port and origin");
	oxi_url_free(&u);
	is_int(oxi_url_parse(&u, "https://x.org:8443?a", why, sizeof why), 0,
	    "an explicit port and a bare query");
	is_str(u.url, "https://x.org:8443/?a", "keep the port, add the /");
	oxi_url_free(&u);
	oxi_url_parse(&u, "http://0x7f.1:81/", why, sizeof why);
	ok(u.literal == 4 && strcmp(u.url, "http://127.0.0.1:81/") == 0,
	    "an odd IPv4 host is normalised (%s)", u.url);
	oxi_url_free(&u);
	oxi_url_parse(&u, "http://[0:0::FFFF:7F00:1]/", why, sizeof why);
	ok(u.literal == 6 && strcmp(u.url, "http://[::ffff:127.0.0.1]/") ==
	    0, "an IPv6 host is normalised (%s)", u.url);
	oxi_url_free(&u);

	for (n = 0, r = 0, p = badsyntax; *p; p++, n++)
		if (oxi_url_parse(&u, *p, why, sizeof why) == 0) {
			printf("# %s accepted\n", *p);
			oxi_url_free(&u);
			r++;
		}
	ok(r == 0, "user info, other schemes and bad hosts are refused (%d)",
	    n);
	oxi_url_parse(&u, "http://evil@127.0.0.1", why, sizeof why);
	is_str(why, "user info in a URL (user@host) is not allowed",
	    "user info is named as such");

	nanswers = 0;
	for (n = 0, r = 0, p = badurls; *p; p++, n++)
		if (pin(*p, why, sizeof why, NULL, 0) == 0) {
			printf("# %s allowed\n", *p);
			r++;
		}
	ok(r == 0 && calls == 0, "every address URL of the list is refused "
	    "(%d), without a lookup", n);
	pin("http://0x7f.1/", why, sizeof why, NULL, 0);
	is_str(why, "127.0.0.1 is a loopback address (127/8)",
	    "the reason names the address");

	answer(0, "127.0.0.1", NULL);
	is_int(pin("http://localhost/", why, sizeof why, NULL, 0), -1,
	    "a name that resolves to loopback is refused");
	is_str(why, "'localhost' resolves to 127.0.0.1, a loopback address "
	    "(127/8)", "the reason names the name and the address");
	answer(0, "169.254.169.254", NULL);
	is_int(pin("http://metadata.google.internal/", why, sizeof why,
	    NULL, 0), -1, "a name of the metadata address is refused");
	answer(0, "93.184.215.14", "10.0.0.5");
	is_int(pin("http://mixed.example/", why, sizeof why, NULL, 0), -1,
	    "a public and a private answer: refused, every answer counts");
	answer(0, "2606:4700::6810:1", "fd00::1");
	is_int(pin("http://mixed6.example/", why, sizeof why, NULL, 0), -1,
	    "the same over IPv6");
	answer(0, "93.184.215.14", "2606:4700::6810:1");
	is_int(pin("http://example.com/", why, sizeof why, addr,
	    sizeof addr), 0, "public answers are allowed");
	is_str(addr, "93.184.215.14", "the first answer is the one pinned");
	answer(0, NULL, NULL);
	ok(pin("http://empty.example/", why, sizeof why, NULL, 0) == -1 &&
	    strstr(why, "resolves to no address") != NULL,
	    "a resolver answering no address is refused, nothing pinned");

	/* the test switch: exact 127.0.0.1:PORT, nothing else */
	setenv("OXI_SSRF_ALLOW", "127.0.0.1:8080", 1);
	r = pin("http://127.0.0.1:8080/", why, sizeof why, NULL, 0);
	ok(r == 0 && pin("http://127.0.0.1:8081/", why, sizeof why, NULL,
	    0) < 0 && pin("http://127.0.0.2:8080/", why, sizeof why, NULL,
	    0) < 0 && pin("http://[::ffff:127.0.0.1]:8080/", why, sizeof why,
	    NULL, 0) < 0 && pin("http://[::1]:8080/", why, sizeof why, NULL,
	    0) < 0 && pin("http://169.254.169.254:8080/", why, sizeof why,
	    NULL, 0) < 0, "OXI_SSRF_ALLOW admits its host:port only");
	setenv("OXI_SSRF_ALLOW", "10.0.0.1:80", 1);
	ok(pin("http://10.0.0.1/", why, sizeof why, NULL, 0) < 0 &&
	    strstr(why, "OXI_SSRF_ALLOW") != NULL,
	    "an entry other than 127.0.0.1:PORT refuses everything");
	setenv("OXI_SSRF_ALLOW", "127.0.0.1:0", 1);
	ok(pin("http://127.0.0.1:80/", why, sizeof why, NULL, 0) < 0,
	    "a bad port in OXI_SSRF_ALLOW refuses everything");

	/* DNS rebinding: the first answer is checked and pinned */
	port = serve();
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	setenv("OXI_SSRF_ALLOW", addr, 1);
	answer(0, "127.0.0.1", NULL);
	answer(1, "127.0.0.2", NULL);
	calls = 0;
	memset(&req, 0, sizeof req);
	snprintf(why, sizeof why, "http://rebind.test:%d/", port);
	req.url = why;
	req.max = 1000;
	req.total_ms = 5000;
	req.guard = 1;
	r = oxi_web_request(&req, &res);
	ok(r == 0 && res.status == 200 && res.body.len == 6 &&
	    memcmp(res.body.s, "pinned", 6) == 0,
	    "a name is fetched from the address checked (%s)", res.err);
	is_int(calls, 1, "the name was resolved once: no second lookup");
	oxi_web_res_free(&res);
	answer(0, "127.0.0.2", NULL);
	calls = 0;
	r = oxi_web_request(&req, &res);
	ok(r < 0 && strstr(res.err, "resolves to 127.0.0.2") != NULL,
	    "a first answer outside the switch is refused (%s)", res.err);
	oxi_web_res_free(&res);
	answer(0, "127.0.0.1", NULL);
	req.max = 3;
	r = oxi_web_request(&req, &res);
	ok(r == 0 && res.cut && res.body.len == 3,
	    "the body is cut at max");
	oxi_web_res_free(&res);

	kill(server, SIGTERM);
	waitpid(server, &status, 0);
	return done();
}
