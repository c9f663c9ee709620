#!/bin/sh
# the heartbeat: beats every OXI_HEARTBEAT inside the active hours only,
# in the owner's chat with the owner's trust; through a real oxi-loop
# (the fake model spends 15 tokens a turn) whose replies, passing
# oxi-cron on their way out, carry their tokens: once the day's
# OXI_HEARTBEAT_TOKENS are spent no beat fires until the next day
cd "$(dirname "$0")" && . ./lib.sh && . ./cron.sh || exit 1
plan 7

export OXI_HEARTBEAT=2s OXI_HEARTBEAT_TO=telegram:main:42

# 1. a window of 5 seconds: beats at :00, :02, :04, none before or after
export OXI_HEARTBEAT_HOURS=09:00-09:00:05 OXI_HOME="$TMP/h1"
OXI_CRON_NOW=2026-11-26T08:59:58Z cron_start
sleep 10
cron_stop
grep '"type":"msg.in"' "$TMP/fire" >"$TMP/beats"
check 'three beats inside the active hours, none outside' \
	'[ "$(jget "[\"id\"]" "$TMP/beats" | tr "\n" " ")" = "cron:heartbeat:2026-11-26T09:00:00Z cron:heartbeat:2026-11-26T09:00:02Z cron:heartbeat:2026-11-26T09:00:04Z " ]'
check 'a beat speaks in the owner chat as the owner' \
	'[ "$(jget "[\"chat\"]+r[\"from\"]+r[\"trust\"]+r[\"channel\"]" "$TMP/beats" | sort -u)" = "4242ownertelegram" ]'
check 'with the default question' 'grep -q "HEARTBEAT_OK" "$TMP/beats"'

# 2. the budget: through oxi-loop, 15 tokens a turn, 40 a day
export OXI_HEARTBEAT_HOURS=09:00-10:00 OXI_HEARTBEAT_TOKENS=40 \
	OXI_HOME="$TMP/h2"
mkfifo "$TMP/loopin"
rm -f "$TMP/fire" "$TMP/out" "$TMP/err"
OXI_LLM="python3 $TESTS/fake/llm-stage.py" OXI_TOOL=none \
	oxi-loop -f "$TMP/loop.db" <>"$TMP/loopin" >&7 2>"$TMP/looperr" &
loop=$!
_bgpids="$_bgpids $loop"
OXI_CRON_NOW=2026-11-26T08:59:59Z cron_start -o "$TMP/loopin"
wait_until 12 'grep -q "none until tomorrow" "$TMP/err"'
sleep 2.5
cron_stop
kill "$loop"
grep '"type":"msg.out"' "$TMP/out" >"$TMP/replies"
check 'three beats answered: 45 tokens' \
	'[ "$(wc -l <"$TMP/replies")" = 3 ] &&
	 [ "$(jget "[\"tokens\"]" "$TMP/replies" | tr "\n" " ")" = "15 15 15 " ]'
check 'the replies pass oxi-cron on their way out, answering the beats' \
	'[ "$(jget "[\"in_reply_to\"]" "$TMP/replies" | cut -d: -f1,2 | sort -u)" = "cron:heartbeat" ]'
check 'then no beat: the day is spent' \
	'grep -q "heartbeat: 45 of 40 tokens spent today: none until tomorrow" "$TMP/err" &&
	 [ "$(grep -c "fired cron:heartbeat" "$TMP/err")" = 3 ]'
check 'oxi-cron -L lists no schedule for the heartbeat (it is settings)' \
	'[ -z "$(oxi-cron -L)" ]'
