#!/bin/sh
# oxi-send discord: replies, threads, Markdown, splitting at 2000,
# approval buttons, errors, typing, receipts, once only, and the
# failures: 401 ends us, a refusal fails the one reply, 5xx is retried
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 25

# rec TYPE ID CHAT TEXT [KEY:JSON...]: a record for channel discord
rec() {
	_t=$1 _i=$2 _c=$3 _x=$4
	shift 4
	_more=
	for _kv in "$@"; do
		_more="$_more,\"${_kv%%:*}\":${_kv#*:}"
	done
	printf '{"v":1,"type":"%s","id":"%s","in_reply_to":"discord:main:%s:77","channel":"discord","account":"main","chat":"%s","text":"%s"%s}\n' \
	    "$_t" "$_i" "$_c" "$_c" "$_x" "$_more"
}
tx_run() {
	_in=$1
	shift
	with_timeout 60 oxi-send "$@" discord <"$_in" >"$TMP/rcpt" 2>"$TMP/err"
	RC=$?
}

check_exit 'options of the cli channel: exit 100' 100 \
	'oxi-send -c 1 discord </dev/null'
check_exit 'no token: exit 100' 100 \
	'env -u DISCORD_BOT_TOKEN oxi-send discord </dev/null'

dc_start
long=$(python3 -c "print('\\\\n\\\\n'.join(['Paragraph %d. ' % i + 'Some words here. ' * 40 for i in range(7)]))")
code=$(python3 -c "print('\`\`\`sh\\\\n' + '\\\\n'.join(['echo line %d of a long script' % i for i in range(90)]) + '\\\\n\`\`\`')")
{
	rec msg.out r1 500 'Hello **there**, a_b <@99>'
	rec msg.out r2 500 'in the thread' 'thread:"700"'
	rec msg.out r3 501 "$long"
	rec msg.out r4 501 "$code"
	rec msg.out r5 500 'plain *text*' 'format:"text"'
	printf '%s\n' '{"v":1,"type":"approval.ask","id":"ask1","ref":"c1","channel":"discord","chat":"500","text":"Run `rm -r x`?","choices":["once","always","deny"],"expires":"2030-01-01T00:00:00Z"}'
	printf '%s\n' '{"v":1,"type":"error","ref":"r0","channel":"discord","chat":"500","code":"llm","message":"the model is away"}'
	printf '%s\n' '{"type":"typing","channel":"discord","chat":"502"}'
	printf '%s\n' '{"v":1,"type":"msg.out","id":"r6","channel":"telegram","chat":"500","text":"for telegram"}'
} >"$TMP/in"
tx_run "$TMP/in"
check 'exit 0 at the end of input' '[ "$RC" = 0 ]'
dc_sent POST /channels/500/messages >"$TMP/p500"
check 'a reply: content, no mention pings, a reference to the message answered' \
	'head -n 1 "$TMP/p500" | grep -q "\"allowed_mentions\": {\"parse\": \[\]}" &&
	 head -n 1 "$TMP/p500" | grep -q "\"message_reference\": {\"fail_if_not_exists\": false, \"message_id\": \"77\"}"'
check '...Markdown kept, the rest escaped' \
	'[ "$(dc_msgs 500 | head -n 1)" = "\"Hello **there**, a\\\\_b \\\\<@99>\"" ]'
check 'a reply in a thread goes to the thread' \
	'[ "$(dc_msgs 700)" = "\"in the thread\"" ]'
check 'a long reply: split in parts of 2000 at most' \
	'[ "$(dc_msgs 501 | grep -c "^.Paragraph")" -ge 4 ] &&
	 dc_msgs 501 | python3 -c "import json, sys
sys.exit(any(len(json.loads(l)) > 2000 for l in sys.stdin))"'
check '...at paragraphs, nothing lost' \
	'dc_msgs 501 | grep "^.Paragraph" | python3 -c "import json, sys
