#!/bin/sh
# approval buttons on Discord, the round trip: oxi-send discord sends an
# approval.ask as buttons, a click comes to oxi-recv discord as an
# INTERACTION_CREATE, which is answered at once (the buttons replaced by
# the choice) and becomes an approval.answer; a button not ours is only
# acknowledged
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 8

dc_start
printf '%s\n' '{"v":1,"type":"approval.ask","id":"01ASK","ref":"call-1","channel":"discord","chat":"500","text":"Run `ls` in the workspace?","choices":["once","always","deny"],"expires":"2030-01-01T00:00:00Z"}' |
	with_timeout 20 oxi-send discord >/dev/null 2>"$TMP/serr"
mid=$(dc_ctl state | python3 -c 'import json, sys
print(json.load(sys.stdin)["messages"]["500"][0]["id"])')
dc_recv "$TMP/out" "$TMP/err"
dc_ctl click '{"message_id":"'"$mid"'","custom_id":"a:01ASK:always","user":{"id":"2001","username":"ann","global_name":"Ann"}}' >/dev/null
wait_until 5 '[ -s "$TMP/out" ]'
iid=$(dc_state callbacks | python3 -c 'import json, sys
print(json.load(sys.stdin)[0]["id"])')
cat >"$TMP/exp" <<EOF2
{"v":1,"type":"approval.answer","id":"discord:main:cb:$iid","ref":"01ASK","choice":"always","from":"2001","from_name":"Ann","channel":"discord","account":"main","chat":"500","ts":"$(jget '["ts"]' "$TMP/out")"}
EOF2
check_json 'a click on "Always allow" is an approval.answer for the ask' \
	"$TMP/out" "$TMP/exp"
check '...answered with an update of the message (type 7), its buttons gone' \
	'dc_state callbacks | grep -q "\"type\": 7" &&
	 [ "$(dc_ctl state | python3 -c "import json, sys
m = json.load(sys.stdin)[\"messages\"][\"500\"][0]
print(len(m[\"components\"]), m[\"content\"].endswith(\"*Approved always*\"))")" = "0 True" ]'

# a guild click: the member's user; a button of another app: type 6
dc_ctl click '{"message_id":"'"$mid"'","custom_id":"a:01ASK:deny","guild_id":"900","user":{"id":"2002","username":"bob"}}' >/dev/null
dc_ctl click '{"message_id":"'"$mid"'","custom_id":"vote:yes"}' >/dev/null
wait_until 5 '[ "$(dc_state callbacks | grep -o "\"type\"" | wc -l)" = 3 ]'
check 'in a guild the member answers' \
	'grep -q "\"choice\":\"deny\",\"from\":\"2002\",\"from_name\":\"bob\"" "$TMP/out"'
check 'a button not ours: acknowledged (type 6), no record' \
	'dc_state callbacks | grep -q "\"type\": 6" && [ "$(wc -l <"$TMP/out")" = 2 ]'
dc_stop
check 'SIGTERM: exit 0' '[ "$RC" = 0 ]'

# a restart: the answers are not written again, nor the buttons answered
n=$(dc_state callbacks | grep -o '"type"' | wc -l)
dc_recv "$TMP/out2" "$TMP/err2"
sleep 0.5
dc_stop
check 'a restart writes no answer again' '[ ! -s "$TMP/out2" ]'
check '...and answers no button again' \
	'[ "$(dc_state callbacks | grep -o "\"type\"" | wc -l)" = "$n" ]'
check 'no warning on the way' '[ ! -s "$TMP/err" ] && [ ! -s "$TMP/serr" ]'
