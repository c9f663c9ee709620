/*
 * oxi-recv - receive chat messages from a channel as msg.in records
 *
 * oxi-recv [-v] [-d fd] [-l maxline] [-c chat] [-u user] channel
 *
 * Runs the receiver of one channel (only "cli", the terminal, for now)
 * and writes one msg.in record per incoming message to stdout, flushed
 * per record.  cli: each non-blank line of stdin is a message; CR before
 * the newline is dropped; lines over maxline bytes (or whose record would
 * be) are warned about and dead-lettered.  When stdin and stderr are
 * terminals a one-line hint and a first prompt go to stderr.
 * fds: 0 messages in, 1 records out, 2 diagnostics, -d readiness.
 * signals: SIGTERM/SIGINT: finish the line in hand, exit.
 * exit: 0 end of input or SIGTERM, 1 some lines were rejected, 100 usage
 * or unknown channel, 111 I/O error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

#define USAGE "oxi-recv [-v] [-d fd] [-l maxline] [-c chat] [-u user] channel"

/* the channels this command can receive from */
static const struct chan {
	const char *name;	/* as given on the command line */
	oxi_chan_fn recv;	/* its receiver */
} chans[] = {
	{ "cli", oxi_cli_recv },
	{ NULL, NULL }
};

static const struct chan *
findchan(const char *name)
{
	struct oxi_buf known = OXI_BUF_INIT;
	const struct chan *c;

	for (c = chans; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	for (c = chans; c->name; c++)
		oxi_buf_printf(&known, "%s%s", c == chans ? "" : ", ",
		    c->name);
	oxi_die(OXI_EX_USAGE, "unknown channel '%s' (known: %s)", name,
	    known.s);
}

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	const struct chan *ch;
	const char *v, *what = "";
	int c, r;

	oxi_prog = "oxi-recv";
	oxi_std_opts(argc, argv, USAGE);
	memset(&o, 0, sizeof o);
	o.notif = -1;
	o.rcptfd = -1;
	o.max = OXI_MAXLINE_DEFAULT;
	if ((v = oxi_getenv("OXI_MAXLINE")))
		o.max = oxi_sizearg(v, "OXI_MAXLINE");
	while ((c = getopt(argc, argv, "c:d:l:u:v")) != -1)
		switch (c) {
		case 'c':
			if (*optarg == '\0')
				oxi_die(OXI_EX_USAGE, "empty chat id");
			o.chat = optarg;
			break;
		case 'd':
			o.notif = oxi_fdarg(optarg);
			break;
		case 'l':
			o.max = oxi_sizearg(optarg, "maxline");
			break;
		case 'u':
			if (*optarg == '\0')
				oxi_die(OXI_EX_USAGE, "empty user name");
			o.user = optarg;
			break;
		case 'v':
			oxi_verbose++;
			break;
		default:
			oxi_usage(USAGE);
		}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		oxi_usage(USAGE);
	if (o.max == 0 || o.max > 1 << 30)
		oxi_die(OXI_EX_USAGE, "invalid maxline: 1 to 1024m bytes");
	ch = findchan(argv[0]);
	if ((r = ch->recv(&o, &what)) < 0)
		oxi_diesys(OXI_EX_TEMP, "%s", what);
	return r;
}
