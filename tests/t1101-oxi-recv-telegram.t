#!/bin/sh
# oxi-recv telegram: the long poll against a fake Bot API fed with the
# wire samples: every kind taken or skipped, offsets, restarts, readiness,
# SIGTERM, and the errors: a refused token, 429, the network, a webhook
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
SAMPLES="$SHARED/wire/telegram/teloxide_update_samples.jsonl"
[ -n "$SHARED" ] && [ -f "$SAMPLES" ] || skip_all "no ../shared/wire samples"
command -v curl >/dev/null || skip_all "no curl"
plan 32

# settings
check_exit 'no token: exit 100' 100 \
	'env -u TELEGRAM_BOT_TOKEN oxi-recv telegram </dev/null'
check_grep '...saying which variable' \
	'^oxi-recv: fatal: TELEGRAM_BOT_TOKEN is not set$' "$TMP/.err"
check_exit 'a token of the wrong shape: exit 100' 100 \
	'TELEGRAM_BOT_TOKEN="12 34:x y" oxi-recv telegram </dev/null'
check_exit 'options of the cli channel: exit 100' 100 \
	'oxi-recv -c 42 telegram </dev/null'
check_exit 'a bad OXI_TELEGRAM_GROUPS: exit 100' 100 \
	'OXI_TELEGRAM_GROUPS=some oxi-recv telegram </dev/null'
check_exit 'a bad account: exit 100' 100 'oxi-recv -a ../x telegram </dev/null'
check_exit 'a base URL that is not http: exit 100' 100 \
	'OXI_TELEGRAM_BASE_URL=ftp://x oxi-recv telegram </dev/null'

# every sample, each kind: the fake delivers all (--all-kinds)
tg_start --all-kinds --updates "$SAMPLES"
n=$(wc -l <"$SAMPLES")
tg_run "$TMP/out" "$TMP/err"
check 'the samples: exit 0 on SIGTERM' '[ "$RC" = 0 ]'
cat >"$TMP/exp" <<'EOF'
{"v":1,"type":"msg.in","id":"telegram:main:218485655:6557","channel":"telegram","account":"main","chat":"218485655","thread":null,"from":"218485655","from_name":"Waffle","text":"hello there","ts":"2019-09-26T17:19:02.000Z","reply_to":null,"attachments":[],"trust":"user","message_id":"6557","chat_type":"private"}
{"v":1,"type":"msg.in","id":"telegram:main:408258968:154","channel":"telegram","account":"main","chat":"408258968","thread":null,"from":"408258968","from_name":"Hirrolot","text":"4","ts":"2020-02-11T19:20:57.000Z","reply_to":null,"attachments":[],"trust":"user","message_id":"154","chat_type":"private"}
EOF
check_json 'the two private texts are msg.in records; groups, pins, dice, stories are not for us' \
	"$TMP/out" "$TMP/exp"
check 'each record is one line written whole' \
	'[ "$(wc -l <"$TMP/out")" = 2 ] && [ "$(tail -c 1 "$TMP/out" | od -An -c | tr -d " ")" = "\n" ]'
grep 'update kind' "$TMP/err" >"$TMP/kinds"
check_lines 'seven kinds skipped, each warned once (two reactions: one warning)' 7 "$TMP/kinds"
check_grep '...an unknown kind called so' \
	"^oxi-recv: warning: telegram: an unknown update kind 'new_update_kind' skipped \(warned once\)$" \
	"$TMP/kinds"
check_grep '...a known one as such' \
	"^oxi-recv: warning: telegram: the update kind 'my_chat_member' skipped" "$TMP/kinds"
check 'nothing else on stderr' '[ "$(grep -cv "update kind" "$TMP/err")" = 0 ]'

# offsets: the first poll has none, each later one confirms what came
tg_calls getUpdates >"$TMP/polls"
check 'the first getUpdates has no offset and asks for our kinds only' \
	'head -n 1 "$TMP/polls" | grep -q "\"allowed_updates\": \[\"message\", \"edited_message\", \"callback_query\"\]" &&
	 ! head -n 1 "$TMP/polls" | grep -q offset'
check 'the next confirms every update (offset = last id + 1)' \
	'sed -n 2p "$TMP/polls" | grep -q "\"offset\": $((100 + n))," &&
	 [ "$(tg_state confirmed)" = $((100 + n)) ] && [ "$(tg_state pending)" = 0 ]'
check 'getMe before the first poll' \
	'[ "$(head -n 1 "$TMP/tglog" | jget "[\"method\"]" /dev/stdin)" = getMe ]'
check 'the ledger is in the state directory, in WAL mode' \
	'[ "$(python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(\"PRAGMA journal_mode\").fetchone()[0])" \
		"$OXI_HOME/telegram-main.db")" = wal ]'

# a restart writes nothing again and polls from where it was
: >"$TMP/tglog"
tg_run "$TMP/out2" "$TMP/err2"
check 'a restart writes nothing again' '[ ! -s "$TMP/out2" ] && [ "$RC" = 0 ]'
check '...and polls from the offset it had' \
	'tg_calls getUpdates | head -n 1 | grep -q "\"offset\": $((100 + n)),"'

