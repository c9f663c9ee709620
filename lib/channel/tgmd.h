/*
 * tgmd.h - the model's Markdown as Telegram HTML, in messages that fit
 * (tgmd.c); used by the Telegram sender (tgsend.c) and tests/unit
 */
#ifndef OXI_TGMD_H
#define OXI_TGMD_H

#include "oxi.h"

/* the longest text of a message, in UTF-16 code units after the markup
 * is parsed (Bot API, sendMessage and editMessageText) */
#define OXI_TG_TEXT_MAX	4096

/* one message of a reply */
struct oxi_tgmd_part {
	char *html;		/* Telegram HTML, every tag closed */
	char *plain;		/* the same text without markup, for when
				 * Telegram refuses the markup */
	size_t units;		/* the text's length in UTF-16 code units */
};
/*
 * Renders text[0..len), Markdown when md is set, else plain text, as
 * the HTML of Telegram's parse_mode (b i s u code pre a blockquote, and
 * &lt; &gt; &amp; &quot; everywhere else; raw HTML in the text is shown,
 * never passed), split into parts of at most max UTF-16 code units each:
 * at a paragraph, else a line, a sentence, a word, a character.  Tags
 * open at a split are closed at the end of a part and opened again in
 * the next.  Returns the number of parts, 0 when nothing would show
 * (*parts NULL then), with *parts to free with oxi_tgmd_free; or -1
 * with errno set (ENOMEM from the parser, EINVAL for a max of 0).
 */
int oxi_tgmd_render(const char *text, size_t len, int md, size_t max,
    struct oxi_tgmd_part **parts);
void oxi_tgmd_free(struct oxi_tgmd_part *, int n);

/* a reply rendered (tgmd.c): the text that shows, and its markup */
enum { OXI_TGMD_B, OXI_TGMD_I, OXI_TGMD_S, OXI_TGMD_U, OXI_TGMD_CODE,
	OXI_TGMD_PRE, OXI_TGMD_A, OXI_TGMD_QUOTE };
struct oxi_tgmd_span {
	size_t a, b;		/* the shown bytes [a, b) it covers */
	int kind;		/* OXI_TGMD_* */
	char *attr;		/* the href of A, the language of PRE, or NULL */
};
struct oxi_tgmd_doc {
	struct oxi_buf v;	/* the text that shows: UTF-8, no controls
				 * but tab and newline */
	struct oxi_tgmd_span *sp;	/* its spans, in the order they open
					 * (an outer before an inner one at
					 * the same byte), nested */
	size_t nsp;		/* how many */
};
/* the code point at s[0..n) (valid UTF-8), its length in *len */
unsigned long oxi_tgmd_cp(const char *s, size_t n, size_t *len);
/*
 * A markup language for the parts: text appends shown bytes s[0..n)
 * escaped, tag opens or closes a span (spans nest); st is the writer's
 * state, four ints zeroed at the start of each part.  oxi_tgmd_html is
 * Telegram's HTML; skmd.c has Slack's mrkdwn.
 */
struct oxi_tgmd_markup {
	void (*text)(struct oxi_buf *, const char *s, size_t n, int *st);
	void (*tag)(struct oxi_buf *, const struct oxi_tgmd_span *, int close,
	    int *st);
};
extern const struct oxi_tgmd_markup oxi_tgmd_html;
/* oxi_tgmd_render with the markup of w (NULL: Telegram HTML) in each
 * part's html */
int oxi_tgmd_render_as(const char *text, size_t len, int md, size_t max,
    const struct oxi_tgmd_markup *w, struct oxi_tgmd_part **parts);
/*
 * tgpart.c: d in parts of at most max UTF-16 code units, as
 * oxi_tgmd_render returns them, in w's markup (NULL: Telegram HTML); a
 * part is longer only when one character is wider than max.  0 parts
 * when nothing shows.
 */
int oxi_tgmd_parts(const struct oxi_tgmd_doc *d, size_t max,
    const struct oxi_tgmd_markup *w, struct oxi_tgmd_part **parts);
/* the UTF-16 code units of the UTF-8 text s[0..len), as Telegram counts */
size_t oxi_tgmd_units(const char *s, size_t len);

#endif
