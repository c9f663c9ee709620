#!/bin/sh
# the Discord pipeline of oxi-svc under runit: 100 messages from 10 chats,
# every stage killed with kill -9 at least twice, the Gateway dropped
# twice (tests/dce2e.sh)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=runit
. ./dce2e.sh
