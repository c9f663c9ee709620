/*
 * wsframe.h - the WebSocket client's pieces below its face (net.h), for
 * websock.c, wsframe.c, tests/unit/t-websock.c and tests/fuzz/fz-ws.c
 */
#ifndef OXI_WSFRAME_H
#define OXI_WSFRAME_H

#include "net/net.h"

/* for tests and the fuzzer: a ws that receives p[0..n), in reads of
 * up to chunk bytes (oxi_ws_mem_chunk; all at once unless set), and then
 * the end of the stream; what it sends is kept in oxi_ws_sent */
struct oxi_ws *oxi_ws_mem(const void *p, size_t n, size_t max_msg);
void oxi_ws_mem_chunk(struct oxi_ws *, size_t chunk);
const struct oxi_buf *oxi_ws_sent(const struct oxi_ws *);
/* a frame header into out, masked if mask: its length (2 to 14) */
int oxi_ws_frame_head(unsigned char out[14], int fin, int op, uint64_t len,
    const unsigned char *mask);
/* XORs p[0..n) with mask, p being at offset off of the payload */
void oxi_ws_mask(unsigned char *p, size_t n, const unsigned char mask[4],
    size_t off);
int oxi_ws_code_ok(int code);	/* 1 if a close frame may carry it */
void oxi_ws_key(const unsigned char nonce[16], char key[25]);
void oxi_ws_accept(const char *key, char accept[29]);
void oxi_sha1(const void *, size_t, unsigned char out[20]);

#endif
