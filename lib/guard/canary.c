/*
 * canary.c - the canary of a session, as oxi-guard out knows it
 *
 * oxi-loop puts a canary in the system prompt of every request of a
 * session; a reply that shows it, in any spelling the scanner undoes,
 * has leaked the system prompt and is blocked.  Neither stage tells the
 * other the canary: both derive it from a key of 32 random bytes
 * (getrandom(2)) kept in a file of mode 0600, $OXI_CANARY_KEY_FILE or
 * canary.key in the state directory, which oxi-loop creates.  The canary
 * of a session is the keyed BLAKE2b of "oxi-canary-v1", a NUL and the
 * session's id, cut to 128 bits and written in 32 lower-case hex digits:
 * unique per session, and no use to guess from another's.
 * oxi(7), CANARY, is the contract; lib/loop/tripwire.c the other side.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#define KEYLEN		32
#define CACHE		64	/* sessions whose canary set is kept */

static unsigned char key[KEYLEN];
static int haskey;

static struct {
	char *session;
	struct oxi_known *known;
	unsigned long long used;	/* for least recently used */
} cache[CACHE];
static unsigned long long tick;

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
oxi_canary_load(void)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char path[4096];
	const char *p, *dir;
	size_t i;
	int hi, lo, e;

	if (haskey)
		return 1;
	if ((p = oxi_getenv("OXI_CANARY_KEY_FILE")))
		snprintf(path, sizeof path, "%s", p);
	else if ((dir = oxi_state_dir()))
		snprintf(path, sizeof path, "%s/canary.key", dir);
	else
		return 0;
	if (oxi_readfile(path, &b, 4096) < 0) {
		e = errno;
		oxi_buf_free(&b);
		errno = e;
		return errno == ENOENT ? 0 : -1;
	}
	for (i = 0; i < KEYLEN; i++) {
		if (b.len < 2 * KEYLEN || (hi = hexval(b.s[2 * i])) < 0 ||
		    (lo = hexval(b.s[2 * i + 1])) < 0) {
			oxi_wipe(b.s, b.len);
			oxi_buf_free(&b);
			oxi_wipe(key, sizeof key);
			errno = EINVAL;
			return -1;
		}
		key[i] = (unsigned char)(hi << 4 | lo);
	}
	oxi_wipe(b.s, b.len);
	oxi_buf_free(&b);
	haskey = 1;
	return 1;
}

int
oxi_canary_of(const char *session, char *out)
{
	unsigned char h[16], m[4096];
	int n;

	n = snprintf((char *)m, sizeof m, "oxi-canary-v1%c%s", 0, session);
	if (!haskey || n < 0 || (size_t)n >= sizeof m)
		return -1;
	crypto_generichash(h, sizeof h, m, (size_t)n, key, sizeof key);
	sodium_bin2hex(out, OXI_CANARY_LEN + 1, h, sizeof h);
	oxi_wipe(h, sizeof h);
	return 0;
}

const struct oxi_known *
oxi_canary_known(const char *session)
{
	char c[OXI_CANARY_LEN + 1];
	int i, old = 0;

	if (!haskey)
		return NULL;
	tick++;
	for (i = 0; i < CACHE; i++) {
		if (cache[i].session && strcmp(cache[i].session, session) == 0) {
			cache[i].used = tick;
			return cache[i].known;
		}
		if (cache[i].used < cache[old].used)
			old = i;
	}
	free(cache[old].session);
	oxi_known_free(cache[old].known);
	oxi_canary_of(session, c);
	cache[old].session = xstrdup(session);
	cache[old].known = oxi_known_new();
	oxi_known_add(cache[old].known, c, strlen(c), OXI_HIT_CANARY);
	cache[old].used = tick;
	oxi_wipe(c, sizeof c);
	return cache[old].known;
}

void
oxi_canary_free(void)
{
	int i;

	for (i = 0; i < CACHE; i++) {
		free(cache[i].session);
		oxi_known_free(cache[i].known);
		cache[i].session = NULL;
		cache[i].known = NULL;
		cache[i].used = 0;
	}
	oxi_wipe(key, sizeof key);
	haskey = 0;
}
