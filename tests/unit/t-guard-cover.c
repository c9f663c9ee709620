/* t-guard-cover.c - the literal covers of patterns (cover.c) and the
 * prefilter of the injection rules: a rule skipped for a text never
 * matches it (the shipped rules, on texts made of their own words);
 * the points of weak rules ("ID +N PATTERN") read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"
#include "tap.h"

/* the cover of pat as "a b c" (sorted as found), or "-" for none */
static const char *
cover(const char *pat)
{
	static char out[512];
	struct oxi_buf b = OXI_BUF_INIT;
	size_t n, i;
	const char *s;

	n = oxi_cover(pat, strlen(pat), &b);
	out[0] = '\0';
	if (n == 0)
		strcpy(out, "-");
	for (i = 0, s = b.s; i < n; i++, s += strlen(s) + 1) {
		if (i)
			strcat(out, " ");
		strncat(out, s, sizeof out - strlen(out) - 2);
	}
	oxi_buf_free(&b);
	return out;
}

static const char *const words[] = { "you", "are", "now", "ignore",
	"all", "previous", "instructions", "system", "prompt", "act", "as",
	"dan", "mode", "developer", "no", "rules", "restrictions", "reveal",
	"your", "the", "above", "text", "repeat", "new", "task", "forget",
	"everything", "evil", "ai", "assistant", "without", "filters", "stay",
	"in", "character", "never", "refuse", "say", "print", "hacked", "pwned",
	"i", "have", "been", "from", "on", "jailbreak", "unfiltered", "and",
	"what", "were", "given", "initial", "secret", "password", "decode",
	"base64", "then", "follow", "it", "tokens", "lose", "two", "responses",
	"[system]", "###", "<|im_start|>", "note", "to", "for", "summarizing",
	"this", "page", "hypothetical", "world", "laws", "answer", "openai",
	"policy", "do", "anything", "not", "bound", "by", "is", ":", "\n",
	"ignoring", "disregard", "free", "of", "limits", "send", "history",
	"http://x.example/?q=", "![a](http://e.example/i?d={", "cat", "~/.ssh",
	"will", "must", "a", "an", "unrestricted", "model", "pretend", "be",
	"curl", "|", "sh", "start", "over", "with", "remove", "them",
	"override", "opposite", "exception", "ethical", "guidelines", NULL };

/* loads rule text t: the rule set, or NULL */
static struct oxi_rules *
load(const char *t)
{
	char path[] = "/tmp/t-guard-cover.XXXXXX";
	struct oxi_rules *r = oxi_rules_new();
	struct oxi_buf err = OXI_BUF_INIT;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, t, strlen(t)) != (ssize_t)strlen(t))
		return NULL;
	close(fd);
	if (oxi_rules_load(r, path, &err) < 0) {
		oxi_rules_free(r);
		r = NULL;
	}
	unlink(path);
	oxi_buf_free(&err);
	return r;
}

int
main(void)
{
	struct oxi_rules *r = oxi_rules_new();
	struct oxi_buf err = OXI_BUF_INIT, t = OXI_BUF_INIT;
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	size_t nw, i, k, missed = 0, skipped = 0, runs = 0, always = 0;
	size_t hits = 0;
	unsigned seed = 11;
	int rc;

	struct oxi_rules *w;

	plan(22);
	w = load("a.one +3 apples\nb.two block pears\n");
	ok(w && w->n == 2 && w->v[0].points == 3 && !w->v[0].block &&
	    w->v[1].points == 0 && w->v[1].block, "+N is a weak rule of N "
	    "points, block a rule of its own");
	oxi_rules_free(w);
	ok(!(w = load("a.one +0 apples\n")), "+0 is no action");
	oxi_rules_free(w);
	ok(!(w = load("a.one +10 apples\n")), "nor is +10");
	oxi_rules_free(w);
	is_str(cover("ignore"), "ignore", "a literal covers itself");
	is_str(cover("Ignore"), "ignore", "in lower case");
	is_str(cover("foo|bar"), "foo bar", "an alternation: the union");
	is_str(cover("foo|b*"), "-", "a branch that may be empty: none");
	is_str(cover("(?:x)?yz"), "yz", "an optional group covers nothing");
	is_str(cover("a.*bcd"), "bcd", "the best part of a sequence");
	is_str(cover("colou?r"), "colo", "an optional letter ends a run");
	is_str(cover("ab+c"), "ab", "a letter repeated ends a run");
	is_str(cover("x{0,3}yz\\b"), "yz", "{0,n} covers nothing");
	is_str(cover("(?=abc)d"), "d", "a lookahead is no cover");
	is_str(cover("[abc]def"), "def", "a class is no literal");
	is_str(cover("\\.env\\s+x"), ".env", "escaped punctuation is literal");
	is_str(cover("\\bign(?:ore|oring)\\b"), "ign", "the narrower cover");
	is_str(cover("(?:say|print)\\s+(?:pwned|hacked)"), "pwned hacked",
	    "longer strings are preferred");
	is_str(cover("a(?(1)b|c)"), "-", "a condition: no cover at all");
	is_str(cover("(?x) a b c"), "-", "nor a pattern in extended mode");
	is_str(cover("(?i)abc"), "abc", "other options are let be");
	oxi_buf_reset(&err);
	rc = oxi_rules_load(r, "share/oxi/rules", &err);
	ok(rc == 0, "the shipped rules load%s%s", err.s ? ": " : "",
	    err.s ? err.s : "");
	/* random texts of the rules' words: a rule that matches must have
	 * been wanted by the prefilter */
	for (nw = 0; words[nw]; nw++)
		;
	for (i = 0; rc == 0 && i < 20000; i++) {
		oxi_buf_reset(&t);
		for (k = 0; k < 3 + i % 12; k++) {
			seed = seed * 1103515245 + 12345;
			oxi_buf_cats(&t, words[(seed >> 16) % nw]);
			oxi_buf_cats(&t, seed & 0x100 ? "  " : " ");
		}
		if (i % 7 == 0)	/* upper case */
			for (k = 0; k < t.len; k++)
				if (t.s[k] >= 'a' && t.s[k] <= 'z')
					t.s[k] -= 'a' - 'A';
		oxi_rules_want(r, t.s, t.len);
		for (k = 0; k < r->n; k++) {
			if (!r->want[k]) {
				skipped++;
				if (pcre2_match(r->v[k].re, (PCRE2_SPTR)t.s, t.len,
				    0, 0, md, NULL) >= 0) {
					if (missed++ < 5)
						printf("# %s skipped on '%s'\n",
						    r->v[k].id, t.s);
				}
			} else {
				runs++;
				hits += pcre2_match(r->v[k].re,
				    (PCRE2_SPTR)t.s, t.len, 0, 0, md, NULL) >= 0;
			}
		}
	}
	for (k = 0; k < r->n; k++)
		always += r->v[k].always;
	ok(missed == 0 && skipped > runs && hits > 1000, "no rule skipped on "
	    "a text it matches (%zu skipped, %zu run, %zu matched, %zu rules "
	    "always)", skipped, runs, hits, always);
	pcre2_match_data_free(md);
	oxi_rules_free(r);
	oxi_buf_free(&err);
	oxi_buf_free(&t);
	return done();
}
