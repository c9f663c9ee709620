/*
 * guard.c - the policy pieces of oxi-guard: a sender allowlist, and the
 * redaction of known secret values from outbound text
 *
 * Secret values live in memory this module allocates itself and wipes
 * before freeing, including the bytes of the file they were read from.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"

#define ALLOW_MAXFILE	(1024 * 1024)	/* cap on an allowlist file */
#define SECRET_MAXFILE	(1024 * 1024)	/* cap on a secrets file */
#define REDACTED	"[REDACTED]"

static int
issep(int c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\v' || c == '\f';
}

static void
allowbad(struct oxi_allow *a, const char *e, size_t n)
{
	if (a->nbad++ > 0)
		return;
	if (n > sizeof a->bad - 1)
		n = sizeof a->bad - 1;
	memcpy(a->bad, e, n);
	a->bad[n] = '\0';
}

static void
allowadd(struct oxi_allow *a, const char *e, size_t n)
{
	const char *colon;
	size_t i, cn;
	char *ch = NULL, *fr = NULL;

	for (i = 0; i < n; i++)
		if ((unsigned char)e[i] < 0x20 || e[i] == 0x7f) {
			allowbad(a, e, n);
			return;
		}
	if (n == 1 && e[0] == '*')
		;	/* everyone */
	else if (!(colon = memchr(e, ':', n)))
		fr = xstrndup(e, n);
	else {
		cn = colon - e;
		if (cn == 0 || cn == n - 1) {
			allowbad(a, e, n);
			return;
		}
		if (!(cn == 1 && e[0] == '*'))
			ch = xstrndup(e, cn);
		if (!(n - cn - 1 == 1 && colon[1] == '*'))
			fr = xstrndup(colon + 1, n - cn - 1);
	}
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 8;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n].channel = ch;
	a->v[a->n].from = fr;
	a->n++;
}

void
oxi_allow_parse(struct oxi_allow *a, const char *s, size_t len, int comments)
{
	size_t i = 0, b;

	while (i < len) {
		if (issep((unsigned char)s[i])) {
			i++;
			continue;
		}
		if (comments && s[i] == '#') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		b = i;
		while (i < len && !issep((unsigned char)s[i]))
			i++;
		allowadd(a, s + b, i - b);
	}
}

int
oxi_allow_load(struct oxi_allow *a, const char *path)
{
	struct oxi_buf b = OXI_BUF_INIT;
	int e;

	if (oxi_readfile(path, &b, ALLOW_MAXFILE) < 0) {
		e = errno;
		oxi_buf_free(&b);
		errno = e;
		return -1;
	}
	oxi_allow_parse(a, b.s ? b.s : "", b.len, 1);
	oxi_buf_free(&b);
	return 0;
}

int
oxi_allow_ok(const struct oxi_allow *a, const char *channel, const char *from)
{
	const struct oxi_allow_ent *e;
	size_t i;

	for (i = 0; i < a->n; i++) {
		e = &a->v[i];
		if (e->channel &&
		    (!channel || strcmp(e->channel, channel) != 0))
			continue;
		if (e->from && (!from || strcmp(e->from, from) != 0))
			continue;
		return 1;
	}
	return 0;
}

void
oxi_allow_free(struct oxi_allow *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].channel);
		free(a->v[i].from);
	}
	free(a->v);
	a->v = NULL;
	a->n = a->cap = a->nbad = 0;
	a->bad[0] = '\0';
}

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

size_t
oxi_redact_hold(const struct oxi_secrets *sec, const char *s, size_t len)
{
	const struct oxi_secret *v;
	size_t keep = len, j, k;

	for (j = 0; j < sec->n; j++) {
		v = &sec->v[j];
		k = v->len - 1 < len ? v->len - 1 : len;
		for (; k > 0; k--)
			if (memcmp(s + len - k, v->s, k) == 0) {
				if (len - k < keep)
					keep = len - k;
				break;
			}
	}
	return keep;
}
