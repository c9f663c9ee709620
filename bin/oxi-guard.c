/*
 * oxi-guard - the guard between the outside and the assistant
 *
 * oxi-guard in:      let in only allowed senders; size limits
 * oxi-guard out:     keep secrets out of replies
 * oxi-guard tool:    hold risky tool calls of a tainted turn for approval
 * oxi-guard pairing: list, approve or revoke pairing requests
 * oxi-guard audit:   verify the hash-chained audit log
 *
 * This file only dispatches: each subcommand is a function of the guard
 * wing (lib/guard/cmd*.c) that takes its own options, argv[0] being its
 * name, and returns the exit status.  The older form with the options
 * before the mode, "oxi-guard -a allow in", is still taken.
 * exit: 0 ok, 1 some records rejected, 100 usage or configuration,
 * 111 i/o error.
 */
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"

#define USAGE	OXI_GUARD_IN_USAGE "\n" OXI_GUARD_OUT_USAGE "\n" \
		OXI_GUARD_TOOL_USAGE "\n" OXI_GUARD_PAIRING_USAGE "\n" \
		OXI_GUARD_AUDIT_USAGE

static const struct {
	const char *name;
	int (*run)(int, char *[]);
} cmds[] = {
	{ "in", oxi_guard_in },
	{ "out", oxi_guard_out },
	{ "tool", oxi_guard_tool },
	{ "pairing", oxi_guard_pairing },
	{ "audit", oxi_guard_audit },
};

/* the subcommand named s, or -1 */
static int
lookup(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (strcmp(cmds[i].name, s) == 0)
			return (int)i;
	return -1;
}

int
main(int argc, char *argv[])
{
	char *mode;
	int i, k;

	oxi_prog = "oxi-guard";
	oxi_std_opts(argc, argv, USAGE);
	if (argc < 2)
		oxi_usage(USAGE);
	if ((k = lookup(argv[1])) >= 0)
		return cmds[k].run(argc - 1, argv + 1);
	/* the older form: options first, then in or out */
	if (argv[1][0] != '-' || ((k = lookup(argv[argc - 1])) != 0 && k != 1))
		oxi_usage(USAGE);
	mode = argv[argc - 1];
	for (i = argc - 1; i > 1; i--)
		argv[i] = argv[i - 1];
	argv[1] = mode;
	return cmds[k].run(argc - 1, argv + 1);
}
