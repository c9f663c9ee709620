/*
 * t-guard-leak.c - the leak scanner of oxi-guard out: decoders, known
 * values in their spellings, the pieces of a reply's drafts, pattern
 * rules (prefilter, entropy, allowlists, limits), links and home paths,
 * the draft cut, and the canary both stages derive
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"
#include "loop/engine.h"
#include "tap.h"

static struct oxi_buf b = OXI_BUF_INIT;

static const char *
dec(const char *s)
{
	oxi_decode_all(s, strlen(s), &b, OXI_DEC_DEPTH);
	return b.s ? b.s : "";
}

/* s judged with the secret value (or none) and rules: the text out */
static const char *
judge(const char *value, const struct oxi_srules *rules, const char *s,
    unsigned flags, int *rc)
{
	static struct oxi_leak_res res = OXI_LEAK_RES_INIT;
	struct oxi_leak lk = { NULL, NULL, "/home/alice" };
	int r;

	lk.known = oxi_known_new();
	lk.rules = (struct oxi_srules *)rules;
	if (value)
		oxi_known_add(lk.known, value, strlen(value), OXI_HIT_SECRET);
	r = oxi_leak_text(&lk, NULL, NULL, s, strlen(s), flags, 64, &res);
	if (rc)
		*rc = r;
	oxi_known_free(lk.known);
	return r < 0 ? "(error)" : r == 0 ? s : res.out.s;
}

/* a text, what it decodes to, and what the case shows */
static const struct { const char *in, *want, *name; } decs[] = {
		{ "key: c2stbGl2ZS05ZlEyeExtNFR6OFJ3MVZiNktwMw==",
		    "key: sk-live-9fQ2xLm4Tz8Rw1Vb6Kp3", "base64" },
		{ "c2stbGl2ZS05ZlEyeExtNFR6OFJ3MVZiNktwMw",
		    "sk-live-9fQ2xLm4Tz8Rw1Vb6Kp3", "base64 without padding" },
		{ "Z2l0bGVha3M-PmZpbmRzLXNlY3JldHM",
		    "gitleaks>>finds-secrets", "URL-safe base64" },
		{ "dGhlIGtleSBpcyBzay1saXZlLTlm\nUTJ4TG00VHo4UncxVmI2S3Az",
		    "the key is sk-live-9fQ2xLm4Tz8Rw1Vb6Kp3", "base64 wrapped" },
		{ "736b2d6c6976652d3966",
		    "sk-live-9f", "hex" },
		{ "73:6B:2D:6C:69:76:65",
		    "sk-live", "hex with colons" },
		{ "\\x73\\x6b\\x2d\\x6c\\x69\\x76\\x65",
		    "sk-live", "\\x escapes" },
		{ "0x736b2d6c697665",
		    "sk-live", "0x hex" },
		{ "sk%2Dlive%20ok",
		    "sk-live ok", "percent" },
		{ "%25%34%31",
		    "A", "percent twice" },
		{ "\\u0073\\u006b x \\\\u0041",
		    "sk x A", "\\u, \\\\u" },
		{ "U+0061 U+0062 U+0063",
		    "abc", "U+ code points" },
		{ "&#115;&#x6b;&amp;&lt;",
		    "sk&<", "HTML entities" },
		{ "Supercalifragilistic expialidocious information",
		    "Supercalifragilistic expialidocious information", "words are not base64" },
		{ "a3d3fa7c2bb99e469ba55e5834ce79ee4853a8a3",
		    "a3d3fa7c2bb99e469ba55e5834ce79ee4853a8a3", "binary stays encoded" },
};

#define V	"sk-live-9fQ2xLm4Tz8Rw1Vb6Kp3"

/* the secret configured, a text, what goes out */
static const struct { const char *value, *in, *want, *name; } spells[] = {
		{ V, "use sk-live-9fQ2xLm4Tz8Rw1Vb6Kp3 now",
		    "use [REDACTED] now", "plain" },
		{ V, "a c2stbGl2ZS05ZlEyeExtNFR6OFJ3MVZiNktwMw b",
		    "a [REDACTED] b", "in base64, the whole run" },
		{ V, "a 3pK6bV1wR8zT4mLx2Qf9-evil-ks b",
		    "a [REDACTED] b", "reversed" },
		{ V, "a fx-yvir-9sD2kYz4Gm8Ej1Io6Xc3 b",
		    "a [REDACTED] b", "ROT13" },
		{ V, "a s k - l i v e - 9 f Q 2 x L m 4 T z 8 R w 1 V b 6 K p 3 b",
		    "a [REDACTED] b", "spaced" },
		{ V, "a SK-LIVE-9FQ2XLM4TZ8RW1VB6KP3 b",
		    "a [REDACTED] b", "upper case" },
		{ V, "a sk-\xe2\x80\x8bli\xc2\xadve-9fQ2xLm4Tz8Rw1Vb6Kp3 b",
		    "a [REDACTED] b", "zero-width and soft hyphen" },
		{ V, "a \xef\xbd\x93\xef\xbd\x8b-live-9fQ2xLm4Tz8Rw1Vb6Kp3 b",
		    "a [REDACTED] b", "fullwidth letters" },
		{ V, "a sk-**live**-9fQ2xLm4Tz8Rw1Vb6Kp3 b",
		    "a [REDACTED] b", "markdown emphasis inside" },
		{ V, "first sk-live-9fQ2xLm4 now",
		    "first [REDACTED] now", "more than half" },
		{ V, "first sk-live-9f then",
		    "first sk-live-9f then", "less than half is let be" },
		{ V, "x sk-live-9fQ2 and m4Tz8Rw1Vb6Kp3 y",
		    "x [REDACTED] and [REDACTED] y", "halves apart" },
		{ "ab-cd-ef", "x AB-CD-EF y",
		    "x [REDACTED] y", "a short value by its light form" },
};

