#!/bin/sh
# oxi-recv telegram: the bot token is in every URL and nowhere else: not in
# a warning, a fatal error, a debug line, a record or a dead letter, even
# when the server's own errors quote it
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 12

# notoken FILE...: neither the token nor its secret half in any FILE
notoken() {
	! grep -h -e "$SECRET_PART" "$@" /dev/null
}

check_exit 'a malformed token: exit 100' 100 \
	'TELEGRAM_BOT_TOKEN="123456:bad token!TEST-x" oxi-recv telegram </dev/null'
check_nogrep 'its text is not echoed' 'bad token' "$TMP/.err"

tg_start
# errors of the server that quote the token
cat >"$TMP/fail" <<EOF
{"method":"getUpdates","code":502,"description":"Bad Gateway: upstream /bot$TOKEN/getUpdates failed (key $SECRET_PART)","count":2}
EOF
tg_ctl fail "$TMP/fail" >/dev/null
printf '%s\n' '{"message":{"message_id":1,"date":1700000000,"chat":{"id":5,"type":"private"},"from":{"id":5,"first_name":"Bo"},"text":"hi"}}' >"$TMP/one"
tg_feed "$TMP/one"
tg_recv "$TMP/out" "$TMP/err" -v
tg_wait 15
tg_stop
check 'a server error quoting the token: warned, redacted' \
	'grep -q "^oxi-recv: warning: telegram: getUpdates: 502 Bad Gateway: upstream /bot<token>/getUpdates failed (key <token>); again in 1 s$" "$TMP/err"'
check '...retried, and the message arrives' 'grep -q "\"text\":\"hi\"" "$TMP/out"'
check '...the token in no output, debug lines included' 'notoken "$TMP/out" "$TMP/err"'

printf '{"method":"getMe","code":401,"description":"Unauthorized: token %s is revoked"}' "$TOKEN" >"$TMP/fail"
tg_ctl fail "$TMP/fail" >/dev/null
check_exit 'a refusal quoting the token: exit 100' 100 \
	'oxi-recv -v telegram </dev/null 2>"$TMP/e401"'
check '...redacted' 'grep -q "token <token> is revoked" "$TMP/e401" && notoken "$TMP/e401"'

# transport errors from libcurl
for u in "http://127.0.0.1:1" "http://[::1" "http://256.1.1.1:80" "http://127.0.0.1:99999"; do
	OXI_TELEGRAM_BASE_URL=$u timeout -s TERM 2 oxi-recv -v telegram \
		</dev/null >>"$TMP/cout" 2>>"$TMP/cerr"
done
check 'libcurl errors of bad base URLs and refused connections name no token' \
	'[ -s "$TMP/cerr" ] && notoken "$TMP/cout" "$TMP/cerr"'

# a file the server will not give: the error names its path, not the token
mkdir -p "$TMP/files"
echo data >"$TMP/files/somefile"
printf '%s\n' '{"message":{"message_id":2,"date":1700000000,"chat":{"id":5,"type":"private"},"from":{"id":5,"first_name":"Bo"},"document":{"file_id":"somefile","file_unique_id":"u-some","file_name":"a.txt"}}}' >"$TMP/one"
tg_start --files "$TMP/files" --updates "$TMP/one" --first-id 900
printf '{"method":"file","code":404,"description":"Not Found: /file/bot%s/files/somefile"}' "$TOKEN" >"$TMP/fail"
tg_ctl fail "$TMP/fail" >/dev/null
tg_run "$TMP/out2" "$TMP/err2"
check 'a download that fails: the message goes with the error' \
	'grep -q "\"error\":\"download: 404 Not Found: /file/bot<token>/files/somefile\"" "$TMP/out2"'
check '...and no output names the token' 'notoken "$TMP/out2" "$TMP/err2"'

# dead letters: what comes from outside is redacted before it is kept
export OXI_TELEGRAM_WEBHOOK_SECRET=hooksecret
tg_recv "$TMP/out3" "$TMP/err3" -w 0
HP=$(sed -n 's/^oxi-recv: info: telegram: webhook on \(.*\)$/\1/p' "$TMP/err3")
curl -s -o /dev/null -H "X-Telegram-Bot-Api-Secret-Token: hooksecret" \
	--data-binary "not json, but the token $TOKEN and $SECRET_PART" "http://$HP/"
tg_stop
check 'a dead letter holding the token: kept, redacted' \
	'grep -q "the token <token> and <token>" "$OXI_DEADLETTER" && notoken "$OXI_DEADLETTER"'
check 'nothing else anywhere' \
	'notoken "$TMP"/out* "$TMP"/err* "$TMP"/e401 "$TMP"/c*'
done_testing
