/*
 * dcsig.c - the signature of a Discord HTTP interaction: Ed25519 over
 * X-Signature-Timestamp followed by the raw body, by the application's
 * public key (libsodium).  Discord sends requests with bad signatures on
 * purpose and drops an endpoint that takes them, so anything that does
 * not verify is refused: a key or signature of the wrong length or with
 * a non-hex digit too.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

/* exactly len bytes from hex (2 * len digits): 0, or -1 */
static int
unhex(const char *hex, unsigned char *out, size_t len)
{
	size_t got;
	const char *end;

	if (strlen(hex) != 2 * len)
		return -1;
	if (sodium_hex2bin(out, len, hex, 2 * len, NULL, &got, &end) != 0 ||
	    got != len || *end != '\0')
		return -1;
	return 0;
}

int
dc_verify(const char *pubhex, const char *sighex, const char *ts,
    const char *body, size_t len)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sig[crypto_sign_BYTES];
	unsigned char *m;
	size_t tl;
	int r;

	if (!pubhex || !sighex || !ts || !body || sodium_init() < 0 ||
	    unhex(pubhex, pk, sizeof pk) < 0 ||
	    unhex(sighex, sig, sizeof sig) < 0)
		return -1;
	tl = strlen(ts);
	m = xmalloc(tl + len + 1);
	memcpy(m, ts, tl);
	memcpy(m + tl, body, len);
	r = crypto_sign_verify_detached(sig, m, tl + len, pk);
	free(m);
	return r == 0 ? 0 : -1;
}
