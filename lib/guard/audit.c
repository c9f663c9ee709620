/*
 * audit.c - the audit log: every decision of the guard, hash-chained
 *
 * One JSON object a line, appended under an exclusive flock(2) so that
 * the guards of one pipeline (in, out, tool) share one chain:
 *
 *	{"seq":7,"ts":"...","prog":"oxi-guard","event":"tool.held",
 *	 ...the fields of the event...,"prev":"<hex>","hash":"<hex>"}
 *
 * hash is the BLAKE2b-256 (libsodium's crypto_generichash) of the line's
 * bytes before ,"hash": and prev the hash of the entry before it (64
 * zeros for the first), so an entry edited, removed or moved breaks the
 * chain where it was.  The last seq and hash are also kept in PATH.head,
 * so that entries cut from the end are found too.  A line a crash left
 * half written is ended and the chain goes on from the last whole entry.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "guard/guard.h"

#define HASHLEN		32
#define HEXLEN		(2 * HASHLEN)
#define SUFFIX		",\"hash\":\""
#define SUFLEN		(sizeof SUFFIX - 1 + HEXLEN + 2)	/* ...hex"} */
#define TAILMAX		(1 << 20)	/* longest line looked back at */
#define DATAMAX		2048		/* bytes of a string field kept */

const char *
oxi_audit_path(void)
{
	static char path[4096];
	const char *v = oxi_getenv("OXI_AUDIT_LOG"), *d;

	if (v)
		return v;
	if (!(d = oxi_state_dir()))
		return NULL;
	if ((size_t)snprintf(path, sizeof path, "%s/audit.log", d) >=
	    sizeof path) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return path;
}

static void
hexhash(char out[HEXLEN + 1], const char *s, size_t n)
{
	unsigned char h[HASHLEN];

	crypto_generichash(h, sizeof h, (const unsigned char *)s, n, NULL, 0);
	sodium_bin2hex(out, HEXLEN + 1, h, sizeof h);
}

/*
 * The seq and hash of entry line[0..n): 0, or -1 if it is not one (the
 * chain is not checked here).
 */
static int
entry(const char *line, size_t n, long long *seq, char hash[HEXLEN + 1])
{
	const char *h;
	char *end;

	if (n < SUFLEN + 10 || memcmp(line, "{\"seq\":", 7) != 0 ||
	    memcmp(line + n - 2, "\"}", 2) != 0)
		return -1;
	h = line + n - SUFLEN;
	if (memcmp(h, SUFFIX, sizeof SUFFIX - 1) != 0)
		return -1;
	h += sizeof SUFFIX - 1;
	if (strspn(h, "0123456789abcdef") < HEXLEN)
		return -1;
	errno = 0;
	*seq = strtoll(line + 7, &end, 10);
	if (errno || end == line + 7 || *end != ',' || *seq < 1)
		return -1;
	memcpy(hash, h, HEXLEN);
	hash[HEXLEN] = '\0';
	return 0;
}

/*
 * The last whole entry of the log open on fd (size bytes): its seq and
 * hash, or seq 0 and zeros.  *torn is set when the file does not end
 * with a newline.  0, or -1 with errno.
 */
static int
last(int fd, off_t size, long long *seq, char hash[HEXLEN + 1], int *torn)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t want = 4096, n;
	off_t from;
	ssize_t r;
	char *s, *e, *nl;
	int ok = 0;

	*seq = 0;
	memset(hash, '0', HEXLEN);
	hash[HEXLEN] = '\0';
	*torn = 0;
	if (size == 0)
		return 0;
	for (;;) {
		n = (off_t)want < size ? want : (size_t)size;
		from = size - (off_t)n;
		oxi_buf_reset(&b);
		oxi_buf_grow(&b, n + 1);
		r = pread(fd, b.s, n, from);
		if (r < 0 || (size_t)r != n) {
			oxi_buf_free(&b);
			if (r >= 0)
				errno = EIO;
			return -1;
		}
		b.len = n;
		b.s[n] = '\0';
		*torn = b.s[n - 1] != '\n';
		/* walk back over the lines in hand for a whole entry */
		e = b.s + n;
		while (e > b.s) {
			if (e[-1] == '\n')
				e--;
			for (nl = e; nl > b.s && nl[-1] != '\n'; nl--)
				;
			if (nl == b.s && from > 0)
				break;	/* the line may start earlier */
			s = nl;
			if (e > s && entry(s, (size_t)(e - s), seq, hash) == 0) {
				ok = 1;
				break;
			}
			e = nl;
		}
		if (ok || from == 0 || want >= TAILMAX)
			break;
		want *= 4;
	}
	oxi_buf_free(&b);
	if (!ok) {
		*seq = 0;
		memset(hash, '0', HEXLEN);
	}
	return 0;
}

