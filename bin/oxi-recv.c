/*
 * oxi-recv - receive chat messages from a channel as msg.in records
 *
 * oxi-recv [-v] [-a account] [-d fd] [-l maxline] [-c chat] [-t thread]
 *     [-u user] [-m text] [-r fd] [-w [addr:]port] channel
 *
 * Runs the receiver of one channel ("cli", the terminal, or "telegram")
 * and writes one msg.in record per incoming message to stdout, flushed
 * per record.  telegram: long polling of the Bot API, or with -w its
 * webhook on [addr:]port (127.0.0.1 unless addr says otherwise); each
 * update is in the ledger before it is confirmed; -a names the bot's
 * account.  cli: -m text is sent first.  cli: on a terminal, a small line
 * editor: Enter sends, a bracketed paste or the lines between two lines
 * of """ are one message, Ctrl-C stops the reply in flight (a msg.in
 * "/stop") or, at an idle prompt and pressed twice, leaves; the sender's
 * receipts read on -r say what is in flight.  Otherwise each non-blank
 * line of stdin is a message, """ as on a terminal; CR before the
 * newline is dropped; lines and messages over maxline bytes (or whose
 * record would be) are warned about and dead-lettered.
 * fds: 0 messages in, 1 records out, 2 diagnostics and, on a terminal,
 * the echo, -r receipts in, -d readiness.
 * signals: SIGTERM/SIGINT: finish the line in hand, exit.
 * exit: 0 end of input or SIGTERM, 1 some lines were rejected, 100 usage
 * or unknown channel, 111 I/O error.
 */
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define USAGE "oxi-recv [-v] [-a account] [-d fd] [-l maxline] [-c chat] " \
	"[-t thread] [-u user] [-m text] [-r fd] [-w [addr:]port] channel"

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	int c;

	oxi_prog = "oxi-recv";
	oxi_std_opts(argc, argv, USAGE);
	oxi_chan_opts_init(&o);
	while ((c = getopt(argc, argv, "a:c:d:l:m:r:t:u:vw:")) != -1)
		switch (c) {
		case 'a':
			o.account = oxi_chan_namearg(optarg, "account");
			break;
		case 'c':
			o.chat = oxi_chan_namearg(optarg, "chat id");
			break;
		case 'd':
			o.notif = oxi_fdarg(optarg);
			break;
		case 'l':
			o.max = oxi_sizearg(optarg, "maxline");
			break;
		case 'm':
			o.first = oxi_chan_namearg(optarg, "message");
			break;
		case 'r':
			o.rcptfd = oxi_chan_fdarg(optarg, "receipt");
			break;
		case 't':
			o.thread = oxi_chan_namearg(optarg, "thread id");
			break;
		case 'u':
			o.user = oxi_chan_namearg(optarg, "user name");
			break;
		case 'v':
			oxi_verbose++;
			break;
		case 'w':
			o.webhook = oxi_chan_namearg(optarg, "webhook address");
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
