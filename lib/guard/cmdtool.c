/*
 * cmdtool.c - oxi-guard tool: hold risky tool calls of a tainted turn
 */
#include "oxi.h"
#include "guard/guard.h"

/* not written yet: a usage error */
int
oxi_guard_tool(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	oxi_usage(OXI_GUARD_TOOL_USAGE);
}
