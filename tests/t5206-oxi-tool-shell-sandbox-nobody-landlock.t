#!/bin/sh
# oxi-tool shell, sandbox-first: t5203's checks as nobody under Landlock
cd "$(dirname "$0")" && SBX_AS=nobody SBX_MECH=landlock \
	exec ./t5203-oxi-tool-shell-sandbox.t
