/*
 * line.c - a message typed at a terminal: the small line editor of
 * oxi-recv cli
 *
 * While it runs, the terminal is in raw mode (no echo, no line
 * discipline, no signals from the keyboard) with bracketed paste on, and
 * the editor echoes what is typed itself.  Keys: text (UTF-8), Tab,
 * Backspace, Ctrl-U (the line), Ctrl-W (a word), Enter, Ctrl-C, Ctrl-D;
 * other control keys and escape sequences (arrows, function keys, Alt-)
 * are ignored.  A message is one line, or several: a paste, from ESC
 * [200~ to ESC [201~, with what is typed after it up to Enter, or the
 * lines between two lines of """.  Backspace stops at the start of the
 * line on screen.  oxi_line_text applies the same """ rule to lines that
 * are not typed (a file, a pipe).
 */
#include <sys/ioctl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define PROMPT	"> "
#define MORE	". "		/* the prompt of a message's later lines */
#define PW	2		/* the width of either */
#define FENCE	"\"\"\""	/* a line of its own opens and closes a block */
#define PASTEON	"\033[?2004h"
#define PASTEOFF "\033[?2004l"

enum { E_NONE, E_ESC, E_CSI, E_SS3 };	/* where in an escape sequence */

static struct oxi_line *active;	/* the editor to restore at exit */

/* the columns code point c takes on a terminal */
static size_t
cwidth(unsigned long c)
{
	static const unsigned long zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
		{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x1ab0, 0x1aff },
		{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff },
		{ 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xe0100, 0xe01ef } };
	static const unsigned long wide[][2] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff },
		{ 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe30, 0xfe4f },
		{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd } };
	size_t i;

	for (i = 0; i < sizeof zero / sizeof zero[0]; i++)
		if (c >= zero[i][0] && c <= zero[i][1])
			return 0;
	for (i = 0; i < sizeof wide / sizeof wide[0]; i++)
		if (c >= wide[i][0] && c <= wide[i][1])
			return 2;
	return 1;
}

/* the code point of the well-formed sequence of n bytes at s */
static unsigned long
decode(const unsigned char *s, size_t n)
{
	unsigned long c = n == 1 ? s[0] : s[0] & (0x7fu >> n);
	size_t i;

	for (i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

/* echo, if there is a terminal to echo to */
static void
put(struct oxi_line *l, const char *s)
{
	if (l->out >= 0)
		oxi_buf_cats(&l->echo, s);
}

static size_t
columns(const struct oxi_line *l)
{
	struct winsize w;

	if (l->out >= 0 && ioctl(l->out, TIOCGWINSZ, &w) == 0 &&
	    w.ws_col > 0)
		return w.ws_col;
	return 80;
}

/*
 * Echoes the message from l->shown on: whole characters only, a tab as
 * spaces to the next multiple of 8, a byte that is not UTF-8 or a C1
 * control as "?".
 * A line that fills the row exactly moves the cursor to the next row,
 * so that the row of the cursor is always l->w / l->cols.
 */
static void
draw(struct oxi_line *l)
{
	const unsigned char *s = (const unsigned char *)l->msg.s;
	size_t k, n = l->msg.len, cw, i;

	while ((i = l->shown) < n) {
		k = oxi_utf8_seq((const char *)s + i, n - i);
		if (s[i] == '\t') {
			cw = 8 - l->w % 8;
			oxi_buf_cat(&l->echo, "        ", cw);
		} else if (k > 0 && !(k == 2 && s[i] == 0xc2 &&
		    s[i + 1] < 0xa0)) {
			cw = cwidth(decode(s + i, k));
			/* a wide one does not start in the last column */
			if (cw == 2 && l->w % l->cols == l->cols - 1)
				l->w++;
			oxi_buf_cat(&l->echo, s + i, k);
		} else if (k == 0 && oxi_utf8_valid((const char *)s + i,
		    n - i, OXI_UTF8_TAIL)) {
			break;	/* the rest of the character is still due */
		} else {
			cw = 1;
			oxi_buf_putc(&l->echo, '?');
		}
		l->shown += k > 0 ? k : 1;
		l->w += cw;
		if (cw > 0 && l->w % l->cols == 0)
			oxi_buf_cats(&l->echo, "\r\n");
	}
}

/* the prompt of the line being typed and the line again, from the
 * start of the row the cursor is on, up rows */
static void
redraw(struct oxi_line *l, size_t up)
{
	if (up > 0)
		oxi_buf_printf(&l->echo, "\033[%zuA", up);
	put(l, "\r\033[J");
	put(l, l->lstart > 0 || l->block ? MORE : PROMPT);
	l->w = PW;
	l->shown = l->lstart;
	draw(l);
}

/* after a change to the line being typed: it again, from its start */
static void
retype(struct oxi_line *l, size_t oldw)
{
	redraw(l, oldw / l->cols);
}

static void
insert(struct oxi_line *l, int c)
{
	if (l->msg.len > l->max)
		return;		/* too long already: oxi-recv rejects it */
	oxi_buf_putc(&l->msg, c);
	draw(l);
}

/* a new line inside the message */
static void
newline(struct oxi_line *l)
{
	if (l->msg.len > l->max)
		return;
	oxi_buf_putc(&l->msg, '\n');
	put(l, "\r\n" MORE);
	l->lstart = l->shown = l->msg.len;
	l->w = PW;
}

static int
blank(const char *s, size_t n)
{
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
	    s[n - 1] == '\n'))
		n--;
	return n == 0;
}

