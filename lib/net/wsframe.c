/*
 * wsframe.c - the pure parts of the WebSocket client (RFC 6455): the
 * frame header parser the fuzzer drives, frame headers to send, close
 * codes, and the handshake's key and accept value (SHA-1 after RFC 3174,
 * base64 after RFC 4648), so that websock.c is left with the I/O
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "net/wsframe.h"

#define ROL(x, n)	(((x) << (n)) | ((x) >> (32 - (n))))

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/* one 64-byte block into the state h */
static void
sha1block(uint32_t h[5], const unsigned char *p)
{
	uint32_t w[80], a, b, c, d, e, f, k, t;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = ROL(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (i = 0; i < 80; i++) {
		if (i < 20)
			f = (b & c) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		t = ROL(a, 5) + f + e + k + w[i];
		e = d, d = c, c = ROL(b, 30), b = a, a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void
oxi_sha1(const void *data, size_t n, unsigned char out[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
	    0xc3d2e1f0 };
	const unsigned char *p = data;
	unsigned char last[128];
	uint64_t bits = (uint64_t)n * 8;
	size_t i, tail;

	for (; n >= 64; p += 64, n -= 64)
		sha1block(h, p);
	memset(last, 0, sizeof last);
	memcpy(last, p, n);
	last[n] = 0x80;
	tail = n < 56 ? 64 : 128;
	for (i = 0; i < 8; i++)
		last[tail - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha1block(h, last);
	if (tail == 128)
		sha1block(h, last + 64);
	for (i = 0; i < 20; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

/* base64 of p[0..n) into out, NUL-terminated; out holds 4*((n+2)/3)+1 */
static void
base64(const unsigned char *p, size_t n, char *out)
{
	unsigned long v;
	size_t i;

	for (i = 0; i + 2 < n; i += 3, out += 4) {
		v = (unsigned long)p[i] << 16 | p[i + 1] << 8 | p[i + 2];
		out[0] = b64[v >> 18], out[1] = b64[(v >> 12) & 63];
		out[2] = b64[(v >> 6) & 63], out[3] = b64[v & 63];
	}
	if (i < n) {
		v = (unsigned long)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0);
		out[0] = b64[v >> 18], out[1] = b64[(v >> 12) & 63];
		out[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		out[3] = '=';
		out += 4;
	}
	*out = '\0';
}

void
oxi_ws_key(const unsigned char nonce[16], char key[25])
{
	base64(nonce, 16, key);
}

void
oxi_ws_accept(const char *key, char accept[29])
{
	unsigned char d[20];
	char s[128];

	snprintf(s, sizeof s, "%s%s", key, guid);
	oxi_sha1(s, strlen(s), d);
	base64(d, sizeof d, accept);
}

int
oxi_ws_frame_parse(const unsigned char *p, size_t n, struct oxi_ws_frame *f,
    uint64_t max)
{
	uint64_t len;
	size_t i, hdr;

	if (n < 2)
		return 0;
	memset(f, 0, sizeof *f);
	if (p[0] & 0x70)
		return -1;		/* RSV1-3: no extension agreed */
	f->fin = p[0] >> 7;
	f->op = p[0] & 0x0f;
	f->masked = p[1] >> 7;
	len = p[1] & 0x7f;
	switch (f->op) {
	case OXI_WS_CONT: case OXI_WS_TEXT: case OXI_WS_BINARY:
		break;
	case OXI_WS_CLOSE: case OXI_WS_PING: case OXI_WS_PONG:
		if (!f->fin || len > 125)
			return -1;
		break;
	default:
		return -1;			/* a reserved opcode */
	}
	hdr = 2;
	if (len == 126) {
		if (n < 4)
			return 0;
		len = (uint64_t)p[2] << 8 | p[3];
		if (len < 126)
			return -1;
		hdr = 4;
	} else if (len == 127) {
		if (n < 10)
			return 0;
		if (p[2] & 0x80)
			return -1;
		for (len = 0, i = 2; i < 10; i++)
			len = len << 8 | p[i];
		if (len <= 0xffff)
			return -1;
		hdr = 10;
	}
	if (f->masked) {
		if (n < hdr + 4)
			return 0;
		memcpy(f->mask, p + hdr, 4);
		hdr += 4;
	}
	if (len > max)
		return -1;
	f->len = len;
	f->hdr = hdr;
	return 1;
}

int
oxi_ws_frame_head(unsigned char out[14], int fin, int op, uint64_t len,
    const unsigned char *mask)
{
	int i, n;

	out[0] = (unsigned char)((fin ? 0x80 : 0) | (op & 0x0f));
	if (len < 126) {
		out[1] = (unsigned char)len;
		n = 2;
	} else if (len <= 0xffff) {
		out[1] = 126;
		out[2] = (unsigned char)(len >> 8), out[3] = (unsigned char)len;
		n = 4;
	} else {
		out[1] = 127;
		for (i = 0; i < 8; i++)
			out[2 + i] = (unsigned char)(len >> (56 - 8 * i));
		n = 10;
	}
	if (mask) {
		out[1] |= 0x80;
		memcpy(out + n, mask, 4);
		n += 4;
	}
	return n;
}

void
oxi_ws_mask(unsigned char *p, size_t n, const unsigned char mask[4],
    size_t off)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] ^= mask[(off + i) & 3];
}

int
oxi_ws_code_ok(int code)
{
	if (code >= 3000 && code <= 4999)
		return 1;			/* libraries and applications */
	return code >= 1000 && code <= 1014 && code != 1004 &&
	    code != 1005 && code != 1006;
}
