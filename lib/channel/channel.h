/*
 * channel.h - the channel wing: chat platforms for oxi-recv and oxi-send
 */
#ifndef OXI_CHANNEL_H
#define OXI_CHANNEL_H

#include <termios.h>

#include "oxi.h"

/* channel/: chat platforms; oxi-recv and oxi-send run one by name */
struct oxi_chan_opts {
	int notif;		/* -d: readiness fd, or -1 */
	size_t max;		/* -l: cap on an input line or record */
	const char *chat;	/* -c: chat id, or NULL for the default */
	const char *thread;	/* -t: thread id, or NULL for none */
	const char *user;	/* -u: user name, or NULL for the default */
	const char *first;	/* -m: a message sent before the input */
	int drafts;		/* -D: render drafts even off a terminal */
	int rcptfd;		/* -r: receipts: written (send), read (recv) */
	int errfd;		/* -e: other stages' diagnostics, or -1 */
	const char *account;	/* -a: the channel's account, or NULL for
				 * its variable or default */
	const char *webhook;	/* -w: listen for the platform's webhook
				 * on [addr:]port instead of polling, or NULL */
};
/*
 * A channel's receiver or sender: runs until end of input or SIGTERM.
 * Returns 0, or 1 if some input was rejected (each warned about and
 * dead-lettered), or -1 with errno set and *what saying what failed
 * ("unable to write to stdout"), for main() to die with.
 */
typedef int (*oxi_chan_fn)(const struct oxi_chan_opts *, const char **what);
/* a channel: each channel file exports one, and chan.c lists them */
struct oxi_chan {
	const char *name;	/* as oxi-recv and oxi-send take it */
	oxi_chan_fn recv;	/* its receiver, or NULL */
	oxi_chan_fn send;	/* its sender, or NULL */
};
extern const struct oxi_chan oxi_chan_cli;	/* cli.c: the terminal */
extern const struct oxi_chan oxi_chan_telegram;	/* telegram.c */
extern const struct oxi_chan oxi_chan_slack;	/* slack.c */
extern const struct oxi_chan oxi_chan_discord;	/* discord.c */
/* clirecv.c: the terminal's receiver */
int oxi_cli_recv(const struct oxi_chan_opts *, const char **what);
/* the direction of a channel's function */
enum { OXI_CHAN_RECV, OXI_CHAN_SEND };

/* chanarg.c: what oxi-recv, oxi-send and oxi-chan share */
/* o with the defaults: no fds, maxline $OXI_MAXLINE or 1 MiB (dies 100
 * if $OXI_MAXLINE is bad) */
void oxi_chan_opts_init(struct oxi_chan_opts *o);
/*
 * The options of oxi-recv (dir OXI_CHAN_RECV) or oxi-send (OXI_CHAN_SEND)
 * in argv, into o; --help and --version as every command.  Returns the
 * channel's name; dies 100 on bad usage or a bad maxline.
 */
const char *oxi_chan_args(int argc, char *argv[], int dir,
    struct oxi_chan_opts *o);
/* option arguments: an fd that is open, a name that is not empty; both
 * die 100 otherwise, what naming the argument */
int oxi_chan_fdarg(const char *arg, const char *what);
const char *oxi_chan_namearg(const char *arg, const char *what);
/* runs fn with o and returns what it returns; dies 111 ("unable to ...")
 * when it fails */
int oxi_chan_call(oxi_chan_fn fn, const struct oxi_chan_opts *o);
/*
 * Replaces the process with the program of the channels, given argv as
 * is (channel name, the one it is for) and oxi_prog in $OXI_CHAN_AS:
 * $OXI_CHAN_EXEC, else oxi-chan beside the running program, else
 * OXI_LIBEXECDIR/oxi-chan.  Returns
 * only by dying: 100 if it cannot be run, 111 otherwise.
 */
OXI_NORETURN void oxi_chan_exec(char *argv[], const char *name);

/* chan.c: the registry, linked by oxi-chan alone */
/*
 * The receiver (dir OXI_CHAN_RECV) or sender (OXI_CHAN_SEND) of the
 * channel called name.  Like oxi_fdarg, dies 100 if there is none:
 * "unknown channel 'name' (known: cli, ...)".
 */
oxi_chan_fn oxi_chan_find(const char *name, int dir);
/* runs the receiver or sender of channel name with o and returns what it
 * returns; dies 100 on an unknown channel, 111 when the channel fails */
int oxi_chan_run(const char *name, int dir, const struct oxi_chan_opts *o);
/*
 * term.c: appends s[0..len) to b, safe to show on a terminal: C0 controls but
 * \n and \t in caret notation (ESC is "^["), DEL as "^?", C1 controls
 * as "^[" and their 7-bit form (CSI is "^[["), CR dropped.  s is UTF-8.
 */
void oxi_term_clean(struct oxi_buf *b, const char *s, size_t len);

/*
 * line.c: a message typed at a terminal (the editor of oxi-recv cli), or
 * read as lines, with """ opening and closing a block of lines
 */
struct oxi_line {
	int in, out;		/* the terminal, where echo goes; or -1 */
	int raw;		/* the terminal is in our modes */
	struct termios saved;	/* its modes before */
	size_t max;		/* bytes kept of a message; the rest dropped */
	struct oxi_buf msg;	/* the message so far */
	size_t lstart;		/* where its last line starts */
	size_t shown;		/* how much of that line is echoed */
	size_t w, cols;		/* columns it takes with the prompt; of a row */
	int block;		/* inside """ */
	int paste;		/* inside a bracketed paste */
	int esc;		/* where in an escape sequence */
	char csi[16];		/* the parameters of a CSI sequence */
	size_t ncsi;		/* their length */
	int cr;			/* the last key was CR: an LF after it is not
				 * another Enter */
	int dropped;		/* Ctrl-C dropped a message being typed */
	struct oxi_buf echo;	/* echo not yet written */
};
enum {
	OXI_LINE_NONE,		/* nothing yet */
	OXI_LINE_MSG,		/* a message in msg: take it, then clear */
	OXI_LINE_INTR,		/* Ctrl-C: what was typed is gone */
	OXI_LINE_EOF		/* Ctrl-D on an empty line */
};
/* an editor with no terminal, for messages of at most max bytes */
void oxi_line_init(struct oxi_line *, size_t max);
/* the terminal in, echo to out: raw mode and bracketed paste until
 * oxi_line_close or exit: 0, or -1 with errno */
int oxi_line_open(struct oxi_line *, int in, int out);
void oxi_line_close(struct oxi_line *);
void oxi_line_free(struct oxi_line *);	/* closes it too */
/* one byte typed: OXI_LINE_* */
int oxi_line_key(struct oxi_line *, int c);
/* one line read (no newline): OXI_LINE_MSG or OXI_LINE_NONE */
int oxi_line_text(struct oxi_line *, const char *s, size_t n);
void oxi_line_clear(struct oxi_line *);	/* forgets the message */
/* the prompt and what is typed, on the cursor's line; redraw: after
 * someone else wrote a prompt there, if anything is typed */
void oxi_line_prompt(struct oxi_line *);
void oxi_line_redraw(struct oxi_line *);
void oxi_line_say(struct oxi_line *, const char *s);	/* raw, to echo */
/* writes the echo due: 0, or -1 with errno */
int oxi_line_flush(struct oxi_line *);

#endif