# new updates arrive during a long poll; -a names the account
printf '%s\n' '{"message":{"message_id":7,"date":1700000000,"chat":{"id":42,"type":"private","first_name":"Ann"},"from":{"id":42,"is_bot":false,"first_name":"Ann","last_name":"Lee"},"text":"later"}}' >"$TMP/one"
tg_recv "$TMP/out3" "$TMP/err3" -a work
sleep 0.3
tg_feed "$TMP/one"
tg_wait
tg_stop
check 'an update fed during a long poll arrives; -a names the account' \
	'grep -q "\"id\":\"telegram:work:42:7\".*\"account\":\"work\"" "$TMP/out3" &&
	 grep -q "\"from_name\":\"Ann Lee\"" "$TMP/out3"'
check '...in a ledger of its own' '[ -f "$OXI_HOME/telegram-work.db" ]'

# SIGTERM ends a long poll at once
OXI_TELEGRAM_POLL=50 tg_recv "$TMP/out4" "$TMP/err4"
sleep 0.5
tg_stop
check 'SIGTERM during a 50 s long poll: exit 0 within a second' \
	'[ "$RC" = 0 ] && [ "$STOP_MS" -lt 1000 ]'

# a refused token: 100, whatever the network does
check_exit 'a token the API refuses (401): exit 100' 100 \
	'TELEGRAM_BOT_TOKEN=654321:another-token-abcdefgh oxi-recv telegram </dev/null'
check_grep '...saying so' '^oxi-recv: fatal: the bot token was refused \(getMe: 401 Unauthorized\)' "$TMP/.err"

# 429: retry_after honoured, then on
printf '{"method":"getUpdates","code":429,"description":"Too Many Requests: retry after 1","retry_after":1}' >"$TMP/fail"
tg_ctl fail "$TMP/fail" >/dev/null
printf '%s\n' '{"message":{"message_id":8,"date":1700000001,"chat":{"id":42,"type":"private"},"from":{"id":42,"first_name":"Ann"},"text":"after 429"}}' >"$TMP/one"
tg_feed "$TMP/one"
: >"$TMP/tglog"
tg_run "$TMP/out5" "$TMP/err5"
check '429: warned with the wait it asked for' \
	'grep -q "^oxi-recv: warning: telegram: getUpdates: 429 Too Many Requests: retry after 1; again in 1 s$" "$TMP/err5"'
check '...then the update arrives' 'grep -q "after 429" "$TMP/out5" && [ "$RC" = 0 ]'
check '...after a second' \
	'tg_ctl state >/dev/null && python3 -c "import json, sys
t = [json.loads(l)[\"ts\"] for l in open(sys.argv[1]) if \"getUpdates\" in l]
sys.exit(0 if t[1] - t[0] >= 0.9 else 1)" "$TMP/tglog"'

# a webhook set: deleted, then polled
printf '{}' >"$TMP/empty"
curl -s -d '{"url":"https://example.org/hook"}' -H 'Content-Type: application/json' \
	"$OXI_TELEGRAM_BASE_URL/bot$TOKEN/setWebhook" >/dev/null
printf '%s\n' '{"message":{"message_id":9,"date":1700000002,"chat":{"id":42,"type":"private"},"from":{"id":42,"first_name":"Ann"},"text":"after 409"}}' >"$TMP/one"
tg_feed "$TMP/one"
: >"$TMP/tglog"
tg_run "$TMP/out6" "$TMP/err6"
check 'a webhook in the way (409): deleted, warned, and the update arrives' \
	'grep -q "a webhook is set: deleting it to poll" "$TMP/err6" &&
	 [ -n "$(tg_calls deleteWebhook)" ] && grep -q "after 409" "$TMP/out6"'

# the network: warned and retried, never an exit
port=$PORT
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
oxi-recv telegram >"$TMP/out7" 2>"$TMP/err7" &
pid=$!
_bgpids="$_bgpids $pid"
sleep 1.5
rm -f "$TMP/port"
printf '%s\n' '{"message":{"message_id":10,"date":1700000003,"chat":{"id":42,"type":"private"},"from":{"id":42,"first_name":"Ann"},"text":"back"}}' >"$TMP/one"
tg_start --port "$port" --updates "$TMP/one" --first-id 500
check 'the network down: the cached bot name, polls warned and retried' \
	'grep -q "^oxi-recv: warning: telegram: getMe: .*connect.*; going on as @oxi_test_bot$" "$TMP/err7" &&
	 grep -q "^oxi-recv: warning: telegram: getUpdates: .*connect.*; again in 1 s$" "$TMP/err7" &&
	 kill -0 $pid'
tg_wait 15
kill -TERM $pid
wait $pid
rc=$?
check '...and once it is back, the update arrives' \
	'grep -q "\"text\":\"back\"" "$TMP/out7" && [ "$rc" = 0 ]'
check 'no warning names the token' \
	'! grep -h -e "$SECRET_PART" "$TMP"/err*'
done_testing
