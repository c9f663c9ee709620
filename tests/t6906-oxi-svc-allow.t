#!/bin/sh
# the first steps of README.md under s6 (runit where s6 is missing): a
# tree with no allowlist denies the first sender and names it in
# guard-in's log; its id in guard-in/env/OXI_ALLOW and a restart of
# guard-in let it in; a token Telegram refuses keeps recv and send down
# (exit 100), not restarting in a loop
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=s6
command -v s6-svscan >/dev/null || SV=runit
. ./svc.sh
svc_skip
plan 7

TOK=123456:S3CR3T-allow-token
fake_server telegram.py --token "$TOK" --log "$TMP/tg.log"
TGPORT=$PORT
fake_server openai.py
export TELEGRAM_BOT_TOKEN=$TOK OPENAI_API_KEY=sk-S3CR3T-allow-key
export OXI_TELEGRAM_BASE_URL="http://127.0.0.1:$TGPORT"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
stages="recv guard-in loop cron guard-out send llm tool"
T=$TMP/bot
oxi-svc -s $SV -m openai/fake "$T" </dev/null >/dev/null 2>&1 ||
	{ echo "Bail out! oxi-svc failed"; exit 1; }
svc_start "$T"
wait_until 30 svc_allready || diag "the tree did not come up"

say() { svc_say "$TGPORT" "$@"; }
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

# a wrong token: Telegram refuses it, recv and send exit 100 and stay down
svc_stop
echo 123456:S3CR3T-wrong-token >"$T/recv/env/TELEGRAM_BOT_TOKEN"
echo 123456:S3CR3T-wrong-token >"$T/send/env/TELEGRAM_BOT_TOKEN"
svc_start "$T"
# a reply for send to deliver, once the holder keeps the FIFO (a FIFO no
# process holds drops its bytes): its first call meets the refusal
wait_until 20 '[ -n "$(svc_pid fifos)" ]'
printf '%s\n' '{"v":1,"type":"msg.out","id":"reply:x","channel":"telegram","account":"main","chat":"4242","text":"hi"}' \
	1<>"$T/fifos/data/send.in"
check 'a refused token: recv and send exit 100 and are kept down' \
	'wait_until 30 "svc_down recv && svc_down send"'
sleep 2
check '...once: no restart loop, and the logs say why' \
	'for s in recv send; do
		svc_down $s &&
		[ "$(grep -c "exited 100: kept down" "$T/$s/log/main/current")" = 1 ] &&
		grep -q "TELEGRAM_BOT_TOKEN" "$T/$s/log/main/current" || exit 1
	 done && ! grep -rq S3CR3T "$T"/*/log'
done_testing
