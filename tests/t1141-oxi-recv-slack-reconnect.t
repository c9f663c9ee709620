#!/bin/sh
# oxi-recv slack keeps Socket Mode up: the socket dropped (twice, while
# envelopes come), disconnect envelopes, a silent link replaced after
# our ping goes unanswered, link_disabled ends it (100), a kill -9 and a
# restart: nothing lost, nothing written twice
cd "$(dirname "$0")" && . ./lib.sh && . ./sk.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 10

sk_start
# feed N FIRST: N DMs from numbered users, ts FIRST...
feed() {
	python3 -c 'import json, sys
n, first = int(sys.argv[1]), int(sys.argv[2])
for i in range(first, first + n):
    print(json.dumps({"event": {"type": "message", "channel": "D%d" % (i % 10),
        "channel_type": "im", "user": "U1", "ts": "1700000000.%06d" % i,
        "text": "m%d" % i}}))' "$1" "$2" >"$TMP/ev"
	sk_feed "$TMP/ev"
}
# ids OUT...: the distinct msg.in ids written, and all of them
count() { cat "$@" | jget '["id"]' /dev/stdin | sort | uniq | wc -l; }
total() { cat "$@" | jget '["id"]' /dev/stdin | wc -l; }

check_exit 'a bad OXI_SLACK_PING_INTERVAL: exit 100' 100 \
	'OXI_SLACK_PING_INTERVAL=never oxi-recv slack </dev/null'

# dropped twice while envelopes come
sk_recv "$TMP/out" "$TMP/err"
wait_until 10 '[ "$(sk_state connections)" = 1 ]'
feed 20 1
sleep 0.3
sk_post drop "{}" >/dev/null
feed 20 21
wait_until 10 '[ "$(sk_state opened)" -ge 2 ]'
sleep 0.2
sk_post drop "{}" >/dev/null
feed 20 41
check 'the socket dropped twice: every envelope acknowledged' 'sk_wait 20'
check '...on new connections (three opened)' '[ "$(sk_state opened)" -ge 3 ]'
check '...60 messages written, none twice' \
	'[ "$(count "$TMP/out")" = 60 ] && [ "$(total "$TMP/out")" = 60 ]'
check '...the drops warned about' 'grep -q "Socket Mode lost" "$TMP/err"'

# a disconnect envelope: a new connection at once
wait_until 10 '[ "$(sk_state connections)" = 1 ]'
_o=$(sk_state opened)
sk_post disconnect '{"reason":"refresh_requested"}' >/dev/null
check 'refresh_requested: a new connection at once' \
	'wait_until 5 "[ \"\$(sk_state opened)\" -gt $_o ]"'
feed 5 61
check '...and envelopes still taken' \
	'sk_wait 10 && wait_until 5 "[ \"\$(count \"$TMP/out\")\" = 65 ]"'
sk_stop

# a silent link: our ping unanswered, a new connection
OXI_SLACK_PING_INTERVAL=0.5 sk_recv "$TMP/out2" "$TMP/err2"
wait_until 10 '[ "$(sk_state connections)" = 1 ]'
_o=$(sk_state opened)
sk_post silent '{"on":true}' >/dev/null
sleep 0.3
feed 3 66
sleep 1.5
sk_post silent '{"on":false}' >/dev/null
check 'a silent link is replaced after an unanswered ping; what came meanwhile arrives' \
	'sk_wait 15 && [ "$(sk_state opened)" -gt "$_o" ] &&
	 wait_until 5 "[ \"\$(count \"$TMP/out2\")\" = 3 ]"'
sk_stop

# kill -9 while envelopes come, then a restart
sk_recv "$TMP/out3" "$TMP/err3"
feed 100 100
sleep 0.2
kill -9 "$RECV_PID"
wait "$RECV_PID" 2>/dev/null
sk_recv "$TMP/out4" "$TMP/err4"
sk_wait 20
sk_stop
check 'kill -9 and a restart: all 100 written, the distinct ids once each at most once more' \
	'[ "$(count "$TMP/out3" "$TMP/out4")" = 100 ] &&
	 [ "$(total "$TMP/out3" "$TMP/out4")" -le 101 ]'

# link_disabled
sk_recv "$TMP/out5" "$TMP/err5"
wait_until 10 '[ "$(sk_state connections)" = 1 ]'
sk_post disconnect '{"reason":"link_disabled"}' >/dev/null
wait "$RECV_PID"
RC=$?
check 'link_disabled: exit 100, saying so' \
	'[ "$RC" = 100 ] && grep -q "Socket Mode was turned off" "$TMP/err5"'
done_testing
