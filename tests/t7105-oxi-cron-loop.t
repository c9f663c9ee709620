#!/bin/sh
# oxi-loop and oxi-cron together (OXI_CRON=on): the model's schedule
# tools become cron.* records, oxi-cron's tool.result comes back on the
# loop's input; /remind and /schedules are answered by oxi-cron in the
# chat; what a schedule says at its time is answered by the loop in the
# maker's chat.  Without OXI_CRON, no schedule tools and /remind says so.
cd "$(dirname "$0")" && . ./lib.sh && . ./cron.sh || exit 1
plan 9

mkfifo "$TMP/loopin"
exec 8<>"$TMP/loopin"
export OXI_CRON=on OXI_TOOL=none FAKE_LLM_LOG="$TMP/llmlog" \
	OXI_LLM="python3 $TESTS/fake/llm-stage.py"
oxi-loop -f "$TMP/loop.db" <&8 >&7 2>"$TMP/looperr" &
_bgpids="$_bgpids $!"
cron_start -o "$TMP/loopin"
say() {	# say ID TEXT: a message from Ann, the owner, in chat 42
	printf '{"v":1,"type":"msg.in","id":"telegram:main:%s","channel":"telegram","account":"main","chat":"42","from":"42","from_name":"Ann","trust":"owner","text":"%s"}\n' "$1" "$2" >&8
}
replies() {	# the texts of the msg.out records answering $1
	grep '"type":"msg.out"' "$TMP/out" | grep "\"in_reply_to\":\"$1" |
		python3 -c 'import json,sys; [print(json.loads(l)["text"]) for l in sys.stdin]'
}

say 1 'schedule in 2s | say hello'
wait_until 10 'replies telegram:main:1 | grep -q Scheduled'
check 'the model schedules through its tool, and reads the answer' \
	'replies telegram:main:1 | grep -qE "^The tool said: Scheduled [a-z0-9]{6} \(once\): next "'
check 'the request had the schedule tools' \
	'head -1 "$TMP/llmlog" | grep -q "\"name\":\"schedule_add\"" &&
	 head -1 "$TMP/llmlog" | grep -q "\"name\":\"schedule_cancel\""'
wait_until 10 'replies cron: | grep -q "echo: say hello"'
check 'at its time the loop answers the schedule in the maker chat' \
	'grep "\"type\":\"msg.out\"" "$TMP/out" | grep "echo: say hello" |
	 grep "\"chat\":\"42\"" | grep -q "\"in_reply_to\":\"cron:"'

say 2 '/remind in 1s tea'
wait_until 10 'replies cron: | grep -q "echo: Reminder: tea"'
check '/remind is answered by oxi-cron in the chat' \
	'replies telegram:main:2 | grep -qE "^Scheduled [a-z0-9]{6} \(once\)"'
check 'and reminds at its time' 'replies cron: | grep -q "echo: Reminder: tea"'

say 3 'schedule every 1h | stretch'
wait_until 10 'replies telegram:main:3 | grep -q Scheduled'
say 4 '/schedules'
wait_until 10 'replies telegram:main:4 | grep -q stretch'
id=$(replies telegram:main:4 | sed -n 's/^\([a-z0-9]*\)  next.*stretch.*/\1/p')
check '/schedules lists the chat'"'"'s live schedules' '[ -n "$id" ] &&
	 ! replies telegram:main:4 | grep -q "say hello"'
say 5 "unschedule $id"
wait_until 10 'replies telegram:main:5 | grep -q Cancelled'
check 'the model cancels through its tool' \
	'replies telegram:main:5 | grep -q "^The tool said: Cancelled $id\.$" &&
	 [ -z "$(oxi-cron -L)" ]'

# without OXI_CRON: no schedule tools, and /remind says why
unset OXI_CRON
printf '%s\n' '{"v":1,"type":"msg.in","id":"x:1","channel":"cli","chat":"c","from":"u","text":"/remind in 1s tea"}' \
	'{"v":1,"type":"msg.in","id":"x:2","channel":"cli","chat":"c","from":"u","text":"hello"}' |
	FAKE_LLM_LOG="$TMP/llmlog2" with_timeout 20 oxi-loop -f "$TMP/db2" \
	>"$TMP/off" 2>/dev/null
check '/remind without oxi-cron: the loop says schedules are off' \
	'grep "\"in_reply_to\":\"x:1\"" "$TMP/off" | grep -q "Schedules are off"'
check 'and the model has no schedule tools' \
	'[ -s "$TMP/llmlog2" ] && ! grep -q schedule_add "$TMP/llmlog2"'
