/*
 * sksig.c - the v0 signature of Slack's Events API: HMAC-SHA256 (RFC
 * 2104, FIPS 180-4) of "v0:<timestamp>:<raw body>" with the signing
 * secret, compared in constant time, the timestamp within five minutes.
 * SHA-256 is written here (some 60 lines) so that oxi-chan links no
 * crypto library for it; tests/unit/t-slack.c holds it to RFC 4231.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"
#include "channel/sk.h"

#define SKEW_S		300		/* the replay window, seconds */

struct sha256 {
	uint32_t h[8];
	uint64_t len;			/* bytes hashed */
	unsigned char buf[64];		/* a block being filled */
	size_t n;			/* bytes in it */
};

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROR(x, n)	((x) >> (n) | (x) << (32 - (n)))

static void
block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, d, e, f, g, h, k, t1, t2, cc;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    w[i - 15] >> 3) + w[i - 7] + (ROR(w[i - 2], 17) ^
		    ROR(w[i - 2], 19) ^ w[i - 2] >> 10);
	a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
	e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
	for (i = 0; i < 64; i++) {
		k = K[i];
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + k + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & cc) ^ (b & cc));
		h = g, g = f, f = e, e = d + t1;
		d = cc, cc = b, b = a, a = t1 + t2;
	}
	c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d;
	c->h[4] += e, c->h[5] += f, c->h[6] += g, c->h[7] += h;
}

static void
sha_init(struct sha256 *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
		0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memset(c, 0, sizeof *c);
	memcpy(c->h, iv, sizeof iv);
}

static void
sha_add(struct sha256 *c, const void *v, size_t n)
{
	const unsigned char *p = v;
	size_t k;

	c->len += n;
	while (n > 0) {
		k = 64 - c->n < n ? 64 - c->n : n;
		memcpy(c->buf + c->n, p, k);
		c->n += k, p += k, n -= k;
		if (c->n == 64) {
			block(c, c->buf);
			c->n = 0;
		}
	}
}

static void
sha_end(struct sha256 *c, unsigned char out[32])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t k = (c->n < 56 ? 56 : 120) - c->n;
	int i;

	for (i = 0; i < 8; i++)
		pad[k + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_add(c, pad, k + 8);
	for (i = 0; i < 32; i++)
		out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
	oxi_wipe(c, sizeof *c);
}

void
sk_hmac_sha256(const void *key, size_t klen, const void *const *parts,
    const size_t *lens, int nparts, unsigned char out[32])
{
	unsigned char k[64], pad[64];
	struct sha256 c;
	int i;

	memset(k, 0, sizeof k);
	if (klen > 64) {
		sha_init(&c);
		sha_add(&c, key, klen);
		sha_end(&c, k);
	} else
		memcpy(k, key, klen);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha_init(&c);
	sha_add(&c, pad, 64);
	for (i = 0; i < nparts; i++)
		sha_add(&c, parts[i], lens[i]);
	sha_end(&c, out);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha_init(&c);
	sha_add(&c, pad, 64);
	sha_add(&c, out, 32);
	sha_end(&c, out);
	oxi_wipe(k, sizeof k);
	oxi_wipe(pad, sizeof pad);
}

/* a hex digit's value, or -1 */
static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int
sk_verify(const char *secret, const char *ts, const char *sig,
    const char *body, size_t len, long long now, const char **why)
{
	unsigned char mac[32], got[32], d = 0;
	const void *parts[4];
	size_t lens[4];
	char *end;
	long long t;
	int i, hi, lo;

	*why = "no signature or timestamp";
	if (!secret || !ts || !sig || !*ts)
		return -1;
	t = strtoll(ts, &end, 10);
	if (*end || t <= 0 || *ts < '0' || *ts > '9') {
		*why = "a bad timestamp";
		return -1;
	}
	if (t > now + SKEW_S || t < now - SKEW_S) {
		*why = "a timestamp over 5 minutes away";
		return -1;
	}
	*why = "a signature not of the form v0=<64 hex digits>";
	if (strncmp(sig, "v0=", 3) != 0 || strlen(sig + 3) != 64)
		return -1;
	for (i = 0; i < 32; i++) {
		if ((hi = hexval(sig[3 + 2 * i])) < 0 ||
		    (lo = hexval(sig[4 + 2 * i])) < 0)
			return -1;
		got[i] = (unsigned char)(hi << 4 | lo);
	}
	parts[0] = "v0:", lens[0] = 3;
	parts[1] = ts, lens[1] = strlen(ts);
	parts[2] = ":", lens[2] = 1;
	parts[3] = body, lens[3] = len;
	sk_hmac_sha256(secret, strlen(secret), parts, lens, 4, mac);
	for (i = 0; i < 32; i++)
		d |= mac[i] ^ got[i];
	if (d != 0) {
		*why = "a wrong signature";
		return -1;
	}
	return 0;
}
