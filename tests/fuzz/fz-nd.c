/*
 * fz-nd.c - the NDJSON record reader (core/nd.c), the stdin of every
 * stage: the input arrives through a pipe whole, then cut at two points
 * chosen by the input, and both readings must take the same records and
 * reject the same lines
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "fz.h"

#define FZ_MAXLINE	4096	/* line cap, under -max_len: long lines too */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("OXI_DEADLETTER", "/dev/null", 1);
	oxi_prog = "fz-nd";
	return 0;
}

/* takes what is buffered until AGAIN or EOF, noting each outcome */
static int
takeall(struct oxi_nd *in, struct oxi_buf *got)
{
	jv rec;
	int r;

	while ((r = oxi_nd_take(in, &rec)) != OXI_ND_AGAIN &&
	    r != OXI_ND_EOF) {
		if (r == OXI_ND_OK) {
			FZ_CHECK(jv_get_kind(rec) == JV_KIND_OBJECT,
			    "a record that is not an object");
			oxi_buf_printf(got, "ok %zu:", in->linelen);
			oxi_buf_cat(got, in->line, in->linelen);
			jv_free(rec);
		} else
			oxi_buf_printf(got, "bad %lu", in->lineno);
		oxi_buf_putc(got, '\n');
	}
	return r;
}

/* reads d[0..n) fed through a pipe in pieces cut at a <= b */
static void
readcut(const uint8_t *d, size_t n, size_t a, size_t b, struct oxi_buf *got)
{
	size_t cut[3] = { a, b, n }, off = 0;
	struct oxi_nd in;
	int p[2], i, r;

	FZ_CHECK(pipe(p) == 0, "pipe");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	oxi_nd_init(&in, p[0], "fuzz");
	in.max = FZ_MAXLINE;
	for (i = 0; i < 3; i++) {
		if (cut[i] > off)
			FZ_CHECK(oxi_writeall(p[1], d + off, cut[i] - off) == 0,
			    "pipe write");
		off = cut[i];
		if (i == 2)
			close(p[1]);
		for (;;) {
			r = takeall(&in, got);
			if (r == OXI_ND_EOF)
				break;
			if (oxi_nd_fill(&in) < 0) {
				FZ_CHECK(errno == EAGAIN, "read");
				break;
			}
		}
	}
	FZ_CHECK(in.eof, "the end of input not seen");
	oxi_nd_free(&in);
	close(p[0]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_buf whole = OXI_BUF_INIT, cut = OXI_BUF_INIT;
	size_t a, b;

	if (n > 60000)		/* the pipe holds 64 KiB: never block */
		return 0;
	a = fz_cut(d, n, 0);
	b = fz_cut(d, n, 1);
	if (a > b) {
		size_t t = a;

		a = b;
		b = t;
	}
	fz_quiet(1);
	readcut(d, n, n, n, &whole);
	readcut(d, n, a, b, &cut);
	fz_quiet(0);
	fz_same(whole.s, whole.len, cut.s, cut.len, "records differ when the input is cut");
	oxi_buf_free(&whole);
	oxi_buf_free(&cut);
	return 0;
}
