/* t-guard-fold.c - Unicode folding: hygiene, flags, folding, the map */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "tap.h"

static struct oxi_fold f = OXI_FOLD_INIT;

static const char *
fold(const char *s, unsigned opts)
{
	oxi_fold(&f, s, strlen(s), opts);
	return f.out.s;
}

/* every code point of the Latin lookalikes maps to its letter */
static int
alllookalikes(void)
{
	/* Cyrillic, Greek, Armenian, Cherokee and IPA for a..z */
	static const char *pairs[] = {
		"\xd0\xb0" "a", "\xd0\xb5" "e", "\xd0\xbe" "o", "\xd1\x80" "p",
		"\xd1\x81" "c", "\xd1\x83" "y", "\xd1\x85" "x", "\xd1\x95" "s",
		"\xd1\x96" "i", "\xd1\x98" "j", "\xd4\x81" "d", "\xd4\x9b" "q",
		"\xd4\x9d" "w", "\xd2\xbb" "h", "\xd3\x8f" "l", "\xce\xbf" "o",
		"\xce\xbd" "v", "\xce\xb9" "i", "\xce\xba" "k", "\xcf\x81" "p",
		"\xd5\xb8" "n", "\xd5\xbd" "u", "\xc9\x91" "a", "\xc9\xa1" "g",
		"\xc4\xb1" "i", "\xe1\xb4\x8d" "m", "\xe1\x8f\x9a" "s",
		"\xe1\xb4\xa2" "z", "\xe1\xb4\xa0" "v", "\xe1\xb4\x9b" "t",
		"\xca\x80" "r", "\xe1\xb4\x8b" "k", "\xca\x99" "b",
		"\xe1\xb4\x85" "d", "\xe1\xb4\x87" "e", "\xd1\x81" "c",
		"\xe1\xb4\x8a" "j", "\xe1\xb4\x8f" "o", "\xe1\xb4\x98" "p",
		"\xe1\xb4\x9c" "u", "\xe1\xb4\xa1" "w", "\xd1\x85" "x",
		"\xca\x8f" "y", "\xc9\xaa" "i", "\xca\x9f" "l", "\xc9\xb4" "n",
		"\xe1\xb4\x80" "a", "\xe1\xb4\x84" "c", "\xea\x9c\xb1" "s",
		"\xca\x9c" "h", "\xc9\xa2" "g", NULL
	};
	size_t i, n;

	for (i = 0; pairs[i]; i++) {
		n = strlen(pairs[i]) - 1;
		oxi_fold(&f, pairs[i], n, OXI_FOLD_MATCH);
		if (f.out.len != 1 || f.out.s[0] != pairs[i][n]) {
			printf("# %s: got '%s'\n", pairs[i] + n, f.out.s);
			return 0;
		}
	}
	return 1;
}

