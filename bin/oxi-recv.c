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
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define USAGE "oxi-recv [-v] [-d fd] [-l maxline] [-c chat] [-u user] channel"

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	int c;

	oxi_prog = "oxi-recv";
	oxi_std_opts(argc, argv, USAGE);
	oxi_chan_opts_init(&o);
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
	return oxi_chan_run(argv[0], OXI_CHAN_RECV, &o);
}
