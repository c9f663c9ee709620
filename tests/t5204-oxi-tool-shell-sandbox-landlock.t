#!/bin/sh
# oxi-tool shell, sandbox-first: t5203's checks under Landlock
cd "$(dirname "$0")" && SBX_MECH=landlock exec ./t5203-oxi-tool-shell-sandbox.t
