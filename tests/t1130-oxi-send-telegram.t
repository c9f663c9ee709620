#!/bin/sh
# oxi-send telegram against a fake Bot API: settings, the model's
# Markdown as the HTML sent (nested, code, links, escaping), records for
# others ignored, bad records, receipts, threads and replies, approval
# buttons, errors shown, typing
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh && . ./tgsend.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 37

# settings
check_exit 'no token: exit 100' 100 \
	'env -u TELEGRAM_BOT_TOKEN oxi-send telegram </dev/null'
check_grep '...saying which variable' \
	'^oxi-send: fatal: TELEGRAM_BOT_TOKEN is not set$' "$TMP/.err"
check_exit 'an option of the cli channel: exit 100' 100 \
	'oxi-send -D telegram </dev/null'
check_exit 'a bad OXI_TELEGRAM_EDIT_INTERVAL: exit 100' 100 \
	'OXI_TELEGRAM_EDIT_INTERVAL=soon oxi-send telegram </dev/null'

tg_start
# Markdown as Telegram HTML, as sent
cat >"$TMP/md" <<'IN'
{"v":1,"type":"msg.out","id":"m1","in_reply_to":"telegram:main:42:7","channel":"telegram","chat":"42","text":"**bold _nested ~~all~~_** and `a < b` & [a \"link\"](https://e.org/?a=1&b=\"q\")"}
{"v":1,"type":"msg.out","id":"m2","channel":"telegram","chat":"42","text":"# Title\n\n```python\nif a < b and c > d:\n    print(\"&\")\n```\n\n- one\n- **two**\n\n> quoted"}
{"v":1,"type":"msg.out","id":"m3","channel":"telegram","chat":"42","text":"<b>not bold</b> <script>alert(1)</script> &amp; &copy; AT&T"}
{"v":1,"type":"msg.out","id":"m4","channel":"telegram","chat":"42","text":"**as is** <i>","format":"text"}
IN
tx_run "$TMP/md"
check 'four replies: exit 0' '[ "$RC" = 0 ]'
texts sendMessage >"$TMP/got"
cat >"$TMP/exp" <<'EXP'
"<b>bold <i>nested <s>all</s></i></b> and <code>a &lt; b</code> &amp; <a href=\"https://e.org/?a=1&amp;b=&quot;q&quot;\">a \"link\"</a>"
"<b>Title</b>\n\n<pre><code class=\"language-python\">if a &lt; b and c &gt; d:\n    print(\"&amp;\")</code></pre>\n\n\u2022 one\n\u2022 <b>two</b>\n\n<blockquote>quoted</blockquote>"
"&lt;b&gt;not bold&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt; &amp; \u00a9 AT&amp;T"
"**as is** &lt;i&gt;"
EXP
check_same 'nested emphasis, code, links with & and quotes, escaping: the HTML sent' \
	"$TMP/got" "$TMP/exp"
check 'every message with parse_mode HTML' \
	'[ "$(tg_calls sendMessage | grep -c "\"parse_mode\": \"HTML\"")" = 4 ]'
cat >"$TMP/exp" <<'EXP'
{"v":1,"type":"receipt","ref":"m1","channel":"telegram","in_reply_to":"telegram:main:42:7","platform_id":"42:1000","ok":true}
{"v":1,"type":"receipt","ref":"m2","channel":"telegram","in_reply_to":null,"platform_id":"42:1001","ok":true}
{"v":1,"type":"receipt","ref":"m3","channel":"telegram","in_reply_to":null,"platform_id":"42:1002","ok":true}
{"v":1,"type":"receipt","ref":"m4","channel":"telegram","in_reply_to":null,"platform_id":"42:1003","ok":true}
EXP
check_json 'a receipt per reply on stdout: chat:message_id' "$TMP/rcpt" "$TMP/exp"
check 'nothing on stderr' '[ ! -s "$TMP/err" ]'
check 'the sent-ledger is in the state directory, in WAL mode' \
	'[ "$(python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(\"PRAGMA journal_mode\").fetchone()[0])" \
	    "$OXI_HOME/telegram-send-main.db")" = wal ]'

# -r: receipts on their own descriptor
tg_clear
out msg.out r1 42 hi >"$TMP/in"
check 'with -r the receipts go to that descriptor, not stdout' \
	'oxi-send -r 3 telegram <"$TMP/in" >"$TMP/o" 3>"$TMP/r" &&
	 [ ! -s "$TMP/o" ] && grep -q "\"ref\":\"r1\"" "$TMP/r"'

