/*
 * oxi-send - deliver replies to a channel
 *
 * oxi-send [-Dv] [-a account] [-d fd] [-e fd] [-l maxline] [-r fd] channel
 *
 * Runs the sender of one channel ("cli", the terminal, or "telegram").
 * Reads records on stdin: msg.out, msg.draft, typing, error and
 * approval.ask for that channel; other types, and records for other
 * channels, are ignored (a debug line with -v).  telegram: Markdown as
 * Telegram HTML, split at 4096 characters, drafts shown as they grow,
 * approval questions as buttons, each reply delivered once (a
 * sent-ledger), receipts on -r fd or stdout; -a names the bot's
 * account.  cli: msg.out text is
 * printed to stdout with a newline; drafts grow in place when stdout is
 * a terminal or with -D, and are ignored otherwise; error records give a
 * warning on stderr; control characters never reach the terminal raw.
 * With -r fd, one receipt record per msg.out, and per error shown, goes
 * to fd.  With -e fd, lines read on fd (the other stages' diagnostics)
 * go to stderr on lines of their own, the prompt drawn again after them.
 * fds: 0 records in, 1 the rendered text, 2 diagnostics, -r receipts,
 * -e diagnostics in, -d readiness.
 * signals: SIGTERM/SIGINT: finish the records already read, exit.
 * exit: 0 end of input or SIGTERM, 1 some records were rejected or
 * errors were shown and no reply, 100 usage or unknown channel, 111 I/O
 * error.
 */
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#define USAGE "oxi-send [-Dv] [-a account] [-d fd] [-e fd] [-l maxline] " \
	"[-r fd] channel"

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	int c;

	oxi_prog = "oxi-send";
	oxi_std_opts(argc, argv, USAGE);
	oxi_chan_opts_init(&o);
	while ((c = getopt(argc, argv, "Da:d:e:l:r:v")) != -1)
		switch (c) {
		case 'a':
			o.account = oxi_chan_namearg(optarg, "account");
			break;
		case 'D':
			o.drafts = 1;
			break;
		case 'd':
			o.notif = oxi_fdarg(optarg);
			break;
		case 'e':
			o.errfd = oxi_chan_fdarg(optarg, "diagnostics");
			break;
		case 'l':
			o.max = oxi_sizearg(optarg, "maxline");
			break;
		case 'r':
			o.rcptfd = oxi_chan_fdarg(optarg, "receipt");
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
	return oxi_chan_run(argv[0], OXI_CHAN_SEND, &o);
}