parts = [json.loads(l) for l in sys.stdin]
sys.exit(not all(p.endswith(\"here.\") for p in parts) or
         sum(p.count(\"Paragraph\") for p in parts) != 7)"'
check 'a long code block: each part is a whole block' \
	'dc_msgs 501 | grep -v "^.Paragraph" | python3 -c "import json, sys
parts = [json.loads(l) for l in sys.stdin]
sys.exit(len(parts) != 2 or not all(p.startswith(\"\`\`\`sh\\n\") and
         p.endswith(\"\`\`\`\") for p in parts))"'
check 'format text: shown as it is' \
	'dc_msgs 500 | grep -qx "\"plain \\\\\\\\\*text\\\\\\\\\*\""'
dc_ctl state | python3 -c 'import json, sys
for m in json.load(sys.stdin)["messages"]["500"]:
    if m["components"]:
        print(json.dumps(m["components"], sort_keys=True))' >"$TMP/comp"
check 'approval.ask: one row of three buttons, custom_id a:<ask>:<choice>' \
	'grep -q "\"custom_id\": \"a:ask1:once\".*\"custom_id\": \"a:ask1:always\".*\"custom_id\": \"a:ask1:deny\"" "$TMP/comp" &&
	 grep -q "\"label\": \"Allow once\"" "$TMP/comp"'
check 'an error with a chat is shown' \
	'dc_msgs 500 | grep -q "the model is away"'
check 'typing: POST /channels/502/typing' \
	'[ "$(dc_sent POST /channels/502/typing | wc -l)" = 1 ]'
check 'another channel'"'"'s record is not ours' \
	'! dc_msgs 500 | grep -q "for telegram"'
jget '["ref"]' "$TMP/rcpt" | sort >"$TMP/refs"
check 'a receipt per msg.out and error, ok' \
	'[ "$(tr "\n" " " <"$TMP/refs")" = "r0 r1 r2 r3 r4 r5 " ] &&
	 ! grep -q "\"ok\":false" "$TMP/rcpt"'
check '...naming the first part of each' \
	'grep -q "\"ref\":\"r3\".*\"platform_id\":\"501:[0-9]*\"" "$TMP/rcpt"'

# once: the same records again send nothing
n=$(dc_state calls)
tx_run "$TMP/in"
check 'the same records again: nothing sent again' \
	'[ "$(dc_state calls)" = $((n + 2)) ] && [ ! -s "$TMP/rcpt" ]'

# the window of a kill between Discord's answer and the ledger's row:
# the ledger lost, the same reply again: its nonce, enforced, makes none
m=$(dc_msgs 500 | wc -l)
rm -f "$OXI_HOME"/discord-send-main.db*
head -n 1 "$TMP/in" >"$TMP/in1"
tx_run "$TMP/in1"
check 'a part sent again (its ledger row lost): the nonce makes no second message' \
	'[ "$(dc_msgs 500 | wc -l)" = "$m" ] && grep -q "\"ref\":\"r1\".*\"ok\":true" "$TMP/rcpt" &&
	 dc_sent POST /channels/500/messages | tail -n 1 | grep -q "\"enforce_nonce\": true"'

# a refusal fails that reply alone; 5xx is retried
rec msg.out r7 503 'no access' >"$TMP/in2"
rec msg.out r8 504 'after a 500' >>"$TMP/in2"
dc_ctl fail '{"method":"POST","path":"/channels/503","status":403,"code":50001,"message":"Missing Access"}' >/dev/null
dc_ctl fail '{"method":"POST","path":"/channels/504","status":502,"message":"Bad Gateway"}' >/dev/null
tx_run "$TMP/in2"
check 'a 403: that reply fails, its receipt says why' \
	'grep -q "\"ref\":\"r7\".*\"ok\":false.*Missing Access" "$TMP/rcpt"'
check 'a 502: retried, delivered' \
	'[ "$(dc_msgs 504)" = "\"after a 500\"" ] && grep -q "\"ref\":\"r8\".*\"ok\":true" "$TMP/rcpt"'
check_grep '...the retry warned about' \
	'^oxi-send: warning: discord: POST /channels/504/messages: 502 Bad Gateway; r8 again in 1 s$' "$TMP/err"
check 'exit 0: delivery failures are in receipts' '[ "$RC" = 0 ]'

# a refused token: exit 100 before readiness
DISCORD_BOT_TOKEN=another.token-0123456789abcdef with_timeout 10 \
	oxi-send discord </dev/null >/dev/null 2>"$TMP/err3"
check 'a refused token: exit 100' '[ $? = 100 ]'
check 'the token is in no diagnostic' \
	'! grep -q "$DCTOKEN\|another.token" "$TMP/err" "$TMP/err3"'
check 'the sent-ledger is in the state directory' \
	'[ -f "$OXI_HOME/discord-send-main.db" ]'
