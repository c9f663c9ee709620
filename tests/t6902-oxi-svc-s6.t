#!/bin/sh
# the tree of oxi-svc under s6, with stand-in stages (tests/svcmech.sh)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=s6
. ./svcmech.sh
