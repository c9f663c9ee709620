/*
 * nd.c - NDJSON records: a line reader over read(2) and a one-write writer
 *
 * The reader splits lines itself, with a hard cap, and parses each line
 * on its own, so that a bad line costs one warning and a dead letter and
 * never wedges the parser for the lines after it.
 */
#define _GNU_SOURCE	/* tee(2), pipe2(2), F_SETPIPE_SZ */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

#define CHUNK	65536
#define DLQ_MAXDATA	4096	/* bytes of a bad line kept in a dead letter */

/*
 * The hand-off (oxi(7), "Nothing lost, nothing doubled").  The input's
 * head is buf[at]: the bytes from there to buf.len are still in the input.
 * A peek copies the input from its head; only what lies past the bytes
 * already known is new.  Bytes taken (before off) leave the input when
 * oxi_nd_consume reads them off it, once the stage has committed them.
 */
enum { HO_PIPE, HO_SOCK, HO_FILE };
struct oxi_ho {
	int kind;		/* HO_* */
	int pp[2];		/* HO_PIPE: the private pipe tee(2) fills */
	int nonblock;		/* the input was non-blocking at oxi_nd_peek */
	size_t at;		/* offset in buf of the input's head */
	char *tmp;		/* what a peek copied */
	size_t cap;		/* its size: as much as a peek may copy */
};

void
oxi_nd_init(struct oxi_nd *in, int fd, const char *name)
{
	const char *v;

	memset(in, 0, sizeof *in);
	in->fd = fd;
	in->name = name;
	in->max = OXI_MAXLINE_DEFAULT;
	if ((v = oxi_getenv("OXI_MAXLINE")))
		in->max = oxi_sizearg(v, "OXI_MAXLINE");
}

void
oxi_nd_free(struct oxi_nd *in)
{
	if (in->ho) {
		if (in->ho->pp[0] >= 0) {
			close(in->ho->pp[0]);
			close(in->ho->pp[1]);
		}
		free(in->ho->tmp);
		free(in->ho);
		in->ho = NULL;
	}
	oxi_buf_free(&in->buf);
	in->line = NULL;
	in->linelen = 0;
}

static ssize_t hofill(struct oxi_nd *);

ssize_t
oxi_nd_fill(struct oxi_nd *in)
{
	ssize_t r;
	size_t drop;

	if (in->off > 0 && (in->off >= in->buf.len || in->off > CHUNK)) {
		/* what the input still holds stays, for oxi_nd_consume */
		drop = in->ho && in->ho->at < in->off ? in->ho->at : in->off;
		oxi_buf_consume(&in->buf, drop);
		in->off -= drop;
		if (in->ho)
			in->ho->at -= drop;
		in->line = NULL;
	}
	if (in->ho)
		return hofill(in);
	oxi_buf_grow(&in->buf, CHUNK);
	r = read(in->fd, in->buf.s + in->buf.len, CHUNK);
	if (r < 0)
		return -1;
	if (r == 0) {
		in->eof = 1;
		return 0;
	}
	in->buf.len += r;
	in->buf.s[in->buf.len] = '\0';
	return r;
}

/* a pipe grown to hold n bytes, if the system lets it; its size */
static size_t
pipegrow(int fd, size_t n)
{
	int sz = fcntl(fd, F_GETPIPE_SZ);

	if (sz >= 0 && (size_t)sz < n) {
		int want = n > 1 << 30 ? 1 << 30 : (int)n;
		int got = fcntl(fd, F_SETPIPE_SZ, want);

		if (got < 0 && want > 1 << 20)	/* past pipe-max-size */
			got = fcntl(fd, F_SETPIPE_SZ, 1 << 20);
		if (got > 0)
			sz = got;
	}
	return sz > 0 ? (size_t)sz : 65536;
}

int
oxi_nd_peek(struct oxi_nd *in)
{
	struct oxi_ho *h;
	struct stat st;
	int fl, type;
	socklen_t tl = sizeof type;

	if (in->ho)
		return 0;
	if (fstat(in->fd, &st) < 0 || (fl = fcntl(in->fd, F_GETFL)) < 0)
		return -1;
	h = xcalloc(1, sizeof *h);
	h->pp[0] = h->pp[1] = -1;
	h->nonblock = (fl & O_NONBLOCK) != 0;
	h->at = in->buf.len;	/* what was read before is gone from it */
	if (S_ISFIFO(st.st_mode)) {
		if (pipe2(h->pp, O_CLOEXEC | O_NONBLOCK) < 0) {
			free(h);
			return -1;
		}
		h->kind = HO_PIPE;
		(void)pipegrow(in->fd, in->max + 2);
		h->cap = pipegrow(h->pp[1], in->max + 2);
	} else if (S_ISSOCK(st.st_mode) && getsockopt(in->fd, SOL_SOCKET,
	    SO_TYPE, &type, &tl) == 0 && type == SOCK_STREAM) {
		h->kind = HO_SOCK;
		h->cap = in->max + 2 < CHUNK ? CHUNK : in->max + 2;
	} else
		h->kind = HO_FILE;	/* a file or a tty: read as before */
	if (h->kind != HO_FILE)
		h->tmp = xmalloc(h->cap);
	in->ho = h;
	return 0;
}