/* s[0..n) is """, give or take blanks around it */
static int
fence(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n == 3 && memcmp(s, FENCE, 3) == 0;
}

/* the message is complete: trailing newlines go */
static int
done(struct oxi_line *l)
{
	while (l->msg.len > 0 && l->msg.s[l->msg.len - 1] == '\n')
		l->msg.s[--l->msg.len] = '\0';
	l->block = 0;
	return OXI_LINE_MSG;
}

enum { OPEN = 100, CONT };	/* endline: a block opens, goes on */

/* the end of the message's last line (from l->lstart): the message is
 * complete (OXI_LINE_MSG), blank (OXI_LINE_NONE), or a block opens or
 * goes on */
static int
endline(struct oxi_line *l)
{
	const char *s = l->msg.s + l->lstart;
	size_t n = l->msg.len - l->lstart;

	if (l->block && fence(s, n)) {
		l->msg.len = l->lstart;
		l->msg.s[l->msg.len] = '\0';
		return blank(l->msg.s, l->msg.len) ? OXI_LINE_NONE : done(l);
	}
	if (l->block)
		return CONT;
	if (l->lstart == 0 && fence(s, n)) {
		oxi_line_clear(l);
		l->block = 1;
		return OPEN;
	}
	if (blank(l->msg.s, l->msg.len))
		return OXI_LINE_NONE;
	return done(l);
}

static int
enter(struct oxi_line *l)
{
	switch (endline(l)) {
	case OXI_LINE_MSG:
		put(l, "\r\n");
		return OXI_LINE_MSG;
	case CONT:
		newline(l);
		break;
	case OPEN:
		put(l, "\r\n");
		oxi_line_prompt(l);
		break;
	default:
		/* nothing said: the prompt again */
		oxi_line_clear(l);
		put(l, "\r\n");
		oxi_line_prompt(l);
	}
	return OXI_LINE_NONE;
}

/* ESC [ ... ~: the start or end of a paste */
static void
csi(struct oxi_line *l)
{
	l->csi[l->ncsi] = '\0';
	if (strcmp(l->csi, "200") == 0)
		l->paste = 1;
	else if (strcmp(l->csi, "201") == 0)
		l->paste = 0;
}

/* a byte of an escape sequence: 1 if it was taken */
static int
escape(struct oxi_line *l, int c)
{
	if (l->esc == E_NONE && c != 0x1b)
		return 0;
	if (c == 0x1b) {
		l->esc = E_ESC;
		return 1;
	}
	if (c < 0x20) {
		/* a control key ends a sequence cut short (a lone Esc) */
		l->esc = E_NONE;
		return 0;
	}
	switch (l->esc) {
	case E_ESC:
		l->esc = c == '[' ? E_CSI : c == 'O' ? E_SS3 : E_NONE;
		l->ncsi = 0;
		break;
	case E_SS3:
		l->esc = E_NONE;
		break;
	default:
		if (c >= 0x40 && c <= 0x7e) {
			l->esc = E_NONE;
			if (c == '~')
				csi(l);
		} else if (l->ncsi < sizeof l->csi - 1)
			l->csi[l->ncsi++] = (char)c;
	}
	return 1;
}

