/*
 * channel.h - the channel wing: chat platforms for oxi-recv and oxi-send
 */
#ifndef OXI_CHANNEL_H
#define OXI_CHANNEL_H

#include "oxi.h"

/* channel/: chat platforms; oxi-recv and oxi-send run one by name */
struct oxi_chan_opts {
	int notif;		/* -d: readiness fd, or -1 */
	size_t max;		/* -l: cap on an input line or record */
	const char *chat;	/* -c: chat id, or NULL for the default */
	const char *user;	/* -u: user name, or NULL for the default */
	int drafts;		/* -D: render drafts even off a terminal */
	int rcptfd;		/* -r: where receipts go, or -1 */
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
/* the direction of a channel's function */
enum { OXI_CHAN_RECV, OXI_CHAN_SEND };
/* o with the defaults: no fds, maxline $OXI_MAXLINE or 1 MiB (dies 100
 * if $OXI_MAXLINE is bad) */
void oxi_chan_opts_init(struct oxi_chan_opts *o);
/*
 * The receiver (dir OXI_CHAN_RECV) or sender (OXI_CHAN_SEND) of the
 * channel called name.  Like oxi_fdarg, dies 100 if there is none:
 * "unknown channel 'name' (known: cli, ...)".
 */
oxi_chan_fn oxi_chan_find(const char *name, int dir);
/*
 * main() of oxi-recv and oxi-send after the options: runs the receiver
 * or sender of channel name with o and returns what it returns.  Dies
 * 100 on a bad maxline or an unknown channel, 111 ("unable to ...")
 * when the channel fails.
 */
int oxi_chan_run(const char *name, int dir, const struct oxi_chan_opts *o);
/*
 * term.c: appends s[0..len) to b, safe to show on a terminal: C0 controls but
 * \n and \t in caret notation (ESC is "^["), DEL as "^?", C1 controls
 * as "^[" and their 7-bit form (CSI is "^[["), CR dropped.  s is UTF-8.
 */
void oxi_term_clean(struct oxi_buf *b, const char *s, size_t len);

#endif
