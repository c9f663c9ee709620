/* t-sse.c - the Server-Sent Events parser, fed whole and split anywhere */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "tap.h"

struct tcase {
	const char *name;	/* what it checks */
	const char *in;		/* the stream */
	size_t len;		/* its length (streams may hold NUL) */
	const char *want;	/* "type=data;" per event, "id=…,retry=…" */
};

#define S(lit)	lit, sizeof(lit) - 1

static const struct tcase cases[] = {
	{ "LF", S("data: a\n\ndata: b\n\n"),
	    "message=a;message=b;id=,retry=-1" },
	{ "CR", S("data: a\r\rdata: b\r\r"),
	    "message=a;message=b;id=,retry=-1" },
	{ "CRLF", S("data: a\r\n\r\ndata: b\r\n\r\n"),
	    "message=a;message=b;id=,retry=-1" },
	{ "mixed line ends", S("data: a\r\ndata: b\rdata: c\n\r\ndata: d\n\r"),
	    "message=a|b|c;message=d;id=,retry=-1" },
	{ "comments", S(": hello\ndata: x\n:another\n\n:\n\n"),
	    "message=x;id=,retry=-1" },
	{ "multi-line data", S("data: l1\ndata: l2\ndata\ndata:\n\n"),
	    "message=l1|l2||;id=,retry=-1" },
	{ "event, id, retry",
	    S("event: add\nid: 42\nretry: 1500\ndata: x\n\ndata: y\n\n"),
	    "add=x;message=y;id=42,retry=1500" },
	{ "bad retry and id with NUL ignored",
	    S("retry: 12a\nretry:\nid: 7\nid: a\0b\ndata: z\n\n"),
	    "message=z;id=7,retry=-1" },
	{ "empty id resets it", S("id: 5\ndata: a\n\nid\ndata: b\n\n"),
	    "message=a;message=b;id=,retry=-1" },
	{ "leading BOM skipped", S("\xef\xbb\xbf" "data: bom\n\n"),
	    "message=bom;id=,retry=-1" },
	{ "BOM only at the start",
	    S("data: x\n\n\xef\xbb\xbf" "data: y\n\n"),
	    "message=x;id=,retry=-1" },
	{ "partial BOM is text", S("\xef\xbb" "data: z\n\ndata: w\n\n"),
	    "message=w;id=,retry=-1" },
	{ "empty data dispatches", S("data\n\ndata:\n\n"),
	    "message=;message=;id=,retry=-1" },
	{ "no data: no dispatch, type reset",
	    S("event: e\n\ndata: z\n\n"), "message=z;id=,retry=-1" },
	{ "no space after colon", S("data:x\ndata:  two\nevent:t\n\n"),
	    "t=x| two;id=,retry=-1" },
	{ "unknown fields ignored", S("foo: bar\nDATA: no\ndata: q\n\n"),
	    "message=q;id=,retry=-1" },
	{ "unfinished event not dispatched", S("data: a\n\ndata: b\n"),
	    "message=a;id=,retry=-1" },
	{ "unterminated line", S("data: a\n\ndata: c"),
	    "message=a;id=,retry=-1" },
	{ "blank lines only", S("\n\r\n\r\n"), "id=,retry=-1" },
	{ "colon in value", S("data: {\"a\":\"b: c\"}\n\n"),
	    "message={\"a\":\"b: c\"};id=,retry=-1" },
	{ "NUL in the type: no listener hears the event",
	    S("event: error\0x\ndata: a\n\ndata: b\n\n"),
	    "message=b;id=,retry=-1" },
	{ "a later event: field without NUL is the type",
	    S("event: a\0b\nevent: add\ndata: x\n\n"), "add=x;id=,retry=-1" },
	{ "NUL in data is carried", S("data: a\0b\ndata: \0\n\n"),
	    "message=a\\0b|\\0;id=,retry=-1" },
	{ "OpenAI style",
	    S("data: {\"x\":1}\n\ndata: [DONE]\n\n"),
	    "message={\"x\":1};message=[DONE];id=,retry=-1" },
};

static int
collect(void *arg, const char *type, const char *data, size_t len)
{
	struct oxi_buf *b = arg;
	size_t i;

	oxi_buf_cats(b, type);
	oxi_buf_putc(b, '=');
	for (i = 0; i < len; i++)	/* newlines shown as '|', NUL as \0 */
		if (data[i] == '\0')
			oxi_buf_cats(b, "\\0");
		else
			oxi_buf_putc(b, data[i] == '\n' ? '|' : data[i]);
	oxi_buf_cats(b, data[len] == '\0' ? ";" : "(no NUL);");
	return 0;
}

static char *
run(const struct tcase *t, size_t split, size_t step)
{
	struct oxi_sse s;
	struct oxi_buf b = OXI_BUF_INIT;
	size_t off, k;

	oxi_sse_init(&s, collect, &b);
	if (step) {
		for (off = 0; off < t->len; off += k) {
			k = t->len - off < step ? t->len - off : step;
			oxi_sse_feed(&s, t->in + off, k);
		}
	} else {
		oxi_sse_feed(&s, t->in, split);
		oxi_sse_feed(&s, t->in + split, t->len - split);
	}
	oxi_buf_printf(&b, "id=%s,retry=%ld", s.lastid.s ? s.lastid.s : "",
	    s.retry);
	oxi_sse_free(&s);
	return b.s;
}

static int
stop(void *arg, const char *type, const char *data, size_t len)
{
	(void)type;
	(void)data;
	(void)len;
	(*(int *)arg)++;
	return 1;
}

int
main(void)
{
	size_t i, n = sizeof cases / sizeof cases[0], split;
	struct oxi_sse s;
	char *got, big[64];
	int bad, calls;

	plan((int)n * 3 + 4);
	for (i = 0; i < n; i++) {
		got = run(&cases[i], cases[i].len, 0);
		is_str(got, cases[i].want, "%s: whole", cases[i].name);
		free(got);
		bad = 0;
		for (split = 0; split <= cases[i].len; split++) {
			got = run(&cases[i], split, 0);
			if (strcmp(got, cases[i].want) != 0) {
				if (!bad)
					printf("# split at %zu: got '%s'\n",
					    split, got);
				bad++;
			}
			free(got);
		}
		ok(bad == 0, "%s: split at every offset", cases[i].name);
		got = run(&cases[i], 0, 1);
		is_str(got, cases[i].want, "%s: one byte at a time",
		    cases[i].name);
		free(got);
	}

	/* a line over the cap */
	oxi_sse_init(&s, stop, &calls);
	s.max = 16;
	memset(big, 'x', sizeof big);
	calls = 0;
	ok(oxi_sse_feed(&s, "data: ", 6) == 0 &&
	    oxi_sse_feed(&s, big, sizeof big) == -1 && s.over,
	    "a line over max sets over and fails");
	ok(oxi_sse_feed(&s, "\n\n", 2) == -1 && calls == 0,
	    "and stays failed");
	oxi_sse_free(&s);

	/* data over the cap across lines */
	oxi_sse_init(&s, stop, &calls);
	s.max = 16;
	ok(oxi_sse_feed(&s, "data: 0123456\ndata: 0123456\ndata: 01\n", 38)
	    == -1 && s.over, "event data over max fails");
	oxi_sse_free(&s);

	/* the callback stops the parser */
	oxi_sse_init(&s, stop, &calls);
	calls = 0;
	ok(oxi_sse_feed(&s, "data: a\n\ndata: b\n\n", 18) == -1 && calls == 1,
	    "a callback returning non-zero stops parsing");
	oxi_sse_free(&s);
	return done();
}