# what is not ours
tg_clear
{
	printf '%s\n' '{"v":1,"type":"msg.out","id":"x1","channel":"cli","chat":"42","text":"cli"}'
	printf '%s\n' '{"v":1,"type":"msg.out","id":"x2","channel":"telegram","account":"other","chat":"42","text":"other bot"}'
	printf '%s\n' '{"type":"llm.delta","id":"r","text":"x"}'
	printf '%s\n' '{"v":1,"type":"status","id":"s","channel":"telegram","chat":"42","text":"read_file x"}'
	out msg.out x3 42 mine
} >"$TMP/in"
tx_run "$TMP/in" -v
check 'records for another channel or account, and other types, are ignored' \
	'[ "$(texts sendMessage)" = "\"mine\"" ] && [ "$(wc -l <"$TMP/rcpt")" = 1 ]'
check '...a debug line each with -v' \
	'[ "$(grep -c "ignored" "$TMP/err")" = 4 ]'
check 'the token is never in a diagnostic' '! grep -q "$SECRET_PART" "$TMP/err"'

# bad records
tg_clear
{
	printf '%s\n' '{"v":1,"type":"msg.out","id":"b1","channel":"telegram","text":"no chat"}'
	printf '%s\n' '{"v":1,"type":"msg.draft","channel":"telegram","chat":"42","text":"no id"}'
	printf '%s\n' 'not json'
	out msg.out b2 42 fine
} >"$TMP/in"
tx_run "$TMP/in"
check 'bad records: exit 1, the good one sent' \
	'[ "$RC" = 1 ] && [ "$(texts sendMessage)" = "\"fine\"" ]'
check_lines '...three warnings' 3 "$TMP/err"
check_grep '...a malformed msg.out gets a receipt that says why' \
	'"ref":"b1".*"ok":false,"error":"msg.out record needs \\"chat\\" \(a string\)"' \
	"$TMP/rcpt"
check_lines '...three dead letters' 3 "$OXI_DEADLETTER"

# an empty reply: nothing to send
tg_clear
out msg.out e1 42 '  ' >"$TMP/in"
tx_run "$TMP/in"
check 'an empty text: no call, a receipt that says so' \
	'[ ! -s "$TMP/tglog" ] && grep -q "\"ok\":false,\"error\":\"nothing to send" "$TMP/rcpt"'

# threads and replies
tg_clear
{
	out msg.out t1 -1001 'in a topic' 'thread:"77"'
	out msg.out t2 -1001 'answers 9' 'reply_to:"9"'
	out msg.out t3 42 'private: no reply'
} >"$TMP/in"
tx_run "$TMP/in"
tg_calls sendMessage >"$TMP/calls"
# (chats go at once: their calls in any order)
grep 'in a topic' "$TMP/calls" >"$TMP/c1"
check 'a thread is message_thread_id' \
	'grep -q "\"message_thread_id\": 77," "$TMP/c1"'
check 'in a group the reply answers its message (in_reply_to)' \
	'grep -q "\"reply_parameters\": {\"allow_sending_without_reply\": true, \"message_id\": 7}" "$TMP/c1"'
check 'reply_to names the message answered' \
	'grep "answers 9" "$TMP/calls" | grep -q "\"message_id\": 9}"'
check 'in a private chat a reply answers nothing' \
	'! grep "private: no reply" "$TMP/calls" | grep -q reply_parameters'

# approval questions: buttons
tg_clear
printf '%s\n' '{"v":1,"type":"approval.ask","id":"01JASK","ref":"call1","channel":"telegram","chat":"42","in_reply_to":"telegram:main:42:7","text":"Run '"'"'rm -rf old'"'"' in the workspace?","choices":["once","always","deny"],"expires":"2026-11-26T10:00:00.000Z"}' >"$TMP/in"
tx_run "$TMP/in"
check 'approval.ask: its text, escaped' \
	'[ "$(texts sendMessage)" = "\"Run '"'"'rm -rf old'"'"' in the workspace?\"" ]'
check '...and a button a choice, callback_data a:<ask id>:<choice>' \
	'tg_calls sendMessage | grep -q "\"reply_markup\": {\"inline_keyboard\": \[\[{\"callback_data\": \"a:01JASK:once\", \"text\": \"Allow once\"}, {\"callback_data\": \"a:01JASK:always\", \"text\": \"Always allow\"}, {\"callback_data\": \"a:01JASK:deny\", \"text\": \"Deny\"}\]\]}"'
