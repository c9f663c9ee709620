/*
 * redact.c - the secrets of oxi-guard out: the values configured, read
 * and kept, and their redaction where they are written as they are
 * (leak.c finds them in every other spelling); where they and the rules
 * come from
 *
 * Secret values live in memory this module allocates itself and wipes
 * before freeing, including the bytes of the file they were read from.
 * A value named by OXI_REDACT_ENV (which oxi-vault exec -r sets) is taken
 * out of the environment once read: its bytes there are overwritten (so
 * /proc/PID/environ no longer shows it) and the variable unset; the copy
 * kept for a reload is in libsodium's guarded memory, locked, left out of
 * core dumps and unreadable (PROT_NONE) but while a reload reads it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#ifndef OXI_SHAREDIR
#define OXI_SHAREDIR	"/usr/local/share/oxi"
#endif

#define SECRET_MAXFILE	(1024 * 1024)	/* cap on a secrets file */
#define REDACTED	"[REDACTED]"

extern char **environ;

/* the values taken out of the environment, for reloads */
static struct taken {
	char *name;
	unsigned char *v;	/* sodium_malloc, PROT_NONE between uses */
	size_t len;
} *taken;
static size_t ntaken;

int
oxi_secrets_add(struct oxi_secrets *sec, const char *s, size_t len)
{
	size_t i, at;
	char *copy;

	if (len < OXI_SECRET_MIN)
		return 1;
	for (i = 0; i < sec->n; i++)
		if (sec->v[i].len == len && memcmp(sec->v[i].s, s, len) == 0)
			return 0;
	if (sec->n == sec->cap) {
		/* grow by copying, so no stale copy is left unwiped */
		struct oxi_secret *nv;

		sec->cap = sec->cap ? sec->cap * 2 : 8;
		nv = xcalloc(sec->cap, sizeof *nv);
		if (sec->n)
			memcpy(nv, sec->v, sec->n * sizeof *nv);
		free(sec->v);
		sec->v = nv;
	}
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	/* keep the longest first, so the longest match wins */
	for (at = 0; at < sec->n && sec->v[at].len >= len; at++)
		;
	memmove(sec->v + at + 1, sec->v + at, (sec->n - at) * sizeof *sec->v);
	sec->v[at].s = copy;
	sec->v[at].len = len;
	sec->n++;
	sec->first[(unsigned char)s[0]] = 1;
	return 0;
}

/* reads a whole file into memory of our own, wiping any copy we drop */
static int
readsecret(const char *path, char **out, size_t *outlen)
{
	struct stat st;
	char *p, *np;
	size_t cap, len = 0;
	ssize_t r;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	cap = st.st_size > 0 && st.st_size < SECRET_MAXFILE ?
	    (size_t)st.st_size + 1 : 4096;
	p = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap >= SECRET_MAXFILE) {
				errno = EFBIG;
				e = errno;
				oxi_wipe(p, cap);
				free(p);
				close(fd);
				errno = e;
				return -1;
			}
			np = xmalloc(cap * 2);
			memcpy(np, p, len);
			oxi_wipe(p, cap);
			free(p);
			p = np;
			cap *= 2;
		}
		r = read(fd, p + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			oxi_wipe(p, cap);
			free(p);
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	*out = p;
	*outlen = len;
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
oxi_secrets_load(struct oxi_secrets *sec, const char *path, size_t *nshort,
    unsigned long *firstshort)
{
	char *p, *nl;
	size_t len, off, end, n;
	unsigned long lineno = 0;

	*nshort = 0;
	*firstshort = 0;
	if (readsecret(path, &p, &len) < 0)
		return -1;
	for (off = 0; off < len; off = end + 1) {
		nl = memchr(p + off, '\n', len - off);
		end = nl ? (size_t)(nl - p) : len;
		n = end - off;
		lineno++;
		if (n > 0 && p[off + n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		if (oxi_secrets_add(sec, p + off, n) == 1 && (*nshort)++ == 0)
			*firstshort = lineno;
	}
	oxi_wipe(p, len);
	free(p);
	return 0;
}

void
oxi_secrets_free(struct oxi_secrets *sec)
{
	size_t i;

	for (i = 0; i < sec->n; i++) {
		oxi_wipe(sec->v[i].s, sec->v[i].len);
		free(sec->v[i].s);
	}
	if (sec->v)
		oxi_wipe(sec->v, sec->cap * sizeof *sec->v);
	free(sec->v);
	sec->v = NULL;
	sec->n = sec->cap = 0;
	memset(sec->first, 0, sizeof sec->first);
}

size_t
oxi_redact(const struct oxi_secrets *sec, const char *s, size_t len,
    struct oxi_buf *out)
{
	const struct oxi_secret *v;
	size_t i = 0, j, start = 0, n = 0;

	oxi_buf_reset(out);
	if (sec->n == 0)
		return 0;
	while (i < len) {
		if (sec->first[(unsigned char)s[i]]) {
			for (j = 0; j < sec->n; j++) {
				v = &sec->v[j];
				if (v->len <= len - i &&
				    memcmp(s + i, v->s, v->len) == 0)
					break;
			}
			if (j < sec->n) {
				oxi_buf_cat(out, s + start, i - start);
				oxi_buf_cats(out, REDACTED);
				i += sec->v[j].len;
				start = i;
				n++;
				continue;
			}
		}
		i++;
	}
	if (n > 0)
		oxi_buf_cat(out, s + start, len - start);
	return n;
}

/*
 * The rules file: -r, $OXI_SECRET_RULES, else "secrets" in
 * $OXI_SHARE_DIR, in ../share/oxi beside the binary (a build tree), or
 * in the installed data directory.  "none" or "" goes without rules.
 */
const char *
oxi_srules_path(const char *rflag)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX], *s;
	const char *v;
	ssize_t n;
	int up;

	if ((v = rflag) || (v = oxi_getenv("OXI_SECRET_RULES")))
		return *v && strcmp(v, "none") != 0 ? v : NULL;
	if ((v = oxi_getenv("OXI_SHARE_DIR"))) {
		snprintf(path, sizeof path, "%s/secrets", v);
		return path;
	}
	/* PREFIX/bin/oxi-guard: PREFIX/share/oxi/secrets */
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
		exe[n] = '\0';
		for (up = 0; up < 2 && (s = strrchr(exe, '/')); up++)
			*s = '\0';
		if (up == 2 && (size_t)snprintf(path, sizeof path,
		    "%s/share/oxi/secrets", exe) < sizeof path &&
		    access(path, F_OK) == 0)
			return path;
	}
	snprintf(path, sizeof path, "%s/secrets", OXI_SHAREDIR);
	return path;
}

