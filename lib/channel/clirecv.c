/*
 * clirecv.c - the terminal channel's receiver (oxi-recv cli)
 *
 * Reads stdin: when it and stderr are terminals, key by key through the
 * editor of line.c; otherwise as lines, where """ on a line of its own
 * opens and closes a message of several lines.  Each message becomes a
 * msg.in record on stdout, but a message of exactly y, a or n (yes,
 * always, no) becomes an approval.answer to the chat's latest
 * approval.ask.
 *
 * On a terminal, Ctrl-C drops what is being typed, or, with a reply in
 * flight, sends a msg.in "/stop" for the same session (oxi-loop cancels
 * that turn); a Ctrl-C after that at an idle prompt ends the input, as
 * do two in a row there.  A message is in flight from its msg.in until
 * a receipt read on -r names it as "in_reply_to" (oxi-send -r writes one
 * per reply and per error shown); without -r, until the next Ctrl-C.  A
 * receipt also means the sender has just drawn its prompt: what was
 * typed ahead is drawn again after it.  See oxi-recv(1).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define CHUNK	65536
#define HINT	"\r\033[Koxi: type a message (\"\"\" for several lines), " \
		"Ctrl-C stops a reply, Ctrl-D to quit\r\n"
#define AGAIN	"\r\noxi: press Ctrl-C again to leave, or Ctrl-D\r\n"
#define STOP	"/stop"
#define NPEND	64		/* messages in flight remembered */
#define IDLEN	(4 + OXI_ID_LEN + 1)

/* receiver state */
struct rx {
	const struct oxi_chan_opts *o;	/* options */
	const char *chat;	/* "chat" of every record */
	const char *user;	/* "from" and "from_name" */
	unsigned long lineno;	/* lines seen so far */
	int status;		/* 1 once a line was rejected */
	struct oxi_line ed;	/* the editor, or the """ of lines */
	int tty;		/* the editor is on the terminal */
	char pend[NPEND][IDLEN];	/* ids of messages in flight */
	size_t npend;		/* how many */
	int stopped;		/* "/stop" sent for those */
	int armed;		/* the next Ctrl-C at an idle prompt leaves */
	int rejected;		/* the last message was rejected */
	struct oxi_nd rcpt;	/* receipts from the sender, or fd -1 */
};

/* the default chat and user: the login name, else "local" */
static const char *
whoami(void)
{
	const char *u;

	if ((u = oxi_getenv("USER")) || (u = oxi_getenv("LOGNAME")))
		return u;
	return "local";
}

static void
rx_reject(struct rx *x, const char *why, const char *line, size_t len)
{
	oxi_warn("stdin:%lu: %s, line dead-lettered", x->lineno, why);
	oxi_deadletter("stdin", x->lineno, why, line, len);
	x->status = OXI_EX_FALSE;
	x->rejected = 1;
}

/* the choice a line of exactly y, yes, a, always, n or no stands for
 * (any case), or NULL */
static const char *
rx_choice(const char *line, size_t len)
{
	static const struct { const char *w, *c; } k[] = { { "y", "once" },
	    { "yes", "once" }, { "a", "always" }, { "always", "always" },
	    { "n", "deny" }, { "no", "deny" } };
	size_t i;

	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	for (i = 0; i < sizeof k / sizeof k[0]; i++)
		if (strlen(k[i].w) == len && strncasecmp(line, k[i].w, len) ==
		    0)
			return k[i].c;
	return NULL;
}

/* the keys every record of ours has, after its type and id */
static jv
rx_where(struct rx *x, jv r)
{
	r = jv_object_set(r, jv_string("channel"), jv_string("cli"));
	r = jv_object_set(r, jv_string("account"), jv_string("local"));
	r = jv_object_set(r, jv_string("chat"), jv_string(x->chat));
	return jv_object_set(r, jv_string("thread"), x->o->thread ?
	    jv_string(x->o->thread) : jv_null());
}

static void
rx_track(struct rx *x, const char *id)
{
	if (x->npend == NPEND) {
		memmove(x->pend[0], x->pend[1], (NPEND - 1) * IDLEN);
		x->npend--;
	}
	memcpy(x->pend[x->npend++], id, IDLEN);
	x->stopped = 0;
}

