/*
 * cli.c - the terminal channel, and its sender (oxi-send cli)
 *
 * Receiving is clirecv.c's.  Sending: msg.out records are printed as
 * text, drafts grow in place on a terminal, errors and approval
 * questions are shown, and every text is cleaned of control characters
 * so that a model can never drive the user's terminal.  With -r, a
 * receipt per reply and per error shown, naming the message answered
 * (oxi-recv cli reads them to know what is in flight).  See oxi-recv(1)
 * and oxi-send(1).
 */
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define PROMPT	"> "
#define UNPROMPT "\r\033[K"	/* back to column 0, erase the line */
#define DIM	"\033[2m"	/* SGR 2: a status line */
#define UNDIM	"\033[0m"
#define STATUSW	76		/* bytes of a status line shown */

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
	int rcptgone;		/* the reader of receipts has gone */
	unsigned long outs;	/* replies shown */
	unsigned long errs;	/* errors shown */
	struct oxi_buf diag;	/* other stages' diagnostics not yet shown */
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

/* a receipt for ref answering inreply, unless their reader has gone:
 * 0, or -1 with *what set */
static int
receipt(struct tx *t, const char *ref, const char *inreply, int ok,
    const char *why, const char **what)
{
	char pid[4 + OXI_ID_LEN + 1];

	if (t->o->rcptfd < 0 || t->rcptgone)
		return 0;
	memcpy(pid, "cli:", 4);
	oxi_id_new(pid + 4);
	if (oxi_msg_receipt(t->o->rcptfd, "cli", ref, inreply,
	    ok ? pid : NULL, ok, why) == 0)
		return 0;
	if (errno == EPIPE) {
		/* oxi-recv leaves before the last replies are shown */
		oxi_debug("receipts: no one reads them any more");
		t->rcptgone = 1;
		return 0;
	}
	*what = "unable to write a receipt";
	return -1;
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
	const char *type, *ch, *id, *why, *text, *ref;
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
		if (out && id && receipt(t, id, oxi_msg_peek(rec,
		    "in_reply_to"), 0, why, what) < 0)
			return -1;
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
	if (out)
		t->outs++;
	if (out && id && receipt(t, id, oxi_msg_peek(rec, "in_reply_to"), 1,
	    NULL, what) < 0)
		return -1;
	if (strcmp(type, "error") == 0) {
		t->errs++;
		/* the message that failed is answered too */
		if ((ref = oxi_msg_peek(rec, "ref")) &&
		    receipt(t, ref, ref, 1, NULL, what) < 0)
			return -1;
	}
	return 0;
wfail:
	oxi_buf_free(&code);
	oxi_buf_free(&msg);
	*what = "unable to write to stdout";
	return -1;
}

/*
 * The other stages' diagnostics that can be read on -e: each line to
 * stderr, on a line of its own, and the prompt again after it if it was
 * showing.  1 if some were read, 0 at their end, -1 if none are due yet.
 * Dies 111 if stdout is gone.
 */
static int
tx_diag(struct tx *t)
{
	struct oxi_buf b = OXI_BUF_INIT;
	ssize_t r;
	size_t n;
	char *nl;
	int was;

	oxi_buf_grow(&t->diag, 4096);
	if ((r = read(t->o->errfd, t->diag.s + t->diag.len, 4096)) < 0)
		return -1;
	if (r == 0 && t->diag.len == 0)
		return 0;
	if (r == 0)
		oxi_buf_putc(&t->diag, '\n');	/* the last line */
	t->diag.len += r;
	t->diag.s[t->diag.len] = '\0';
	while ((nl = memchr(t->diag.s, '\n', t->diag.len)) ||
	    t->diag.len > 4096) {
		n = nl ? (size_t)(nl - t->diag.s) : t->diag.len;
		if ((was = t->prompt)) {
			oxi_buf_cats(&t->out, UNPROMPT);
			t->prompt = 0;
			t->bol = 1;
		}
		unstatus(t);
		endline(t);
		if (flush(t) < 0)
			oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
		onelinen(&b, t->diag.s, n);
		oxi_buf_putc(&b, '\n');
		(void)oxi_writeall(2, b.s, b.len);
		if (was)
			prompt(t);
		oxi_buf_consume(&t->diag, nl ? n + 1 : n);
	}
	oxi_buf_free(&b);
	if (flush(t) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
	return r > 0;
}

/* as oxi_stage_run, with the diagnostics of -e read too */
static int
tx_run(struct oxi_stage *st, struct tx *t)
{
	struct pollfd pfd[3];
	jv rec;
	int r;

	oxi_notify(t->o->notif);
	pfd[0].fd = 0;
	pfd[1].fd = oxi_sig_setup(0);	/* the self-pipe */
	pfd[2].fd = t->o->errfd;
	pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
	oxi_fd_nonblock(t->o->errfd, 1);
	for (;;) {
		while ((r = oxi_nd_take(&st->in, &rec)) == OXI_ND_OK ||
		    r == OXI_ND_BAD)
			if (r == OXI_ND_OK)
				st->record(st, rec);
			else
				st->status = OXI_EX_FALSE;
		if (r == OXI_ND_EOF || oxi_sig_term)
			break;
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			oxi_diesys(OXI_EX_TEMP, "unable to poll");
		}
		if (pfd[1].revents)
			oxi_sig_drain();
		if (pfd[2].revents && tx_diag(t) == 0)
			pfd[2].fd = -1;
		if (pfd[0].revents && oxi_nd_fill(&st->in) < 0 &&
		    errno != EINTR && errno != EAGAIN)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	}
	/* what the stages said last */
	while (pfd[2].fd >= 0 && tx_diag(t) > 0)
		;
	return st->status;
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
	/* oxi-recv on this terminal starts with a prompt */
	t.prompt = t.tty;
	/* with receipts, a reader gone is EPIPE, not death */
	oxi_stage_init(&st, o->max, o->rcptfd >= 0);
	/* nothing to reload: a hangup keeps its default action */
	signal(SIGHUP, SIG_DFL);
	st.record = tx_stage;
	st.arg = &t;
	status = o->errfd >= 0 ? tx_run(&st, &t) : oxi_stage_run(&st,
	    o->notif);
	/* a failure for every message that had an answer */
	if (status == OXI_EX_OK && t.errs > 0 && t.outs == 0)
		status = OXI_EX_FALSE;
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
	oxi_buf_free(&t.diag);
	oxi_nd_free(&st.in);
	return status;
}

const struct oxi_chan oxi_chan_cli = {
	.name = "cli",
	.recv = oxi_cli_recv,
	.send = cli_send,
};
