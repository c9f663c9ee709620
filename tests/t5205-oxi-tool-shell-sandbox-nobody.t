#!/bin/sh
# oxi-tool shell, sandbox-first: t5203's checks with oxi-tool run as
# nobody through setpriv (skipped unless the tests run as root)
cd "$(dirname "$0")" && SBX_AS=nobody exec ./t5203-oxi-tool-shell-sandbox.t
