/*
 * skmd.c - the model's Markdown as Slack mrkdwn: a writer for the parse
 * and the cut of tgmd.c and tgpart.c (oxi_tgmd_render_as)
 *
 * mrkdwn has *bold*, _italic_, ~strike~, `code`, ```pre```, "> " quoted
 * lines and <url|text> links, and no underline; &, < and > are written
 * &amp; &lt; &gt; everywhere, so text never forms a link, a mention
 * (<@U123>) or a broadcast (<!channel>).  Inside a link or code no other
 * mark is written: Slack shows none there.
 */
#include <string.h>

#include "oxi.h"
#include "channel/tgmd.h"
#include "channel/sk.h"

/* the writer's state: st[QUOTE] ...: depths, and a link is written */
enum { QUOTE, LINK, CODE, SHOWN };

/* s[0..n) escaped as in HTML (&amp; &lt; &gt;), "> " after each line
 * break inside a quote */
static void
text(struct oxi_buf *b, const char *s, size_t n, int *st)
{
	const char *nl;

	while ((nl = memchr(s, '\n', n))) {
		oxi_tgmd_html.text(b, s, (size_t)(nl - s), st);
		oxi_buf_cats(b, st[QUOTE] && !st[CODE] ? "\n> " : "\n");
		n -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
	oxi_tgmd_html.text(b, s, n, st);
}

static void
tag(struct oxi_buf *b, const struct oxi_tgmd_span *s, int close, int *st)
{
	static const char *const marks[] = { "*", "_", "~", "", "`" };
	const char *h;

	switch (s->kind) {
	case OXI_TGMD_QUOTE:
		st[QUOTE] += close ? -1 : 1;
		if (!close && (b->len == 0 || b->s[b->len - 1] == '\n'))
			oxi_buf_cats(b, "> ");
		return;
	case OXI_TGMD_A:
		/* the outermost link, outside code, is written */
		if (close) {
			if (--st[LINK] == 0 && st[SHOWN]) {
				st[SHOWN] = 0;
				oxi_buf_cats(b, ">");
			}
			return;
		}
		if (st[LINK]++ > 0 || st[CODE])
			return;
		st[SHOWN] = 1;
		oxi_buf_cats(b, "<");
		/* a link's target: | and > would end it early */
		for (h = s->attr ? s->attr : ""; *h; h++)
			if (*h == '|' || *h == '>' || *h == '<')
				oxi_buf_printf(b, "%%%02X", (unsigned char)*h);
			else if (*h == '&')
				oxi_buf_cats(b, "&amp;");
			else
				oxi_buf_cat(b, h, 1);
		oxi_buf_cats(b, "|");
		return;
	case OXI_TGMD_PRE:
		st[CODE] += close ? -1 : 1;
		oxi_buf_cats(b, close ? "\n```" : "```\n");
		return;
	case OXI_TGMD_CODE:
		st[CODE] += close ? -1 : 1;
		break;
	default:
		if (st[LINK] || st[CODE])
			return;
	}
	if (s->kind >= 0 && s->kind <= OXI_TGMD_CODE)
		oxi_buf_cats(b, marks[s->kind]);
}

const struct oxi_tgmd_markup sk_mrkdwn = { text, tag };
