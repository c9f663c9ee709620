/*
 * cli.c - the terminal channel
 *
 * Receiving: each non-blank line of stdin becomes a msg.in record on
 * stdout, but a line of exactly y, a or n (yes, always, no) becomes an
 * approval.answer to the chat's latest approval.ask.  Sending: msg.out records are printed as text, drafts grow in
 * place on a terminal, errors and approval questions are shown, and
 * every text is cleaned of control characters so that a model can never
 * drive the user's terminal.  See oxi-recv(1) and oxi-send(1).
 */
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define CHUNK	65536
#define HINT	"oxi: type a message, Ctrl-D to quit\n> "
#define PROMPT	"> "
#define UNPROMPT "\r\033[K"	/* back to column 0, erase the line */
#define DIM	"\033[2m"	/* SGR 2: a status line */
#define UNDIM	"\033[0m"
#define STATUSW	76		/* bytes of a status line shown */

/* the default chat and user: the login name, else "local" */
static const char *
whoami(void)
{
	const char *u;

	if ((u = oxi_getenv("USER")) || (u = oxi_getenv("LOGNAME")))
		return u;
	return "local";
}

/* receiver state */
struct rx {
	const struct oxi_chan_opts *o;	/* options */
	const char *chat;	/* "chat" of every record */
	const char *user;	/* "from" and "from_name" */
	unsigned long lineno;	/* lines seen so far */
	int status;		/* 1 once a line was rejected */
};

static void
rx_reject(struct rx *x, const char *why, const char *line, size_t len)
{
	oxi_warn("stdin:%lu: %s, line dead-lettered", x->lineno, why);
	oxi_deadletter("stdin", x->lineno, why, line, len);
	x->status = OXI_EX_FALSE;
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

	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	for (i = 0; i < sizeof k / sizeof k[0]; i++)
		if (strlen(k[i].w) == len && strncasecmp(line, k[i].w, len) ==
		    0)
			return k[i].c;
	return NULL;
}

/* one complete line, newline removed, to one msg.in, or to an
 * approval.answer for the chat's latest ask: 0, or -1 (stdout) */
static int
rx_line(struct rx *x, const char *line, size_t len)
{
	char id[4 + OXI_ID_LEN + 1], ts[32];
	const char *choice;
	size_t i, n;
	jv r, s;
	int rc;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len)
		return 0;	/* blank: nothing to say */
	if (len > x->o->max) {
		rx_reject(x, "line too long", line, len);
		return 0;
	}
	memcpy(id, "cli:", 4);
	oxi_id_new(id + 4);
	oxi_time_now(ts);
	if ((choice = rx_choice(line + i, len - i))) {
		r = oxi_msg_new("approval.answer");
		r = jv_object_set(r, jv_string("id"), jv_string(id));
		r = jv_object_set(r, jv_string("ref"), jv_string("last"));
		r = jv_object_set(r, jv_string("choice"), jv_string(choice));
		r = jv_object_set(r, jv_string("from"), jv_string(x->user));
		r = jv_object_set(r, jv_string("channel"), jv_string("cli"));
		r = jv_object_set(r, jv_string("account"),
		    jv_string("local"));
		r = jv_object_set(r, jv_string("chat"), jv_string(x->chat));
		r = jv_object_set(r, jv_string("ts"), jv_string(ts));
		return oxi_nd_write(1, r);
	}
	r = oxi_msg_new("msg.in");
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("channel"), jv_string("cli"));
	r = jv_object_set(r, jv_string("account"), jv_string("local"));
	r = jv_object_set(r, jv_string("chat"), jv_string(x->chat));
	r = jv_object_set(r, jv_string("thread"), jv_null());
	r = jv_object_set(r, jv_string("from"), jv_string(x->user));
	r = jv_object_set(r, jv_string("from_name"), jv_string(x->user));
	/* libjq replaces invalid UTF-8 with U+FFFD here */
	r = jv_object_set(r, jv_string("text"),
	    jv_string_sized(line, (int)len));
	r = jv_object_set(r, jv_string("ts"), jv_string(ts));
	r = jv_object_set(r, jv_string("reply_to"), jv_null());
	r = jv_object_set(r, jv_string("attachments"), jv_array());
	r = jv_object_set(r, jv_string("trust"), jv_string("user"));
	s = jv_dump_string(r, 0);
	n = (size_t)jv_string_length_bytes(jv_copy(s));
	if (n > x->o->max) {
		/* escaping made it too big for the next stage's cap */
		jv_free(s);
		rx_reject(x, "record too long", line, len);
		return 0;
	}
	rc = oxi_nd_write_raw(1, jv_string_value(s), n);
	jv_free(s);
	return rc;
}

