#!/bin/sh
# oxi-tool sandbox as an unprivileged user on the Landlock path: t5101's
# checks as nobody with bubblewrap refused
cd "$(dirname "$0")" && SBX_AS=nobody SBX_MECH=landlock \
	exec ./t5101-oxi-tool-sandbox.t
