/*
 * wsc.c - a tiny WebSocket client over lib/net/websock.c for the tests
 * (t1004): it opens URL, then runs the commands of its stdin, one a line,
 * and writes what each gives, one line each, to stdout:
 *
 *	text STRING	sends a text message		(nothing)
 *	binary N	sends N bytes 0, 1, ... 255, 0, ...	(nothing)
 *	ping STRING	sends a ping			(nothing)
 *	send OP STRING	sends STRING with opcode OP	ok / error ERR
 *	recv		waits -t ms for a message:	text LEN DATA,
 *			binary LEN SHA1, pong DATA, close CODE REASON,
 *			timeout, or error CODE ERR
 *	close CODE WHY	oxi_ws_close			closed RC
 *	sleep MS
 *
 * A DATA over 200 bytes is shown as sha1:HEX.  usage: wsc [-t ms]
 * [-c connect_ms] [-m max] [-H header]... [-A cafile] URL; exit 0, or 111
 * if the URL does not open (its reason on stderr).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "net/wsframe.h"

static void
show(const char *what, const unsigned char *p, size_t n)
{
	unsigned char d[20];
	int i;

	if (n <= 200 && memchr(p, '\n', n) == NULL) {
		printf("%s %zu %.*s\n", what, n, (int)n, (const char *)p);
		return;
	}
	oxi_sha1(p, n, d);
	printf("%s %zu sha1:", what, n);
	for (i = 0; i < 20; i++)
		printf("%02x", d[i]);
	putchar('\n');
}

int
main(int argc, char **argv)
{
	const char *hdrs[16] = { NULL };
	struct oxi_ws_opts o = { 0, 0, hdrs, NULL };
	struct oxi_buf err = OXI_BUF_INIT;
	struct oxi_ws_msg m;
	struct oxi_ws *ws;
	char line[65536], *arg;
	unsigned char *big;
	int c, nh = 0, t = 2000, r;
	size_t n, i;

	while ((c = getopt(argc, argv, "A:c:H:m:t:")) != -1)
		switch (c) {
		case 'A': o.cafile = optarg; break;
		case 'c': o.connect_ms = atol(optarg); break;
		case 'H': if (nh < 15) hdrs[nh++] = optarg; break;
		case 'm': o.max_msg = (size_t)atol(optarg); break;
		case 't': t = atoi(optarg); break;
		default: return 100;
		}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: wsc [-t ms] [-c ms] [-m max] "
		    "[-H header] [-A cafile] URL\n");
		return 100;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!(ws = oxi_ws_open(argv[optind], &o, &err))) {
		fprintf(stderr, "wsc: %s\n", err.s ? err.s : "?");
		oxi_buf_free(&err);
		return 111;
	}
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		arg = strchr(line, ' ');
		arg = arg ? arg + 1 : line + strlen(line);
		if (strncmp(line, "text ", 5) == 0)
			oxi_ws_send(ws, OXI_WS_TEXT, arg, strlen(arg));
		else if (strncmp(line, "ping ", 5) == 0)
			oxi_ws_send(ws, OXI_WS_PING, arg, strlen(arg));
		else if (strncmp(line, "binary ", 7) == 0) {
			n = (size_t)atol(arg);
			big = xmalloc(n + 1);
			for (i = 0; i < n; i++)
				big[i] = (unsigned char)i;
			oxi_ws_send(ws, OXI_WS_BINARY, big, n);
			free(big);
		} else if (strncmp(line, "send ", 5) == 0) {
			c = atoi(arg);
			arg = strchr(arg, ' ');
			arg = arg ? arg + 1 : "";
			if (oxi_ws_send(ws, c, arg, strlen(arg)) < 0)
				printf("error %s\n", oxi_ws_error(ws));
			else
				printf("ok\n");
		} else if (strcmp(line, "recv") == 0) {
			r = oxi_ws_recv(ws, &m, t);
			if (r == 0)
				printf("timeout\n");
			else if (r < 0)
				printf("error %d %s\n", m.close_code,
				    oxi_ws_error(ws));
			else if (m.op == OXI_WS_TEXT)
				show("text", m.data, m.len);
			else if (m.op == OXI_WS_BINARY)
				show("binary", m.data, m.len);
			else if (m.op == OXI_WS_PONG)
				printf("pong %.*s\n", (int)m.len, m.data);
			else if (m.op == OXI_WS_CLOSE)
				printf("close %d %.*s\n", m.close_code,
				    (int)m.len, m.data);
		} else if (strncmp(line, "close ", 6) == 0) {
			c = atoi(arg);
			arg = strchr(arg, ' ');
			printf("closed %d\n", oxi_ws_close(ws, c, arg ?
			    arg + 1 : NULL));
		} else if (strncmp(line, "sleep ", 6) == 0)
			poll(NULL, 0, atoi(arg));
	}
	oxi_ws_free(ws);
	oxi_buf_free(&err);
	return 0;
}