/* copies the input from its head into h->tmp: the bytes, 0 at its end,
 * -1 with errno (EAGAIN: nothing in it) */
static ssize_t
peek(struct oxi_nd *in)
{
	struct oxi_ho *h = in->ho;
	ssize_t n, r;
	size_t got = 0;

	if (h->kind == HO_SOCK)
		return recv(in->fd, h->tmp, h->cap, MSG_PEEK | MSG_DONTWAIT);
	n = tee(in->fd, h->pp[1], h->cap, SPLICE_F_NONBLOCK);
	if (n <= 0)
		return n;
	while (got < (size_t)n) {
		r = read(h->pp[0], h->tmp + got, (size_t)n - got);
		if (r <= 0) {		/* cannot be: the bytes are there */
			if (r == 0)
				errno = EIO;
			return -1;
		}
		got += r;
	}
	return n;
}

/* reads n bytes off the input, bytes known to be there; 0 or -1 */
static int
drop(struct oxi_nd *in, size_t n)
{
	struct oxi_ho *h = in->ho;
	ssize_t r;

	while (n > 0) {
		r = h->kind == HO_SOCK ?
		    recv(in->fd, h->tmp, n < h->cap ? n : h->cap, 0) :
		    read(in->fd, h->tmp, n < h->cap ? n : h->cap);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		n -= r;
	}
	return 0;
}

/*
 * oxi_nd_fill for a peeked input: >0 bytes new, or a partial record
 * consumed; 0 at the end of input; -1 with errno.  A record that the
 * input never holds whole (longer than the pipe, or written in pieces) is
 * consumed as it comes: a writer blocked on a full pipe must go on.  This
 * is the one window: a stage killed then loses that record.
 */
static ssize_t
hofill(struct oxi_nd *in)
{
	struct oxi_ho *h = in->ho;
	struct pollfd pfd;
	size_t known;
	ssize_t n;

	if (h->kind == HO_FILE) {
		oxi_buf_grow(&in->buf, CHUNK);
		n = read(in->fd, in->buf.s + in->buf.len, CHUNK);
		if (n <= 0) {
			in->eof |= n == 0;
			return n;
		}
		in->buf.len += n;
		in->buf.s[in->buf.len] = '\0';
		h->at = in->buf.len;
		return n;
	}
	for (;;) {
		known = in->buf.len - h->at;
		n = peek(in);
		if (n < 0 && errno == EAGAIN && !h->nonblock) {
			pfd.fd = in->fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, -1) < 0)
				return -1;
			continue;
		}
		if (n < 0)
			return -1;
		if (n == 0) {
			in->eof = 1;
			return 0;
		}
		if ((size_t)n > known) {
			oxi_buf_cat(&in->buf, h->tmp + known, (size_t)n - known);
			return n - (ssize_t)known;
		}
		/* the input holds nothing new */
		if (in->off > h->at || memchr(in->buf.s + in->off, '\n',
		    in->buf.len - in->off)) {
			errno = EAGAIN;	/* records to take or consume first */
			return -1;
		}
		if (drop(in, known) < 0)
			return -1;
		h->at = in->buf.len;
		return (ssize_t)known;
	}
}

int
oxi_nd_consume(struct oxi_nd *in)
{
	struct oxi_ho *h = in->ho;

	if (!h || in->off <= h->at)
		return 0;
	if (h->kind != HO_FILE && drop(in, in->off - h->at) < 0)
		return -1;
	h->at = in->off;
	return 0;
}

void
oxi_nd_hello(void)
{
	struct stat st;
	char link[64];
	ssize_t n;
	jv r;

	/* an anonymous pipe reads "pipe:[ino]": only a coprocess is on it */
	if (fstat(1, &st) < 0 || !S_ISFIFO(st.st_mode) ||
	    (n = readlink("/proc/self/fd/1", link, sizeof link - 1)) < 0)
		return;
	link[n] = '\0';
	if (strncmp(link, "pipe:", 5) == 0)
		return;
	r = jv_object_set(jv_object(), jv_string("v"), jv_number(1));
	r = jv_object_set(r, jv_string("type"), jv_string("stage.up"));
	r = jv_object_set(r, jv_string("prog"), jv_string(oxi_prog));
	r = jv_object_set(r, jv_string("pid"), jv_string_fmt("%ld",
	    (long)getpid()));
	/* the monotonic clock is the host's: a reader knows what it sent
	 * before this stage was up (oxi_clock_ms) */
	r = jv_object_set(r, jv_string("up_ms"), jv_number(
	    (double)oxi_clock_ms()));
	if (oxi_nd_write(1, r) < 0)
		oxi_warnsys("unable to write to stdout");
}

