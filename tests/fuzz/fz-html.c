/*
 * fz-html.c - HTML as text (net/html.c), what web_fetch makes of any
 * page: the text of the input (a base URL or none, by its first byte)
 * must be valid UTF-8 as html.c promises, and so must the title and the
 * unescaping of the input when the input is.  The input is given as the
 * fuzzer hands it, without a NUL after it: the parser must keep to its
 * length.  FZ_LAX=1 hands a NUL-terminated copy (what web.c passes) and
 * drops the UTF-8 promise, to look past those two classes.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "fz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_buf out = OXI_BUF_INIT;
	const char *s = (const char *)d;
	const char *base;
	char *title = NULL, *copy = NULL;
	int lax = getenv("FZ_LAX") != NULL;

	if (lax) {
		copy = malloc(n + 1);
		memcpy(copy, d, n);
		copy[n] = '\0';
		s = copy;
	}

	base = n > 0 && (d[0] & 1) ? "https://example.org/a/b?c#d" : NULL;
	oxi_html_text(s, n, base, &out, &title);
	FZ_CHECK(lax || oxi_utf8_valid(out.s, out.len, 0),
	    "the text is not valid UTF-8");
	FZ_CHECK(out.len == 0 || out.s[out.len] == '\0',
	    "the text is not terminated");
	if (title) {
		FZ_CHECK(lax || oxi_utf8_valid(title, strlen(title), 0),
		    "the title is not valid UTF-8");
		free(title);
	}
	oxi_buf_reset(&out);
	oxi_html_unescape(&out, s, n);
	FZ_CHECK(out.len <= 4 * n + 4, "unescaping grew past 4x");
	FZ_CHECK(lax || !oxi_utf8_valid(s, n, 0) ||
	    oxi_utf8_valid(out.s, out.len, 0),
	    "unescaping valid UTF-8 gave invalid UTF-8");
	oxi_buf_free(&out);
	free(copy);
	return 0;
}
