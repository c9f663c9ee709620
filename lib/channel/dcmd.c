/*
 * dcmd.c - the model's Markdown as Discord's, in messages of at most 2000
 * characters: a writer for the parse and the cut of tgmd.c and tgpart.c
 * (oxi_tgmd_render_as), so that a reply shows on Discord as on Telegram
 *
 * Headings come as bold lines, lists as "• " and "1. " lines, tables as
 * code blocks of padded columns, images as links (tgmd.c).  Discord's
 * marks: **bold**, *italic*, ~~struck~~, __underlined__, `code`, ```lang
 * code blocks```, [text](url) links, "> " before each quoted line; every
 * other character Discord would read as markup is escaped with a
 * backslash (and > # - + at a line's start), so that what the model
 * wrote as text shows as text, and "<@id>" never pings.  Inside code no
 * mark is written, and three backticks are broken by a zero-width space.
 * The cut is tgpart.c's, in the shown text: markup open at a cut is
 * closed at the end of a part and opened again in the next, so a code
 * block split in two is two whole blocks.  Discord counts the markup
 * too: when a part's Markdown is over the limit the text is cut again,
 * shorter.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"
#include "channel/tgmd.h"

/* the writer's state, per part: depths; LINK is four times the depth of
 * links, plus one while the outermost is written as [text](url), plus
 * two while it is a bare address, written as it is (Discord links it) */
enum { QUOTE, CODE, PRE, LINK };

static int
bol(const struct oxi_buf *b)
{
	return b->len == 0 || b->s[b->len - 1] == '\n';
}

static void
text(struct oxi_buf *b, const char *s, size_t n, int *st)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (st[PRE]) {
			/* three backticks would end the block */
			if (s[i] == '`' && i + 2 < n && s[i + 1] == '`' &&
			    s[i + 2] == '`')
				oxi_buf_cats(b, "`\xe2\x80\x8b");
			else
				oxi_buf_cat(b, s + i, 1);
			continue;
		}
		if (st[CODE]) {
			oxi_buf_cat(b, s[i] == '`' ? "'" : s + i, 1);
			continue;
		}
		if (st[LINK] & 2) {
			oxi_buf_cat(b, s + i, 1);
			continue;
		}
		if (s[i] != '\n' && st[QUOTE] && bol(b))
			oxi_buf_cats(b, "> ");
		if (strchr("\\*_~`|[]<", s[i]) || (bol(b) && strchr(">#-+",
		    s[i])))
			oxi_buf_cats(b, "\\");
		oxi_buf_cat(b, s + i, 1);
	}
}

static void
tag(struct oxi_buf *b, const struct oxi_tgmd_span *sp, int close, int *st)
{
	static const char *const marks[] = { "**", "*", "~~", "__", "`" };
	const char *p;
	int d;

	switch (sp->kind) {
	case OXI_TGMD_QUOTE:
		st[QUOTE] += close ? -1 : 1;
		return;
	case OXI_TGMD_PRE:
		st[PRE] += close ? -1 : 1;
		if (close) {
			oxi_buf_cats(b, bol(b) ? "```" : "\n```");
			return;
		}
		if (!bol(b))
			oxi_buf_cats(b, "\n");
		oxi_buf_printf(b, "```%s\n", sp->attr && strspn(sp->attr,
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789+-_#.") == strlen(sp->attr) ? sp->attr : "");
		return;
	case OXI_TGMD_A:
		d = st[LINK] >> 2;
		if (!close) {
			/* a link as long as its address shows the address */
			if (d == 0 && !st[CODE] && !st[PRE] && sp->attr &&
			    strlen(sp->attr) == sp->b - sp->a)
				st[LINK] = 4 | 2;
			else if (d == 0 && !st[CODE] && !st[PRE]) {
				oxi_buf_cats(b, "[");
				st[LINK] = 4 | 1;
			} else
				st[LINK] = (d + 1) << 2 | (st[LINK] & 3);
			return;
		}
		if (d == 1 && (st[LINK] & 1)) {
			oxi_buf_cats(b, "](");
			for (p = sp->attr ? sp->attr : ""; *p; p++)
				if (*p == ')' || *p == ' ' || *p == '<' ||
				    *p == '>')
					oxi_buf_printf(b, "%%%02X",
					    (unsigned char)*p);
				else
					oxi_buf_cat(b, p, 1);
			oxi_buf_cats(b, ")");
		}
		st[LINK] = d > 1 ? (d - 1) << 2 | (st[LINK] & 3) : 0;
		return;
	case OXI_TGMD_CODE:
		if (st[PRE])
			return;
		st[CODE] += close ? -1 : 1;
		oxi_buf_cats(b, "`");
		return;
	default:
		if (st[CODE] || st[PRE] || sp->kind < 0 ||
		    sp->kind > OXI_TGMD_U)
			return;
		oxi_buf_cats(b, marks[sp->kind]);
	}
}

static const struct oxi_tgmd_markup markdown = { text, tag };

void
dc_md_free(char **parts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(parts[i]);
	free(parts);
}

int
dc_md_render(const char *s, size_t len, int md, size_t max, char ***parts)
{
	struct oxi_tgmd_part *p;
	size_t budget = max, u, worst;
	char **out;
	int i, n;

	*parts = NULL;
	if (max < 64)
		return -1;
	for (;;) {
		if ((n = oxi_tgmd_render_as(s, len, md, budget, &markdown,
		    &p)) < 0)
			return -1;
		for (i = 0, worst = 0; i < n; i++)
			if ((u = oxi_tgmd_units(p[i].html,
			    strlen(p[i].html))) > worst)
				worst = u;
		if (worst <= max || budget <= 32)
			break;
		/* the markup took room: cut shorter, by its share */
		oxi_tgmd_free(p, n);
		budget = budget * max / worst;
		budget = budget > 48 ? budget - 16 : 32;
	}
	out = n > 0 ? xcalloc(n, sizeof *out) : NULL;
	for (i = 0; i < n; i++) {
		out[i] = p[i].html;
		p[i].html = NULL;
	}
	oxi_tgmd_free(p, n);
	*parts = out;
	return n;
}
