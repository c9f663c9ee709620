#!/bin/sh
# oxi-send slack against the fake Slack: settings and tokens, the
# model's Markdown as the mrkdwn sent, threads, receipts, long replies
# split, approval buttons, errors shown, refusals, 429 and 5xx retried,
# each record delivered once across restarts, drafts by chat.update
cd "$(dirname "$0")" && . ./lib.sh && . ./sk.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 26

# out TYPE ID CHAT TEXT [MEMBER...]: a record on stdout
out() {
	_t=$1 _i=$2 _c=$3 _x=$4
	shift 4
	_more=
	for _kv in "$@"; do
		_more="$_more,$_kv"
	done
	printf '{"v":1,"type":"%s","id":"%s","in_reply_to":"slack:main:%s:1700000000.000007","channel":"slack","account":"main","chat":"%s","text":"%s"%s}\n' \
	    "$_t" "$_i" "$_c" "$_c" "$_x" "$_more"
}
# tx_run IN [ARGS]: oxi-send ARGS slack < IN; receipts in $TMP/rcpt
tx_run() {
	_in=$1
	shift
	: >"$TMP/sklog"
	with_timeout 60 oxi-send "$@" slack <"$_in" >"$TMP/rcpt" 2>"$TMP/err"
	RC=$?
}
texts() {
	sk_calls "$1" | python3 -c 'import json, sys
for l in sys.stdin:
    print(json.dumps(json.loads(l).get("text")))'
}

check_exit 'no bot token: exit 100' 100 \
	'env -u SLACK_BOT_TOKEN oxi-send slack </dev/null'
check_grep '...saying which variable' \
	'^oxi-send: fatal: SLACK_BOT_TOKEN is not set$' "$TMP/.err"
check_exit 'an option of the cli channel: exit 100' 100 \
	'oxi-send -D slack </dev/null'
check_exit 'a bad OXI_SLACK_EDIT_INTERVAL: exit 100' 100 \
	'OXI_SLACK_EDIT_INTERVAL=soon oxi-send slack </dev/null'

sk_start
check_exit 'a bot token Slack refuses: exit 100 before reading' 100 \
	'SLACK_BOT_TOKEN=xoxb-0000-another-one timeout 10 oxi-send slack </dev/null'
check_grep '...saying so' 'bot token was refused.*SLACK_BOT_TOKEN' "$TMP/.err"

# Markdown as mrkdwn
cat >"$TMP/md" <<'IN'
{"v":1,"type":"msg.out","id":"m1","in_reply_to":"slack:main:C1:1700000000.000007","channel":"slack","chat":"C1","text":"**bold _nested ~~all~~_** and `a < b` & [a link](https://e.org/?a=1&b=2)"}
{"v":1,"type":"msg.out","id":"m2","channel":"slack","chat":"D1","text":"# Title\n\n```python\nif a < b:\n    print(\"&\")\n```\n\n- one\n- **two**\n\n> quoted\n> twice"}
{"v":1,"type":"msg.out","id":"m3","channel":"slack","chat":"D1","text":"<@U1> <!channel> <https://evil|click> &amp;"}
{"v":1,"type":"msg.out","id":"m4","channel":"slack","chat":"D1","thread":"1700000000.000001","text":"**as is** <i>","format":"text"}
IN
tx_run "$TMP/md"
check 'four replies: exit 0' '[ "$RC" = 0 ]'
texts chat.postMessage >"$TMP/got"
cat >"$TMP/exp" <<'EXP'
"*bold _nested ~all~_* and `a &lt; b` &amp; <https://e.org/?a=1&amp;b=2|a link>"
"*Title*\n\n```\nif a &lt; b:\n    print(\"&amp;\")\n```\n\n\u2022 one\n\u2022 *two*\n\n> quoted\n> twice"
"&lt;@U1&gt; &lt;!channel&gt; <https://evil%7Cclick|https://evil|click> &amp;"
"**as is** &lt;i&gt;"
EXP
check_same 'emphasis, code, links, lists, quotes; &, < and > escaped so no mention or broadcast forms, a | in a link target encoded: the mrkdwn sent' \
	"$TMP/got" "$TMP/exp"
