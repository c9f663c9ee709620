/*
 * tool_find.c - built-in tools: edit_file, glob and grep (files of the workspace found and changed)
 */
#include "oxi.h"

const struct oxi_tool oxi_tools_find[] = {
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};
