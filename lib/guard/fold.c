/*
 * fold.c - Unicode folding before matching: invisible characters
 * stripped and flagged, compatibility forms, lookalikes, diacritics and
 * case folded to ASCII, with a map back to the input's offsets
 *
 * One pass over the text, one code point at a time, with a look at the
 * next one where a joiner or a variation selector is judged.  The table
 * of what folds to what is generated (foldtab.c, mkfoldtab.py).
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"

enum kind { K_TEXT, K_TAG, K_VS, K_ZW, K_BIDI, K_CTRL, K_MARK };

struct st {
	struct oxi_fold *f;	/* the result */
	unsigned opts;		/* OXI_FOLD_* */
	unsigned long prev;	/* the last visible code point, or 0 */
	int flagseq;		/* inside the tags of a flag emoji */
	int vsok;		/* a variation selector may follow */
	int hidrun;		/* a run of hidden characters is open */
	int wascii;		/* the word has an ASCII letter */
	int whomo;		/* the word has a lookalike of another script */
};

/* the code point at s[0..n) in *cp and its length; ill-formed: 1, -1 */
static size_t
decode(const char *s, size_t n, long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k;

	switch ((k = oxi_utf8_seq(s, n))) {
	case 0:
		*cp = -1;
		return 1;
	case 1:
		*cp = u[0];
		break;
	case 2:
		*cp = (long)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
		break;
	case 3:
		*cp = (long)(u[0] & 0x0f) << 12 | (long)(u[1] & 0x3f) << 6 |
		    (u[2] & 0x3f);
		break;
	default:
		*cp = (long)(u[0] & 0x07) << 18 | (long)(u[1] & 0x3f) << 12 |
		    (long)(u[2] & 0x3f) << 6 | (u[3] & 0x3f);
		break;
	}
	return k;
}

size_t
oxi_fold_utf8(unsigned long cp, char *b)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | cp >> 18);
	b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static enum kind
kind(unsigned long c)
{
	if (c < 0x20)
		return c == '\t' || c == '\n' || c == '\r' ? K_TEXT : K_CTRL;
	if (c < 0x7f)
		return K_TEXT;
	if (c <= 0x9f)
		return K_CTRL;
	if (c == 0xad || c == 0x34f || c == 0x115f || c == 0x1160 ||
	    c == 0x17b4 || c == 0x17b5 || (c >= 0x180b && c <= 0x180f) ||
	    (c >= 0x200b && c <= 0x200d) || (c >= 0x2060 && c <= 0x2065) ||
	    c == 0x3164 || c == 0xfeff || c == 0xffa0 ||
	    (c >= 0xfff9 && c <= 0xfffb) || (c >= 0x1bca0 && c <= 0x1bca3) ||
	    (c >= 0x1d173 && c <= 0x1d17a))
		return K_ZW;
	if (c == 0x61c || c == 0x200e || c == 0x200f ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x206f))
		return K_BIDI;
	if ((c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xe0100 && c <= 0xe01ef))
		return K_VS;
	if (c >= 0xe0000 && c <= 0xe007f)
		return K_TAG;
	if ((c >= 0x300 && c <= 0x36f) || (c >= 0x1ab0 && c <= 0x1aff) ||
	    (c >= 0x1dc0 && c <= 0x1dff) || (c >= 0x20d0 && c <= 0x20ff) ||
	    (c >= 0xfe20 && c <= 0xfe2f))
		return K_MARK;
	return K_TEXT;
}

/* pictographs and the symbols that take part in emoji sequences */
static int
emoji(unsigned long c)
{
	return (c >= 0x1f000 && c <= 0x1faff) || (c >= 0x2600 && c <= 0x27bf) ||
	    (c >= 0x2300 && c <= 0x23ff) || (c >= 0x2b00 && c <= 0x2bff) ||
	    (c >= 0x2190 && c <= 0x21ff) || c == 0xa9 || c == 0xae ||
	    c == 0x203c || c == 0x2049 || c == 0x2122 || c == 0x2139;
}

/* scripts whose spelling needs ZWNJ and ZWJ between letters */
static int
joinscript(unsigned long c)
{
	return (c >= 0x600 && c <= 0x8ff) || (c >= 0x900 && c <= 0xdff) ||
	    (c >= 0xf00 && c <= 0x109f) || (c >= 0x1780 && c <= 0x18af) ||
	    (c >= 0xa980 && c <= 0xa9df);
}

static const struct oxi_foldrow *
findrow(unsigned long c)
{
	size_t lo = 0, hi = oxi_foldtab_len, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c < oxi_foldtab[mid].lo)
			hi = mid;
		else if (c > oxi_foldtab[mid].lo + oxi_foldtab[mid].n)
			lo = mid + 1;
		else
			return &oxi_foldtab[mid];
	}
	return NULL;
}