static int
cli_recv(const struct oxi_chan_opts *o, const char **what)
{
	struct oxi_buf b = OXI_BUF_INIT;
	struct pollfd pfd[2];
	struct rx x;
	size_t off = 0, scan = 0, len;
	char *nl;
	ssize_t r;
	int sigfd, skipping = 0, eof = 0, e;

	x.o = o;
	x.chat = o->chat ? o->chat : whoami();
	x.user = o->user ? o->user : whoami();
	x.lineno = 0;
	x.status = OXI_EX_OK;
	if ((sigfd = oxi_sig_setup(OXI_SIG_TERM)) < 0) {
		*what = "unable to catch signals";
		return -1;
	}
	if (isatty(0) && isatty(2))
		(void)oxi_writeall(2, HINT, sizeof HINT - 1);
	oxi_notify(o->notif);
	for (;;) {
		/* every complete line buffered */
		while (b.len > off + scan &&
		    (nl = memchr(b.s + off + scan, '\n', b.len - off - scan))) {
			len = nl - (b.s + off);
			if (skipping)
				skipping = 0;	/* end of a rejected line */
			else {
				x.lineno++;
				if (rx_line(&x, b.s + off, len) < 0)
					goto wfail;
			}
			off += len + 1;
			scan = 0;
		}
		scan = b.len - off;
		if (oxi_sig_term) {
			if (scan > 0 && !skipping)
				oxi_debug("stopping, partial line dropped");
			break;
		}
		if (eof) {
			/* a last line without newline is still a line */
			if (scan > 0 && !skipping) {
				x.lineno++;
				if (rx_line(&x, b.s + off, scan) < 0)
					goto wfail;
			}
			break;
		}
		if (off > 0) {
			oxi_buf_consume(&b, off);
			off = 0;
		}
		if (skipping) {
			oxi_buf_reset(&b);
			scan = 0;
		} else if (b.len > o->max + 1) {
			/* over the cap (CR allowed for): report, drop the rest */
			x.lineno++;
			rx_reject(&x, "line too long", b.s, b.len);
			oxi_buf_reset(&b);
			scan = 0;
			skipping = 1;
		}
		pfd[0].fd = 0;
		pfd[0].events = POLLIN;
		pfd[1].fd = sigfd;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			*what = "unable to poll stdin";
			goto fail;
		}
		if (pfd[1].revents)
			oxi_sig_drain();
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
		b.len += r;
		b.s[b.len] = '\0';
	}
	oxi_buf_free(&b);
	return x.status;
wfail:
	*what = "unable to write to stdout";
fail:
	e = errno;
	oxi_buf_free(&b);
	errno = e;
	return -1;
}

/* sender state: what the terminal shows */
struct tx {
	const struct oxi_chan_opts *o;	/* options */
	int tty;		/* stdout is a terminal: prompts */
	int drafts;		/* render msg.draft */
	int errline;		/* show error records on stdout too */
	int bol;		/* the cursor is at the start of a line */
	int prompt;		/* our prompt is showing */
	int status;		/* a status line is showing, cursor at its end */
	int stnl;		/* a newline went before it, after a draft */
	char *draft;		/* id of the draft on screen, or NULL */
	struct oxi_buf shown;	/* its text as far as shown, uncleaned */
	struct oxi_buf out;	/* bytes to write for this record */
};

/* model text: cleaned */
static void
put(struct tx *t, const char *s, size_t len)
{
	size_t n = t->out.len;

	oxi_term_clean(&t->out, s, len);
	if (t->out.len > n)
		t->bol = t->out.s[t->out.len - 1] == '\n';
}

static void
endline(struct tx *t)
{
	if (!t->bol)
		oxi_buf_putc(&t->out, '\n');
	t->bol = 1;
}

/* erases the status line showing, if any: back to where it started */
static void
unstatus(struct tx *t)
{
	if (!t->status)
		return;
	oxi_buf_cats(&t->out, UNPROMPT);
	t->status = 0;
	t->bol = 1;
}

static void
forget(struct tx *t)
{
	t->stnl = 0;
	free(t->draft);
	t->draft = NULL;
	oxi_buf_reset(&t->shown);
}

/* before output that does not continue the draft on screen */
static void
fresh(struct tx *t)
{
	if (t->prompt) {
		oxi_buf_cats(&t->out, UNPROMPT);
		t->prompt = 0;
		t->bol = 1;
	}
	endline(t);
	forget(t);
}

