#!/bin/sh
# oxi-recv slack over Socket Mode against the fake Slack: settings and
# tokens, DMs, mentions in channels, threads, what is dropped (bots, our
# own, edits, channels without a mention), OXI_SLACK_CHANNELS=all, every
# envelope acknowledged and a retry taken once, button clicks as
# approval.answer, files, the wire samples of ../shared
cd "$(dirname "$0")" && . ./lib.sh && . ./sk.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 30

# settings and tokens
check_exit 'no app token: exit 100' 100 \
	'env -u SLACK_APP_TOKEN oxi-recv slack </dev/null'
check_grep '...saying which variable' \
	'^oxi-recv: fatal: SLACK_APP_TOKEN is not set$' "$TMP/.err"
check_exit 'no bot token: exit 100' 100 \
	'env -u SLACK_BOT_TOKEN oxi-recv slack </dev/null'
check_exit 'an app token of the wrong form: exit 100' 100 \
	'SLACK_APP_TOKEN=xoxb-1234567890 oxi-recv slack </dev/null'
check_nogrep '...never printed' 'xoxb-1234567890' "$TMP/.err"
check_exit 'a bad OXI_SLACK_CHANNELS: exit 100' 100 \
	'OXI_SLACK_CHANNELS=some oxi-recv slack </dev/null'
check_exit 'an option of the cli channel: exit 100' 100 \
	'oxi-recv -c 42 slack </dev/null'

sk_start
check_exit 'an app token Slack refuses: exit 100' 100 \
	'SLACK_APP_TOKEN=xapp-1-A0APP-not-this-one timeout 10 oxi-recv slack </dev/null'
check_grep '...saying so' 'app token was refused.*SLACK_APP_TOKEN' "$TMP/.err"

# DMs, mentions, threads, what is dropped
: >"$TMP/sklog"
{
	ev D1 U1 1700000001.000100 'hello &lt;b&gt; &amp; <https://x.org|x> <@U2> <#C9|general> <!here>' '"channel_type":"im"'
	printf '%s\n' '{"event":{"type":"app_mention","channel":"C1","user":"U1","ts":"1700000002.000200","thread_ts":"1700000000.000001","text":"<@U0BOT> do it"}}'
	ev C1 U1 1700000003.000300 'no mention here' '"channel_type":"channel"'
	ev D1 U0BOT 1700000004.000400 'our own' '"channel_type":"im"'
	ev D1 U3 1700000005.000500 'a bot' '"channel_type":"im"' '"bot_id":"B9"'
	ev D1 U1 1700000006.000600 'an edit' '"channel_type":"im"' '"subtype":"message_changed"'
	ev D1 U1 1700000007.000700 'in a thread' '"channel_type":"im"' '"thread_ts":"1700000001.000100"'
} >"$TMP/ev"
sk_feed "$TMP/ev"
sk_recv "$TMP/out" "$TMP/err"
check 'every envelope acknowledged within 3 s' 'sk_wait 3'
sk_stop
check 'SIGTERM: exit 0' '[ "$RC" = 0 ]'
cat >"$TMP/exp" <<'EXP'
{"v":1,"type":"msg.in","id":"slack:main:D1:1700000001.000100","channel":"slack","account":"main","chat":"D1","thread":null,"from":"U1","text":"hello <b> & x (https://x.org) @U2 #general @here","ts":"2023-11-14T22:13:21.000Z","reply_to":null,"attachments":[],"trust":"user","message_id":"1700000001.000100","chat_type":"private"}
{"v":1,"type":"msg.in","id":"slack:main:C1:1700000002.000200","channel":"slack","account":"main","chat":"C1","thread":"1700000000.000001","from":"U1","text":"do it","ts":"2023-11-14T22:13:22.000Z","reply_to":null,"attachments":[],"trust":"user","message_id":"1700000002.000200","chat_type":"channel"}
{"v":1,"type":"msg.in","id":"slack:main:D1:1700000007.000700","channel":"slack","account":"main","chat":"D1","thread":"1700000001.000100","from":"U1","text":"in a thread","ts":"2023-11-14T22:13:27.000Z","reply_to":null,"attachments":[],"trust":"user","message_id":"1700000007.000700","chat_type":"private"}
EXP
check_json 'a DM, a mention in a thread of a channel, a DM in a thread: the records; a channel without a mention, our own, a bot, an edit: none' \
	"$TMP/out" "$TMP/exp"
check 'nothing on stderr' '[ ! -s "$TMP/err" ]'
check 'the ledger is in the state directory' '[ -s "$OXI_HOME/slack-main.db" ]'
check 'Socket Mode was opened with the app token, auth.test with the bot token' \
	'[ "$(sk_calls apps.connections.open | wc -l)" = 1 ] &&
	 [ "$(sk_calls auth.test | wc -l)" = 1 ]'

