/*
 * chan.c - what every channel's receiver and sender share: rejecting a
 * record, writing a receipt, making text safe for a terminal
 */
#include <stdio.h>
#include <string.h>

#include "oxi.h"

void
oxi_chan_reject(struct oxi_nd *in, const char *why)
{
	oxi_warn("%s:%lu: %s, record dead-lettered", in->name, in->lineno,
	    why);
	oxi_deadletter(in->name, in->lineno, why, in->line, in->linelen);
}

int
oxi_chan_receipt(int fd, const char *channel, const char *ref,
    const char *pid, int ok, const char *error)
{
	jv r = oxi_msg_new("receipt");

	r = jv_object_set(r, jv_string("ref"), jv_string(ref));
	r = jv_object_set(r, jv_string("channel"), jv_string(channel));
	r = jv_object_set(r, jv_string("platform_id"),
	    pid ? jv_string(pid) : jv_null());
	r = jv_object_set(r, jv_string("ok"), jv_bool(ok));
	if (error)
		r = jv_object_set(r, jv_string("error"), jv_string(error));
	return oxi_nd_write(fd, r);
}

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
