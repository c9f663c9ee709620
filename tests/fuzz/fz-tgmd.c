/*
 * fz-tgmd.c - the model's Markdown as Telegram HTML (channel/tgmd.c):
 * whatever the text, every part is valid UTF-8, its tags are Telegram's
 * and balanced, no < > or & stands bare, its text is its plain fallback,
 * and it keeps to the limit (by the first byte: 1 to 64, or 4096 units)
 * unless one character is wider.  md4c is handed a cleaned copy; the
 * input is given as the fuzzer hands it, without a NUL after it.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "channel/tgmd.h"
#include "fz.h"

/* the text of html, checked as above; 0 or a reason */
static const char *
check(const char *s, struct oxi_buf *text)
{
	static const char *const tags[] = { "b", "i", "s", "u", "code", "pre",
		"a", "blockquote", NULL };
	static const char *const ents[] = { "&lt;", "<", "&gt;", ">",
		"&amp;", "&", "&quot;", "\"", NULL };
	char stack[64][16], name[16];
	const char *e;
	size_t k;
	int n = 0, i, close;

	while (*s) {
		if (*s == '<') {
			close = s[1] == '/';
			e = s + 1 + close;
			for (k = 0; k < 15 && e[k] >= 'a' && e[k] <= 'z'; k++)
				name[k] = e[k];
			name[k] = '\0';
			for (i = 0; tags[i] && strcmp(tags[i], name); i++)
				;
			if (!tags[i] || !(e = strchr(s, '>')))
				return "a tag that is not Telegram's";
			if (memchr(s + 1, '<', e - s - 1))
				return "a < inside a tag";
			if (close && (n == 0 || strcmp(stack[--n], name)))
				return "a tag closed out of order";
			if (!close && n == 64)
				return "tags too deep";
			if (!close)
				strcpy(stack[n++], name);
			s = e + 1;
		} else if (*s == '&') {
			for (i = 0; ents[i] && strncmp(s, ents[i],
			    strlen(ents[i])); i += 2)
				;
			if (!ents[i])
				return "a bare &";
			oxi_buf_cats(text, ents[i + 1]);
			s += strlen(ents[i]);
		} else if (*s == '>')
			return "a bare >";
		else
			oxi_buf_putc(text, *s++);
	}
	return n ? "a tag left open" : NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_tgmd_part *p;
	struct oxi_buf text = OXI_BUF_INIT;
	size_t max = n > 0 && d[0] & 0x80 ? 4096 : 1 + (n > 0 ? d[0] % 64 : 0);
	const char *why;
	int k, i;

	k = oxi_tgmd_render((const char *)d, n, n > 0 ? !(d[0] & 1) : 1,
	    max, &p);
	FZ_CHECK(k >= 0, "render failed");
	for (i = 0; i < k; i++) {
		oxi_buf_reset(&text);
		oxi_buf_cats(&text, "");
		FZ_CHECK(oxi_utf8_valid(p[i].html, strlen(p[i].html),
		    OXI_UTF8_NONUL), "the HTML is not UTF-8");
		why = check(p[i].html, &text);
		FZ_CHECK(!why, why);
		FZ_CHECK(strcmp(text.s, p[i].plain) == 0,
		    "the text is not the plain fallback");
		FZ_CHECK(p[i].units == oxi_tgmd_units(p[i].plain,
		    strlen(p[i].plain)), "units miscounted");
		FZ_CHECK(p[i].units > 0, "an empty part");
		FZ_CHECK(p[i].units <= max || p[i].units <= 2,
		    "a part over the limit");
	}
	oxi_buf_free(&text);
	oxi_tgmd_free(p, k);
	return 0;
}
