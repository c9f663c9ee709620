/* t-guard.c - allowlist entries, secret redaction as written, cuts
 * (the leak scanner: t-guard-leak.c) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "tap.h"

static int
allowed(const char *list, const char *channel, const char *from)
{
	struct oxi_allow a = OXI_ALLOW_INIT;
	int r;

	oxi_allow_parse(&a, list, strlen(list), 1);
	r = oxi_allow_ok(&a, channel, from);
	oxi_allow_free(&a);
	return r;
}

/* redacts s with the secrets in list (NUL-separated, "" ends) */
static const char *
redact(const char *const *list, const char *s, size_t *count)
{
	static struct oxi_buf out = OXI_BUF_INIT;
	struct oxi_secrets sec = OXI_SECRETS_INIT;
	size_t n;

	for (; *list; list++)
		oxi_secrets_add(&sec, *list, strlen(*list));
	n = oxi_redact(&sec, s, strlen(s), &out);
	oxi_secrets_free(&sec);
	if (count)
		*count = n;
	return n ? out.s : s;
}

int
main(void)
{
	struct oxi_allow a = OXI_ALLOW_INIT;
	struct oxi_secrets sec = OXI_SECRETS_INIT;
	const char *one[] = { "sk-0123456789", NULL };
	const char *nest[] = { "abcdefgh", "abcdefghijkl", NULL };
	const char *euro = "ab\xe2\x82\xac" "cd";	/* ab€cd */
	char path[256], *tmp;
	size_t n, nshort;
	unsigned long first;
	FILE *f;

	plan(34);

	ok(!allowed("", "cli", "alice"), "empty list denies");
	ok(allowed("*", "cli", "alice"), "* allows");
	ok(allowed("*", "cli", NULL), "* allows a record without from");
	ok(allowed("cli:*", "cli", "alice"), "channel:* allows that channel");
	ok(!allowed("cli:*", "telegram", "alice"), "channel:* only there");
	ok(allowed("telegram:42", "telegram", "42"), "channel:from allows");
	ok(!allowed("telegram:42", "slack", "42"), "channel:from only there");
	ok(!allowed("telegram:42", "telegram", "43"), "channel:from only them");
	ok(allowed("42", "slack", "42"), "bare from on any channel");
	ok(!allowed("42", "slack", NULL), "bare from needs a from");
	ok(allowed("*:@a:m.org", "matrix", "@a:m.org"),
	    "*:from for a sender with colons");
	ok(allowed("x, y\tz\n42", "cli", "42"), "commas and spaces separate");
	ok(!allowed("# 42\n", "cli", "42"), "comment line");
	ok(allowed("7 # 42\n42", "cli", "42"), "comment ends at the newline");
	ok(!allowed("Alice", "cli", "alice"), "case matters");

	oxi_allow_parse(&a, ":x y: ok", 8, 0);
	is_int(a.n, 1, "invalid entries skipped");
	is_int(a.nbad, 2, "and counted");
	is_str(a.bad, ":x", "the first one kept");
	oxi_allow_free(&a);

	is_str(redact(one, "key sk-0123456789!", &n), "key [REDACTED]!",
	    "a secret redacted");
	is_int(n, 1, "counted once");
	is_str(redact(one, "sk-0123456789sk-0123456789", &n),
	    "[REDACTED][REDACTED]", "back to back");
	is_int(n, 2, "counted twice");
	is_str(redact(one, "sk-012345678", &n), "sk-012345678",
	    "a prefix alone is kept");
	is_int(n, 0, "no count");
	is_str(redact(nest, "abcdefghijkl abcdefgh", NULL),
	    "[REDACTED] [REDACTED]", "the longest value wins");

	ok(oxi_secrets_add(&sec, "short", 5) == 1, "a short value refused");
	ok(oxi_secrets_add(&sec, "sk-0123456789", 13) == 0, "a value added");
	ok(oxi_secrets_add(&sec, "sk-0123456789", 13) == 0 && sec.n == 1,
	    "a duplicate kept once");
	oxi_secrets_free(&sec);
	is_int(sec.n, 0, "freed set is empty");

	tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/t-guard.%d", tmp ? tmp : "/tmp",
	    (int)getpid());
	f = fopen(path, "w");
	fputs("secret-one-value\r\nshort\n\nsecret-two-value", f);
	fclose(f);
	ok(oxi_secrets_load(&sec, path, &nshort, &first) == 0 && sec.n == 2,
	    "file: two values, CR and blank lines dropped");
	ok(nshort == 1 && first == 2, "file: a short value reported");
	oxi_secrets_free(&sec);
	unlink(path);

	is_int(oxi_utf8_cut(euro, 7, 4), 2, "cut backs off a split sequence");
	is_int(oxi_utf8_cut(euro, 7, 5), 5, "cut after a whole sequence");
	is_int(oxi_utf8_cut(euro, 7, 9), 7, "no cut when it fits");
	return done();
}
