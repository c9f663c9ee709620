/*
 * tripwire.c - the canary of a session, put in its system prompt
 *
 * oxi(7), CANARY: a key of 32 bytes from getrandom(2), in hex, in a file
 * of mode 0600 (cfg->canarykey) that this side creates when it is not
 * there; the canary of a session is the keyed BLAKE2b of "oxi-canary-v1",
 * a NUL and the session's id, 16 bytes, in 32 lower-case hex digits.
 * oxi-guard out derives the same from the same file and blocks a reply
 * that shows it (lib/guard/canary.c).
 */
#include <sys/random.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "loop/engine.h"

#define KEYLEN	32

static unsigned char key[KEYLEN];
static char keypath[4096];	/* the file the key was read from */

/* reads the key file: 0, or -1 with errno (ENOENT: not there) */
static int
readkey(const char *path)
{
	struct oxi_buf b = OXI_BUF_INIT;
	unsigned int x;
	size_t i;

	if (oxi_readfile(path, &b, 4096) < 0)
		return -1;
	for (i = 0; i < KEYLEN; i++)
		if (b.len < 2 * KEYLEN || sscanf(b.s + 2 * i, "%2x", &x) != 1)
			break;
		else
			key[i] = (unsigned char)x;
	oxi_wipe(b.s, b.len);
	oxi_buf_free(&b);
	if (i < KEYLEN) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* a new key, written whole to a file of ours, then linked in place: the
 * first of two stages to start wins, the other reads its key */
static int
makekey(const char *path)
{
	unsigned char k[KEYLEN];
	char tmp[4200], hex[2 * KEYLEN + 2];
	size_t i;
	int fd, r;

	if (getrandom(k, sizeof k, 0) != (ssize_t)sizeof k)
		return -1;
	for (i = 0; i < KEYLEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", k[i]);
	hex[2 * KEYLEN] = '\n';
	oxi_wipe(k, sizeof k);
	snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) <
	    0)
		return -1;
	r = oxi_writeall(fd, hex, 2 * KEYLEN + 1) < 0 || fsync(fd) < 0 ? -1 :
	    0;
	oxi_wipe(hex, sizeof hex);
	close(fd);
	if (r == 0 && link(tmp, path) < 0 && errno != EEXIST)
		r = -1;
	unlink(tmp);
	return r;
}

int
oxi_loop_canary(const char *path, const char *session, char *out)
{
	unsigned char h[16], m[4096];
	int n;

	if (!path || !*path)
		return -1;
	if (strcmp(keypath, path) != 0) {
		if (readkey(path) < 0 && (errno != ENOENT ||
		    makekey(path) < 0 || readkey(path) < 0)) {
			oxi_warnsys("canary key '%s'", path);
			return -1;
		}
		snprintf(keypath, sizeof keypath, "%s", path);
	}
	n = snprintf((char *)m, sizeof m, "oxi-canary-v1%c%s", 0, session);
	if (n < 0 || (size_t)n >= sizeof m)
		return -1;
	crypto_generichash(h, sizeof h, m, (size_t)n, key, sizeof key);
	sodium_bin2hex(out, 33, h, sizeof h);
	return 0;
}
