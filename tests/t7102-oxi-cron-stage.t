#!/bin/sh
# oxi-cron as a stage: cron.add, cron.list and cron.cancel answered once
# (a tool.result to the fire output, a note in the chat for a command),
# other records passed on byte for byte, a schedule's msg.in on time in
# its maker's chat with the maker's trust, a cancelled one silent
cd "$(dirname "$0")" && . ./lib.sh && . ./cron.sh || exit 1
plan 15

export OXI_CRON_NOW=2026-11-26T09:00:00Z
cron_start
req '{"v":1,"type":"cron.add","id":"c1","when":"in 2s","text":"ping me",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c2","in_reply_to":"telegram:main:7","line":"every 3s drink water",'"$M"'}'
pass='{"v":1,"type":"msg.out","id":"x","channel":"telegram","chat":"42","text":"hi",  "z":[1,2]}'
req "$pass"
wait_until 5 '[ "$(nlines "$TMP/fire")" -ge 2 ]'
check_grep 'a tool request is answered with a tool.result' \
	'^\{"v":1,"type":"tool.result","id":"c1","content":"Scheduled [a-z0-9]{6} \(once\): next Thu 26 Nov 2026 09:00 \(local time\)\.","is_error":false\}$' \
	"$TMP/fire"
check_grep 'a command is answered in its chat, as a note of its message' \
	'"type":"msg.out".*"id":"note:telegram:main:7".*"in_reply_to":"telegram:main:7".*"text":"Scheduled [a-z0-9]{6} \(every 3s\)' \
	"$TMP/out"
check 'other records pass byte for byte' 'grep -qxF "$pass" "$TMP/out"'
wait_until 5 'grep -q "\"text\":\"ping me\"" "$TMP/fire"'
grep '"type":"msg.in"' "$TMP/fire" | grep 'ping me' >"$TMP/ping"
check_lines 'the one-shot fires once' 1 "$TMP/ping"
check 'its msg.in speaks in the chat, as the maker, with the trust' \
	'[ "$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(\" \".join(r[k] for k in (\"channel\",\"account\",\"chat\",\"from\",\"from_name\",\"trust\")))" "$TMP/ping")" = "telegram main 42 42 Ann owner" ]'
sid=$(jget '["cron"]["schedule"]' "$TMP/ping")
check 'its id is the schedule and the due time' \
	'grep -q "\"id\":\"cron:$sid:2026-11-26T09:00:02Z\"" "$TMP/ping"'
wait_until 6 '[ "$(grep -c "drink water" "$TMP/fire")" -ge 2 ]'
check 'an interval fires every 3 seconds' \
	'[ "$(grep -c "drink water" "$TMP/fire")" -ge 2 ]'
every=$(grep '"type":"msg.out"' "$TMP/out" | sed -n 's/.*Scheduled \([a-z0-9]*\) .*/\1/p')

# the list of the chat, then the interval cancelled: silence after
req '{"v":1,"type":"cron.list","id":"l1",'"$M"'}'
wait_until 3 'grep -q "\"id\":\"l1\"" "$TMP/fire"'
check 'cron.list names the live schedule and not the spent one' \
	'grep "\"id\":\"l1\"" "$TMP/fire" | grep -q "$every  next .*every 3s  drink water" &&
	 ! grep "\"id\":\"l1\"" "$TMP/fire" | grep -q "$sid"'
req '{"v":1,"type":"cron.cancel","id":"k1","ref":"'"$every"'","maker":{"channel":"telegram","account":"main","chat":"99","trust":"allowlisted"}}'
req '{"v":1,"type":"cron.cancel","id":"k2","ref":"'"$every"'",'"$M"'}'
wait_until 3 'grep -q "\"id\":\"k2\"" "$TMP/fire"'
check 'another chat cannot cancel it; its own can' \
	'grep "\"id\":\"k1\"" "$TMP/fire" | grep -q "No schedule $every here" &&
	 grep "\"id\":\"k2\"" "$TMP/fire" | grep -q "Cancelled $every"'
n=$(grep -c "drink water" "$TMP/fire")
sleep 4
check 'a cancelled schedule is silent' \
	'[ "$(grep -c "drink water" "$TMP/fire")" = "$n" ]'

# a request read again gets the same answer and makes nothing twice
req '{"v":1,"type":"cron.add","id":"c1","when":"in 1h","text":"again",'"$M"'}'
wait_until 3 '[ "$(grep -c "\"id\":\"c1\"" "$TMP/fire")" -ge 2 ]'
check 'a request id seen before: the same answer again' \
	'[ "$(grep "\"id\":\"c1\"" "$TMP/fire" | sort -u | wc -l)" = 1 ] &&
	 ! oxi-cron -L | grep -q again'

# made after reading outside content: it speaks as external
req '{"v":1,"type":"cron.add","id":"c3","when":"every 1h","text":"check the page","taint":["owner:telegram","web:example.org"],'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c4","when":"at 99:00","text":"x",'"$M"'}'
req '{"v":1,"type":"cron.add","id":"c5"}'
wait_until 3 'grep -q "\"id\":\"c4\"" "$TMP/fire"'
check 'a schedule made by a tainted turn speaks as external' \
	'oxi-cron -L | grep "check the page" | grep -q "\"trust\":\"external\"" &&
	 grep "\"id\":\"c3\"" "$TMP/fire" | grep -q "as external"'
check 'a time it cannot read is an error result' \
	'grep "\"id\":\"c4\"" "$TMP/fire" | grep -q "\"is_error\":true"'

# a beat's turn is quiet: its drafts and an HEARTBEAT_OK reply go no further
req '{"v":1,"type":"msg.draft","id":"reply:cron:heartbeat:T1","in_reply_to":"cron:heartbeat:T1","channel":"telegram","chat":"42","text":"HEART"}'
req '{"v":1,"type":"msg.out","id":"reply:cron:heartbeat:T1","in_reply_to":"cron:heartbeat:T1","channel":"telegram","chat":"42","text":" HEARTBEAT_OK.\n","tokens":9}'
req '{"v":1,"type":"msg.out","id":"reply:cron:heartbeat:T2","in_reply_to":"cron:heartbeat:T2","channel":"telegram","chat":"42","text":"Rain at 3pm: take the umbrella.","tokens":9}'
wait_until 3 'grep -q "Rain at 3pm" "$TMP/out"'
check 'a heartbeat reply with something to say passes; its draft and HEARTBEAT_OK do not' \
	'grep -q "Rain at 3pm" "$TMP/out" && ! grep -q "cron:heartbeat:T1" "$TMP/out"'
cron_stop
check 'a request without a maker is dead-lettered: exit 1 at the end' \
	'grep -q "without id or maker" "$TMP/err" && [ "$CRON_RC" = 1 ] &&
	 grep -q "cron request without id" "$OXI_HOME/deadletter.ndjson"'