check 'threads: a reply in a channel goes under the message it answers, in a DM not, a thread given is kept' \
	'[ "$(sk_calls chat.postMessage | python3 -c "import json,sys
print(\" \".join(str(json.loads(l).get(\"thread_ts\")) for l in sys.stdin))")" = "1700000000.000007 None None 1700000000.000001" ]'
cat >"$TMP/exp" <<'EXP'
{"v":1,"type":"receipt","ref":"m1","channel":"slack","in_reply_to":"slack:main:C1:1700000000.000007","platform_id":"C1:1700000000.000001","ok":true}
{"v":1,"type":"receipt","ref":"m2","channel":"slack","in_reply_to":null,"platform_id":"D1:1700000000.000002","ok":true}
{"v":1,"type":"receipt","ref":"m3","channel":"slack","in_reply_to":null,"platform_id":"D1:1700000000.000003","ok":true}
{"v":1,"type":"receipt","ref":"m4","channel":"slack","in_reply_to":null,"platform_id":"D1:1700000000.000004","ok":true}
EXP
check_json 'a receipt per reply on stdout: channel:ts' "$TMP/rcpt" "$TMP/exp"
check 'nothing on stderr' '[ ! -s "$TMP/err" ]'

# a long reply, split
python3 -c 'print("{\"v\":1,\"type\":\"msg.out\",\"id\":\"long\",\"channel\":\"slack\",\"chat\":\"D1\",\"text\":\"%s\"}" % "\\n\\n".join(("Paragraph %d. " % i) + "word " * 60 for i in range(40)))' >"$TMP/long"
tx_run "$TMP/long"
check 'a reply of 12 KB: several messages, each at most 3000 characters, cut between paragraphs' \
	'texts chat.postMessage | python3 -c "import json,sys