# a retry: a new envelope, the same event; a restart writes nothing again
python3 -c 'import json
e = {"envelope_id": "again-1", "type": "events_api", "retry_attempt": 1,
     "retry_reason": "timeout", "payload": {"type": "event_callback",
     "event_id": "Ev000001", "event": {"type": "message", "channel": "D1",
     "channel_type": "im", "user": "U1", "ts": "1700000001.000100",
     "text": "hello again"}}}
print(json.dumps(e))' >"$TMP/retry"
sk_feed "$TMP/retry"
sk_recv "$TMP/out2" "$TMP/err2"
sk_wait 3
sk_stop
check 'a retry of an event written already is acknowledged and not written again' \
	'[ ! -s "$TMP/out2" ] && [ "$(sk_state pending)" = 0 ]'

# OXI_SLACK_CHANNELS=all
{
	ev C2 U1 1700000010.000100 'a channel message' '"channel_type":"channel"'
	printf '%s\n' '{"event":{"type":"app_mention","channel":"C2","user":"U1","ts":"1700000011.000100","text":"<@U0BOT> hi"}}'
	ev C2 U1 1700000011.000100 '<@U0BOT> hi' '"channel_type":"channel"'
} >"$TMP/ev"
sk_feed "$TMP/ev"
OXI_SLACK_CHANNELS=all sk_recv "$TMP/out" "$TMP/err"
sk_wait 3
sk_stop
check 'OXI_SLACK_CHANNELS=all: every message of a channel, a mention once' \
	'[ "$(jget "[\"text\"]" "$TMP/out" | tr "\n" "|")" = "a channel message|hi|" ]'

# a click on a button of oxi-send
printf '%s\n' '{"click":{"type":"block_actions","user":{"id":"U1","username":"ann"},"channel":{"id":"C1"},"container":{"type":"message","channel_id":"C1","thread_ts":"1700000000.000001"},"message":{"ts":"1700000000.000009","thread_ts":"1700000000.000001"},"actions":[{"action_id":"a:0","value":"a:01JASK:once","action_ts":"1700000020.123456"}]}}' \
	'{"click":{"type":"block_actions","user":{"id":"U1"},"channel":{"id":"C1"},"actions":[{"action_id":"x","value":"someone else","action_ts":"1700000021.1"}]}}' \
	>"$TMP/ev"
sk_feed "$TMP/ev"
sk_recv "$TMP/out" "$TMP/err"
sk_wait 3
sk_stop
cat >"$TMP/exp" <<'EXP'
{"v":1,"type":"approval.answer","id":"slack:main:cb:U1:1700000020.123456","ref":"01JASK","choice":"once","from":"U1","from_name":"ann","channel":"slack","account":"main","chat":"C1","thread":"1700000000.000001","ts":"2023-11-14T22:13:40.123Z"}
EXP
check_json 'a click on our button: an approval.answer; on another: none' \
	"$TMP/out" "$TMP/exp"

# the ask's message, once answered, shows the answer instead of buttons
curl -sS -H "Authorization: Bearer $BOT_TOKEN" -H 'Content-Type: application/json' \
	--data '{"channel":"C7","text":"Run ls?","blocks":[{"type":"actions","elements":[]}]}' \
	"$OXI_SLACK_API/chat.postMessage" >"$TMP/posted"
ats=$(jget '["ts"]' "$TMP/posted")
printf '{"click":{"type":"block_actions","user":{"id":"U1"},"channel":{"id":"C7"},"message":{"ts":"%s","text":"Run ls?"},"actions":[{"value":"a:01JASK2:deny","action_ts":"1700000022.5"}]}}\n' "$ats" >"$TMP/ev"
sk_feed "$TMP/ev"
sk_recv "$TMP/out" "$TMP/err"
sk_wait 3
wait_until 5 'grep -q approval.answer "$TMP/out"'
sk_stop
check '...the ask'"'"'s message updated: its text, then who chose what; no buttons' \
	'[ "$(sk_calls chat.update | python3 -c "import json, sys
