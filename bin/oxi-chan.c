/*
 * oxi-chan - the program of the chat channels other than the terminal
 *
 * oxi-recv CHANNEL and oxi-send CHANNEL exec(2) this program with their
 * own argv when CHANNEL is not cli, so that only it links the network
 * libraries (libcurl, libmicrohttpd, libmd4c, SQLite) and oxi-recv and
 * oxi-send stay small for the terminal.  $OXI_CHAN_AS (which they set,
 * and it unsets), else argv[0] if it ends in recv or send, says which
 * of the two it is: it takes that command's options, speaks in its name
 * and exits as it would (oxi-recv(1), oxi-send(1)); the channel is one
 * of the table of lib/channel/chan.c, and an unknown one is told as such
 * with the list of the known.  Installed in $(LIBEXECDIR), not on PATH.
 * exit: as oxi-recv or oxi-send; 100 when argv[0] names neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"

#define USAGE	"oxi-chan is run by oxi-recv and oxi-send as them: " \
		"see oxi-recv(1), oxi-send(1)"

int
main(int argc, char *argv[])
{
	struct oxi_chan_opts o;
	const char *as, *name;
	size_t n;
	int dir;

	as = getenv("OXI_CHAN_AS");
	if (!as || !*as)
		as = argc > 0 ? argv[0] : "";
	n = strlen(as);
	if (n >= 4 && strcmp(as + n - 4, "recv") == 0)
		dir = OXI_CHAN_RECV;
	else if (n >= 4 && strcmp(as + n - 4, "send") == 0)
		dir = OXI_CHAN_SEND;
	else {
		oxi_prog = "oxi-chan";
		if (argc == 2 && (strcmp(argv[1], "-h") == 0 ||
		    strcmp(argv[1], "--help") == 0)) {
			printf("usage: %s\n", USAGE);
			oxi_fshut(stdout, "stdout");
			return OXI_EX_OK;
		}
		oxi_usage(USAGE);
	}
	oxi_prog = dir == OXI_CHAN_SEND ? "oxi-send" : "oxi-recv";
	unsetenv("OXI_CHAN_AS");
	name = oxi_chan_args(argc, argv, dir, &o);
	return oxi_chan_run(name, dir, &o);
}
