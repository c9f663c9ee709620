#!/bin/sh
# the tree of oxi-svc under runit, with stand-in stages (tests/svcmech.sh)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=runit
. ./svcmech.sh