/* text[0..len) as a msg.in, in flight if track: 0, or -1 (stdout) */
static int
rx_msgin(struct rx *x, const char *text, size_t len, int track)
{
	char id[IDLEN], ts[32];
	size_t n;
	jv r, s;
	int rc;

	memcpy(id, "cli:", 4);
	oxi_id_new(id + 4);
	oxi_time_now(ts);
	r = oxi_msg_new("msg.in");
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = rx_where(x, r);
	r = jv_object_set(r, jv_string("from"), jv_string(x->user));
	r = jv_object_set(r, jv_string("from_name"), jv_string(x->user));
	/* libjq replaces invalid UTF-8 with U+FFFD here */
	r = jv_object_set(r, jv_string("text"),
	    jv_string_sized(text, (int)len));
	r = jv_object_set(r, jv_string("ts"), jv_string(ts));
	r = jv_object_set(r, jv_string("reply_to"), jv_null());
	r = jv_object_set(r, jv_string("attachments"), jv_array());
	r = jv_object_set(r, jv_string("trust"), jv_string("user"));
	s = jv_dump_string(r, 0);
	n = (size_t)jv_string_length_bytes(jv_copy(s));
	if (n > x->o->max) {
		/* escaping made it too big for the next stage's cap */
		jv_free(s);
		rx_reject(x, "record too long", text, len);
		return 0;
	}
	rc = oxi_nd_write_raw(1, jv_string_value(s), n);
	jv_free(s);
	if (rc == 0 && track)
		rx_track(x, id);
	return rc;
}

/* one message: a msg.in, or an approval.answer: 0, or -1 (stdout) */
static int
rx_send(struct rx *x, const char *text, size_t len)
{
	char id[IDLEN], ts[32];
	const char *choice;
	jv r;

	if (len > x->o->max) {
		rx_reject(x, "message too long", text, len);
		return 0;
	}
	if (!(choice = rx_choice(text, len)))
		return rx_msgin(x, text, len, 1);
	memcpy(id, "cli:", 4);
	oxi_id_new(id + 4);
	oxi_time_now(ts);
	r = oxi_msg_new("approval.answer");
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("ref"), jv_string("last"));
	r = jv_object_set(r, jv_string("choice"), jv_string(choice));
	r = jv_object_set(r, jv_string("from"), jv_string(x->user));
	r = rx_where(x, r);
	r = jv_object_set(r, jv_string("ts"), jv_string(ts));
	return oxi_nd_write(1, r);
}

/* one complete line of input, newline removed: 0, or -1 (stdout) */
static int
rx_line(struct rx *x, const char *line, size_t len)
{
	int r;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len > x->o->max) {
		rx_reject(x, "line too long", line, len);
		return 0;
	}
	if (oxi_line_text(&x->ed, line, len) != OXI_LINE_MSG)
		return 0;
	r = rx_send(x, x->ed.msg.s, x->ed.msg.len);
	oxi_line_clear(&x->ed);
	return r;
}

/* Ctrl-C: 1 to leave, 0 to go on, -1 (stdout) */
static int
rx_intr(struct rx *x)
{
	if (x->ed.dropped) {
		oxi_line_say(&x->ed, "^C\r\n");
		oxi_line_prompt(&x->ed);
		return 0;
	} else if (x->npend > 0 && !x->stopped) {
		oxi_line_say(&x->ed, "^C");
		x->stopped = 1;
		if (rx_msgin(x, STOP, sizeof STOP - 1, 0) < 0)
			return -1;
	} else if (x->armed) {
		oxi_line_say(&x->ed, "^C\r\n");
		return 1;
	} else {
		oxi_line_say(&x->ed, "^C" AGAIN);
		oxi_line_prompt(&x->ed);
	}
	x->armed = 1;
	return 0;
}

/* one key typed: 1 to leave, 0 to go on, -1 (stdout) */
static int
rx_key(struct rx *x, int c)
{
	int r;

	switch (oxi_line_key(&x->ed, c)) {
	case OXI_LINE_MSG:
		x->armed = x->rejected = 0;
		x->lineno++;
		/* the echo first: a warning goes on a line of its own */
		(void)oxi_line_flush(&x->ed);
		r = rx_send(x, x->ed.msg.s, x->ed.msg.len);
		oxi_line_clear(&x->ed);
		if (x->rejected)
			oxi_line_prompt(&x->ed);
		return r;
	case OXI_LINE_INTR:
		return rx_intr(x);
	case OXI_LINE_EOF:
		return 1;
	}
	x->armed = 0;
	return 0;
}

/* the receipts buffered: what they name is no longer in flight */
static void
rx_receipts(struct rx *x)
{
	const char *ref;
	size_t i;
	jv rec;
	int r, seen = 0;

	while ((r = oxi_nd_take(&x->rcpt, &rec)) != OXI_ND_AGAIN &&
	    r != OXI_ND_EOF) {
		if (r != OXI_ND_OK)
			continue;
		if (strcmp(oxi_msg_type_peek(rec), "receipt") == 0 &&
		    (ref = oxi_msg_peek(rec, "in_reply_to"))) {
			seen = 1;
			for (i = 0; i < x->npend; i++)
				if (strcmp(x->pend[i], ref) == 0) {
					memmove(x->pend[i], x->pend[i + 1],
					    (x->npend - i - 1) * IDLEN);
					x->npend--;
					break;
				}
		}
		jv_free(rec);
	}
	if (x->npend == 0)
		x->stopped = 0;
	/* the sender drew its prompt: what was typed ahead goes after it */
	if (seen && x->tty)
		oxi_line_redraw(&x->ed);
}