/* writes PATH.head: {"seq":N,"hash":"..."}, replaced atomically */
static void
head(const char *path, long long seq, const char *hash)
{
	char h[4200], tmp[4300], line[128];
	int fd, n;

	if ((size_t)snprintf(h, sizeof h, "%s.head", path) >= sizeof h ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s.head.%ld", path,
	    (long)getpid()) >= sizeof tmp)
		return;
	n = snprintf(line, sizeof line, "{\"seq\":%lld,\"hash\":\"%s\"}\n",
	    seq, hash);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0)
		return;
	if (oxi_writeall(fd, line, (size_t)n) < 0 || close(fd) < 0 ||
	    rename(tmp, h) < 0)
		unlink(tmp);
}

/* v (consumed) with long strings cut, for a bounded entry */
static jv
bound(jv v)
{
	const char *s;
	size_t n;
	int it;
	jv k;

	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		n = (size_t)jv_string_length_bytes(jv_copy(v));
		if (n <= DATAMAX)
			return v;
		s = jv_string_value(v);
		k = jv_string_sized(s, (int)oxi_utf8_cut(s, n, DATAMAX));
		jv_free(v);
		return jv_string_append_str(k, "...");
	case JV_KIND_OBJECT:
		for (it = jv_object_iter(v); jv_object_iter_valid(v, it);
		    it = jv_object_iter_next(v, it)) {
			k = jv_object_iter_key(v, it);
			v = jv_object_set(v, k, bound(jv_object_iter_value(v,
			    it)));
		}
		return v;
	default:
		return v;
	}
}

int
oxi_audit(const char *event, jv data)
{
	const char *path = oxi_audit_path();
	struct oxi_buf b = OXI_BUF_INIT;
	char ts[32], prev[HEXLEN + 1], hash[HEXLEN + 1];
	long long seq;
	struct stat st;
	int fd, torn, r = -1, e, it;
	jv k, v;

	if (jv_get_kind(data) != JV_KIND_OBJECT) {
		jv_free(data);
		data = jv_object();
	}
	if (!path) {
		jv_free(data);
		return -1;
	}
	if (sodium_init() < 0) {
		jv_free(data);
		errno = EIO;
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) < 0) {
		jv_free(data);
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			goto out;
	if (fstat(fd, &st) < 0 || last(fd, st.st_size, &seq, prev,
	    &torn) < 0)
		goto out;
	oxi_time_now(ts);
	if (torn)
		oxi_buf_putc(&b, '\n');
	oxi_buf_printf(&b, "{\"seq\":%lld,\"ts\":\"%s\",\"prog\":", seq + 1,
	    ts);
	v = jv_dump_string(jv_string(oxi_prog ? oxi_prog : "?"), 0);
	oxi_buf_cats(&b, jv_string_value(v));
	jv_free(v);
	v = jv_dump_string(jv_string(event), 0);
	oxi_buf_printf(&b, ",\"event\":%s", jv_string_value(v));
	jv_free(v);
	data = bound(data);
	for (it = jv_object_iter(data); jv_object_iter_valid(data, it);
	    it = jv_object_iter_next(data, it)) {
		k = jv_object_iter_key(data, it);
		if (!strcmp(jv_string_value(k), "seq") || !strcmp(
		    jv_string_value(k), "ts") || !strcmp(jv_string_value(k),
		    "prog") || !strcmp(jv_string_value(k), "event") ||
		    !strcmp(jv_string_value(k), "prev") ||
		    !strcmp(jv_string_value(k), "hash")) {
			jv_free(k);
			continue;
		}
		k = jv_dump_string(k, 0);
		v = jv_dump_string(jv_object_iter_value(data, it), 0);
		oxi_buf_printf(&b, ",%s:%s", jv_string_value(k),
		    jv_string_value(v));
		jv_free(k);
		jv_free(v);
	}
	oxi_buf_printf(&b, ",\"prev\":\"%s\"", prev);
	hexhash(hash, b.s + torn, b.len - torn);
	oxi_buf_printf(&b, SUFFIX "%s\"}\n", hash);
	if (oxi_writeall(fd, b.s, b.len) < 0)
		goto out;
	head(path, seq + 1, hash);
	r = 0;
out:
	e = errno;
	close(fd);	/* and the lock */
	jv_free(data);
	oxi_buf_free(&b);
	errno = e;
	return r;
}