int (*oxi_deadletter_filter)(const char *, size_t, struct oxi_buf *);

void
oxi_deadletter(const char *source, unsigned long lineno, const char *reason,
    const char *data, size_t len)
{
	char path[4096], ts[32];
	const char *dir, *p;
	struct oxi_buf clean = OXI_BUF_INIT;
	jv rec;
	int fd;

	if (oxi_deadletter_filter && oxi_deadletter_filter(data, len, &clean)) {
		data = clean.s ? clean.s : "";
		len = clean.len;
	}

	if ((p = oxi_getenv("OXI_DEADLETTER")))
		snprintf(path, sizeof path, "%s", p);
	else if ((dir = oxi_state_dir()))
		snprintf(path, sizeof path, "%s/deadletter.ndjson", dir);
	else {
		oxi_warnsys("unable to find a place for dead letters");
		return;
	}
	oxi_time_now(ts);
	rec = jv_object();
	rec = jv_object_set(rec, jv_string("type"), jv_string("deadletter"));
	rec = jv_object_set(rec, jv_string("v"), jv_number(1));
	rec = jv_object_set(rec, jv_string("ts"), jv_string(ts));
	rec = jv_object_set(rec, jv_string("prog"), jv_string(oxi_prog));
	rec = jv_object_set(rec, jv_string("source"), jv_string(source));
	rec = jv_object_set(rec, jv_string("line"), jv_number(lineno));
	rec = jv_object_set(rec, jv_string("reason"), jv_string(reason));
	rec = jv_object_set(rec, jv_string("bytes"), jv_number(len));
	rec = jv_object_set(rec, jv_string("data"), jv_string_sized(data,
	    len > DLQ_MAXDATA ? DLQ_MAXDATA : (int)len));
	if (len > DLQ_MAXDATA)
		rec = jv_object_set(rec, jv_string("truncated"), jv_true());
	oxi_buf_free(&clean);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		jv_free(rec);
		oxi_warnsys("unable to open dead-letter file '%s'", path);
		return;
	}
	if (oxi_nd_write(fd, rec) < 0)
		oxi_warnsys("unable to write dead-letter file '%s'", path);
	close(fd);
}

static int
bad(struct oxi_nd *in, const char *reason, const char *line, size_t len)
{
	oxi_warn("%s:%lu: %s, record dead-lettered", in->name, in->lineno,
	    reason);
	oxi_deadletter(in->name, in->lineno, reason, line, len);
	return OXI_ND_BAD;
}
/* object keys in a valid JSON text: strings followed by a colon */
static size_t
rawkeys(const char *s, size_t n)
{
	size_t i, keys = 0;
	int instr = 0, after = 0;

	for (i = 0; i < n; i++) {
		if (instr) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"') {
				instr = 0;
				after = 1;
			}
			continue;
		}
		if (s[i] == '"')
			instr = 1;
		else if (s[i] == ':' && after)
			keys++;
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '"')
			after = 0;
	}
	return keys;
}

/* object keys in a parsed value (borrowed), duplicates counted once */
static size_t
jvkeys(jv v)
{
	size_t keys = 0;
	int i, n, it;

	switch (jv_get_kind(v)) {
	case JV_KIND_OBJECT:
		for (it = jv_object_iter(v); jv_object_iter_valid(v, it);
		    it = jv_object_iter_next(v, it)) {
			jv x = jv_object_iter_value(v, it);

			keys += 1 + jvkeys(x);
			jv_free(x);
		}
		return keys;
	case JV_KIND_ARRAY:
		n = jv_array_length(jv_copy(v));
		for (i = 0; i < n; i++) {
			jv x = jv_array_get(jv_copy(v), i);

			keys += jvkeys(x);
			jv_free(x);
		}
		return keys;
	default:
		return 0;
	}
}

