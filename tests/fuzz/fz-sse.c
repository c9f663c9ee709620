/*
 * fz-sse.c - the Server-Sent Events parser (net/sse.c), under every
 * streamed LLM reply: the stream is fed whole, cut at three points chosen
 * by the input, and one byte at a time, and every feeding must dispatch
 * the same events, keep the same last id and retry time, and stop at the
 * same place
 */
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "fz.h"

struct got {
	struct oxi_buf ev;	/* "type" len "data" per event */
	int stop;		/* stop after this many events (0: never) */
	int n;
};

static int
onevent(void *arg, const char *type, const char *data, size_t len)
{
	struct got *g = arg;

	FZ_CHECK(type && data && data[len] == '\0', "event not terminated");
	oxi_buf_printf(&g->ev, "%zu:", strlen(type));
	oxi_buf_cats(&g->ev, type);
	oxi_buf_printf(&g->ev, " %zu:", len);
	oxi_buf_cat(&g->ev, data, len);
	oxi_buf_putc(&g->ev, '\n');
	return ++g->n == g->stop;
}

/* feeds d[0..n) in pieces ending at the cuts (ascending), then n */
static void
feed(const uint8_t *d, size_t n, const size_t *cuts, int ncuts, size_t max,
    int stop, struct oxi_buf *out)
{
	struct got g = { OXI_BUF_INIT, stop, 0 };
	struct oxi_sse s;
	size_t off = 0, end;
	int i, r = 0;

	oxi_sse_init(&s, onevent, &g);
	if (max)
		s.max = max;
	for (i = 0; i <= ncuts && r == 0; i++, off = end) {
		end = i < ncuts ? cuts[i] : n;
		if (end > off)
			r = oxi_sse_feed(&s, (const char *)d + off, end - off);
	}
	oxi_buf_cat(out, g.ev.s, g.ev.len);
	oxi_buf_printf(out, "r=%d over=%d retry=%ld id=", r, s.over, s.retry);
	oxi_buf_cat(out, s.lastid.s, s.lastid.len);
	oxi_buf_free(&g.ev);
	oxi_sse_free(&s);
}

static int
cmpsz(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_buf whole = OXI_BUF_INIT, part = OXI_BUF_INIT;
	size_t cuts[3], *one, max, i;
	int stop;

	/* a small line cap or an early stop from the callback, sometimes */
	max = n > 6 && (d[4] & 1) ? 1 + d[5] % 128 : 0;
	stop = n > 6 && (d[4] & 2) ? 1 + d[6] % 4 : 0;
	for (i = 0; i < 3; i++)
		cuts[i] = fz_cut(d, n, (int)i);
	qsort(cuts, 3, sizeof cuts[0], cmpsz);
	feed(d, n, NULL, 0, max, stop, &whole);
	feed(d, n, cuts, 3, max, stop, &part);
	fz_same(whole.s, whole.len, part.s, part.len, "events differ when the stream is cut");
	if (n <= 4096) {
		oxi_buf_reset(&part);
		one = malloc((n + 1) * sizeof *one);
		for (i = 0; i < n; i++)
			one[i] = i + 1;
		feed(d, n, one, (int)n, max, stop, &part);
		free(one);
		fz_same(whole.s, whole.len, part.s, part.len, "events differ when the stream comes byte by byte");
	}
	oxi_buf_free(&whole);
	oxi_buf_free(&part);
	return 0;
}
