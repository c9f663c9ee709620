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
 * The terminal runs in this process; any other channel name makes it
 * exec(2) oxi-chan, the program of the channels that link the network
 * libraries, with the same arguments ($OXI_CHAN_EXEC, else oxi-chan
 * beside this program, else the install's libexec directory).
 * exit: 0 end of input or SIGTERM, 1 some lines were rejected, 100 usage
 * or unknown channel, 111 I/O error.
 */
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	const char *name;

	oxi_prog = "oxi-recv";
	name = oxi_chan_args(argc, argv, OXI_CHAN_RECV, &o);
	if (strcmp(name, oxi_chan_cli.name) != 0)
		oxi_chan_exec(argv, name);
	return oxi_chan_call(oxi_chan_cli.recv, &o);
}
