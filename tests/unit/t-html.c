/*
 * t-html.c - HTML as readable text: what is kept, what is dropped,
 * entities, white space, lists, tables, links and their list
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "net/net.h"
#include "tap.h"

static struct oxi_buf out = OXI_BUF_INIT;
static char *title;

static const char *
conv(const char *html, const char *base)
{
	oxi_buf_reset(&out);
	free(title);
	title = NULL;
	oxi_html_text(html, strlen(html), base, &out, &title);
	return out.s;
}

static const char *
unesc(const char *s)
{
	oxi_buf_reset(&out);
	oxi_buf_cats(&out, "");
	oxi_html_unescape(&out, s, strlen(s));
	return out.s;
}

/* html[0..len) as text is want, NUL bytes compared too */
static int
convn(const char *html, size_t len, const char *want)
{
	oxi_buf_reset(&out);
	free(title);
	title = NULL;
	oxi_html_text(html, len, NULL, &out, &title);
	return out.len == strlen(want) && memcmp(out.s, want, out.len) == 0;
}

/* s[0..len) decoded is want[0..wlen): NUL bytes compared too */
static int
unescn(const char *s, size_t len, const char *want, size_t wlen)
{
	oxi_buf_reset(&out);
	oxi_buf_cats(&out, "");
	oxi_html_unescape(&out, s, len);
	return out.len == wlen && memcmp(out.s, want, wlen) == 0;
}

/* CPU seconds to convert n copies of piece */
static double
cpu(const char *piece, size_t n)
{
	struct oxi_buf in = OXI_BUF_INIT;
	clock_t t0;
	size_t i;

	for (i = 0; i < n; i++)
		oxi_buf_cats(&in, piece);
	oxi_buf_reset(&out);
	t0 = clock();
	oxi_html_text(in.s, in.len, NULL, &out, NULL);
	t0 = clock() - t0;
	oxi_buf_free(&in);
	return (double)t0 / CLOCKS_PER_SEC;
}

