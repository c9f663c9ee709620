/*
 * t-websock.c - the WebSocket client's pure parts and its receive path:
 * SHA-1 on the RFC 3174 vectors, the handshake values and the frames of
 * RFC 6455 (1.3, 5.7), the parser's protocol errors, and oxi_ws_mem fed
 * fragments, control frames, close frames and broken input
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "net/wsframe.h"
#include "tap.h"

#define S(lit)	lit, sizeof(lit) - 1

static char *
hex(const unsigned char *d, size_t n)
{
	static char s[2 * 64 + 1];
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		snprintf(s + 2 * i, 3, "%02x", d[i]);
	s[2 * i] = '\0';
	return s;
}

static void
sha1s(void)
{
	static const struct { const char *in; size_t rep; const char *want; }
	    v[] = {
		{ "abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		    1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
		{ "a", 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f" },
		{ "01234567012345670123456701234567"
		    "01234567012345670123456701234567", 10,
		    "dea356a2cddd90c7a7ecedc5ebb563934f460452" },
		{ "", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	};
	struct oxi_buf b = OXI_BUF_INIT;
	unsigned char d[20];
	size_t i, k;

	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		oxi_buf_reset(&b);
		for (k = 0; k < v[i].rep; k++)
			oxi_buf_cats(&b, v[i].in);
		oxi_sha1(b.s, b.len, d);
		is_str(hex(d, 20), v[i].want, "SHA-1 RFC 3174 vector %zu "
		    "(%zu bytes)", i + 1, b.len);
	}
	oxi_buf_free(&b);
}

static void
handshake(void)
{
	char key[25], acc[29];

	oxi_ws_key((const unsigned char *)"the sample nonce", key);
	is_str(key, "dGhlIHNhbXBsZSBub25jZQ==", "RFC 6455 1.3: the key");
	oxi_ws_accept(key, acc);
	is_str(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "RFC 6455 1.3: the "
	    "accept value");
}

static void
frames(void)
{
	static const unsigned char hello[] = { 0x81, 0x05, 'H', 'e', 'l',
	    'l', 'o' }, mhello[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d,
	    0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	unsigned char h[14], p[5], big[10];
	struct oxi_ws_frame f;
	size_t i;
	int r, bad;

	r = oxi_ws_frame_parse(hello, sizeof hello, &f, 1000);
	ok(r == 1 && f.fin && f.op == OXI_WS_TEXT && !f.masked &&
	    f.len == 5 && f.hdr == 2, "5.7: an unmasked text frame");
	r = oxi_ws_frame_parse(mhello, sizeof mhello, &f, 1000);
	memcpy(p, mhello + f.hdr, 5);
	oxi_ws_mask(p, 5, f.mask, 0);
	ok(r == 1 && f.masked && f.hdr == 6 && memcmp(p, "Hello", 5) == 0,
	    "5.7: a masked text frame unmasks to Hello");
	r = oxi_ws_frame_head(h, 1, OXI_WS_TEXT, 5, f.mask);
	ok(r == 6 && memcmp(h, mhello, 6) == 0, "the same header built");
	for (bad = 0, i = 0; i < 6; i++)
		bad |= oxi_ws_frame_parse(mhello, i, &f, 1000) != 0;
	ok(!bad, "each cut header needs more bytes");
	r = oxi_ws_frame_parse((const unsigned char *)"\x82\x7e\x01\x00", 4,
	    &f, 1 << 20);
	ok(r == 1 && f.len == 256 && f.hdr == 4, "5.7: 256 bytes, 16-bit "
	    "length");
	memcpy(big, "\x82\x7f\0\0\0\0\0\x01\0\0", 10);
	r = oxi_ws_frame_parse(big, 10, &f, 1 << 20);
	ok(r == 1 && f.len == 65536 && f.hdr == 10, "5.7: 64 KiB, 64-bit "
	    "length");
	is_int(oxi_ws_frame_head(h, 1, OXI_WS_BINARY, 65536, NULL), 10,
	    "a 64-bit header built");
	ok(memcmp(h, big, 10) == 0, "and it is the RFC's");
	is_int(oxi_ws_frame_head(h, 0, OXI_WS_TEXT, 126, NULL), 4,
	    "126 bytes take a 16-bit length");
	is_int(oxi_ws_frame_parse(big, 10, &f, 65535), -1, "over max");
	big[2] = 0x80;
	is_int(oxi_ws_frame_parse(big, 10, &f, UINT64_MAX), -1, "64-bit "
	    "length with its MSB set");
	is_int(oxi_ws_frame_parse((const unsigned char *)"\x81\x7e\0\x7d",
	    4, &f, 1000), -1, "a 16-bit length under 126");
	is_int(oxi_ws_frame_parse((const unsigned char *)
	    "\x81\x7f\0\0\0\0\0\0\xff\xff", 10, &f, UINT64_MAX), -1,
	    "a 64-bit length under 65536");
	is_int(oxi_ws_frame_parse((const unsigned char *)"\xc1\x00", 2, &f,
	    10), -1, "RSV1");
	is_int(oxi_ws_frame_parse((const unsigned char *)"\x83\x00", 2, &f,
	    10), -1, "a reserved data opcode");
	is_int(oxi_ws_frame_parse((const unsigned char *)"\x8b\x00", 2, &f,
	    10), -1, "a reserved control opcode");
	is_int(oxi_ws_frame_parse((const unsigned char *)"\x09\x00", 2, &f,
	    10), -1, "a fragmented ping");
	is_int(oxi_ws_frame_parse((const unsigned char *)"\x89\x7e\0\x7e", 4,
	    &f, 1000), -1, "a ping of 126 bytes");
	ok(oxi_ws_code_ok(1000) && oxi_ws_code_ok(1011) &&
	    oxi_ws_code_ok(3000) && oxi_ws_code_ok(4999) &&
	    !oxi_ws_code_ok(999) && !oxi_ws_code_ok(1004) &&
	    !oxi_ws_code_ok(1005) && !oxi_ws_code_ok(1006) &&
	    !oxi_ws_code_ok(1015) && !oxi_ws_code_ok(2999) &&
	    !oxi_ws_code_ok(5000), "close codes: 1000-1014 but 1004-1006, "
	    "3000-4999");
}

/* the frames ws sent, unmasked, each as "op:payload;" (or "!unmasked") */
static char *
sentframes(struct oxi_ws *ws)
{
	static char out[1024];
	const struct oxi_buf *b = oxi_ws_sent(ws);
	const unsigned char *p = (const unsigned char *)b->s;
	struct oxi_ws_frame f;
	unsigned char pl[256];
	size_t n = b->len, o = 0;

	out[0] = '\0';
	while (p && n > 0 && oxi_ws_frame_parse(p, n, &f, 255) == 1 &&
	    n >= f.hdr + f.len) {
		memcpy(pl, p + f.hdr, f.len);
		if (f.masked)
			oxi_ws_mask(pl, f.len, f.mask, 0);
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%d:%.*s;",
		    f.masked ? "" : "!unmasked", f.op, (int)f.len, pl);
		p += f.hdr + f.len, n -= f.hdr + f.len;
	}
	if (n)
		snprintf(out + o, sizeof out - o, "+%zu", n);
	return out;
}

