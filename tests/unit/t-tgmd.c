/*
 * t-tgmd.c - the model's Markdown as Telegram HTML (channel/tgmd.c):
 * inline markup and its nesting, code, links, escaping, blocks, hostile
 * and long input, and splitting at Telegram's limit counted in UTF-16
 * code units, with multibyte and emoji text; every part checked to be
 * balanced Telegram HTML whose text is its plain fallback
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "channel/tgmd.h"
#include "tap.h"

static struct oxi_tgmd_part *P;
static int N;

static void
render(const char *md, size_t max, int markdown)
{
	oxi_tgmd_free(P, N);
	N = oxi_tgmd_render(md, strlen(md), markdown, max, &P);
}

/* the HTML of md in one part */
static const char *
h(const char *md)
{
	render(md, 1 << 20, 1);
	return N == 1 ? P[0].html : N == 0 ? "(nothing)" : "(several parts)";
}

/*
 * A part is Telegram HTML: only its tags, each closed in order, entities
 * only &lt; &gt; &amp; &quot;, no < > & bare; its text (tags dropped,
 * entities decoded) is the plain fallback byte for byte, and units is
 * that text's length in UTF-16 code units, at most max.  NULL or why not.
 */
static const char *
wellformed(const struct oxi_tgmd_part *p, size_t max)
{
	static const char *const tags[] = { "b", "i", "s", "u", "code", "pre",
		"a", "blockquote", NULL };
	struct oxi_buf text = OXI_BUF_INIT;
	char stack[64][16], name[16];
	const char *s = p->html, *e;
	int n = 0, i, close;
	size_t k;
	const char *why = NULL;

	oxi_buf_cats(&text, "");
	while (*s && !why) {
		if (*s == '<') {
			close = s[1] == '/';
			e = s + 1 + close;
			for (k = 0; e[k] >= 'a' && e[k] <= 'z' && k < 15; k++)
				name[k] = e[k];
			name[k] = '\0';
			for (i = 0; tags[i] && strcmp(tags[i], name); i++)
				;
			if (!tags[i]) {
				why = "a tag Telegram does not know";
				break;
			}
			if (!(e = strchr(s, '>'))) {
				why = "an unterminated tag";
				break;
			}
			if (close) {
				if (n == 0 || strcmp(stack[--n], name))
					why = "a tag closed out of order";
			} else if (n == 64)
				why = "too deep";
			else
				strcpy(stack[n++], name);
			/* no bare < or & inside a tag */
			for (k = 1; s + k < e && !why; k++)
				if (s[k] == '<' || (s[k] == '&' &&
				    strncmp(s + k, "&amp;", 5) &&
				    strncmp(s + k, "&lt;", 4) &&
				    strncmp(s + k, "&gt;", 4) &&
				    strncmp(s + k, "&quot;", 6)))
					why = "a bare < or & in a tag";
			s = e + 1;
		} else if (*s == '&') {
			if (!strncmp(s, "&lt;", 4)) {
				oxi_buf_putc(&text, '<');
				s += 4;
			} else if (!strncmp(s, "&gt;", 4)) {
				oxi_buf_putc(&text, '>');
				s += 4;
			} else if (!strncmp(s, "&amp;", 5)) {
				oxi_buf_putc(&text, '&');
				s += 5;
			} else if (!strncmp(s, "&quot;", 6)) {
				oxi_buf_putc(&text, '"');
				s += 6;
			} else
				why = "a bare &";
		} else if (*s == '>')
			why = "a bare >";
		else
			oxi_buf_putc(&text, *s++);
	}
	if (!why && n > 0)
		why = "a tag left open";
	if (!why && strcmp(text.s, p->plain))
		why = "the text is not the plain fallback";
	if (!why && p->units != oxi_tgmd_units(p->plain, strlen(p->plain)))
		why = "units miscounted";
	if (!why && p->units > max)
		why = "over the limit";
	if (!why && p->units == 0)
		why = "an empty part";
	if (!why && !oxi_utf8_valid(p->plain, strlen(p->plain),
	    OXI_UTF8_NONUL))
		why = "not UTF-8";
	oxi_buf_free(&text);
	return why;
}

/* every part of the last render well-formed; else the first complaint */
static const char *
allwell(size_t max)
{
	const char *why;
	int i;

	if (N < 0)
		return "render failed";
	for (i = 0; i < N; i++)
		if ((why = wellformed(&P[i], max))) {
			printf("# part %d: %s\n", i, P[i].html);
			return why;
		}
	return NULL;
}

