/*
 * tool_shell.c - built-in tools: the shell tool, run in the sandbox under the shell policy
 */
#include "oxi.h"

const struct oxi_tool oxi_tools_shell[] = {
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};