/* after a message is complete: the user's turn */
static void
prompt(struct tx *t)
{
	if (!t->tty)
		return;
	oxi_buf_cats(&t->out, PROMPT);
	t->prompt = 1;
}

static int
flush(struct tx *t)
{
	int rc = 0;

	if (t->out.len > 0)
		rc = oxi_writeall(1, t->out.s, t->out.len);
	oxi_buf_reset(&t->out);
	return rc;
}

/* shows text for the draft or message id: the new part only if the text
 * extends what is on screen, else all of it on a line of its own */
static void
grow(struct tx *t, const char *id, const char *text, size_t len)
{
	if (id && t->draft && strcmp(t->draft, id) == 0) {
		if (len >= t->shown.len &&
		    memcmp(text, t->shown.s, t->shown.len) == 0) {
			text += t->shown.len;
			len -= t->shown.len;
			/* the line a status line took stands for a newline */
			if (t->stnl && len > 0 && *text == '\n') {
				text++;
				len--;
			}
			t->stnl = 0;
			put(t, text, len);
		} else {
			endline(t);
			put(t, text, len);
		}
	} else {
		fresh(t);
		put(t, text, len);
	}
}

static size_t
textlen(jv rec, const char **text)
{
	jv v = jv_object_get(jv_copy(rec), jv_string("text"));
	size_t n;

	/* rec keeps the string alive */
	*text = jv_string_value(v);
	n = (size_t)jv_string_length_bytes(jv_copy(v));
	jv_free(v);
	return n;
}

/* one line of s[0..n), cleaned, for error messages */
static void
onelinen(struct oxi_buf *b, const char *s, size_t n)
{
	size_t i;

	oxi_buf_reset(b);
	oxi_term_clean(b, s, n);
	for (i = 0; i < b->len; i++)
		if (b->s[i] == '\n' || b->s[i] == '\t')
			b->s[i] = ' ';
}

static void
oneline(struct oxi_buf *b, const char *s)
{
	onelinen(b, s, strlen(s));
}

/* a status line: dim, on a line of its own after a draft, replaced by
 * the next status, draft, reply or anything else shown */
static void
status(struct tx *t, const char *text, size_t len)
{
	struct oxi_buf b = OXI_BUF_INIT;

	if (t->prompt) {
		oxi_buf_cats(&t->out, UNPROMPT);
		t->prompt = 0;
		t->bol = 1;
	}
	if (t->status)
		unstatus(t);
	else if (!t->bol) {
		oxi_buf_putc(&t->out, '\n');
		t->stnl = t->draft != NULL;
	}
	onelinen(&b, text, len);
	oxi_buf_cats(&t->out, DIM);
	oxi_buf_cat(&t->out, b.s, oxi_utf8_cut(b.s, b.len, STATUSW));
	oxi_buf_cats(&t->out, UNDIM);
	oxi_buf_free(&b);
	t->status = 1;
	t->bol = 0;
}