static unsigned long
lower(unsigned long c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? c + 0x20 : c;
	if ((c >= 0xc0 && c <= 0xde && c != 0xd7) ||
	    (c >= 0x391 && c <= 0x3ab && c != 0x3a2) ||
	    (c >= 0x410 && c <= 0x42f))
		return c + 0x20;
	if (c >= 0x400 && c <= 0x40f)
		return c + 0x50;
	if (c >= 0x531 && c <= 0x556)
		return c + 0x30;
	return c;
}

/* the row's class, gated by the options that apply it */
static int
rowapplies(const struct oxi_foldrow *r, unsigned opts)
{
	switch (r->cls) {
	case 'S':
		return (opts & OXI_FOLD_SPACE) != 0;
	case 'W':
		return (opts & OXI_FOLD_WIDTH) != 0;
	default:
		return (opts & OXI_FOLD_CONFUSE) != 0;
	}
}

int
oxi_fold_cp(unsigned long cp, unsigned opts, char buf[5])
{
	const struct oxi_foldrow *r;
	size_t i, n;

	if (cp >= 0x80 && (opts & (OXI_FOLD_SPACE | OXI_FOLD_WIDTH |
	    OXI_FOLD_CONFUSE)) && (r = findrow(cp)) && rowapplies(r, opts)) {
		if (r->step) {
			buf[0] = (char)(r->to[0] + (cp - r->lo));
			buf[1] = '\0';
		} else
			memcpy(buf, r->to, sizeof r->to);
		n = strlen(buf);
		if (opts & OXI_FOLD_LOWER)
			for (i = 0; i < n; i++)
				buf[i] = (char)lower((unsigned char)buf[i]);
		return (int)n;
	}
	if (kind(cp) != K_TEXT && (opts & OXI_FOLD_MATCH))
		return kind(cp) == K_MARK && !(opts & OXI_FOLD_CONFUSE) ?
		    -1 : 0;
	if (opts & OXI_FOLD_LOWER && lower(cp) != cp) {
		n = oxi_fold_utf8(lower(cp), buf);
		buf[n] = '\0';
		return (int)n;
	}
	return -1;
}

static void
emit(struct st *st, const char *b, size_t n, size_t off)
{
	struct oxi_fold *f = st->f;
	size_t i;

	if (st->opts & OXI_FOLD_MAP) {
		if (f->out.len + n + 1 > f->mapcap) {
			f->mapcap = (f->out.len + n + 1) * 2;
			f->map = xrealloc(f->map, f->mapcap * sizeof *f->map);
		}
		for (i = 0; i < n; i++)
			f->map[f->out.len + i] = off;
	}
	oxi_buf_cat(&f->out, b, n);
}

static void
hide(struct st *st, int c)
{
	oxi_buf_putc(&st->f->hidden, c >= 0x20 && c < 0x7f ? c : '?');
	st->hidrun = 1;
}

static void
endhide(struct st *st)
{
	if (st->hidrun)
		oxi_buf_putc(&st->f->hidden, '\n');
	st->hidrun = 0;
}