t = [json.loads(l) for l in sys.stdin]
assert len(t) >= 4, len(t)
assert all(len(x) <= 3000 and x.startswith(\"Paragraph\") for x in t)
assert sum(x.count(\"Paragraph\") for x in t) == 40"'
check '...one receipt, naming the first' \
	'[ "$(wc -l <"$TMP/rcpt")" = 1 ] && grep -q "\"ok\":true" "$TMP/rcpt"'

# approval buttons
printf '%s\n' '{"v":1,"type":"approval.ask","id":"01JASK","ref":"call1","channel":"slack","chat":"D1","text":"Run `ls` in the workspace?","choices":["once","always","deny"],"expires":"2030-01-01T00:00:00Z"}' >"$TMP/ask"
tx_run "$TMP/ask"
check 'approval.ask: Block Kit buttons, each value a:<ask id>:<choice>' \
	'[ "$(sk_calls chat.postMessage | python3 -c "import json,sys
p = json.loads(sys.stdin.readline())
b = p[\"blocks\"]
assert b[0][\"text\"][\"type\"] == \"mrkdwn\" and b[1][\"type\"] == \"actions\"
print(\" \".join(e[\"value\"] + \"=\" + e[\"text\"][\"text\"] for e in b[1][\"elements\"]))")" = "a:01JASK:once=Allow once a:01JASK:always=Always allow a:01JASK:deny=Deny" ]'
check '...and no receipt for it' '[ ! -s "$TMP/rcpt" ]'

# errors shown; refusals
{
	printf '%s\n' '{"v":1,"type":"error","ref":"m9","channel":"slack","chat":"D1","code":"llm","message":"the model is down","retryable":true}'
	out msg.out gone X404 'to a channel that is not there'
	out msg.out after D1 'the next one'
} >"$TMP/in"
tx_run "$TMP/in"
check 'an error with a chat is shown as a warning' \
	'[ "$(texts chat.postMessage | head -1)" = "\":warning: the model is down\"" ]'
check '...with a receipt for the record that failed' \
	'grep -q "\"ref\":\"m9\".*\"ok\":true" "$TMP/rcpt"'
check 'channel_not_found: a receipt with ok false saying why, and the next one goes' \
	'grep "\"ref\":\"gone\"" "$TMP/rcpt" | grep "\"ok\":false" |
	 grep -q "\"error\":\"chat.postMessage: 200 channel_not_found\"" &&
	 grep -q "\"ref\":\"after\".*\"ok\":true" "$TMP/rcpt" && [ "$RC" = 0 ]'

# 429 and 5xx
sk_post fail '{"method":"chat.postMessage","status":429,"error":"ratelimited","retry_after":1,"count":1}' >/dev/null
sk_post fail '{"method":"chat.postMessage","status":503,"error":"service_unavailable","count":1}' >/dev/null
out msg.out r1 D1 'after a 429 and a 503' >"$TMP/in"
_t0=$(date +%s%N)
tx_run "$TMP/in"
_ms=$((($(date +%s%N) - _t0) / 1000000))
check 'a 429 waits for its Retry-After, a 503 is retried: delivered once' \
	'[ "$(sk_calls chat.postMessage | wc -l)" = 3 ] && [ "$_ms" -ge 1000 ] &&
	 [ "$(grep -c "\"ok\":true" "$TMP/rcpt")" = 1 ]'
check '...each warned about' '[ "$(grep -c "again in" "$TMP/err")" = 2 ]'

# once: a record seen again, in the same input or after a restart
out msg.out o1 D1 'once only' >"$TMP/in"
cat "$TMP/in" "$TMP/in" >"$TMP/in2"
tx_run "$TMP/in2"
check 'the same id twice in the input: sent once' \
	'[ "$(sk_calls chat.postMessage | wc -l)" = 1 ]'
tx_run "$TMP/in"
check '...and not again after a restart' \
	'[ "$(sk_calls chat.postMessage | wc -l)" = 0 ] && [ ! -s "$TMP/rcpt" ]'

# drafts: posted once, then updated in place, the reply too
{
	out msg.draft d1 D1 'Hel'
	out msg.draft d1 D1 'Hello wor'
	out msg.out d1 D1 'Hello world, done'
} >"$TMP/in"
OXI_SLACK_EDIT_INTERVAL=0.3 with_timeout 30 sh -c '( head -1 "$0"; sleep 0.5; sed -n 2p "$0"; sleep 0.6; sed -n 3p "$0" ) | oxi-send slack >"$1" 2>"$2"' \
	"$TMP/in" "$TMP/rcpt" "$TMP/err"
check 'drafts: the first posted, the next updated in place, the reply updates the same message' \
	'[ "$(sk_calls chat.postMessage | wc -l)" -ge 1 ] &&
	 [ "$(sk_state messages | python3 -c "import json,sys
m = json.load(sys.stdin)[\"D1\"]
print(m[-1][\"text\"])")" = "Hello world, done" ] &&
	 [ "$(sk_calls chat.update | tail -1 | python3 -c "import json,sys
print(json.load(sys.stdin)[\"text\"])")" = "Hello world, done" ]'
check '...one message for the draft and the reply' \
	'[ "$(sk_calls chat.postMessage | python3 -c "import json,sys
print(sum(1 for l in sys.stdin if json.loads(l)[\"text\"].startswith(\"Hel\")))")" = 1 ]'
check '...and its receipt names that message' \
	'grep -q "\"ref\":\"d1\".*\"platform_id\":\"D1:" "$TMP/rcpt"'

check 'no token in any diagnostic' \
	'! grep -q -e "$SECRET_PART" "$TMP"/err "$TMP/.err" "$TMP/fake.log"'
done_testing
