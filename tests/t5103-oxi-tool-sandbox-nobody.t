#!/bin/sh
# oxi-tool sandbox as an unprivileged user: t5101's checks with oxi-tool
# run as nobody through setpriv (skipped unless the tests run as root)
cd "$(dirname "$0")" && SBX_AS=nobody exec ./t5101-oxi-tool-sandbox.t
