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
 * The terminal runs in this process; any other channel name makes it
 * exec(2) oxi-chan, the program of the channels that link the network
 * libraries, with the same arguments ($OXI_CHAN_EXEC, else oxi-chan
 * beside this program, else the install's libexec directory).
 * exit: 0 end of input or SIGTERM, 1 some records were rejected or
 * errors were shown and no reply, 100 usage or unknown channel, 111 I/O
 * error.
 */
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	const char *name;

	oxi_prog = "oxi-send";
	name = oxi_chan_args(argc, argv, OXI_CHAN_SEND, &o);
	if (strcmp(name, oxi_chan_cli.name) != 0)
		oxi_chan_exec(argv, name);
	return oxi_chan_call(oxi_chan_cli.send, &o);
}
