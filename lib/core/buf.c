/* buf.c - growable byte buffer */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"

void
oxi_buf_grow(struct oxi_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need < b->len)
		oxi_die(OXI_EX_TEMP, "out of memory");
	if (need <= b->cap)
		return;
	if (b->cap * 2 > need)
		need = b->cap * 2;
	if (need < 64)
		need = 64;
	b->s = xrealloc(b->s, need);
	b->cap = need;
}

void
oxi_buf_cat(struct oxi_buf *b, const void *p, size_t n)
{
	oxi_buf_grow(b, n);
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
oxi_buf_cats(struct oxi_buf *b, const char *s)
{
	oxi_buf_cat(b, s, strlen(s));
}

void
oxi_buf_putc(struct oxi_buf *b, int c)
{
	char ch = (char)c;

	oxi_buf_cat(b, &ch, 1);
}

void
oxi_buf_printf(struct oxi_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	oxi_buf_grow(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		oxi_buf_grow(b, n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
}

void
oxi_buf_reset(struct oxi_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void
oxi_buf_free(struct oxi_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void
oxi_buf_consume(struct oxi_buf *b, size_t n)
{
	if (n >= b->len) {
		oxi_buf_reset(b);
		return;
	}
	memmove(b->s, b->s + n, b->len - n);
	b->len -= n;
	b->s[b->len] = '\0';
}