/* word state for OXI_FOUND_MIXED, at each visible character */
static void
word(struct st *st, unsigned long cp, const struct oxi_foldrow *r)
{
	int letter;

	if (cp < 0x80)
		letter = (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
	else
		letter = !r || (r->cls != 'S' && r->cls != 'P');
	if (!letter && !(cp >= '0' && cp <= '9')) {
		if (st->wascii && st->whomo)
			st->f->found |= OXI_FOUND_MIXED;
		st->wascii = st->whomo = 0;
		return;
	}
	if (cp < 0x80)
		st->wascii |= letter;
	else if (r && r->cls == 'H')
		st->whomo = 1;
	else if (r && r->cls == 'W' && cp >= 0x2000 &&
	    !(cp >= 0xfb00 && cp <= 0xfb06) && r->to[0] != '\0' &&
	    ((r->to[0] | 0x20) >= 'a' && (r->to[0] | 0x20) <= 'z'))
		st->f->found |= OXI_FOUND_COMPAT;
}

/*
 * An invisible character: 1 if it is kept (hygiene only, where its
 * place is legitimate), else 0 after flagging it and keeping what it
 * spells.  next is the following code point, or -1.
 */
static int
invisible(struct st *st, enum kind k, unsigned long cp, long next)
{
	int legit = 0;

	switch (k) {
	case K_ZW:
		if (cp == 0x200d && emoji(st->prev) && next >= 0 &&
		    emoji((unsigned long)next))
			legit = 1;
		else if ((cp == 0x200c || cp == 0x200d) &&
		    joinscript(st->prev) && next >= 0 &&
		    joinscript((unsigned long)next))
			legit = 1;
		else
			st->f->found |= OXI_FOUND_ZW;
		break;
	case K_BIDI:
		st->f->found |= OXI_FOUND_BIDI;
		break;
	case K_CTRL:
		st->f->found |= OXI_FOUND_CTRL;
		break;
	case K_TAG:
		if (st->prev == 0x1f3f4 || st->flagseq) {
			legit = 1;
			st->flagseq = cp != 0xe007f;
			break;
		}
		st->f->found |= OXI_FOUND_TAG;
		if (cp >= 0xe0020 && cp <= 0xe007e)
			hide(st, (int)(cp - 0xe0000));
		else
			endhide(st);
		return 0;
	case K_VS:
		/* one after a visible character; a run spells bytes */
		if (st->vsok && !st->hidrun &&
		    (next < 0 || kind((unsigned long)next) != K_VS)) {
			legit = 1;
			st->vsok = 0;
			break;
		}
		st->f->found |= OXI_FOUND_VS;
		hide(st, cp <= 0xfe0f ? (int)(cp - 0xfe00) :
		    (int)(cp - 0xe0100 + 16));
		st->vsok = 0;
		return 0;
	default:
		break;
	}
	if (k != K_TAG)
		st->flagseq = 0;
	return legit;
}

unsigned
oxi_fold(struct oxi_fold *f, const char *s, size_t len, unsigned opts)
{
	struct st st = { .f = f, .opts = opts };
	const struct oxi_foldrow *r;
	enum kind k;
	size_t i, n;
	long cp, next;
	char b[8];
	int fn;

	oxi_buf_reset(&f->out);
	oxi_buf_reset(&f->hidden);
	oxi_buf_grow(&f->out, len + 1);
	f->found = 0;
	f->nstrip = 0;
	for (i = 0; i < len; i += n) {
		n = decode(s + i, len - i, &cp);
		if (cp < 0) {
			f->found |= OXI_FOUND_BADUTF8;
			endhide(&st);
			emit(&st, "\xef\xbf\xbd", 3, i);
			st.prev = 0xfffd;
			st.vsok = 0;
			continue;
		}
		if ((k = kind((unsigned long)cp)) != K_TEXT && k != K_MARK) {
			next = -1;
			if (i + n < len)
				decode(s + i + n, len - i - n, &next);
			if (!invisible(&st, k, (unsigned long)cp, next))
				f->nstrip++;
			else if (!(opts & OXI_FOLD_MATCH))
				emit(&st, s + i, n, i);
			continue;
		}
		endhide(&st);
		st.flagseq = 0;
		r = cp >= 0x80 ? findrow((unsigned long)cp) : NULL;
		if (k == K_TEXT) {
			word(&st, (unsigned long)cp, r);
			st.prev = (unsigned long)cp;
			st.vsok = 1;
		}
		if (cp < 0x80) {
			b[0] = (char)((opts & OXI_FOLD_LOWER) ?
			    lower((unsigned long)cp) : (unsigned long)cp);
			emit(&st, b, 1, i);
			continue;
		}
		if ((fn = oxi_fold_cp((unsigned long)cp, opts, b)) < 0)
			emit(&st, s + i, n, i);
		else
			emit(&st, b, (size_t)fn, i);
	}
	endhide(&st);
	word(&st, ' ', NULL);
	if (opts & OXI_FOLD_MAP) {
		emit(&st, "", 0, len);
		if (!f->map) {
			f->mapcap = 1;
			f->map = xmalloc(sizeof *f->map);
		}
		f->map[f->out.len] = len;
	}
	return f->found;
}

void
oxi_fold_names(unsigned found, struct oxi_buf *out)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ OXI_FOUND_TAG, "tag" }, { OXI_FOUND_ZW, "zero-width" },
		{ OXI_FOUND_BIDI, "bidi" }, { OXI_FOUND_CTRL, "control" },
		{ OXI_FOUND_VS, "variation-selector" },
		{ OXI_FOUND_MIXED, "mixed-script" },
		{ OXI_FOUND_COMPAT, "compatibility-form" },
		{ OXI_FOUND_BADUTF8, "bad-utf8" },
	};
	size_t i;
	int first = 1;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (found & names[i].bit) {
			if (!first)
				oxi_buf_putc(out, ' ');
			oxi_buf_cats(out, names[i].name);
			first = 0;
		}
}

void
oxi_fold_free(struct oxi_fold *f)
{
	oxi_buf_free(&f->out);
	oxi_buf_free(&f->hidden);
	free(f->map);
	f->map = NULL;
	f->mapcap = 0;
}
