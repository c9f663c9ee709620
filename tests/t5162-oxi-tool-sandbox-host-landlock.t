#!/bin/sh
# t5161 (host-global state, resources, IPC) under Landlock
cd "$(dirname "$0")" && SBX_MECH=landlock exec ./t5161-oxi-tool-sandbox-host.t
