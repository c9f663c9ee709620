#!/bin/sh
# MCP servers in the sandbox as an unprivileged user: t5602's checks with
# oxi-tool run as nobody through setpriv (skipped unless run as root)
cd "$(dirname "$0")" && SBX_AS=nobody exec ./t5602-oxi-tool-mcp-sandbox.t
