#!/bin/sh
# oxi-recv discord: staying on the Gateway: a dropped connection resumed
# with nothing lost or doubled, a zombie (no heartbeat ACK) replaced,
# Reconnect (op 7), Invalid Session (op 9), close codes (4004 and 4014 end
# us with 100, 4009 identifies anew), a kill -9 resumed from the ledger
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 16

A='"author":{"id":"2001","username":"ann"}'
# feed N FROM: N DMs in channel 500, ids FROM up
feed() {
	python3 -c 'import json, sys
n, f = int(sys.argv[1]), int(sys.argv[2])
print(json.dumps([{"id": str(f + i), "channel_id": "500",
                   "content": "m%d" % (f + i),
                   "author": {"id": "2001", "username": "ann"}}
                  for i in range(n)]))' "$1" "$2" >"$TMP/feed"
	dc_feed "$(cat "$TMP/feed")"
}
# ids FILE: the message ids written, sorted
ids() { jget '["message_id"]' "$1" | sort -n; }

dc_start --heartbeat 300
dc_recv "$TMP/out" "$TMP/err" -v
feed 5 100
wait_until 5 '[ "$(wc -l <"$TMP/out")" -ge 5 ]'
dc_ctl drop '{}' >/dev/null
feed 5 105
wait_until 10 '[ "$(wc -l <"$TMP/out")" -ge 10 ]'
check 'a dropped connection is resumed' \
	'[ "$(dc_state resumes)" -ge 1 ] && [ "$(dc_state identifies)" = 1 ]'
check '...and what came meanwhile arrives, once' \
	'[ "$(ids "$TMP/out" | tr "\n" " ")" = "100 101 102 103 104 105 106 107 108 109 " ]'
check_grep '...the loss warned about' \
	'^oxi-recv: warning: discord: the Gateway connection is lost' "$TMP/err"

# a zombie: heartbeats not acknowledged
r=$(dc_state resumes)
dc_ctl noack '{"count":1}' >/dev/null
wait_until 5 'grep -q "zombie" "$TMP/err"'
check 'a heartbeat not acknowledged: a zombie, closed and resumed' \
	'grep -q "^oxi-recv: warning: discord: no heartbeat ACK: a zombie connection, resuming$" "$TMP/err" &&
	 wait_until 5 "[ \"\$(dc_state resumes)\" -gt $r ]"'

# op 7: reconnect and resume
r=$(dc_state resumes)
dc_ctl op '{"op":7,"d":null}' >/dev/null
feed 2 110
wait_until 5 '[ "$(wc -l <"$TMP/out")" -ge 12 ]'
check 'Reconnect (op 7): resumed, what follows arrives' \
	'[ "$(dc_state resumes)" -gt $r ] && [ "$(ids "$TMP/out" | tail -n 1)" = 111 ]'

# op 9 false: identify anew
dc_ctl op '{"op":9,"d":false}' >/dev/null
wait_until 10 '[ "$(dc_state identifies)" = 2 ]'
check 'Invalid Session (op 9, not resumable): identified anew' \
	'[ "$(dc_state identifies)" = 2 ]'
feed 1 112
wait_until 5 '[ "$(wc -l <"$TMP/out")" -ge 13 ]'
check '...and messages flow on the new session' \
	'[ "$(ids "$TMP/out" | tail -n 1)" = 112 ]'

# close 4009: the session timed out, identify anew
dc_ctl close '{"code":4009}' >/dev/null
wait_until 10 '[ "$(dc_state identifies)" = 3 ]'
check 'close 4009: identified anew' '[ "$(dc_state identifies)" = 3 ]'

# kill -9, events fed while down, restart: resumed from the ledger
kill -9 "$RECV_PID"
wait "$RECV_PID" 2>/dev/null
feed 3 113
dc_recv "$TMP/out2" "$TMP/err2"
wait_until 5 '[ "$(wc -l <"$TMP/out2")" -ge 3 ]'
sleep 0.3
check 'after kill -9 a restart resumes, and what came meanwhile arrives once' \
	'[ "$(ids "$TMP/out2" | tr "\n" " ")" = "113 114 115 " ] && [ "$(dc_state identifies)" = 3 ]'
cat "$TMP/out" "$TMP/out2" >"$TMP/all"
check 'over all of it: 16 messages, none lost, none doubled' \
	'[ "$(ids "$TMP/all" | uniq | wc -l)" = 16 ] && [ "$(wc -l <"$TMP/all")" = 16 ]'

# a session the Gateway forgot: resume refused (op 9), identify
dc_stop
dc_ctl expire '{}' >/dev/null
dc_recv "$TMP/out3" "$TMP/err3"
wait_until 10 '[ "$(dc_state identifies)" = 4 ]'
check 'a resume refused: identified anew' '[ "$(dc_state identifies)" = 4 ]'
check_grep '...saying so' \
	'^oxi-recv: warning: discord: the session is invalid: identifying anew$' \
	"$TMP/err3"

# fatal close codes
dc_ctl close '{"code":4004}' >/dev/null
wait "$RECV_PID"
RC=$?
check 'close 4004 (authentication failed): exit 100' '[ "$RC" = 100 ]'
check_grep '...naming the variable' \
	'^oxi-recv: fatal: discord: the bot token was refused \(close 4004\): check DISCORD_BOT_TOKEN$' \
	"$TMP/err3"
dc_recv "$TMP/out4" "$TMP/err4"
dc_ctl close '{"code":4014}' >/dev/null
wait "$RECV_PID"
RC=$?
check 'close 4014 (disallowed intents): exit 100' '[ "$RC" = 100 ]'
check_grep '...saying what to turn on' 'Message Content intent' "$TMP/err4"
