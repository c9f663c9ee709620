/*
 * fz-ws.c - the WebSocket client's receive path (net/websock.c over the
 * frame parser of net/wsframe.c): the input is what a server sent; it is
 * received whole, in reads of a size the input picks, and byte by byte,
 * and each must give the same messages, the same failure and the same
 * bytes sent back (pongs, close frames).  Every message returned keeps
 * the promises: at most the cap (a control frame's: 125 bytes),
 * NUL-terminated, text valid UTF-8, a close code a close frame may carry,
 * a failure's code one of 1002, 1006, 1007, 1009 or the code of a close
 * received.
 */
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "net/wsframe.h"
#include "fz.h"

/* what the frames sent say once unmasked: "op:len:payload;" each */
static void
sent(struct oxi_ws *ws, struct oxi_buf *out)
{
	const struct oxi_buf *b = oxi_ws_sent(ws);
	const unsigned char *p = (const unsigned char *)b->s;
	unsigned char pl[126];
	struct oxi_ws_frame f;
	size_t n = b->len;

	while (n > 0) {
		FZ_CHECK(oxi_ws_frame_parse(p, n, &f, 125) == 1 && f.masked &&
		    f.fin && f.op >= OXI_WS_CLOSE && n >= f.hdr + f.len,
		    "a frame sent is not a masked control frame");
		memcpy(pl, p + f.hdr, (size_t)f.len);
		oxi_ws_mask(pl, (size_t)f.len, f.mask, 0);
		oxi_buf_printf(out, "sent %d:%d:", f.op, (int)f.len);
		oxi_buf_cat(out, pl, (size_t)f.len);
		oxi_buf_putc(out, ';');
		p += f.hdr + f.len, n -= f.hdr + (size_t)f.len;
	}
}

/* receives d[0..n) in reads of chunk bytes: the story into out */
static void
run(const uint8_t *d, size_t n, size_t max, size_t chunk, struct oxi_buf *out)
{
	struct oxi_ws *ws = oxi_ws_mem(d, n, max);
	struct oxi_ws_msg m;
	int r, i, lastclose = 0;

	oxi_ws_mem_chunk(ws, chunk);
	for (i = 0; i < 10000; i++) {
		r = oxi_ws_recv(ws, &m, 0);
		FZ_CHECK(r != 0, "a timeout from bytes in memory");
		if (r < 0) {
			FZ_CHECK(m.close_code == 1002 || m.close_code == 1006 ||
			    m.close_code == 1007 || m.close_code == 1009 ||
			    m.close_code == lastclose, "a failure's code");
			oxi_buf_printf(out, "fail %d\n", m.close_code);
			break;
		}
		FZ_CHECK(m.data && m.data[m.len] == '\0', "not NUL-terminated");
		FZ_CHECK(m.len <= (m.op < OXI_WS_CLOSE ? max : 125),
		    "a message over the cap");
		oxi_buf_printf(out, "%d %d %zu:", m.op, m.close_code, m.len);
		oxi_buf_cat(out, m.data, m.len);
		oxi_buf_putc(out, '\n');
		switch (m.op) {
		case OXI_WS_TEXT:
			FZ_CHECK(oxi_utf8_valid((char *)m.data, m.len, 0),
			    "a text not UTF-8");
			break;
		case OXI_WS_BINARY:
		case OXI_WS_PONG:
			break;
		case OXI_WS_CLOSE:
			FZ_CHECK(m.close_code == 1005 ||
			    oxi_ws_code_ok(m.close_code), "a bad close code");
			lastclose = m.close_code;
			break;
		default:
			FZ_CHECK(0, "an opcode recv must not return");
		}
	}
	sent(ws, out);
	oxi_ws_free(ws);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_buf whole = OXI_BUF_INIT, part = OXI_BUF_INIT;
	struct oxi_ws_frame f;
	size_t max, chunk;

	/* the parser alone: a header it takes lies inside what it read */
	if (oxi_ws_frame_parse(d, n, &f, UINT64_MAX) == 1)
		FZ_CHECK(f.hdr >= 2 && f.hdr <= 14 && f.hdr <= n &&
		    (f.op < OXI_WS_CLOSE || (f.fin && f.len <= 125)),
		    "a header the parser should refuse");
	/* a small cap sometimes, a read size from the input */
	max = n > 2 && (d[0] & 1) ? 1 + d[1] % 300 : 1 << 20;
	chunk = 1 + fz_cut(d, n, 0) % 64;
	run(d, n, max, n + 1, &whole);
	run(d, n, max, chunk, &part);
	fz_same(whole.s, whole.len, part.s, part.len,
	    "messages differ when the bytes come in pieces");
	if (n <= 4096) {
		oxi_buf_reset(&part);
		run(d, n, max, 1, &part);
		fz_same(whole.s, whole.len, part.s, part.len,
		    "messages differ when the bytes come one by one");
	}
	oxi_buf_free(&whole);
	oxi_buf_free(&part);
	return 0;
}
