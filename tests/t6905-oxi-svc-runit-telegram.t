#!/bin/sh
# the Telegram pipeline of oxi-svc under runit: 200 messages from 20 chats,
# every stage killed with kill -9 at least twice (tests/svce2e.sh)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=runit
. ./svce2e.sh
