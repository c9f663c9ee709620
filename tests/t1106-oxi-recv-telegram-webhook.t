#!/bin/sh
# oxi-recv -w: Telegram's webhook: loopback unless told otherwise, the
# secret header required (401 without, 403 wrong), the body capped
# (413), 200 only once the update is in the ledger, duplicates dropped
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
command -v ss >/dev/null || skip_all "no ss"
plan 27

export OXI_TELEGRAM_WEBHOOK_SECRET=s3cr3t-Hook_value
check_exit 'no secret: exit 100' 100 \
	'env -u OXI_TELEGRAM_WEBHOOK_SECRET oxi-recv -w 0 telegram </dev/null'
check_grep '...saying which' 'needs OXI_TELEGRAM_WEBHOOK_SECRET$' "$TMP/.err"
check_exit 'a secret Telegram would refuse: exit 100' 100 \
	'OXI_TELEGRAM_WEBHOOK_SECRET="a b" oxi-recv -w 0 telegram </dev/null'
check_exit 'a bad address: exit 100' 100 'oxi-recv -w host:port telegram </dev/null'
check_exit 'a port out of range: exit 100' 100 'oxi-recv -w 70000 telegram </dev/null'

tg_start
tg_recv "$TMP/out" "$TMP/err" -l 2k -w 0
HP=$(sed -n 's/^oxi-recv: info: telegram: webhook on \(.*\)$/\1/p' "$TMP/err")
U="http://$HP/hook"
check 'it says where it listens: 127.0.0.1 and the port it got' \
	'case $HP in 127.0.0.1:[1-9]*) true;; *) false;; esac'
check '...and listens there, on loopback only' \
	'ss -ltnH | awk "{print \$4}" | grep -qx "$HP" &&
	 ! ss -ltnH | awk "{print \$4}" | grep -q -e "^0.0.0.0:${HP#*:}$" -e "^\*:${HP#*:}$" -e "^\[::\]:${HP#*:}$"'
ip=$(hostname -I 2>/dev/null | awk '{print $1}')
if [ -n "$ip" ] && [ "$ip" != 127.0.0.1 ]; then
	check '...not reachable on another address of the host' \
		'! curl -s -m 2 -o /dev/null "http://$ip:${HP#*:}/hook"'
else
	_result 0 '# SKIP no other address'
fi

post() {	# post BODY [HEADER...]: the status
	_b=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
		"$@" --data-binary "$_b" "$U"
}
UP='{"update_id":700,"message":{"message_id":1,"date":1700000000,"chat":{"id":5,"type":"private"},"from":{"id":5,"is_bot":false,"first_name":"Bo"},"text":"via the hook"}}'
H="X-Telegram-Bot-Api-Secret-Token: $OXI_TELEGRAM_WEBHOOK_SECRET"
check 'no secret header: 401' '[ "$(post "$UP")" = 401 ]'
check 'a wrong secret: 403' \
	'[ "$(post "$UP" -H "X-Telegram-Bot-Api-Secret-Token: wrong")" = 403 ]'
check 'the secret with more after it: 403' \
	'[ "$(post "$UP" -H "${H}x")" = 403 ]'
check 'an empty secret: 403' \
	'[ "$(post "$UP" -H "X-Telegram-Bot-Api-Secret-Token;")" = 403 ]'
check 'a GET: 405' \
	'[ "$(curl -s -o /dev/null -w "%{http_code}" -H "$H" "$U")" = 405 ]'
check 'refused requests wrote nothing' '[ ! -s "$TMP/out" ]'
big=$(python3 -c 'print("{\"update_id\":701,\"message\":{\"text\":\"" + "x" * 3000 + "\"}}")')
check 'a body over the cap (-l 2k): 413' '[ "$(post "$big" -H "$H")" = 413 ]'
check '...sent in chunks, without a length: 413' \
	'[ "$(post "$big" -H "$H" -H "Transfer-Encoding: chunked")" = 413 ]'
check 'not JSON: 400' '[ "$(post "{nope" -H "$H")" = 400 ]'
check 'no update_id: 400, and a dead letter' \
	'[ "$(post "{\"message\":{}}" -H "$H")" = 400 ] &&
	 grep -q "an update without a valid update_id" "$OXI_DEADLETTER"'
check 'an update: 200' '[ "$(post "$UP" -H "$H")" = 200 ]'
check '...in the ledger by the time the 200 arrived' \
	'python3 -c "import sqlite3, sys
sys.exit(0 if sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM updates WHERE id = 700\").fetchone()[0] == 1 else 1)" \
		"$OXI_HOME/telegram-main.db"'
sleep 0.5
check '...and written as a msg.in' \
	'[ "$(wc -l <"$TMP/out")" = 1 ] && grep -q "\"id\":\"telegram:main:5:1\".*\"text\":\"via the hook\"" "$TMP/out"'
check 'the same update again (Telegram retries): 200, not written again' \
	'[ "$(post "$UP" -H "$H")" = 200 ] && sleep 0.5 && [ "$(wc -l <"$TMP/out")" = 1 ]'
tg_stop
check 'SIGTERM: exit 0' '[ "$RC" = 0 ]'
check 'no getUpdates in webhook mode' '[ -z "$(tg_calls getUpdates)" ]'

# OXI_TELEGRAM_WEBHOOK and OXI_TELEGRAM_WEBHOOK_URL: setWebhook with the
# secret and our kinds
OXI_TELEGRAM_WEBHOOK=127.0.0.1:0 OXI_TELEGRAM_WEBHOOK_URL=https://bot.example.org/hook \
	tg_recv "$TMP/out2" "$TMP/err2"
tg_stop
check 'OXI_TELEGRAM_WEBHOOK_URL: setWebhook with the URL, the secret and our kinds' \
	'[ "$(tg_calls setWebhook)" = "{\"allowed_updates\": [\"message\", \"edited_message\", \"callback_query\"], \"secret_token\": \"$OXI_TELEGRAM_WEBHOOK_SECRET\", \"url\": \"https://bot.example.org/hook\"}" ]'
check 'OXI_TELEGRAM_WEBHOOK: listens where it says' \
	'grep -q "^oxi-recv: info: telegram: webhook on 127.0.0.1:[1-9]" "$TMP/err2" && [ "$RC" = 0 ]'
check 'the secret is in no log line' \
	'! grep -h "$OXI_TELEGRAM_WEBHOOK_SECRET" "$TMP"/err*'
done_testing