/* with the secret V (or none), the rules (or none), a text and flags:
 * what goes out */
#define TT	(OXI_LEAK_TEXT | OXI_LEAK_TAINT)
static const struct {
	const char *value;
	int rules;
	unsigned flags;
	const char *in, *want, *name;
} cases[] = {
	{ NULL, 1, 0, "t tk_Ab3dE5fG7hI9jK1lM3nO end", "t tk_[REDACTED] end",
	    "the secret group, a define" },
	{ NULL, 1, 0, "t tk_aaaaaaaaaaaaaaaaaaaa end",
	    "t tk_aaaaaaaaaaaaaaaaaaaa end", "too little entropy" },
	{ NULL, 1, 0, "t tk_Ab3dE5fG7hI9EXAMPLE1 end",
	    "t tk_Ab3dE5fG7hI9EXAMPLE1 end", "a rule's allowlist" },
	{ NULL, 1, 0, "secret = \"a1b2c3d4e5f6g7\"", "secret = \"[REDACTED]\"",
	    "an assignment" },
	{ NULL, 1, 0, "MY_SECRET: a1changeme7f6g7", "MY_SECRET: a1changeme7f6g7",
	    "a stop word" },
	{ NULL, 1, 0, "the secret = xxxxxxxxxxxxxx",
	    "the secret = xxxxxxxxxxxxxx", "the global allowlist" },
	{ NULL, 1, 0, "tk_ Ab3dE5fG7hI9jK1lM3nO", "tk_ Ab3dE5fG7hI9jK1lM3nO",
	    "no match, no finding" },
	{ NULL, 1, 0, "token: dGtfQWIzZEU1Zkc3aEk5aksxbE0zbk8=",
	    "token: [REDACTED]", "a rule's finding in base64" },
	{ NULL, 1, 0, "On3Ml1Kj9Ih7Gf5Ed3bA_kt", "[REDACTED]_kt",
	    "a rule's finding reversed" },
	/* links, images and paths in a text a person reads */
	{ V, 0, OXI_LEAK_TEXT, "see ![x](https://e.example/p.png?d=" V ") ok",
	    "see [image removed] ok", "an image carrying a secret: gone" },
	{ NULL, 0, OXI_LEAK_TEXT, "see [the docs](javascript:alert(1)) ok",
	    "see the docs ok", "a script link: its text stays" },
	{ NULL, 0, OXI_LEAK_TEXT, "see [the docs](https://a.example/d?q=1) ok",
	    "see [the docs](https://a.example/d?q=1) ok", "a plain link stays" },
	{ NULL, 0, TT, "see [the docs](https://a.example/d?q=1) ok",
	    "see the docs ok", "...but not with a query in a tainted reply" },
	{ NULL, 0, TT, "a ![c](https://a.example/c.png) b",
	    "a [image removed] b", "...nor any image" },
	{ NULL, 0, OXI_LEAK_TEXT, "`[x](javascript:y)` stays",
	    "`[x](javascript:y)` stays", "code is not a link" },
	{ NULL, 0, OXI_LEAK_TEXT, "at /home/alice/notes and /home/bob/x, /root/y",
	    "at ~/notes and ~/x, ~/y", "home paths" },
};

static const char *const RULES =
    "# a comment\n"
    "global\n"
    "\tdefine TOK [A-Za-z0-9]{20}\n"
    "\tallow ^x+$\n"
    "rule tok\n"
    "\tkeywords tk_\n"
    "\tregex \\btk_(?<s>{TOK})\\b\n"
    "\tentropy 3\n"
    "\tallow EXAMPLE\n"
    "rule kv\n"
    "\tkeywords secret\n"
    "\tassign secret [a-z0-9]{12,}\n"
    "\tstopwords changeme\n";

