#!/bin/sh
# t5161 (host-global state, resources, IPC) under Landlock, as nobody
cd "$(dirname "$0")" && SBX_MECH=landlock SBX_AS=nobody exec ./t5161-oxi-tool-sandbox-host.t
