/*
 * sse.c - Server-Sent Events parser, after the WHATWG HTML "event stream"
 * interpretation rules
 *
 * Bytes may arrive split anywhere: a line is assembled across feeds, a CR
 * at the end of one feed and an LF at the start of the next make one line
 * end, and a UTF-8 byte order mark split across feeds is still skipped.
 * An event still being assembled when the input ends is never dispatched:
 * the caller decides what a truncated stream means.
 *
 * NUL bytes, by the WHATWG rules: an "id:" value holding one is ignored;
 * "data:" keeps it (the callback gets the data's length); "event:" keeps
 * it too, and the event is dispatched under that type, which no listener
 * named by a C string can match: so the callback, which gets the type as
 * a C string, does not hear that event at all, rather than hear it under
 * the type cut at its NUL.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"

#define SSE_MAX		(8 * 1024 * 1024)

static const char bom[] = "\xef\xbb\xbf";

void
oxi_sse_init(struct oxi_sse *s, oxi_sse_fn fn, void *arg)
{
	memset(s, 0, sizeof *s);
	s->fn = fn;
	s->arg = arg;
	s->retry = -1;
	s->max = SSE_MAX;
}

void
oxi_sse_free(struct oxi_sse *s)
{
	oxi_buf_free(&s->line);
	oxi_buf_free(&s->data);
	oxi_buf_free(&s->event);
	oxi_buf_free(&s->lastid);
}

static int
dispatch(struct oxi_sse *s)
{
	const char *type;
	int r;

	if (s->data.len == 0 || (s->event.len > 0 &&
	    memchr(s->event.s, '\0', s->event.len))) {
		/* no data; or a type no C string names: no listener */
		oxi_buf_reset(&s->data);
		oxi_buf_reset(&s->event);
		return 0;
	}
	s->data.s[--s->data.len] = '\0';	/* the final "\n" */
	type = s->event.len > 0 ? s->event.s : "message";
	r = s->fn(s->arg, type, s->data.s, s->data.len);
	oxi_buf_reset(&s->data);
	oxi_buf_reset(&s->event);
	return r != 0 ? -1 : 0;
}

static int
field(struct oxi_sse *s, const char *name, size_t nlen, const char *val,
    size_t vlen)
{
	size_t i;
	long r;

#define IS(lit)	(nlen == sizeof(lit) - 1 && memcmp(name, lit, nlen) == 0)
	if (IS("event")) {
		oxi_buf_reset(&s->event);
		oxi_buf_cat(&s->event, val, vlen);
	} else if (IS("data")) {
		if (s->data.len + vlen + 1 > s->max) {
			s->over = 1;
			return -1;
		}
		oxi_buf_cat(&s->data, val, vlen);
		oxi_buf_putc(&s->data, '\n');
	} else if (IS("id")) {
		if (!memchr(val, '\0', vlen)) {
			oxi_buf_reset(&s->lastid);
			oxi_buf_cat(&s->lastid, val, vlen);
		}
	} else if (IS("retry")) {
		if (vlen == 0)
			return 0;
		for (i = 0, r = 0; i < vlen; i++) {
			if (val[i] < '0' || val[i] > '9')
				return 0;
			if (r < 100000000)
				r = r * 10 + (val[i] - '0');
		}
		s->retry = r;
	}
#undef IS
	return 0;
}

/* interprets the complete line in s->line, then empties it */
static int
line(struct oxi_sse *s)
{
	const char *p = s->line.s, *colon;
	size_t n = s->line.len;
	int r;

	if (n == 0)
		return dispatch(s);
	if (p[0] == ':')
		r = 0;
	else if ((colon = memchr(p, ':', n))) {
		const char *v = colon + 1;
		size_t vlen = n - (v - p);

		if (vlen > 0 && *v == ' ') {
			v++;
			vlen--;
		}
		r = field(s, p, colon - p, v, vlen);
	} else
		r = field(s, p, n, "", 0);
	oxi_buf_reset(&s->line);
	return r;
}

int
oxi_sse_feed(struct oxi_sse *s, const char *p, size_t n)
{
	const char *end = p + n, *q;

	if (s->over)
		return -1;
	/* a leading byte order mark, possibly split across feeds */
	while (!s->bom && p < end) {
		if (s->line.len < 3 && *p == bom[s->line.len]) {
			oxi_buf_putc(&s->line, *p++);
			if (s->line.len == 3) {
				oxi_buf_reset(&s->line);
				s->bom = 1;
			}
		} else
			s->bom = 1;	/* keep any partial match as text */
	}
	while (p < end) {
		if (s->cr) {
			s->cr = 0;
			if (*p == '\n') {
				p++;
				continue;
			}
		}
		for (q = p; q < end && *q != '\r' && *q != '\n'; q++)
			;
		if (q > p) {
			if (s->line.len + (q - p) > s->max) {
				s->over = 1;
				return -1;
			}
			oxi_buf_cat(&s->line, p, q - p);
		}
		if (q == end)
			break;
		if (*q == '\r')
			s->cr = 1;
		p = q + 1;
		if (line(s) < 0)
			return -1;
	}
	return 0;
}
