#!/bin/sh
# oxi-tool shell with the workspace at $HOME: t5702 as nobody
cd "${0%/*}" && SBX_AS=nobody exec ./t5702-oxi-tool-protect-shell.t
