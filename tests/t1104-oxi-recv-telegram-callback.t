#!/bin/sh
# oxi-recv telegram: a button of oxi-send's approval.ask pressed
# ("a:<ask id>:<choice>") is an approval.answer; every callback query is
# answered at once
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 9

ASK=01JDXYZ0123456789ABCDEFGHJ
cat >"$TMP/ups" <<EOF
{"callback_query":{"id":"4382bfdwdsb323b2d9","from":{"id":5,"is_bot":false,"first_name":"Bo","last_name":"Ray"},"message":{"message_id":31,"date":1700000000,"chat":{"id":5,"type":"private"},"text":"Run 'ls' in the workspace?"},"chat_instance":"-123","data":"a:$ASK:once"}}
{"callback_query":{"id":"cb2","from":{"id":5,"is_bot":false,"first_name":"Bo"},"message":{"message_id":32,"date":1700000000,"chat":{"id":-100888,"type":"supergroup","is_forum":true},"message_thread_id":77,"is_topic_message":true,"text":"Run?"},"chat_instance":"-124","data":"a:$ASK:deny"}}
{"callback_query":{"id":"cb3","from":{"id":5,"is_bot":false,"first_name":"Bo"},"message":{"message_id":33,"date":1700000000,"chat":{"id":5,"type":"private"},"text":"x"},"chat_instance":"-125","data":"something else"}}
{"callback_query":{"id":"cb4","from":{"id":9,"is_bot":false,"first_name":"Inline"},"inline_message_id":"AAA","chat_instance":"-126","data":"a:$ASK:always"}}
EOF
tg_start --updates "$TMP/ups"
tg_run "$TMP/out" "$TMP/err"
check 'exit 0, three answers (the foreign data gives none)' \
	'[ "$RC" = 0 ] && [ "$(wc -l <"$TMP/out")" = 3 ]'
head -n 1 "$TMP/out" | sed 's/"ts":"[^"]*"/"ts":"TS"/' >"$TMP/got"
cat >"$TMP/exp" <<EOF
{"v":1,"type":"approval.answer","id":"telegram:main:cb:4382bfdwdsb323b2d9","ref":"$ASK","choice":"once","from":"5","from_name":"Bo Ray","channel":"telegram","account":"main","chat":"5","ts":"TS"}
EOF
check_json 'a:<ask>:once is an approval.answer with the keys of oxi(7)' "$TMP/got" "$TMP/exp"
check '...dated when it was recorded' \
	'head -n 1 "$TMP/out" | grep -q "\"ts\":\"$(date -u +%Y-%m-%d)T"'
check 'in a forum topic: its chat and thread' \
	'sed -n 2p "$TMP/out" | grep -q "\"choice\":\"deny\".*\"chat\":\"-100888\",\"thread\":\"77\""'
check 'a button of an inline message: the chat is the person' \
	'sed -n 3p "$TMP/out" | grep -q "\"choice\":\"always\".*\"chat\":\"9\""'
tg_calls answerCallbackQuery >"$TMP/answered"
cat >"$TMP/exp" <<'EOF'
{"callback_query_id": "4382bfdwdsb323b2d9", "text": "Approved once"}
{"callback_query_id": "cb2", "text": "Denied"}
{"callback_query_id": "cb3"}
{"callback_query_id": "cb4", "text": "Approved always"}
EOF
check_same 'every callback query is answered, with the choice when it is ours' \
	"$TMP/answered" "$TMP/exp"
check '...before its record is written (the next poll comes after)' \
	'python3 -c "import json, sys
m = [json.loads(l)[\"method\"] for l in open(sys.argv[1])]
i = m.index(\"answerCallbackQuery\")
sys.exit(0 if \"getUpdates\" in m[:i] and m[i + 1:i + 4] == [\"answerCallbackQuery\"] * 3 else 1)" "$TMP/tglog"'

# an answer that fails (a query too old) is warned about, the record goes
printf '{"method":"answerCallbackQuery","code":400,"description":"Bad Request: query is too old and response timeout expired or query ID is invalid"}' >"$TMP/fail"
tg_ctl fail "$TMP/fail" >/dev/null
head -n 1 "$TMP/ups" | sed 's/4382bfdwdsb323b2d9/cb9/' >"$TMP/one"
tg_feed "$TMP/one"
tg_run "$TMP/out2" "$TMP/err2"
check 'an answer refused: one warning, the record still goes' \
	'grep -q "\"id\":\"telegram:main:cb:cb9\"" "$TMP/out2" &&
	 [ "$(cat "$TMP/err2")" = "oxi-recv: warning: telegram: answerCallbackQuery: 400 Bad Request: query is too old and response timeout expired or query ID is invalid" ]'
check 'nothing else was warned about' '[ ! -s "$TMP/err" ]'
done_testing