p = json.loads(sys.stdin.readlines()[-1])
assert p[\"channel\"] == \"C7\" and p[\"ts\"] == \"$ats\"
print(\"|\".join(b[\"type\"] for b in p[\"blocks\"]), p[\"blocks\"][1][\"elements\"][0][\"text\"])")" = "section|context Denied by <@U1>" ]'

# files: fetched on demand for a message we take, with the bot token
printf '{"id":"F1","name":"notes.txt","data_b64":"%s"}' "$(printf 'file body\n' | base64 -w0)" >"$TMP/f1"
sk_ctl file "$TMP/f1" >/dev/null
printf '{"id":"F2","name":"big.bin","data_b64":"%s"}' "$(head -c 3000 /dev/zero | base64 -w0)" >"$TMP/f2"
sk_ctl file "$TMP/f2" >/dev/null
printf '%s\n' "{\"event\":{\"type\":\"message\",\"subtype\":\"file_share\",\"channel\":\"D1\",\"channel_type\":\"im\",\"user\":\"U1\",\"ts\":\"1700000030.000100\",\"text\":\"two files\",\"files\":[{\"id\":\"F1\",\"name\":\"notes.txt\",\"mimetype\":\"text/plain\",\"size\":10,\"url_private_download\":\"http://127.0.0.1:$PORT/files/F1/notes.txt\"},{\"id\":\"F2\",\"name\":\"big.bin\",\"mimetype\":\"audio/ogg\",\"size\":3000,\"url_private_download\":\"http://127.0.0.1:$PORT/files/F2/big.bin\"},{\"id\":\"F3\",\"name\":\"evil.png\",\"mimetype\":\"image/png\",\"size\":10,\"url_private_download\":\"http://127.0.0.2:9/steal\"}]}}" >"$TMP/ev"
sk_feed "$TMP/ev"
OXI_SLACK_FILE_MAX=2000 sk_recv "$TMP/out" "$TMP/err"
sk_wait 3
sk_stop
check 'a file is fetched into $OXI_HOME/files/slack, mode 0600' \
	'[ "$(cat "$OXI_HOME/files/slack/F1.txt")" = "file body" ] &&
	 [ "$(stat -c %a "$OXI_HOME/files/slack/F1.txt")" = 600 ] &&
	 [ "$(jget "[\"attachments\"][0][\"path\"]" "$TMP/out")" = "$OXI_HOME/files/slack/F1.txt" ]'
check '...as a document with its name, mime type, size and file id' \
	'[ "$(jget "[\"attachments\"][0]" "$TMP/out" | python3 -c "import json,sys; a=json.load(sys.stdin); print(a[\"kind\"],a[\"mime\"],a[\"name\"],a[\"size\"],a[\"file_id\"])")" = "document text/plain notes.txt 10 F1" ]'
check 'one over OXI_SLACK_FILE_MAX is not fetched: an error says why' \
	'jget "[\"attachments\"][1][\"error\"]" "$TMP/out" | grep -q "too big" &&
	 [ "$(jget "[\"attachments\"][1][\"kind\"]" "$TMP/out")" = audio ] &&
	 [ ! -e "$OXI_HOME/files/slack/F2.bin" ]'
check 'a URL that is not Slack'"'"'s gets no token: not fetched' \
	'jget "[\"attachments\"][2][\"error\"]" "$TMP/out" | grep -q "not a Slack file URL"'
check 'the bot token fetched one file only' \
	'[ "$(sk_calls file | wc -l)" = 1 ]'

# the wire samples: every envelope acknowledged, the mention taken
if [ -n "$SHARED" ] && [ -f "$SHARED/wire/slack/socket_mode_envelopes.jsonl" ]; then
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    f = json.loads(l)["frame"]
    if "envelope_id" in f:
        print(json.dumps({"frame": f}))' \
	    "$SHARED/wire/slack/socket_mode_envelopes.jsonl" >"$TMP/samples"
	rm -f "$OXI_HOME/slack-main.db"*
	sk_feed "$TMP/samples"
	sk_recv "$TMP/out" "$TMP/err"
	check 'the wire samples: all five envelopes acknowledged (one of 67 KB)' 'sk_wait 5'
	sk_stop
	check '...the app_mention a msg.in; the slash command, the shortcut, the modal'"'"'s select, and the message event with the same event id skipped' \
	    '[ "$(jget "[\"id\"]" "$TMP/out")" = "slack:main:C111:1610241741.000200" ] &&
	     [ "$(jget "[\"text\"]" "$TMP/out")" = "@U111" ]'
	check '...and exit 0' '[ "$RC" = 0 ]'
else
	skip_all "no ../shared/wire/slack"
fi

# the secrets
check 'no token in any diagnostic' \
	'! grep -q -e "$SECRET_PART" -e "$APP_PART" "$TMP"/err* "$TMP/.err" "$TMP/fake.log"'
check 'no token in the fake'"'"'s log of calls' \
	'! grep -q -e "$SECRET_PART" -e "$APP_PART" "$TMP/sklog"'
check 'the fake saw no protocol error' '! grep -q Traceback "$TMP/fake.log"'
done_testing
