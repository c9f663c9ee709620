#!/bin/sh
# oxi-tool shell with the workspace at $HOME: t5702 under Landlock
cd "${0%/*}" && SBX_MECH=landlock exec ./t5702-oxi-tool-protect-shell.t