/* recv of a mem ws over in: "op:data" / "close:code:reason" / "err:code" */
static char *
got(struct oxi_ws *ws)
{
	static char out[512];
	struct oxi_ws_msg m;
	int r = oxi_ws_recv(ws, &m, 0);

	if (r < 0)
		snprintf(out, sizeof out, "err:%d", m.close_code);
	else if (r == 0)
		snprintf(out, sizeof out, "timeout");
	else if (m.op == OXI_WS_CLOSE)
		snprintf(out, sizeof out, "close:%d:%.*s", m.close_code,
		    (int)m.len, m.data);
	else
		snprintf(out, sizeof out, "%d:%.*s", m.op, (int)m.len,
		    m.data);
	return out;
}

/* one recv of a ws over in, and what it sent in answer (NULL: anything) */
static const struct rcase {
	const char *name;	/* what it checks */
	const char *in;		/* the bytes received */
	size_t len;		/* their length */
	size_t max;		/* the message cap, 0 the default */
	const char *got;	/* the first recv, as got() shows it */
	const char *sent;	/* the frames sent, as sentframes() */
} rcases[] = {
	{ "an empty close is 1005", S("\x88\x00"), 0, "close:1005:",
	    "8:;" },
	{ "a close of one byte: 1002", S("\x88\x01\x03"), 0, "err:1002",
	    "8:\x03\xea;" },
	{ "close code 1005 on the wire: 1002", S("\x88\x02\x03\xed"), 0,
	    "err:1002", "8:\x03\xea;" },
	{ "a close reason not UTF-8: 1007", S("\x88\x04\x03\xe8\xc3\x28"),
	    0, "err:1007", "8:\x03\xef;" },
	{ "a masked frame from the server: 1002",
	    S("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58"), 0,
	    "err:1002", "8:\x03\xea;" },
	{ "a text not UTF-8: 1007", S("\x81\x02\xc3\x28"), 0, "err:1007",
	    "8:\x03\xef;" },
	{ "UTF-8 split between fragments", S("\x01\x01\xc3\x80\x01\xa9"), 0,
	    "1:\xc3\xa9", "" },
	{ "a message at the cap", S("\x02\x05" "12345" "\x80\x05" "67890"),
	    10, "2:1234567890", "" },
	{ "a message over the cap: 1009",
	    S("\x02\x05" "12345" "\x80\x06" "678901"), 10, "err:1009",
	    "8:\x03\xf1;" },
	{ "a frame header over the cap, at once",
	    S("\x82\x7f\0\0\0\0\x7f\0\0\0"), 10, "err:1009", "8:\x03\xf1;" },
	{ "a continuation first: 1002", S("\x80\x01x"), 0, "err:1002",
	    "8:\x03\xea;" },
	{ "a new message inside a fragmented one: 1002",
	    S("\x01\x01x\x81\x01y"), 0, "err:1002", "8:\x03\xea;" },
	{ "a frame cut by the end: lost, no close sent", S("\x81\x05Hel"), 0,
	    "err:1006", "" },
};