/* parses one complete line (no newline); stores a record or reports it */
static int
parse(struct oxi_nd *in, char *line, size_t len, jv *out)
{
	jv v, t, msg;
	char why[200], *p;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (strspn(line, " \t\r") >= len)
		return OXI_ND_AGAIN;	/* blank: nothing to take */
	if (len > in->max)
		return bad(in, "line too long", line, len);
	if (!oxi_utf8_valid(line, len, OXI_UTF8_NONUL))
		return bad(in, "invalid UTF-8 or NUL byte", line, len);
	if (len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0)
		return bad(in, "byte order mark", line, len);
	v = oxi_json_parse(line, len);
	if (!jv_is_valid(v)) {
		msg = jv_invalid_get_msg(v);
		snprintf(why, sizeof why, "invalid JSON (%s",
		    jv_get_kind(msg) == JV_KIND_STRING ?
		    jv_string_value(msg) : "parse error");
		jv_free(msg);
		/* libjq quotes the line itself: never repeat input in logs */
		if ((p = strstr(why, " (while parsing")))
			*p = '\0';
		snprintf(why + strlen(why), sizeof why - strlen(why), ")");
		return bad(in, why, line, len);
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return bad(in, "not a JSON object", line, len);
	}
	/* a key given twice means different things to different parsers */
	if (rawkeys(line, len) != jvkeys(v)) {
		jv_free(v);
		return bad(in, "duplicate key in an object", line, len);
	}
	t = jv_object_get(jv_copy(v), jv_string("type"));
	if (jv_get_kind(t) != JV_KIND_STRING) {
		jv_free(t);
		jv_free(v);
		return bad(in, "record has no string \"type\"", line, len);
	}
	jv_free(t);
	in->line = line;
	in->linelen = len;
	*out = v;
	return OXI_ND_OK;
}

int
oxi_nd_take(struct oxi_nd *in, jv *out)
{
	char *start, *nl;
	size_t avail, len;
	int r;

	if (!in->buf.s)		/* nothing read yet: no NULL + 0 below */
		return in->eof ? OXI_ND_EOF : OXI_ND_AGAIN;
	for (;;) {
		start = in->buf.s + in->off;
		avail = in->buf.len - in->off;
		nl = avail > in->scan ?
		    memchr(start + in->scan, '\n', avail - in->scan) : NULL;
		if (in->skipping) {
			/* the rest of an over-long line, already reported */
			if (!nl) {
				in->skipped += avail;
				in->off = in->buf.len;
				in->scan = 0;
				if (in->eof) {
					in->skipping = 0;
					return OXI_ND_EOF;
				}
				return OXI_ND_AGAIN;
			}
			in->off += nl - start + 1;
			in->scan = 0;
			in->skipping = 0;
			continue;
		}
		if (!nl) {
			in->scan = avail;
			if (avail > in->max + 1) {
				/* over the cap: report now, drop the rest */
				in->lineno++;
				r = bad(in, "line too long", start, avail);
				in->skipping = 1;
				in->skipped = avail;
				in->off = in->buf.len;
				in->scan = 0;
				return r;
			}
			if (!in->eof)
				return OXI_ND_AGAIN;
			if (avail == 0)
				return OXI_ND_EOF;
			/* a last line without newline: take it as a line */
			in->lineno++;
			in->off = in->buf.len;
			in->scan = 0;
			r = parse(in, start, avail, out);
			if (r == OXI_ND_AGAIN)
				return OXI_ND_EOF;
			return r;
		}
		len = nl - start;
		in->lineno++;
		in->off += len + 1;
		in->scan = 0;
		*nl = '\0';
		r = parse(in, start, len, out);
		if (r != OXI_ND_AGAIN)
			return r;
	}
}

int
oxi_nd_next(struct oxi_nd *in, jv *out)
{
	int r;

	for (;;) {
		r = oxi_nd_take(in, out);
		if (r != OXI_ND_AGAIN)
			return r;
		if (oxi_nd_fill(in) < 0)
			return OXI_ND_ERR;
	}
}

int
oxi_nd_write_raw(int fd, const char *line, size_t len)
{
	char small[4096];
	char *p;
	int r, e;

	p = len + 1 <= sizeof small ? small : xmalloc(len + 1);
	memcpy(p, line, len);
	p[len] = '\n';
	r = oxi_writeall(fd, p, len + 1);
	e = errno;
	if (p != small)
		free(p);
	errno = e;
	return r;
}

int
oxi_nd_write(int fd, jv rec)
{
	static struct oxi_buf b = OXI_BUF_INIT;	/* kept between records */
	int r, e;

	oxi_buf_reset(&b);
	oxi_json_dump(&b, rec);
	jv_free(rec);
	oxi_buf_putc(&b, '\n');
	r = oxi_writeall(fd, b.s, b.len);
	e = errno;
	/* a large record does not keep its memory */
	if (b.cap > 65536)
		oxi_buf_free(&b);
	errno = e;
	return r;
}

void
oxi_nd_out(jv rec)
{
	if (oxi_nd_write(1, rec) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
}

void
oxi_nd_pass(const struct oxi_nd *in)
{
	if (oxi_nd_write_raw(1, in->line, in->linelen) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
}

void
oxi_nd_reject(struct oxi_nd *in, const char *why)
{
	oxi_warn("%s:%lu: %s, record dead-lettered", in->name, in->lineno,
	    why);
	oxi_deadletter(in->name, in->lineno, why, in->line, in->linelen);
}