/* the value of the variable name, readable until sodium_mprotect_noaccess;
 * on first use moved out of the environment; NULL if not set */
static unsigned char *
takeenv(const char *name, size_t *len)
{
	const char *val;
	unsigned char *p;
	size_t i, n = strlen(name);
	char **e;

	for (i = 0; i < ntaken; i++)
		if (strcmp(taken[i].name, name) == 0) {
			sodium_mprotect_readonly(taken[i].v);
			*len = taken[i].len;
			return taken[i].v;
		}
	if (!(val = oxi_getenv(name)))
		return NULL;
	if (sodium_init() < 0 || !(p = sodium_malloc(strlen(val) + 1)))
		oxi_die(OXI_EX_TEMP, "out of locked memory");
	*len = strlen(val);
	memcpy(p, val, *len + 1);
	for (e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			oxi_wipe(*e + n + 1, strlen(*e + n + 1));
	unsetenv(name);
	taken = xrealloc(taken, (ntaken + 1) * sizeof *taken);
	taken[ntaken].name = xstrdup(name);
	taken[ntaken].v = p;
	taken[ntaken++].len = *len;
	return p;
}

int
oxi_secrets_config(struct oxi_secrets *sec, const char *sflag, int reload)
{
	const char *file, *names, *p;
	unsigned char *val;
	char name[256];
	size_t n, nshort, len;
	unsigned long first;

	file = sflag ? sflag : oxi_getenv("OXI_SECRETS_FILE");
	if (file) {
		if (oxi_secrets_load(sec, file, &nshort, &first) < 0) {
			if (!reload)
				oxi_diesys(OXI_EX_USAGE, "unable to read "
				    "secrets file '%s'", file);
			oxi_warnsys("unable to read secrets file '%s'", file);
			oxi_secrets_free(sec);
			return -1;
		}
		if (nshort > 0)
			oxi_warn("secrets file '%s': ignored %zu value%s "
			    "shorter than %d bytes (first on line %lu)", file,
			    nshort, nshort == 1 ? "" : "s", OXI_SECRET_MIN,
			    first);
	}
	names = oxi_getenv("OXI_REDACT_ENV");
	for (p = names ? names : ""; *p; p += n) {
		n = strcspn(p, " \t\n,");
		if (n == 0) {
			n = 1;
			continue;
		}
		if (n >= sizeof name) {
			oxi_warn("OXI_REDACT_ENV: variable name too long");
			continue;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!(val = takeenv(name, &len))) {
			oxi_warn("OXI_REDACT_ENV: variable '%s' is not set",
			    name);
			continue;
		}
		if (oxi_secrets_add(sec, (char *)val, len) == 1)
			oxi_warn("OXI_REDACT_ENV: variable '%s' is shorter "
			    "than %d bytes, ignored", name, OXI_SECRET_MIN);
		sodium_mprotect_noaccess(val);
	}
	if (sec->n == 0)
		oxi_debug("no secrets configured");
	return 0;
}
