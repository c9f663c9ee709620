/*
 * fz-leak.c - the leak scanner of oxi-guard out (guard/decode.c, known.c,
 * srule.c, leak.c), which judges every text a model writes: it never
 * fails on well-formed text but with a reason, what it writes is
 * well-formed UTF-8 when the text was, a draft's output is a prefix of
 * what goes out, and a secret configured and put into the text (at a
 * place and in a spelling the input picks) never comes out as written.
 * With a first byte of '#', the input is a rules file instead: it
 * parses or is refused with a reason, never crashes.
 */
#define _GNU_SOURCE	/* memmem */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"
#include "fz.h"

#define SECRET	"sk-fuzz-9fQ2xLm4Tz8Rw1Vb6Kp3"

static struct oxi_leak lk;

static const char RULES[] =
    "global\n\tdefine B (?<![A-Za-z0-9_+/-])\n\tallow ^x+$\n"
    "rule gh\n\tkeywords ghp_\n\tregex {B}(?<s>ghp_[0-9a-zA-Z]{36})\n"
    "rule kv\n\tkeywords secret token\n"
    "\tassign (?:secret|token) [a-z0-9]{12,}\n\tentropy 3\n"
    "rule pem\n\tkeywords -----begin\n"
    "\tregex -----BEGIN[ A-Z]{0,40}PRIVATE KEY-----(?:[^-]++|-(?!----))++"
    "-----END[ A-Z]{0,40}PRIVATE KEY-----\n";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *err;
	unsigned long line;

	(void)argc;
	(void)argv;
	lk.known = oxi_known_new();
	oxi_known_add(lk.known, SECRET, strlen(SECRET), OXI_HIT_SECRET);
	lk.rules = oxi_srules_parse(RULES, sizeof RULES - 1, &err, &line);
	lk.home = "/home/fuzz";
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static struct oxi_leak_res res = OXI_LEAK_RES_INIT, draft =
	    OXI_LEAK_RES_INIT;
	struct oxi_buf t = OXI_BUF_INIT;
	struct oxi_srules *rs;
	const char *err;
	unsigned long line;
	size_t at;
	int r, valid;

	if (n > 0 && d[0] == '#') {
		rs = oxi_srules_parse((const char *)d, n, &err, &line);
		FZ_CHECK(rs || (err && *err), "rules refused without a reason");
		oxi_srules_free(rs);
		return 0;
	}
	/* the text, with the secret put in where the input says (whole
	 * characters only, so that well-formed input stays so) */
	at = oxi_utf8_cut((const char *)d, n, fz_cut(d, n, 0));
	oxi_buf_cat(&t, d, at);
	if (n > 2 && d[1] == 'S')
		oxi_buf_cats(&t, " " SECRET " ");
	oxi_buf_cat(&t, d + at, n - at);
	valid = oxi_utf8_valid(t.s ? t.s : "", t.len, 0);
	r = oxi_leak_text(&lk, NULL, NULL, t.s ? t.s : "", t.len,
	    OXI_LEAK_TEXT, 64, &res);
	FZ_CHECK(r >= 0 || (res.err && *res.err), "not judged, no reason");
	if (r > 0) {
		FZ_CHECK(!valid || oxi_utf8_valid(res.out.s, res.out.len, 0),
		    "well-formed text out of shape");
		FZ_CHECK(!memmem(res.out.s, res.out.len, SECRET,
		    strlen(SECRET)), "the secret went out as written");
	}
	if (r >= 0 && n > 2 && d[1] == 'S')
		FZ_CHECK(r > 0, "the secret put in, nothing changed");
	if (r > 0 && oxi_leak_text(&lk, NULL, NULL, t.s, t.len,
	    OXI_LEAK_TEXT | OXI_LEAK_DRAFT, 64, &draft) >= 0)
		FZ_CHECK(draft.out.len <= res.out.len &&
		    memcmp(draft.out.s, res.out.s, draft.out.len) == 0,
		    "a draft that is not a prefix of the reply");
	oxi_buf_free(&t);
	return 0;
}
