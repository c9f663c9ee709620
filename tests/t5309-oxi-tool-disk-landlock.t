#!/bin/sh
# oxi-tool: the disk a call may take, t5308's checks under Landlock
cd "$(dirname "$0")" && SBX_MECH=landlock exec ./t5308-oxi-tool-disk.t