int
main(void)
{
	struct oxi_srules *rules, *slow;
	struct oxi_leak lk = { NULL, NULL, NULL };
	struct oxi_leak_res res = OXI_LEAK_RES_INIT;
	struct oxi_shown *shown;
	const char *err, *v = V;
	char path[256], c1[40], c2[40], c3[40];
	unsigned long line;
	struct stat st;
	size_t i;
	int rc;

	plan(60);

	/* decoders */
	for (i = 0; i < sizeof decs / sizeof decs[0]; i++)
		is_str(dec(decs[i].in), decs[i].want, "%s", decs[i].name);

	/* a secret configured, in the spellings of the issue */
	for (i = 0; i < sizeof spells / sizeof spells[0]; i++)
		is_str(judge(spells[i].value, NULL, spells[i].in, 0, NULL),
		    spells[i].want, "%s", spells[i].name);

	/* pieces shown by the drafts of one reply add up */
	lk.known = oxi_known_new();
	oxi_known_add(lk.known, v, strlen(v), OXI_HIT_SECRET);
	shown = oxi_shown_new(lk.known);
	oxi_leak_text(&lk, NULL, shown, "one: sk-live-9 ok and more words here",
	    37, 0, 0, &res);
	is_int(res.nsecret, 0, "a draft with a small piece is let be");
	oxi_leak_text(&lk, NULL, shown, "two: fQ2xLm4 ok and more words", 29, 0,
	    0, &res);
	is_int(res.nsecret, 1, "the next piece makes half: redacted");
	oxi_shown_free(shown);

	/* the draft cut */
	oxi_leak_text(&lk, NULL, NULL, "hello there, general kenobi", 27,
	    OXI_LEAK_DRAFT, 8, &res);
	is_str(res.out.s, "hello there, ", "a draft: before its tail and its "
	    "last word");
	oxi_leak_text(&lk, NULL, NULL, "ok -----BEGIN PRIVATE KEY-----\nMIIE "
	    "and on and on and on and on", 62, OXI_LEAK_DRAFT, 8, &res);
	is_str(res.out.s, "ok ", "a draft: before an unfinished private key");
	oxi_known_free(lk.known);

	/* rules */
	ok(!oxi_srules_parse("  keywords x\n", 13, &err, &line) && line == 1,
	    "a setting outside a rule: refused with its line");
	ok(!oxi_srules_parse("rule a\n\tregex (\n", 16, &err, &line) &&
	    line == 2 && strstr(err, "compile"), "a bad regex: its line");
	ok(!oxi_srules_parse("rule a\n\tkeywords x\n", 19, &err, &line),
	    "a rule without a regex");
	rules = oxi_srules_parse(RULES, strlen(RULES), &err, &line);
	ok(rules && oxi_srules_count(rules) == 2, "a rules file");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		is_str(judge(cases[i].value, cases[i].rules ? rules : NULL,
		    cases[i].in, cases[i].flags, NULL), cases[i].want, "%s",
		    cases[i].name);
	slow = oxi_srules_parse("rule slow\n\tregex ^(a|a?)+$\n", 27, &err,
	    &line);
	judge(NULL, slow, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "c", 0, &rc);
	is_int(rc, -1, "a match limit: not judged, never clean");
	oxi_srules_free(slow);
	oxi_srules_free(rules);

	/* the canary: one key file, the same derivation on both sides */
	snprintf(path, sizeof path, "%s/t-guard-leak.%d.key",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	unlink(path);
	ok(oxi_loop_canary(path, "cli::c1", c1) == 0, "oxi-loop makes the key");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
	    "a file of mode 0600");
	setenv("OXI_CANARY_KEY_FILE", path, 1);
	ok(oxi_canary_load() == 1 && oxi_canary_of("cli::c1", c2) == 0 &&
	    strcmp(c1, c2) == 0, "oxi-guard derives the same canary");
	ok(strlen(c1) == OXI_CANARY_LEN && strspn(c1, "0123456789abcdef") ==
	    OXI_CANARY_LEN, "32 hex digits: 128 bits");
	oxi_canary_of("cli::c2", c3);
	ok(strcmp(c1, c3) != 0, "another session, another canary");
	lk.known = oxi_known_new();
	snprintf(path + strlen(path) - 4, 5, ".txt");
	snprintf(c2, sizeof c2, "%.16s", c1);
	oxi_leak_text(&lk, oxi_canary_known("cli::c1"), NULL, c2, 16, 0, 0,
	    &res);
	is_int(res.ncanary, 1, "half the canary is a leak");
	oxi_leak_text(&lk, oxi_canary_known("cli::c2"), NULL, c1, 32, 0, 0,
	    &res);
	is_int(res.ncanary, 0, "another session's canary is not this one's");
	oxi_known_free(lk.known);
	snprintf(path + strlen(path) - 4, 5, ".key");
	unlink(path);
	oxi_canary_free();
	oxi_leak_res_free(&res);
	oxi_buf_free(&b);
	return done();
}
