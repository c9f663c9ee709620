/*
 * tool_web.c - built-in tools: web_fetch, web_search and http_request
 */
#include "oxi.h"

const struct oxi_tool oxi_tools_web[] = {
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};
