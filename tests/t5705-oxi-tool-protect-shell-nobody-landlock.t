#!/bin/sh
# oxi-tool shell with the workspace at $HOME: t5702 as nobody under Landlock
cd "${0%/*}" && SBX_AS=nobody SBX_MECH=landlock exec ./t5702-oxi-tool-protect-shell.t
