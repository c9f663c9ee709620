/* t-mem.c - oxi_wipe and the UTF-8 helpers: oxi_utf8_seq, _valid, _cut */
#include <string.h>

#include "oxi.h"
#include "tap.h"

#define SEQ(s)		oxi_utf8_seq((s), sizeof(s) - 1)
#define VALID(s, f)	oxi_utf8_valid((s), sizeof(s) - 1, (f))

int
main(void)
{
	char secret[16] = "sk-0123456789ab";
	static const char zero[16];
	const char *s;

	plan(48);

	/* well-formed sequences, one of each length and at the edges */
	is_int(SEQ("a"), 1, "ASCII is one byte");
	is_int(SEQ("\x7f"), 1, "U+007F is one byte");
	is_int(SEQ("\xc2\x80"), 2, "U+0080 is two bytes");
	is_int(SEQ("\xdf\xbf"), 2, "U+07FF is two bytes");
	is_int(SEQ("\xe0\xa0\x80"), 3, "U+0800 is three bytes");
	is_int(SEQ("\xed\x9f\xbf"), 3, "U+D7FF, below the surrogates");
	is_int(SEQ("\xef\xbf\xbf"), 3, "U+FFFF is three bytes");
	is_int(SEQ("\xf0\x90\x80\x80"), 4, "U+10000 is four bytes");
	is_int(SEQ("\xf4\x8f\xbf\xbf"), 4, "U+10FFFF is four bytes");
	is_int(SEQ("\xc3\xa9xyz"), 2, "only the first sequence counts");
	is_int(oxi_utf8_seq("\0", 1), 1, "NUL is a sequence of one byte");
	is_int(oxi_utf8_seq("a", 0), 0, "n == 0: no sequence");

	/* ill-formed */
	is_int(SEQ("\xc0\xaf"), 0, "overlong C0 AF ('/')");
	is_int(SEQ("\xc1\xbf"), 0, "overlong C1 BF");
	is_int(SEQ("\xe0\x80\x80"), 0, "overlong E0 80 80");
	is_int(SEQ("\xe0\x9f\xbf"), 0, "overlong E0 9F BF");
	is_int(SEQ("\xf0\x8f\xbf\xbf"), 0, "overlong F0 8F BF BF");
	is_int(SEQ("\xed\xa0\x80"), 0, "surrogate ED A0 80 (U+D800)");
	is_int(SEQ("\xed\xbf\xbf"), 0, "surrogate ED BF BF (U+DFFF)");
	is_int(SEQ("\xf4\x90\x80\x80"), 0, "F4 90 80 80 is past U+10FFFF");
	is_int(SEQ("\xf5\x80\x80\x80"), 0, "F5 leads nothing");
	is_int(SEQ("\xff"), 0, "FF leads nothing");
	is_int(SEQ("\x80"), 0, "a stray continuation byte");
	is_int(SEQ("\xc3"), 0, "a lead byte cut short");
	is_int(SEQ("\xe2\x82"), 0, "a three-byte sequence cut short");
	is_int(SEQ("\xc3\x28"), 0, "a lead byte without its continuation");
	is_int(SEQ("\xe2\x28\xa1"), 0, "a bad second byte of three");

	/* whole texts */
	ok(VALID("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 0),
	    "mixed text is valid");
	ok(VALID("", OXI_UTF8_NONUL), "the empty text is valid");
	ok(VALID("a\0b", 0), "NUL allowed without NONUL");
	ok(!VALID("a\0b", OXI_UTF8_NONUL), "NUL refused with NONUL");
	ok(!VALID("a\xc0\xaf", 0), "an overlong makes the text invalid");
	ok(!VALID("a\xed\xa0\x80z", 0), "a surrogate makes the text invalid");
	ok(!VALID("\xf4\x90\x80\x80", 0), "past U+10FFFF: invalid");
	ok(!VALID("ab\xe2\x82", 0), "a cut sequence at the end: invalid");
	ok(VALID("ab\xe2\x82", OXI_UTF8_TAIL),
	    "TAIL accepts a good sequence cut by the end");
	ok(VALID("ab\xf0\x9f\x98", OXI_UTF8_TAIL),
	    "TAIL accepts three bytes of four");
	ok(VALID("ab\xc3", OXI_UTF8_TAIL), "TAIL accepts a lone lead byte");
	ok(!VALID("ab\xe0\x80", OXI_UTF8_TAIL),
	    "TAIL refuses a cut overlong (E0 80)");
	ok(!VALID("ab\xed\xa0", OXI_UTF8_TAIL),
	    "TAIL refuses a cut surrogate (ED A0)");
	ok(!VALID("ab\xe2\x82z", OXI_UTF8_TAIL),
	    "TAIL refuses a cut sequence before the end");
	ok(!VALID("ab\x80", OXI_UTF8_TAIL),
	    "TAIL refuses a stray continuation byte at the end");
	ok(!VALID("a\0\xc3", OXI_UTF8_TAIL | OXI_UTF8_NONUL),
	    "NONUL holds together with TAIL");

	/* cuts at a character boundary */
	s = "ab\xe2\x82\xac" "cd";	/* a b EURO c d: 7 bytes */
	is_int(oxi_utf8_cut(s, 7, 10), 7, "len <= max: the whole text");
	is_int(oxi_utf8_cut(s, 7, 5), 5, "a cut after a whole sequence");
	is_int(oxi_utf8_cut(s, 7, 4), 2,
	    "a cut inside a sequence backs off over continuation bytes");
	is_int(oxi_utf8_cut(s, 7, 3), 2, "a cut after the lead byte backs off");

	oxi_wipe(secret, sizeof secret);
	ok(memcmp(secret, zero, sizeof secret) == 0, "oxi_wipe zeroes");
	return done();
}
