#!/bin/sh
# a turn done again makes its schedule once: oxi-cron takes a cron.add
# with the msg of a schedule it made, the same text, zone and time (a
# one-shot's instant later by at most the time since), as that schedule
# asked again and answers with it; other texts, times or messages make new
# ones.  Then oxi-loop killed -9 after it took a schedule's tool.result,
# before its turn ended: the turn done again (a new call id) gets the
# schedule made the first time, and the chat has one schedule.
cd "$(dirname "$0")" && . ./lib.sh && . ./cron.sh || exit 1
plan 7

# 1. oxi-cron alone
export OXI_HOME="$TMP/h1"
cron_start
req '{"v":1,"type":"cron.add","id":"c1","msg":"telegram:main:9","when":"in 2h","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c2","msg":"telegram:main:9","when":"in 120 minutes","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c3","msg":"telegram:main:9","when":"every 2h","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c4","msg":"telegram:main:9","when":"every 7200s","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c5","msg":"telegram:main:9","when":"in 2h","text":"coffee",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c6","msg":"telegram:main:9","when":"in 5h","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c7","msg":"telegram:main:8","when":"in 2h","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c8","when":"in 2h","text":"tea",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c9","when":"in 2h","text":"tea",'"$M"'}'
wait_until 10 '[ "$(grep -c "\"c9\"" "$TMP/fire" 2>/dev/null)" = 1 ]'
cron_stop
sid() {	# the schedule id the answer to request $1 names
	grep "\"id\":\"$1\"" "$TMP/fire" | sed -n 's/.*Scheduled \([a-z0-9]*\) .*/\1/p'
}
check 'the same message, text and time: the schedule made, answered again' \
	'[ -n "$(sid c1)" ] && [ "$(sid c1)" = "$(sid c2)" ] &&
	 [ -n "$(sid c3)" ] && [ "$(sid c3)" = "$(sid c4)" ] &&
	 [ "$(sid c1)" != "$(sid c3)" ]'
check 'another text, time or message: a new schedule' \
	'[ -n "$(sid c5)" ] && [ -n "$(sid c6)" ] && [ -n "$(sid c7)" ] &&
	 [ "$(printf "%s\n" "$(sid c1)" "$(sid c5)" "$(sid c6)" "$(sid c7)" | sort -u | wc -l)" = 4 ]'
check 'without a msg, every request its own schedule' \
	'[ -n "$(sid c8)" ] && [ -n "$(sid c9)" ] && [ "$(sid c8)" != "$(sid c9)" ]'
check 'seven schedules in all' '[ "$(oxi-cron -L | wc -l)" = 7 ]'

# 2. oxi-loop killed between the tool.result and the end of its turn
export OXI_HOME="$TMP/h2" OXI_CRON=on OXI_TOOL=none \
	FAKE_LLM_LOG="$TMP/llmlog" FAKE_LLM_DELAY=1 \
	OXI_LLM="python3 $TESTS/fake/llm-stage.py"
: >"$TMP/out"; : >"$TMP/fire"
mkfifo "$TMP/loopin"
exec 8<>"$TMP/loopin"
loop_start() {
	oxi-loop -f "$TMP/loop.db" <&8 >&7 2>>"$TMP/looperr" &
	LOOP=$!
	_bgpids="$_bgpids $LOOP"
}
loop_start
cron_start -o "$TMP/loopin"
printf '%s\n' '{"v":1,"type":"msg.in","id":"telegram:main:1","channel":"telegram","account":"main","chat":"42","from":"42","from_name":"Ann","trust":"owner","text":"schedule in 1h | stretch"}' >&8
# the second request of the turn carries the tool's result: the loop has
# taken it, and waits for the model's answer (a second away)
wait_until 10 '[ "$(nlines "$TMP/llmlog")" -ge 2 ]'
kill -9 "$LOOP"
wait "$LOOP" 2>/dev/null
first=$(oxi-cron -L)
check 'killed after the tool.result, before the reply' \
	'[ "$(printf "%s\n" "$first" | grep -c stretch)" = 1 ] &&
	 ! grep -q "\"type\":\"msg.out\".*Scheduled" "$TMP/out"'
loop_start
wait_until 15 'grep "\"type\":\"msg.out\"" "$TMP/out" | grep -q "Scheduled"'
cron_stop
kill "$LOOP"
wait "$LOOP" 2>/dev/null
id=$(printf '%s\n' "$first" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
check 'the turn done again: a new call, the same schedule in its answer' \
	'[ "$(nlines "$TMP/llmlog")" -ge 4 ] &&
	 grep -q "schedule $id of telegram:main:1 asked again" "$TMP/err" &&
	 grep "\"type\":\"msg.out\"" "$TMP/out" | grep -q "The tool said: Scheduled $id "'
check 'and the chat has one schedule' \
	'[ "$(oxi-cron -L | grep -c stretch)" = 1 ]'