/* the parts' plain texts joined, with what separated them squeezed out:
 * the text of s with every blank and newline dropped */
static char *
squeeze(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *q = o;

	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			*q++ = *s;
	*q = '\0';
	return o;
}

static char *
joined(void)
{
	struct oxi_buf b = OXI_BUF_INIT;
	int i;

	oxi_buf_cats(&b, "");
	for (i = 0; i < N; i++)
		oxi_buf_cats(&b, P[i].plain);
	return b.s;
}

/* n copies of piece */
static char *
rep(const char *piece, size_t n)
{
	struct oxi_buf b = OXI_BUF_INIT;

	oxi_buf_cats(&b, "");
	while (n-- > 0)
		oxi_buf_cats(&b, piece);
	return b.s;
}

/* n copies of piece, rendered */
static void
render_rep(const char *piece, size_t n, size_t max)
{
	char *s = rep(piece, n);

	render(s, max, 1);
	free(s);
}

int
main(void)
{
	char *s, *t, *a, *b;
	const char *why;
	clock_t t0;
	size_t i, len;
	int k;

	plan(65);

	/* inline markup */
	is_str(h("**bold** *it* _it_ ~~gone~~ `code`"),
	    "<b>bold</b> <i>it</i> <i>it</i> <s>gone</s> <code>code</code>",
	    "bold, italic, strikethrough, code");
	is_str(h("**bold _both ~~all three~~_ bold**"),
	    "<b>bold <i>both <s>all three</s></i> bold</b>",
	    "nested emphasis nests the tags");
	is_str(h("***both***"), "<i><b>both</b></i>", "bold italic at once");
	is_str(h("**`x < y`**"), "<b><code>x &lt; y</code></b>",
	    "code inside bold, escaped");
	is_str(h("`**not bold** <b>`"),
	    "<code>**not bold** &lt;b&gt;</code>",
	    "no markup inside a code span");

	/* code blocks */
	is_str(h("```python\nif a < b and c > d:\n    print(\"&\")\n```"),
	    "<pre><code class=\"language-python\">if a &lt; b and c &gt; d:\n"
	    "    print(\"&amp;\")</code></pre>",
	    "a fenced block with a language, indentation kept");
	is_str(h("```\nplain\n```"), "<pre>plain</pre>",
	    "a fenced block without a language");
	is_str(h("```c++ {.x}\nint a;\n```"),
	    "<pre><code class=\"language-c++\">int a;</code></pre>",
	    "the language is the first word of the info string");
	is_str(h("```\"><script>\nx\n```"), "<pre>x</pre>",
	    "a language that is not a word is dropped");
	is_str(h("~~~\n**no**\n\n\n<i>\n~~~"),
	    "<pre>**no**\n\n\n&lt;i&gt;</pre>",
	    "a code block keeps its blank lines and its markup as text");

	/* links */
	is_str(h("[a & b](https://e.org/?x=1&y=\"2\"&z=<3>)"),
	    "<a href=\"https://e.org/?x=1&amp;y=&quot;2&quot;&amp;z=&lt;3&gt;"
	    "\">a &amp; b</a>", "& and quotes in a link are escaped");
	is_str(h("[t](<https://e.org/a b>)"),
	    "<a href=\"https://e.org/a b\">t</a>", "a target in brackets");
	is_str(h("[**bold** link](http://e.org)"),
	    "<a href=\"http://e.org\"><b>bold</b> link</a>",
	    "bold inside a link");
	is_str(h("[`code` link](http://e.org)"),
	    "<a href=\"http://e.org\">code link</a>",
	    "no code inside a link (Telegram nests none)");
	is_str(h("see https://e.org/a_b_c and www.e.org"),
	    "see <a href=\"https://e.org/a_b_c\">https://e.org/a_b_c</a> and "
	    "<a href=\"http://www.e.org\">www.e.org</a>",
	    "bare URLs are links, their underscores not emphasis");
	is_str(h("[x](javascript:alert(1)) [y](rel/page.md) [](http://e.org)"),
	    "x (javascript:alert(1)) y (rel/page.md) "
	    "<a href=\"http://e.org\">http://e.org</a>",
	    "a target Telegram would refuse is shown as text; no empty link");
	is_str(h("![a cat](https://e.org/cat.png) [![img](https://e.org/i)]"
	    "(https://e.org/page)"),
	    "<a href=\"https://e.org/cat.png\">a cat</a> "
	    "<a href=\"https://e.org/page\">img</a>",
	    "images are links; an image in a link is its text");
	is_str(h("[a](https://e.org/&quot;&amp;)"),
	    "<a href=\"https://e.org/&quot;&amp;\">a</a>",
	    "entities in a target are decoded, then escaped once");

	/* escaping and raw HTML */
	is_str(h("a < b > c & d \"e\""), "a &lt; b &gt; c &amp; d \"e\"",
	    "< > & are escaped in text");
	is_str(h("<b>bold?</b> <script>alert(1)</script>"),
	    "&lt;b&gt;bold?&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;",
	    "raw inline HTML is shown, never passed");
	is_str(h("<div>\n<a href=\"x\">y</a>\n</div>"),
	    "&lt;div&gt;\n&lt;a href=\"x\"&gt;y&lt;/a&gt;\n&lt;/div&gt;",
	    "a raw HTML block is shown as text");
	is_str(h("&amp; &lt;b&gt; &copy; &#x1F600; &#0; &nosuch; AT&T"),
	    "&amp; &lt;b&gt; \xc2\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd "
	    "&amp;nosuch; AT&amp;T", "entities decoded, then escaped");
	is_str(h("\\*not\\* \\<b\\>"), "*not* &lt;b&gt;",
	    "backslash escapes");

	/* blocks */
	is_str(h("# One\n\n## Two\ntext"),
	    "<b>One</b>\n\n<b>Two</b>\n\ntext", "headings are bold lines");
	is_str(h("- a\n- b\n  - c\n  - d\n- e"),
	    "\xe2\x80\xa2 a\n\xe2\x80\xa2 b\n  \xe2\x80\xa2 c\n"
	    "  \xe2\x80\xa2 d\n\xe2\x80\xa2 e", "a bulleted list, nested");
	is_str(h("3. three\n4. **four**\n\n   more\n"),
	    "3. three\n\n4. <b>four</b>\n\nmore", "a loose ordered list");
	is_str(h("- [ ] todo\n- [x] done"),
	    "\xe2\x80\xa2 \xe2\x98\x90 todo\n\xe2\x80\xa2 \xe2\x98\x91 done",
	    "task lists");
	is_str(h("> quoted **bold**\n> > deeper\n\nafter"),
	    "<blockquote>quoted <b>bold</b>\n\ndeeper</blockquote>\n\nafter",
	    "a blockquote, nested ones flattened (Telegram nests none)");
	is_str(h("| a | b |\n|:--|--:|\n| x&y | 10 |\n| long | 2 |"),
	    "<pre>a    |  b\n-----+---\nx&amp;y  | 10\nlong |  2</pre>",
	    "a table is a pre of padded columns");
	is_str(h("a\n\n---\n\nb"),
	    "a\n\n\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94"
	    "\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\n\nb",
	    "a rule is a line of dashes");
	is_str(h("line one\nline two  \nline three"),
	    "line one\nline two\nline three", "line breaks are kept");
	is_str(h("    indented is not code"), "indented is not code",
	    "an indented block is a paragraph (models indent by accident)");

	/* plain text and empty input */
	render("**not markdown** <b> & _x_", 4096, 0);
	ok(N == 1 && !strcmp(P[0].html,
	    "**not markdown** &lt;b&gt; &amp; _x_") &&
	    !strcmp(P[0].plain, "**not markdown** <b> & _x_"),
	    "format text: escaped, nothing parsed");
	render("", 4096, 1);
	is_int(N, 0, "an empty text is no part");
	render("  \n\n   \n", 4096, 1);
	is_int(N, 0, "nor is white space");
	render("**", 4096, 1);
	ok(N == 1 && !strcmp(P[0].html, "**"), "a lone marker is text");

	/* hostile input */
	s = rep("[", 20000);
	t = rep("**_~~`<", 20000);
	a = rep("> ", 5000);
	b = rep("- ", 5000);
	render(s, 4096, 1);
	why = allwell(4096);
	ok(!why, "20000 [ are well-formed parts%s%s", why ? ": " : "",
	    why ? why : "");
	render(t, 4096, 1);
	why = allwell(4096);
	ok(!why, "a storm of markers is well-formed%s%s", why ? ": " : "",
	    why ? why : "");
	free(s);
	s = xmalloc(strlen(a) + 3);
	strcpy(s, a);
	strcat(s, "x");
	render(s, 4096, 1);
	ok(N == 1 && !strcmp(P[0].html, "<blockquote>x</blockquote>"),
	    "5000 nested quotes are one blockquote");
	free(s);
	s = xmalloc(strlen(b) + 3);
	strcpy(s, b);
	strcat(s, "x");
	render(s, 4096, 1);
	why = allwell(4096);
	ok(!why && N == 1 && strstr(P[0].plain, "x"),
	    "5000 nested lists: indentation capped%s%s", why ? ": " : "",
	    why ? why : "");
	free(s);
	free(t);
	free(a);
	free(b);
	render("x\n\nhttp://.o)_|_ **b**", 4096, 1);
	why = allwell(4096);
	ok(!why && N == 1 && !strcmp(P[0].html, "x\n\n"
	    "<a href=\"http://.o)_|\">http://.o)_|</a> <b>b</b>"),
	    "md4c leaving a span it never entered is survived%s%s",
	    why ? ": " : "", why ? why : "");
	/* strlen would stop at the NUL: the bytes are given */
	oxi_tgmd_free(P, N);
	N = oxi_tgmd_render("a\0b\x01" "c\r\nd\xff" "e", 10, 1, 4096, &P);
	ok(N == 1 && !strcmp(P[0].plain, "a\xef\xbf\xbd" "bc\nd\xef\xbf\xbd"
	    "e"), "NUL and bad UTF-8 become U+FFFD, controls and CR go");
	N = N < 0 ? 0 : N;
	oxi_tgmd_free(P, N);
	N = 0;
	ok(oxi_tgmd_render("x", 1, 1, 0, &P) == -1 && P == NULL,
	    "a limit of 0 is refused");

	/* very long input, quickly */
	s = rep("Some **bold** and `code` with [a link](https://e.org/?a&b). ",
	    20000);
	t0 = clock();
	render(s, 4096, 1);
	t0 = clock() - t0;
	why = allwell(4096);
	ok(!why && N > 100, "1.2 MB of markup: %d well-formed parts%s%s", N,
	    why ? ": " : "", why ? why : "");
	ok((double)t0 / CLOCKS_PER_SEC < 5, "in %.2f s of CPU",
	    (double)t0 / CLOCKS_PER_SEC);
	t = joined();
	a = squeeze(t);
	free(t);
	t = xstrdup(P[0].plain);
	render(s, 1 << 30, 1);
	b = squeeze(P[0].plain);
	ok(N == 1 && !strcmp(a, b), "the parts hold the whole text");
	free(a);
	free(b);
	free(t);
	free(s);

	/* splitting: exact limits */
	render_rep("a", 4096, 4096);
	ok(N == 1 && P[0].units == 4096, "4096 characters are one message");
	render_rep("a", 4097, 4096);
	ok(N == 2 && P[0].units == 4096 && P[1].units == 1,
	    "4097 are two: 4096 and 1");
	/* U+00E9 is 2 bytes, 1 unit; U+1F600 4 bytes, 2 units */
	render_rep("\xc3\xa9", 4096, 4096);
	ok(N == 1 && P[0].units == 4096 && strlen(P[0].plain) == 8192,
	    "4096 two-byte characters (8192 bytes) are one message");
	render_rep("\xf0\x9f\x98\x80", 2048, 4096);
	ok(N == 1 && P[0].units == 4096, "2048 emoji are 4096 units: one");
	render_rep("\xf0\x9f\x98\x80", 2049, 4096);
	ok(N == 2 && P[0].units == 4096 && P[1].units == 2 &&
	    !allwell(4096), "2049 emoji are two, never half a pair");
	t = rep("\xf0\x9f\x98\x80", 2047);
	s = xmalloc(strlen(t) + 6);
	sprintf(s, "%sx\xf0\x9f\x98\x80", t);
	render(s, 4096, 1);
	ok(N == 2 && P[0].units == 4095 && P[1].units == 2,
	    "an emoji that would straddle the limit goes to the next part");
	free(s);
	free(t);
	/* a family emoji: man ZWJ woman ZWJ girl, 8 units, kept whole */
	t = rep("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
	    "\xf0\x9f\x91\xa7", 3);
	render(t, 12, 1);
	ok(N == 3 && P[0].units == 8 && !allwell(12),
	    "a joined emoji sequence is not cut inside");
	free(t);

	/* splitting: where */
	s = rep("word ", 50);		/* 250 units */
	t = xmalloc(1024);
	snprintf(t, 1024, "First paragraph.\n\n%s", s);
	render(t, 200, 1);
	ok(N == 2 && strcmp(P[0].plain, "First paragraph.") != 0 &&
	    !allwell(200), "a short first paragraph is not a part alone");
	free(t);
	t = rep("Para one is here.\n\n", 20);	/* 19 units a paragraph */
	render(t, 100, 1);
	why = allwell(100);
	for (k = 0, i = 0; k < N; k++)
		if (P[k].plain[strlen(P[k].plain) - 1] != '.')
			i++;
	ok(!why && N == 4 && i == 0, "paragraphs: cut between them (%d parts)",
	    N);
	free(t);
	t = rep("Line of text\n", 30);
	render(t, 100, 1);
	/* 13 units a line: 7 lines a part */
	ok(N == 5 && P[0].units == 90 &&
	    !strcmp(P[0].plain + strlen(P[0].plain) - 4, "text") &&
	    !allwell(100), "lines: cut at a line break");
	free(t);
	t = rep("Sentence number one goes here. ", 10);
	render(t, 100, 1);
	ok(N >= 3 && P[0].plain[strlen(P[0].plain) - 1] == '.' &&
	    P[1].plain[0] == 'S' && !allwell(100),
	    "sentences: cut after the full stop");
	free(t);
	render(s, 100, 1);
	ok(N == 3 && !strcmp(P[0].plain + strlen(P[0].plain) - 4, "word") &&
	    !allwell(100), "words: cut at a space");
	free(s);

	/* splitting through markup */
	s = rep("x", 150);
	t = xmalloc(512);
	snprintf(t, 512, "**bold _it %s_ end** after", s);
	render(t, 100, 1);
	why = allwell(100);
	ok(!why && N == 3 && !strcmp(P[0].html, "<b>bold <i>it</i></b>") &&
	    !strncmp(P[1].html, "<b><i>xxx", 9) &&
	    !strcmp(P[1].html + strlen(P[1].html) - 11, "xxx</i></b>") &&
	    !strncmp(P[2].html, "<b><i>xxx", 9) &&
	    strstr(P[2].html, "xxx</i> end</b> after"),
	    "tags open at a cut are closed, then opened again%s%s",
	    why ? ": " : "", why ? why : "");
	free(t);
	t = xmalloc(1024);
	snprintf(t, 1024, "```sh\n%s\n%s\n```", s, s);
	render(t, 160, 1);
	ok(N == 2 && !allwell(160) &&
	    !strncmp(P[1].html, "<pre><code class=\"language-sh\">", 31),
	    "a code block cut is a code block in both parts");
	free(t);
	t = xmalloc(1024);
	snprintf(t, 1024, "[%s %s](https://e.org/?a&b)", s, s);
	render(t, 160, 1);
	ok(N == 2 && !allwell(160) &&
	    !strncmp(P[1].html, "<a href=\"https://e.org/?a&amp;b\">x", 34),
	    "a link cut links both halves");
	free(t);
	t = xmalloc(1024);
	snprintf(t, 1024, "%.*s <b>&amp;</b>", 96, s);
	render(t, 100, 1);
	ok(N == 2 && !allwell(100) && !strcmp(P[1].plain, "<b>&</b>") &&
	    !strcmp(P[1].html, "&lt;b&gt;&amp;&lt;/b&gt;"),
	    "escapes are never cut (the limit counts shown text)");
	free(t);
	free(s);

	/* many random documents at small limits: always well-formed */
	srand(42);
	for (k = 0, why = NULL; k < 300 && !why; k++) {
		static const char *const bits[] = { "**", "_", "`", "~~", "[",
			"](http://e.org/?a&b=\"c\")", "\n", "\n\n", "- ",
			"1. ", "> ", "```py\n", "\n```\n", "| a | b |\n|--|--|\n",
			"<b>", "&amp;", "\xc3\xa9", "\xf0\x9f\x98\x80", " ",
			"word", "end.", "# ", "\xe2\x80\x8d", "!", "![i](x)" };
		struct oxi_buf d = OXI_BUF_INIT;

		oxi_buf_cats(&d, "");
		for (i = 0, len = rand() % 200; i < len; i++)
			oxi_buf_cats(&d, bits[rand() % (sizeof bits /
			    sizeof *bits)]);
		len = 2 + rand() % 60;
		render(d.s, len, 1);
		why = allwell(len);
		if (why)
			printf("# input: %s\n", d.s);
		oxi_buf_free(&d);
	}
	ok(!why, "300 random documents, limits 2 to 61: well-formed%s%s",
	    why ? ": " : "", why ? why : "");

	render("\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 1, 1);
	ok(N == 2 && P[0].units == 2,
	    "a limit below one emoji still makes progress");
	is_int(oxi_tgmd_units("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10), 5,
	    "units: 1 + 1 + 1 + 2");

	oxi_tgmd_free(P, N);
	return done();
}
