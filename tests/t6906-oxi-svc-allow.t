#!/bin/sh
# the first steps of README.md under s6 (runit where s6 is missing): a
# tree with no allowlist denies the first sender and names it in
# guard-in's log; its id in guard-in/env/OXI_ALLOW and a restart of
# guard-in let it in
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=s6
command -v s6-svscan >/dev/null || SV=runit
. ./svc.sh
svc_skip
plan 5

TOK=123456:S3CR3T-allow-token
fake_server telegram.py --token "$TOK" --log "$TMP/tg.log"
TGPORT=$PORT
fake_server openai.py
export TELEGRAM_BOT_TOKEN=$TOK OPENAI_API_KEY=sk-S3CR3T-allow-key
export OXI_TELEGRAM_BASE_URL="http://127.0.0.1:$TGPORT"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
stages="recv guard-in loop guard-out send llm tool"
T=$TMP/bot
oxi-svc -s $SV -m openai/fake "$T" </dev/null >/dev/null 2>&1 ||
	{ echo "Bail out! oxi-svc failed"; exit 1; }
svc_start "$T"
wait_until 30 svc_allready || diag "the tree did not come up"

# say TEXT: user 4242 writes TEXT to the bot in a private chat
say() {
	python3 -c '
import json, sys, urllib.request
u = {"message": {"message_id": int(sys.argv[3]), "date": 1790000000,
     "from": {"id": 4242, "is_bot": False, "first_name": "Ann"},
     "chat": {"id": 4242, "type": "private", "first_name": "Ann"},
     "text": sys.argv[2]}}
urllib.request.urlopen(urllib.request.Request(
    "http://127.0.0.1:%s/control/updates" % sys.argv[1],
    data=json.dumps([u]).encode(), method="POST"), timeout=30).read()
' "$TGPORT" "$1" "$2"
}
LOG=$T/guard-in/log/main/current
say 'hello?' 1
check 'a sender not on the allowlist is denied, and named in the log' \
	'wait_until 20 "grep -q \"denied message from .4242. on channel .telegram.\" \"\$LOG\""'
echo telegram:4242 >"$T/guard-in/env/OXI_ALLOW"
svc_ctl down guard-in
svc_ctl up guard-in
wait_until 20 'svc_ready guard-in'
say 'hello again' 2
check 'its id in guard-in/env/OXI_ALLOW and a restart let it in' \
	'wait_until 20 "grep -q \"echo: hello again\" \"\$TMP/tg.log\""'
check 'to its chat' \
	'grep "\"sendMessage\"" "$TMP/tg.log" | grep "echo: hello again" | grep -q "\"chat_id\": \"4242\""'
check 'the message denied before was never answered' \
	'! grep -q "echo: hello?" "$TMP/tg.log"'
check 'the tree README says the same' \
	'grep -q "guard-in/env/OXI_ALLOW" "$T/README"'
done_testing
