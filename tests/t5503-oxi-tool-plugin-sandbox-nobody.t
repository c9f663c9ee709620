#!/bin/sh
# oxi-tool plugins in the sandbox as an unprivileged user: t5502's checks
# with oxi-tool run as nobody through setpriv (skipped unless run as root)
cd "$(dirname "$0")" && SBX_AS=nobody exec ./t5502-oxi-tool-plugin-sandbox.t
