#!/bin/sh
# oxi-tool: t5304's checks of the special bits, with oxi-tool run as
# nobody through setpriv (skipped unless the tests run as root)
cd "$(dirname "$0")" && MODES_AS=nobody exec ./t5304-oxi-tool-files2-modes.t