check '...no receipt for a question' '[ ! -s "$TMP/rcpt" ]'
printf '%s\n' '{"v":1,"type":"approval.ask","id":"01JASK2","ref":"c2","channel":"telegram","chat":"42","text":"Go?","choices":["once","a-very-long-choice-that-does-not-fit-in-sixty-four-bytes-of-data"],"expires":"2026-11-26T10:00:00.000Z"}' >"$TMP/in"
tx_run "$TMP/in"
check 'a choice too long for callback_data has no button, and a warning' \
	'tg_calls sendMessage | tail -n 1 | grep -q "\"inline_keyboard\": \[\[{\"callback_data\": \"a:01JASK2:once\", \"text\": \"Allow once\"}\]\]" &&
	 grep -q "choice 1 has no button" "$TMP/err"'

# errors
tg_clear
{
	printf '%s\n' '{"v":1,"type":"error","ref":"telegram:main:42:8","code":"server","message":"the model is down <500>","retryable":true,"channel":"telegram","chat":"42"}'
	printf '%s\n' '{"v":1,"type":"error","ref":"r9","code":"timeout","message":"no chat named"}'
} >"$TMP/in"
tx_run "$TMP/in"
check 'an error naming a chat is shown there, as plain text' \
	'[ "$(texts sendMessage)" = "\"\\u26a0 the model is down <500>\"" ] &&
	 ! tg_calls sendMessage | grep -q parse_mode'
check '...with a receipt for the message that failed' \
	'grep -q "\"ref\":\"telegram:main:42:8\",\"channel\":\"telegram\",\"in_reply_to\":\"telegram:main:42:8\",\"platform_id\":\"42:[0-9]*\",\"ok\":true" "$TMP/rcpt"'
check 'one naming no chat is a warning' \
	'grep -q "^oxi-send: warning: timeout: no chat named$" "$TMP/err" &&
	 [ "$(wc -l <"$TMP/rcpt")" = 1 ]'

# typing
tg_clear
printf '%s\n' '{"type":"typing","channel":"telegram","chat":"42","thread":"5"}' >"$TMP/in"
tx_run "$TMP/in"
check 'typing is sendChatAction typing, in its thread' \
	'[ "$(tg_calls sendChatAction)" = "{\"action\": \"typing\", \"chat_id\": \"42\", \"message_thread_id\": 5}" ]'
tg_clear
{
	printf '%s\n' '{"type":"typing","channel":"telegram","chat":"42"}'
	out msg.out y1 42 'the answer'
} >"$TMP/in"
tx_run "$TMP/in"
check 'a reply queued behind a typing makes it moot: no typing after the reply' \
	'[ "$(sent | head -n 1 | grep -c sendMessage)" = 1 ] && [ -z "$(tg_calls sendChatAction)" ]'

# refusals
tg_clear
tg_fail '{"method":"sendMessage","chat":"42","code":403,"description":"Forbidden: bot was blocked by the user"}'
{
	out msg.out f1 42 'blocked'
	out msg.out f2 43 'another chat'
} >"$TMP/in"
tx_run "$TMP/in"
check 'a blocked bot (403): a warning and a receipt that says so, exit 0' \
	'[ "$RC" = 0 ] && grep -q "\"ref\":\"f1\".*\"ok\":false,\"error\":\"Forbidden: bot was blocked by the user\"" "$TMP/rcpt" &&
	 grep -q "warning: telegram: msg.out f1 to 42 not delivered: Forbidden" "$TMP/err"'
check '...and the next reply is delivered' \
	'grep -q "\"ref\":\"f2\".*\"ok\":true" "$TMP/rcpt"'
tg_clear
tg_fail '{"method":"sendMessage","code":401,"description":"Unauthorized"}'
out msg.out u1 42 'refused' >"$TMP/in"
tx_run "$TMP/in"
check 'a refused token: exit 100' '[ "$RC" = 100 ]'
check_grep '...saying so, without the token' \
	'^oxi-send: fatal: the bot token was refused \(sendMessage: 401 Unauthorized\): check TELEGRAM_BOT_TOKEN$' \
	"$TMP/err"
check '...the reply stays in the sent-ledger and goes at the next start' \
	'oxi-send telegram </dev/null >"$TMP/rcpt2" 2>"$TMP/err2" &&
	 grep -q "\"ref\":\"u1\".*\"ok\":true" "$TMP/rcpt2"'
done_testing