/* the same terminal on fds a and b */
static int
sametty(int a, int b)
{
	struct stat sa, sb;

	if (fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return 0;
	return S_ISCHR(sa.st_mode) && S_ISCHR(sb.st_mode) &&
	    sa.st_rdev == sb.st_rdev;
}

/* 0 if rec has the keys a terminal needs, else -1 and *why */
static int
tx_check(jv rec, int draft, const char **why)
{
	if (oxi_msg_check(rec, why) < 0)
		return -1;
	if (draft && !oxi_msg_peek(rec, "id")) {
		*why = "msg.draft record needs \"id\" (a string)";
		return -1;
	}
	return 0;
}

/*
 * One record (borrowed).  Returns 0, 1 if it was rejected, or -1 with
 * *what set on an output error.
 */
static int
tx_record(struct tx *t, struct oxi_nd *in, jv rec, const char **what)
{
	struct oxi_buf code = OXI_BUF_INIT, msg = OXI_BUF_INIT;
	const char *type, *ch, *id, *why, *text;
	char pid[4 + OXI_ID_LEN + 1];
	size_t len;
	int out, draft, st;

	type = oxi_msg_type_peek(rec);
	out = strcmp(type, "msg.out") == 0;
	draft = strcmp(type, "msg.draft") == 0;
	/* status lines only where drafts are shown */
	st = strcmp(type, "status") == 0 && t->drafts;
	if (!out && !draft && !st && strcmp(type, "typing") != 0 &&
	    strcmp(type, "error") != 0 && strcmp(type, "approval.ask") != 0) {
		oxi_debug("%s:%lu: %s record ignored, not for a terminal",
		    in->name, in->lineno, type);
		return 0;
	}
	if ((ch = oxi_msg_peek(rec, "channel")) && strcmp(ch, "cli") != 0) {
		oxi_debug("%s:%lu: %s record for channel '%s' ignored",
		    in->name, in->lineno, type, ch);
		return 0;
	}
	id = oxi_msg_peek(rec, "id");
	if (tx_check(rec, draft, &why) < 0) {
		oxi_nd_reject(in, why);
		if (out && id && t->o->rcptfd >= 0 &&
		    oxi_msg_receipt(t->o->rcptfd, "cli", id, NULL, 0,
		    why) < 0) {
			*what = "unable to write a receipt";
			return -1;
		}
		return 1;
	}
	if (!st && strcmp(type, "typing") != 0 && (!draft || t->drafts))
		unstatus(t);
	if (st) {
		len = textlen(rec, &text);
		status(t, text, len);
	} else if (draft) {
		if (!t->drafts)
			return 0;
		len = textlen(rec, &text);
		grow(t, id, text, len);
		if (!t->draft)
			t->draft = xstrdup(id);
		oxi_buf_reset(&t->shown);
		oxi_buf_cat(&t->shown, text, len);
	} else if (out) {
		len = textlen(rec, &text);
		grow(t, id, text, len);
		endline(t);
		forget(t);
		prompt(t);
	} else if (strcmp(type, "approval.ask") == 0) {
		/* the question on one line, and the keys that answer it */
		oneline(&msg, oxi_msg_peek(rec, "text"));
		fresh(t);
		put(t, msg.s, msg.len);
		oxi_buf_cats(&t->out, " [y] once  [a] always  [n] no");
		oxi_buf_free(&msg);
		endline(t);
		prompt(t);
	} else if (strcmp(type, "error") == 0) {
		oneline(&code, oxi_msg_peek(rec, "code"));
		oneline(&msg, oxi_msg_peek(rec, "message"));
		if (t->tty) {
			/* the stderr line starts on a line of its own */
			fresh(t);
			if (flush(t) < 0)
				goto wfail;
		}
		oxi_warn("%s: %s", code.s, msg.s);
		if (t->errline)
			oxi_buf_printf(&t->out, "oxi: error: %s\n", msg.s);
		prompt(t);
		oxi_buf_free(&code);
		oxi_buf_free(&msg);
	} else {
		oxi_debug("%s:%lu: typing", in->name, in->lineno);
	}
	if (flush(t) < 0)
		goto wfail;
	if (out && id && t->o->rcptfd >= 0) {
		memcpy(pid, "cli:", 4);
		oxi_id_new(pid + 4);
		if (oxi_msg_receipt(t->o->rcptfd, "cli", id, pid, 1,
		    NULL) < 0) {
			*what = "unable to write a receipt";
			return -1;
		}
	}
	return 0;
wfail:
	oxi_buf_free(&code);
	oxi_buf_free(&msg);
	*what = "unable to write to stdout";
	return -1;
}

/* the stage's record callback: an output error is fatal (111) */
static void
tx_stage(struct oxi_stage *st, jv rec)
{
	const char *what;
	int r, e;

	r = tx_record(st->arg, &st->in, rec, &what);
	e = errno;
	jv_free(rec);
	if (r < 0) {
		errno = e;
		oxi_diesys(OXI_EX_TEMP, "%s", what);
	}
	if (r > 0)
		st->status = OXI_EX_FALSE;
}

static int
cli_send(const struct oxi_chan_opts *o, const char **what)
{
	struct oxi_stage st;
	struct tx t;
	int status;

	memset(&t, 0, sizeof t);
	t.o = o;
	t.tty = isatty(1);
	t.drafts = t.tty || o->drafts;
	t.errline = t.tty && !sametty(1, 2);
	t.bol = 1;
	oxi_stage_init(&st, o->max, 0);
	/* nothing to reload: a hangup keeps its default action */
	signal(SIGHUP, SIG_DFL);
	st.record = tx_stage;
	st.arg = &t;
	status = oxi_stage_run(&st, o->notif);
	/* leave the terminal at the start of a clean line */
	unstatus(&t);
	if (t.prompt)
		oxi_buf_cats(&t.out, UNPROMPT);
	else
		endline(&t);
	if (flush(&t) < 0) {
		*what = "unable to write to stdout";
		return -1;
	}
	forget(&t);
	oxi_buf_free(&t.shown);
	oxi_buf_free(&t.out);
	oxi_nd_free(&st.in);
	return status;
}

const struct oxi_chan oxi_chan_cli = {
	.name = "cli",
	.recv = cli_recv,
	.send = cli_send,
};