/* one problem found by verify */
static void
problem(size_t *n, const char *path, unsigned long line, const char *fmt,
    long long a, long long b)
{
	char what[200];

	snprintf(what, sizeof what, fmt, a, b);
	oxi_warn("audit log '%s': line %lu: %s", path, line, what);
	(*n)++;
}

long
oxi_audit_verify(const char *path, size_t *entries)
{
	struct oxi_buf b = OXI_BUF_INIT, h = OXI_BUF_INIT;
	char prev[HEXLEN + 1], hash[HEXLEN + 1], want[HEXLEN + 1], *p, *e;
	const char *hp;
	long long seq, lastseq = 0, hseq;
	unsigned long line = 0;
	size_t bad = 0, n;
	jv v;

	*entries = 0;
	if (sodium_init() < 0) {
		errno = EIO;
		return -1;
	}
	if (oxi_readfile(path, &b, (size_t)-1 / 2) < 0) {
		oxi_buf_free(&b);
		return -1;
	}
	memset(prev, '0', HEXLEN);
	prev[HEXLEN] = '\0';
	for (p = b.s; p && p < b.s + b.len; p = e + 1) {
		if (!(e = memchr(p, '\n', b.s + b.len - p)))
			e = b.s + b.len;
		line++;
		n = (size_t)(e - p);
		if (n == 0)
			continue;
		if (entry(p, n, &seq, hash) < 0) {
			problem(&bad, path, line, "not an entry (a torn or "
			    "edited line)", 0, 0);
			continue;
		}
		(*entries)++;
		hexhash(want, p, n - SUFLEN);
		if (strcmp(want, hash) != 0)
			problem(&bad, path, line, "seq %lld: edited (its hash "
			    "does not match its content)", seq, 0);
		/* the prev it names */
		hp = p + n - SUFLEN - HEXLEN - 1;
		if (n < SUFLEN + HEXLEN + 10 || memcmp(hp - 9, ",\"prev\":\"",
		    9) != 0)
			problem(&bad, path, line, "seq %lld: no prev", seq, 0);
		else if (seq == lastseq + 1 && memcmp(hp, prev, HEXLEN) != 0)
			problem(&bad, path, line, "seq %lld: the entry before "
			    "it was edited or replaced (the chain breaks)",
			    seq, 0);
		if (seq <= lastseq)
			problem(&bad, path, line, "seq %lld after seq %lld: "
			    "out of order (moved or repeated)", seq, lastseq);
		else if (seq > lastseq + 1)
			problem(&bad, path, line, lastseq + 1 == seq - 1 ?
			    "entry seq %lld removed before it" :
			    "entries seq %lld to %lld removed before it",
			    lastseq + 1, seq - 1);
		if (seq > lastseq) {
			lastseq = seq;
			memcpy(prev, hash, sizeof prev);
		}
	}
	/* the head names the last entry written */
	oxi_buf_printf(&h, "%s.head", path);
	p = xstrdup(h.s);
	oxi_buf_reset(&h);
	if (oxi_readfile(p, &h, 4096) == 0) {
		v = oxi_json_parse(h.s, h.len);
		hseq = (long long)oxi_jnum(v, "seq", 0);
		if (hseq > lastseq)
			problem(&bad, path, line, hseq == lastseq + 1 ?
			    "entry seq %lld removed from the end" :
			    "entries seq %lld to %lld removed from the end",
			    lastseq + 1, hseq);
		else if (hseq == lastseq && hseq > 0 && (!oxi_msg_peek(v,
		    "hash") || strcmp(oxi_msg_peek(v, "hash"), prev) != 0))
			problem(&bad, path, line, "seq %lld: the last entry "
			    "is not the one written last", hseq, 0);
		jv_free(v);
	}
	free(p);
	oxi_buf_free(&h);
	oxi_buf_free(&b);
	return (long)bad;
}