int
main(void)
{
	static const char page[] =
	    "<!DOCTYPE html><html><head><title> The  &amp; Title </title>"
	    "<style>p { color: red }</style>"
	    "<script>var s = '<p>not text</p>'; if (a < b) x();</script>"
	    "</head><body><nav><a href=/home>Home</a> <a href=/x>X</a></nav>"
	    "<header><h1>Site name</h1></header>"
	    "<main><header><h1>Article  title</h1></header>"
	    "<p>First\n   paragraph with <b>bold</b> and <a href=\"/doc?a=1&amp;b=2\">"
	    "a link</a>.</p>"
	    "<!-- a comment <p>hidden</p> -->"
	    "<h2>List</h2><ul><li>one</li><li>two<ol><li>a</li><li>b</li>"
	    "</ol></li></ul>"
	    "<table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td>1</td>"
	    "</tr></table>"
	    "<pre>  keep\n    this</pre>"
	    "<p>caf&eacute; &#233; &#x1F600; &lt;tag&gt; &nosuch; AT&T</p>"
	    "<div hidden>secret hidden</div>"
	    "<div aria-hidden=\"true\">also hidden</div>"
	    "<p>Line<br>break <img src=x.png alt=\"a cat\"></p>"
	    "<a href='https://other.example/page'>elsewhere</a>"
	    " <a href=\"javascript:alert(1)\">js</a> "
	    "<a href=\"/doc?a=1&b=2\">again</a>"
	    "</main><footer>Copyright junk</footer>"
	    "<form><input name=q><button>Go</button></form></body></html>";
	static const char expect[] =
	    "# Article title\n"
	    "\n"
	    "First paragraph with bold and a link [1].\n"
	    "\n"
	    "## List\n"
	    "\n"
	    "- one\n"
	    "- two\n"
	    "  1. a\n"
	    "  2. b\n"
	    "\n"
	    "k | v\n"
	    "x | 1\n"
	    "\n"
	    "  keep\n"
	    "    this\n"
	    "\n"
	    "caf\xc3\xa9 \xc3\xa9 \xf0\x9f\x98\x80 <tag> &nosuch; AT&T\n"
	    "\n"
	    "Line\n"
	    "break [image: a cat]\n"
	    "\n"
	    "elsewhere [2] js again [1]\n"
	    "\n"
	    "Links:\n"
	    "[1] https://site.example/doc?a=1&b=2\n"
	    "[2] https://other.example/page";
	const char *r;

	plan(30);
	r = conv(page, "https://site.example/dir/page.html");
	is_str(r, expect, "a page as text");
	is_str(title, "The & Title", "the title, decoded and collapsed");
	ok(!strstr(r, "not text") && !strstr(r, "color"),
	    "scripts and styles are dropped");
	ok(!strstr(r, "Home") && !strstr(r, "Copyright") &&
	    !strstr(r, "Site name") && !strstr(r, "Go"),
	    "nav, footer, a page header and forms are dropped");
	ok(!strstr(r, "hidden"), "hidden elements and comments are dropped");

	is_str(conv("<a href=\"b.html\">b</a> <a href=\"../c\">c</a> "
	    "<a href=\"//cdn.example/x\">d</a> <a href=\"?q=2\">e</a> "
	    "<a href=\"#top\">f</a> <a href=\"mailto:a@b.c\">g</a>",
	    "http://h.example/a/b?q=1#x"),
	    "b [1] c [2] d [3] e [4] f g [5]\n\nLinks:\n"
	    "[1] http://h.example/a/b.html\n[2] http://h.example/a/../c\n"
	    "[3] http://cdn.example/x\n[4] http://h.example/a/b?q=2\n"
	    "[5] mailto:a@b.c", "relative links are resolved");
	is_str(conv("<a href=\"x\">x</a>", "http://h.example"),
	    "x [1]\n\nLinks:\n[1] http://h.example/x",
	    "against a base without a path");
	is_str(conv("<a href=x></a>text", NULL), "text",
	    "a link without text gets no number");
	is_str(conv("plain text, no tags", NULL), "plain text, no tags",
	    "text without tags");
	is_str(conv("", NULL), "", "an empty document");
	is_str(conv("<p>a < b and 1<2</p>", NULL), "a < b and 1<2",
	    "a lone < is text");
	is_str(conv("<script>never</script", NULL), "",
	    "an unterminated script hides the rest");
	is_str(conv("<!-- never ends", NULL), "", "an unterminated comment");
	is_str(conv("<div><div><p>x</p></div></div><div>y</div>", NULL),
	    "x\n\ny", "nested blocks make one break");
	is_str(conv("<nav><nav>a</nav>b</nav>c", NULL), "c",
	    "nested dropped elements");
	is_str(conv("<p>x<svg><title>icon</title><path/></svg>y</p>", NULL),
	    "xy", "svg and its title are dropped");
	ok(title == NULL, "and the svg title is not the page's");
	is_str(conv("<P CLASS=x>Upper<BR/>case</P>", NULL), "Upper\ncase",
	    "tag names in any case");

	is_str(unesc("&amp;&lt;&gt;&quot;&apos;&nbsp;&#65;&#x42;&#0;&#xD800;"
	    "&#x110000;&#150;&#128;"),
	    "&<>\"'\xc2\xa0" "AB\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	    "\xe2\x80\x93\xe2\x82\xac",
	    "references: named, numeric, invalid and C1");
	is_str(unesc("& &; &#; &#x; &amp &unknown; a&b"),
	    "& &; &#; &#x; &amp &unknown; a&b",
	    "what is not a reference stays");
	is_str(unesc("&#65&#66;x"), "ABx", "a numeric reference without ;");
	is_str(conv("<xmp>", NULL), "", "an empty xmp at the end (UBSan: "
	    "no step from a NULL pointer)");
	is_str(conv("<xmp></xmp><textarea></textarea>x", NULL), "x",
	    "empty raw text elements");

	/* what is not UTF-8 becomes U+FFFD, one per maximal subpart */
#define R "\xef\xbf\xbd"
	is_str(conv("<p>a\xff" "b\xe2\x82" "c\xed\xa0\x80" "d\xc0\xaf" "e"
	    "\xf0\x9f\x98</p>", NULL), "a" R "b" R "c" R R R "d" R R "e" R,
	    "ill-formed UTF-8 in the text becomes U+FFFD");
	is_str(conv("<title>t\x80</title><a href=\"/\xfe\">\xc3\xa9</a>",
	    "http://h.example/"), "\xc3\xa9 [1]\n\nLinks:\n"
	    "[1] http://h.example/" R, "in link URLs too");
	is_str(title, "t" R, "and in the title");
	ok(convn("<p>a\0b</p>", 10, "a" R "b"), "a NUL byte becomes U+FFFD, "
	    "as &#0; does");

	/* the search for '&' stays within the text given */
	ok(cpu("<b>x</b>", 2 * 1024 * 1024 / 8) < 2.0,
	    "2 MiB of <b>x</b> in well under 2 s of CPU (linear)");
	ok(unescn("a&amp;b&c", 3, "a&a", 3), "no '&' is taken past len");
	ok(unescn("a\0b&lt;\0", 8, "a\0b<\0", 5),
	    "a NUL byte is a byte, not '&'");

	free(title);
	oxi_buf_free(&out);
	return done();
}