/* Backspace (what == 'h'), Ctrl-U ('u') or Ctrl-W ('w') */
static void
rubout(struct oxi_line *l, int what)
{
	size_t oldw = l->w, n = l->msg.len;
	const char *s = l->msg.s;

	if (n == l->lstart)
		return;
	if (what == 'u')
		n = l->lstart;
	else if (what == 'w') {
		while (n > l->lstart && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		while (n > l->lstart && s[n - 1] != ' ' && s[n - 1] != '\t')
			n--;
	} else {
		while (n > l->lstart + 1 && (s[n - 1] & 0xc0) == 0x80)
			n--;
		n--;
	}
	l->msg.len = n;
	l->msg.s[n] = '\0';
	retype(l, oldw);
}

void
oxi_line_init(struct oxi_line *l, size_t max)
{
	memset(l, 0, sizeof *l);
	l->in = l->out = -1;
	l->max = max;
	l->cols = 80;
	l->w = PW;
	oxi_buf_cats(&l->msg, "");	/* msg.s is never NULL */
}

static void
restore(void)
{
	if (active)
		oxi_line_close(active);
}

int
oxi_line_open(struct oxi_line *l, int in, int out)
{
	struct termios t;
	static int once;

	if (tcgetattr(in, &l->saved) < 0)
		return -1;
	t = l->saved;
	t.c_iflag &= ~(BRKINT | ICRNL | INLCR | IGNCR | ISTRIP | IXON |
	    PARMRK);
	t.c_lflag &= ~(ECHO | ECHONL | ICANON | IEXTEN | ISIG);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	/* TCSANOW: what was typed ahead stays */
	if (tcsetattr(in, TCSANOW, &t) < 0)
		return -1;
	l->in = in;
	l->out = out;
	l->raw = 1;
	l->cols = columns(l);
	active = l;
	if (!once++)
		atexit(restore);
	put(l, PASTEON);
	return oxi_line_flush(l);
}

void
oxi_line_close(struct oxi_line *l)
{
	if (!l->raw)
		return;
	put(l, PASTEOFF);
	(void)oxi_line_flush(l);
	(void)tcsetattr(l->in, TCSANOW, &l->saved);
	l->raw = 0;
	if (active == l)
		active = NULL;
}

void
oxi_line_free(struct oxi_line *l)
{
	oxi_line_close(l);
	oxi_buf_free(&l->msg);
	oxi_buf_free(&l->echo);
}

int
oxi_line_key(struct oxi_line *l, int c)
{
	int cr = l->cr;

	l->cr = c == '\r';
	if (escape(l, c))
		return OXI_LINE_NONE;
	if (l->paste) {
		if (c == '\r' || (c == '\n' && !cr))
			newline(l);
		else if (c == '\t' || (c >= 0x20 && c != 0x7f))
			insert(l, c);
		return OXI_LINE_NONE;
	}
	switch (c) {
	case '\n':
		if (cr)
			return OXI_LINE_NONE;	/* CR LF is one Enter */
		/* FALLTHROUGH */
	case '\r':
		return enter(l);
	case 0x03:	/* Ctrl-C */
		l->dropped = l->msg.len > 0 || l->block;
		oxi_line_clear(l);
		return OXI_LINE_INTR;
	case 0x04:	/* Ctrl-D */
		if (l->msg.len == 0 && !l->block)
			return OXI_LINE_EOF;
		return OXI_LINE_NONE;
	case 0x08:
	case 0x7f:
		rubout(l, 'h');
		return OXI_LINE_NONE;
	case 0x15:
		rubout(l, 'u');
		return OXI_LINE_NONE;
	case 0x17:
		rubout(l, 'w');
		return OXI_LINE_NONE;
	}
	if (c == '\t' || c >= 0x20)
		insert(l, c);
	return OXI_LINE_NONE;
}

int
oxi_line_text(struct oxi_line *l, const char *s, size_t n)
{
	l->lstart = l->msg.len;
	oxi_buf_cat(&l->msg, s, n);
	switch (endline(l)) {
	case OXI_LINE_MSG:
		return OXI_LINE_MSG;
	case CONT:
		oxi_buf_putc(&l->msg, '\n');
		break;
	case OXI_LINE_NONE:
		oxi_line_clear(l);
		break;
	}
	return OXI_LINE_NONE;
}

void
oxi_line_clear(struct oxi_line *l)
{
	oxi_buf_reset(&l->msg);
	l->lstart = l->shown = 0;
	l->block = l->paste = 0;
	l->w = PW;
}

void
oxi_line_prompt(struct oxi_line *l)
{
	put(l, l->block ? MORE : PROMPT);
	l->w = PW;
	l->shown = l->lstart;
	draw(l);
}

void
oxi_line_redraw(struct oxi_line *l)
{
	if (l->msg.len > l->lstart || l->block)
		redraw(l, 0);
}

void
oxi_line_say(struct oxi_line *l, const char *s)
{
	put(l, s);
}

int
oxi_line_flush(struct oxi_line *l)
{
	int rc = 0;

	if (l->echo.len > 0 && l->out >= 0)
		rc = oxi_writeall(l->out, l->echo.s, l->echo.len);
	oxi_buf_reset(&l->echo);
	l->cols = columns(l);
	return rc;
}
