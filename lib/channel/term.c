/* term.c - text made safe for a terminal, for every channel that shows one */
#include "oxi.h"
#include "channel/channel.h"

void
oxi_term_clean(struct oxi_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len, *run;
	char caret[3] = { '^', 0, 0 };

	while (p < end) {
		/* copy the longest run of harmless bytes at once */
		for (run = p; p < end; p++) {
			if (*p == '\n' || *p == '\t')
				continue;
			if (*p < 0x20 || *p == 0x7f)
				break;
			if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 &&
			    p[1] <= 0x9f)
				break;
		}
		oxi_buf_cat(b, run, p - run);
		if (p >= end)
			break;
		if (*p == '\r') {
			p++;
		} else if (*p == 0x7f) {
			oxi_buf_cat(b, "^?", 2);
			p++;
		} else if (*p < 0x20) {
			caret[1] = (char)(*p + 0x40);
			oxi_buf_cat(b, caret, 2);
			p++;
		} else {
			/* C1 control U+0080..U+009F: ESC plus its 7-bit twin */
			oxi_buf_cat(b, "^[", 2);
			oxi_buf_putc(b, p[1] - 0x40);
			p += 2;
		}
	}
}