/* the terminal's bytes read, as keys: 1 to leave, 0, -1 (stdout) */
static int
rx_keys(struct rx *x, const char *s, size_t n)
{
	size_t i;
	int r = 0;

	for (i = 0; i < n && r == 0; i++)
		r = rx_key(x, (unsigned char)s[i]);
	if (oxi_line_flush(&x->ed) < 0 && r == 0)
		oxi_debug("unable to echo: %s", strerror(errno));
	return r;
}

/* the lines buffered in b from *off on, the last one too at eof; the
 * first ends a line rejected before if *skip: 0, or -1 (stdout) */
static int
rx_lines(struct rx *x, struct oxi_buf *b, size_t *off, int *skip, int eof)
{
	char *nl;
	size_t len;

	while (*off < b->len && (nl = memchr(b->s + *off, '\n',
	    b->len - *off))) {
		len = nl - (b->s + *off);
		if (*skip)
			*skip = 0;
		else {
			x->lineno++;
			if (rx_line(x, b->s + *off, len) < 0)
				return -1;
		}
		*off += len + 1;
	}
	if (eof && *off < b->len && !*skip) {
		/* a last line without newline is still a line */
		x->lineno++;
		if (rx_line(x, b->s + *off, b->len - *off) < 0)
			return -1;
		*off = b->len;
	}
	if (eof && x->ed.block)
		oxi_warn("stdin: input ended inside \"\"\", message dropped");
	return 0;
}

int
oxi_cli_recv(const struct oxi_chan_opts *o, const char **what)
{
	struct oxi_buf b = OXI_BUF_INIT;
	struct pollfd pfd[3];
	struct rx x;
	size_t off = 0;
	ssize_t r;
	int sigfd, skipping = 0, eof = 0, e, k;

	memset(&x, 0, sizeof x);
	x.o = o;
	x.chat = o->chat ? o->chat : whoami();
	x.user = o->user ? o->user : whoami();
	x.status = OXI_EX_OK;
	oxi_line_init(&x.ed, o->max);
	oxi_nd_init(&x.rcpt, o->rcptfd, "receipts");
	if ((sigfd = oxi_sig_setup(OXI_SIG_TERM)) < 0) {
		*what = "unable to catch signals";
		return -1;
	}
	if (isatty(0) && isatty(2)) {
		/* a write error must leave through exit, which restores
		 * the terminal */
		signal(SIGPIPE, SIG_IGN);
		if (oxi_line_open(&x.ed, 0, 2) < 0) {
			*what = "unable to set the terminal's modes";
			return -1;
		}
		x.tty = 1;
		oxi_line_say(&x.ed, HINT);
		oxi_line_prompt(&x.ed);
		(void)oxi_line_flush(&x.ed);
	}
	oxi_notify(o->notif);
	if (o->first && rx_msgin(&x, o->first, strlen(o->first), 1) < 0)
		goto wfail;
	for (;;) {
		if (!x.tty && rx_lines(&x, &b, &off, &skipping, eof) < 0)
			goto wfail;
		if (oxi_sig_term) {
			if (off < b.len && !skipping)
				oxi_debug("stopping, partial line dropped");
			break;
		}
		if (eof)
			break;
		if (off > 0) {
			oxi_buf_consume(&b, off);
			off = 0;
		}
		if (skipping) {
			oxi_buf_reset(&b);
		} else if (b.len > o->max + 1) {
			/* over the cap (CR allowed for): drop the rest */
			x.lineno++;
			rx_reject(&x, "line too long", b.s, b.len);
			oxi_buf_reset(&b);
			skipping = 1;
		}
		pfd[0].fd = 0;
		pfd[0].events = POLLIN;
		pfd[1].fd = sigfd;
		pfd[1].events = POLLIN;
		pfd[2].fd = x.rcpt.eof ? -1 : o->rcptfd;
		pfd[2].events = POLLIN;
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			*what = "unable to poll stdin";
			goto fail;
		}
		if (pfd[1].revents)
			oxi_sig_drain();
		if (pfd[2].revents) {
			if (oxi_nd_fill(&x.rcpt) == 0)
				x.rcpt.eof = 1;
			rx_receipts(&x);
			(void)oxi_line_flush(&x.ed);
		}
		if (!pfd[0].revents)
			continue;
		oxi_buf_grow(&b, CHUNK);
		r = read(0, b.s + b.len, CHUNK);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*what = "unable to read stdin";
			goto fail;
		}
		if (r == 0)
			eof = 1;
		if (x.tty) {
			if ((k = rx_keys(&x, b.s, r)) < 0)
				goto wfail;
			if (k > 0)
				eof = 1;
			continue;
		}
		b.len += r;
		b.s[b.len] = '\0';
	}
	oxi_line_free(&x.ed);
	oxi_buf_free(&b);
	oxi_nd_free(&x.rcpt);
	return x.status;
wfail:
	*what = "unable to write to stdout";
fail:
	e = errno;
	oxi_line_free(&x.ed);
	oxi_buf_free(&b);
	oxi_nd_free(&x.rcpt);
	errno = e;
	return -1;
}
