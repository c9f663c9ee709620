#!/bin/sh
# oxi-send telegram when Telegram says wait or fails: 429 retry_after
# honoured for that chat alone (measured in the fake's log), 5xx and a
# network that is down retried with a pause that doubles, a group that
# became a supergroup followed, a thread that is gone left out
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh && . ./tgsend.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 13

tg_start

# when CHAT [N]: the fake's time of the N-th sendMessage to CHAT (from 1)
when() {
	python3 -c 'import json, sys
ts = [json.loads(l)["ts"] for l in open(sys.argv[1])
      if json.loads(l)["method"] == "sendMessage" and
      json.loads(l)["params"]["chat_id"] == sys.argv[2]]
print(ts[int(sys.argv[3]) - 1])' "$TMP/tglog" "$1" "${2:-1}"
}

# after A B S: time B is at least S seconds after time A
after() {
	python3 -c 'import sys
sys.exit(float(sys.argv[2]) - float(sys.argv[1]) < float(sys.argv[3]))' "$@"
}

# 429: that chat waits, the others go on
tg_fail '{"method":"sendMessage","chat":"42","code":429,"description":"Too Many Requests: retry after 2","retry_after":2}'
{
	out msg.out a1 42 'to the chat that must wait'
	out msg.out b1 43 'to another chat'
	out msg.out b2 43 'and again'
} >"$TMP/in"
tx_run "$TMP/in"
check '429: every reply delivered in the end' \
	'[ "$RC" = 0 ] && [ "$(grep -c "\"ok\":true" "$TMP/rcpt")" = 3 ]'
check '...the chat told to wait is sent to again no sooner than retry_after' \
	'after "$(when 42 1)" "$(when 42 2)" 1.95'
check '...while the other chat was served in the meantime' \
	'after "$(when 43 2)" "$(when 42 2)" 1 && after "$(when 42 1)" "$(when 43 1)" -0.5'
check '...said as info, not as a failure' \
	'grep -q "^oxi-send: info: telegram: sendMessage: 429 Too Many Requests: retry after 2: chat 42 waits 2 s$" "$TMP/err" &&
	 ! grep -q warning "$TMP/err"'

# 5xx: again after 1 s, then 2 s
tg_clear
tg_fail '{"method":"sendMessage","chat":"44","code":502,"description":"Bad Gateway","count":2}'
out msg.out c1 44 'through a bad gateway' >"$TMP/in"
tx_run "$TMP/in"
check '5xx: retried until it goes' \
	'[ "$(tg_calls sendMessage | wc -l)" = 3 ] && grep -q "\"ref\":\"c1\".*\"ok\":true" "$TMP/rcpt"'
check '...after a pause that doubles: 1 s, then 2 s' \
	'after "$(when 44 1)" "$(when 44 2)" 0.95 && after "$(when 44 2)" "$(when 44 3)" 1.95'
check_grep '...each failure a warning' \
	'^oxi-send: warning: telegram: sendMessage: 502 Bad Gateway; c1 again in 2 s$' "$TMP/err"

# the network down: the fake gone, back on the same port later
tg_clear
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
port=$PORT
out msg.out n1 42 'when the network is back' >"$TMP/in"
oxi-send telegram <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/err" &
pid=$!
sleep 1.5
tg_start --port "$port"
wait "$pid"
check 'the network down: retried, delivered once it is back' \
	'grep -q "\"ref\":\"n1\".*\"ok\":true" "$TMP/rcpt" && [ "$(tg_calls sendMessage | wc -l)" = 1 ]'
check '...the failures warned, the token in none' \
	'grep -q "warning: telegram: sendMessage: .*n1 again in" "$TMP/err" &&
	 ! grep -q "$SECRET_PART" "$TMP/err"'

# a group that became a supergroup
tg_clear
tg_fail '{"method":"sendMessage","chat":"-5","code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","migrate_to_chat_id":-1005}'
out msg.out g1 -5 'to the old group' >"$TMP/in"
tx_run "$TMP/in"
check 'a migrated group: the reply goes to its supergroup' \
	'tg_calls sendMessage | tail -n 1 | grep -q "\"chat_id\": \"-1005\"" &&
	 grep -q "\"ref\":\"g1\".*\"platform_id\":\"-1005:[0-9]*\",\"ok\":true" "$TMP/rcpt"'

# a thread that is gone
tg_clear
tg_fail '{"method":"sendMessage","chat":"-7","code":400,"description":"Bad Request: message thread not found"}'
out msg.out h1 -7 'to a closed topic' 'thread:"99"' >"$TMP/in"
tx_run "$TMP/in"
check 'a thread gone: sent without it' \
	'[ "$(tg_calls sendMessage | wc -l)" = 2 ] &&
	 ! tg_calls sendMessage | tail -n 1 | grep -q message_thread_id &&
	 grep -q "\"ref\":\"h1\".*\"ok\":true" "$TMP/rcpt"'

# SIGTERM while a chat waits: out at once, the reply left in the ledger
tg_clear
tg_fail '{"method":"sendMessage","chat":"42","code":429,"description":"Too Many Requests: retry after 30","retry_after":30}'
mkfifo "$TMP/fifo"
oxi-send telegram <"$TMP/fifo" >"$TMP/rcpt" 2>"$TMP/err" &
pid=$!
exec 3>"$TMP/fifo"
out msg.out w1 42 'waits 30 s' >&3
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
exec 3>&-
check 'SIGTERM during a 429: exit 0 without waiting, no receipt yet' \
	'[ "$rc" = 0 ] && [ ! -s "$TMP/rcpt" ]'
tx_run /dev/null
check '...the reply goes at the next start' \
	'grep -q "\"ref\":\"w1\".*\"ok\":true" "$TMP/rcpt" && [ "$(tg_calls sendMessage | wc -l)" = 2 ]'
done_testing