int
main(void)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char cp[5];
	unsigned fl;
	size_t i;

	plan(36);

	/* hygiene: stripped and flagged, the rest byte for byte */
	is_str(fold("plain text, caf\xc3\xa9", 0), "plain text, caf\xc3\xa9",
	    "plain text stays as it is");
	is_int(f.found, 0, "and nothing is flagged");
	fl = oxi_fold(&f, "ig\xe2\x80\x8bnore", 9, 0);
	is_str(f.out.s, "ignore", "a zero-width space goes");
	ok(fl == OXI_FOUND_ZW && f.nstrip == 1, "and is flagged");
	fold("a\xc2\xad" "b\xe2\x81\xa0" "c\xef\xbb\xbf" "d", 0);
	ok(strcmp(f.out.s, "abcd") == 0 && f.nstrip == 3,
	    "soft hyphen, word joiner, BOM go");
	fold("abc\xe2\x80\xae" "def\xe2\x81\xa6" "g", 0);
	ok(strcmp(f.out.s, "abcdefg") == 0 && f.found == OXI_FOUND_BIDI,
	    "bidi overrides and isolates go, flagged bidi");
	fold("a\x01" "b\x7f" "c\xc2\x9b" "d\te\r\nf", 0);
	ok(strcmp(f.out.s, "abcd\te\r\nf") == 0 && f.found == OXI_FOUND_CTRL,
	    "C0 and C1 controls go, tab CR LF stay");
	/* "hi" spelled in tags after a visible "ok" */
	fold("ok\xf3\xa0\x81\xa8\xf3\xa0\x81\xa9!", 0);
	ok(strcmp(f.out.s, "ok!") == 0 && f.found == OXI_FOUND_TAG,
	    "tag characters go, flagged tag");
	is_str(f.hidden.s, "hi\n", "what the tags spell is kept aside");
	/* England's flag: black flag, tags g b e n g, cancel tag */
	fold("\xf0\x9f\x8f\xb4\xf3\xa0\x81\xa7\xf3\xa0\x81\xa2\xf3\xa0\x81\xa5"
	    "\xf3\xa0\x81\xae\xf3\xa0\x81\xa7\xf3\xa0\x81\xbf", 0);
	ok(f.out.len == 28 && f.found == 0, "the tags of a flag emoji stay");
	/* family: man ZWJ woman ZWJ girl; heart VS16 ZWJ fire */
	fold("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
	    "\xf0\x9f\x91\xa7 \xe2\x9d\xa4\xef\xb8\x8f\xe2\x80\x8d\xf0\x9f\x94\xa5",
	    0);
	ok(f.out.len == 32 && f.found == 0,
	    "ZWJ inside emoji sequences and one VS16 stay");
	/* Persian: mi ZWNJ khaham */
	fold("\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x87\xd9"
	    "\x85", 0);
	ok(f.found == 0 && f.nstrip == 0, "ZWNJ between Persian letters stays");
	/* a grinning face and a run of selectors spelling "Hi" (72 105) */
	fold("\xf0\x9f\x98\x80\xf3\xa0\x84\xb8\xf3\xa0\x85\x99", 0);
	ok(strcmp(f.out.s, "\xf0\x9f\x98\x80") == 0 && f.found == OXI_FOUND_VS,
	    "a run of variation selectors goes, flagged");
	is_str(f.hidden.s, "Hi\n", "and the bytes they spell are kept aside");
	fold("a\xe2\x80\x8d" "b", OXI_FOLD_MATCH);
	ok(strcmp(f.out.s, "ab") == 0 && f.found == OXI_FOUND_ZW,
	    "ZWJ between letters goes and is flagged");
	fold("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", OXI_FOLD_MATCH);
	ok(f.out.len == 8 && f.found == 0,
	    "folding for matching drops the legitimate ZWJ, unflagged");

	/* folding */
	is_str(fold("\xef\xbc\xa9\xef\xbd\x87\xef\xbd\x8e\xef\xbd\x8f\xef\xbd"
	    "\x92\xef\xbd\x85", OXI_FOLD_MATCH), "ignore",
	    "fullwidth to ASCII, lower case");
	ok(f.found & OXI_FOUND_COMPAT, "flagged compatibility-form");
	is_str(fold("\xf0\x9d\x90\x88\xf0\x9d\x90\xa0\xf0\x9d\x90\xa7",
	    OXI_FOLD_MATCH), "ign", "mathematical bold to ASCII");
	is_str(fold("\xe2\x93\x98\xe2\x93\x96\xe2\x93\x9d", OXI_FOLD_MATCH),
	    "ign", "circled letters to ASCII");
	is_str(fold("How to j\xd0\xb0ilbre\xd0\xb0k", OXI_FOLD_MATCH),
	    "how to jailbreak", "Cyrillic a in a Latin word");
	ok(f.found == OXI_FOUND_MIXED, "flagged mixed-script");
	fold("\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 world", 0);
	is_int(f.found, 0, "Russian beside English is no mixed word");
	is_str(fold("d\xc4\xb1sable pol\xc4\xb1" "cy", OXI_FOLD_MATCH),
	    "disable policy", "dotless i");
	is_str(fold("i\xcc\x88gn\xc3\xb6re pr\xc3\xa9vious", OXI_FOLD_MATCH),
	    "ignore previous", "diacritics and combining marks go");
	is_str(fold("don\xe2\x80\x99t \xe2\x80\x94 \xe2\x80\x9cso\xe2\x80\x9d",
	    OXI_FOLD_MATCH), "don't - \"so\"", "quotes and dashes");
	is_str(fold("a\xc2\xa0" "b\xe3\x80\x80" "c\xe2\x80\xa8" "d",
	    OXI_FOLD_MATCH), "a b c\nd", "spaces and separators");
	is_str(fold("STRASSE Stra\xc3\x9f" "e \xef\xac\x81le", OXI_FOLD_MATCH),
	    "strasse strasse file", "sharp s and ligatures");
	is_str(fold("\xd0\x94\xd0\x90", OXI_FOLD_LOWER), "\xd0\xb4\xd0\xb0",
	    "Cyrillic lowered");
	is_str(fold("\xef\xbc\xa1" "b", OXI_FOLD_CONFUSE), "\xef\xbc\xa1" "b",
	    "without OXI_FOLD_WIDTH fullwidth stays");
	ok(alllookalikes(), "the lookalikes of every Latin letter");

	/* the map */
	fold("x\xe2\x80\x8b\xef\xbd\x81\xc3\x9f!", OXI_FOLD_MATCH |
	    OXI_FOLD_MAP);
	ok(strcmp(f.out.s, "xass!") == 0 && f.map[0] == 0 && f.map[1] == 4 &&
	    f.map[2] == 7 && f.map[3] == 7 && f.map[4] == 9 &&
	    f.map[5] == 10, "the map leads back to the input's offsets");

	/* ill-formed input */
	fold("a\xff" "b\xc3", OXI_FOLD_MATCH);
	ok(strcmp(f.out.s, "a\xef\xbf\xbd" "b\xef\xbf\xbd") == 0 &&
	    (f.found & OXI_FOUND_BADUTF8), "ill-formed bytes are U+FFFD");

	oxi_fold_names(OXI_FOUND_TAG | OXI_FOUND_MIXED, &b);
	is_str(b.s, "tag mixed-script", "flag names");
	ok(oxi_fold_cp('A', 0, cp) < 0 && oxi_fold_cp(0xff21, OXI_FOLD_MATCH,
	    cp) == 1 && cp[0] == 'a', "one code point");
	for (i = 1; i < oxi_foldtab_len; i++)
		if (oxi_foldtab[i].lo <= oxi_foldtab[i - 1].lo +
		    oxi_foldtab[i - 1].n)
			break;
	ok(i == oxi_foldtab_len, "the table is sorted, without overlaps");
	oxi_buf_free(&b);
	oxi_fold_free(&f);
	return done();
}
