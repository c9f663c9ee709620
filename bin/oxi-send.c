/*
 * oxi-send - deliver replies to a channel
 *
 * oxi-send [-Dv] [-d fd] [-l maxline] [-r fd] channel
 *
 * Runs the sender of one channel (only "cli", the terminal, for now).
 * Reads records on stdin: msg.out, msg.draft, typing, error and
 * approval.ask for that channel; other types, and records for other
 * channels, are ignored (a debug line with -v).  cli: msg.out text is
 * printed to stdout with a newline; drafts grow in place when stdout is
 * a terminal or with -D, and are ignored otherwise; error records give a
 * warning on stderr; control characters never reach the terminal raw.
 * With -r fd, one receipt record per msg.out goes to fd.
 * fds: 0 records in, 1 the rendered text, 2 diagnostics, -r receipts,
 * -d readiness.
 * signals: SIGTERM/SIGINT: finish the records already read, exit.
 * exit: 0 end of input or SIGTERM, 1 some records were rejected, 100
 * usage or unknown channel, 111 I/O error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

#define USAGE "oxi-send [-Dv] [-d fd] [-l maxline] [-r fd] channel"

/* the channels this command can deliver to */
static const struct chan {
	const char *name;	/* as given on the command line */
	oxi_chan_fn send;	/* its sender */
} chans[] = {
	{ "cli", oxi_cli_send },
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

	oxi_prog = "oxi-send";
	oxi_std_opts(argc, argv, USAGE);
	memset(&o, 0, sizeof o);
	o.notif = -1;
	o.rcptfd = -1;
	o.max = OXI_MAXLINE_DEFAULT;
	if ((v = oxi_getenv("OXI_MAXLINE")))
		o.max = oxi_sizearg(v, "OXI_MAXLINE");
	while ((c = getopt(argc, argv, "Dd:l:r:v")) != -1)
		switch (c) {
		case 'D':
			o.drafts = 1;
			break;
		case 'd':
			o.notif = oxi_fdarg(optarg);
			break;
		case 'l':
			o.max = oxi_sizearg(optarg, "maxline");
			break;
		case 'r':
			o.rcptfd = oxi_fdarg(optarg);
			if (fcntl(o.rcptfd, F_GETFD) < 0)
				oxi_die(OXI_EX_USAGE,
				    "receipt fd %d is not open", o.rcptfd);
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
	if ((r = ch->send(&o, &what)) < 0)
		oxi_diesys(OXI_EX_TEMP, "%s", what);
	return r;
}