static void
receive(void)
{
	struct oxi_ws *ws;
	struct oxi_ws_msg m;
	static const char frag[] = "\x01\x03Hel\x89\x02p1\x80\x02lo"
	    "\x8a\x01x\x82\x00";
	const struct rcase *c;
	char *g;
	size_t i;

	ws = oxi_ws_mem(frag, sizeof frag - 1, 0);
	is_str(got(ws), "1:Hello", "5.7: fragments joined past a ping");
	is_str(sentframes(ws), "10:p1;", "the ping answered with a masked "
	    "pong");
	is_str(got(ws), "10:x", "a pong returned");
	is_str(got(ws), "2:", "an empty binary message");
	is_str(got(ws), "err:1006", "the end of the bytes: lost");
	is_str(got(ws), "err:1006", "and it stays lost");
	oxi_ws_free(ws);

	ws = oxi_ws_mem(S("\x88\x0b\x0f\xa4" "bad token\x81\x01x"), 0);
	is_str(got(ws), "close:4004:bad token", "a close with its reason");
	is_str(sentframes(ws), "8:\x0f\xa4;", "echoed with its code");
	is_str(got(ws), "err:4004", "nothing after a close");
	oxi_ws_free(ws);

	for (i = 0; i < sizeof rcases / sizeof rcases[0]; i++) {
		c = &rcases[i];
		ws = oxi_ws_mem(c->in, c->len, c->max);
		g = got(ws);
		ok(strcmp(g, c->got) == 0 && strcmp(sentframes(ws),
		    c->sent) == 0, "%s", c->name);
		if (strcmp(g, c->got) != 0)
			printf("#   got '%s'\n", g);
		oxi_ws_free(ws);
	}

	ws = oxi_ws_mem(S("\x81\x01" "a\x81\x01" "b"), 0);
	ok(oxi_ws_recv(ws, &m, 0) == 1 && m.len == 1 && m.data[0] == 'a' &&
	    m.data[1] == '\0', "two messages in one read: the first");
	ok(oxi_ws_recv(ws, &m, 0) == 1 && m.len == 1 && m.data[0] == 'b',
	    "then the second");
	oxi_ws_free(ws);
}

static void
sending(void)
{
	struct oxi_ws *ws = oxi_ws_mem("", 0, 0);
	char big[126], want[200];

	memset(big, 'x', sizeof big);
	snprintf(want, sizeof want, "1:hi;2:%.126s;", big);
	is_int(oxi_ws_send(ws, OXI_WS_TEXT, "hi", 2), 0, "send text");
	is_int(oxi_ws_send(ws, OXI_WS_TEXT, "\xff", 1), -1, "text not UTF-8 "
	    "refused");
	is_int(oxi_ws_send(ws, OXI_WS_PING, big, 126), -1, "a ping over 125 "
	    "bytes refused");
	is_int(oxi_ws_send(ws, OXI_WS_CONT, "x", 1), -1, "a bare "
	    "continuation refused");
	is_int(oxi_ws_send(ws, 3, "x", 1), -1, "a reserved opcode refused");
	is_int(oxi_ws_send(ws, OXI_WS_BINARY, big, 126), 0, "binary of 126");
	is_str(sentframes(ws), want, "masked, in order, nothing refused");
	is_int(oxi_ws_close(ws, 1000, "bye"), -1, "close: no echo (the "
	    "bytes ended)");
	is_int(oxi_ws_send(ws, OXI_WS_TEXT, "late", 4), -1, "no send after "
	    "the close");
	oxi_ws_free(ws);
}

int
main(void)
{
	plan(59);
	sha1s();
	handshake();
	frames();
	receive();
	sending();
	return done();
}
