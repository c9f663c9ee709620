#!/bin/sh
# the Telegram pipeline of oxi-svc under s6: 200 messages from 20 chats,
# every stage killed with kill -9 at least twice (tests/svce2e.sh)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=s6
. ./svce2e.sh
