#!/bin/sh
# oxi-recv slack -w: the Events API over HTTP instead of Socket Mode.
# Every request signed (v0, HMAC-SHA256 of the raw body with the signing
# secret) or refused 401, the replay window of 5 minutes, url_verification
# answered, an event and a click (a form) recorded before the 200, a
# retry of Slack's taken once, the secret never printed
cd "$(dirname "$0")" && . ./lib.sh && . ./sk.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 16
export SLACK_SIGNING_SECRET="$SIGNING_SECRET"
unset SLACK_APP_TOKEN

check_exit 'no signing secret: exit 100' 100 \
	'env -u SLACK_SIGNING_SECRET oxi-recv -w 0 slack </dev/null'
check_grep '...saying which variable' \
	'SLACK_SIGNING_SECRET is not set' "$TMP/.err"
check_exit 'a bad address: exit 100' 100 'oxi-recv -w host:port slack </dev/null'

sk_start
sk_recv "$TMP/out" "$TMP/err" -w 0
HP=$(sed -n 's/^oxi-recv: info: slack: webhook on \(.*\)$/\1/p' "$TMP/err")
U="http://$HP/slack/events"
check 'it listens on 127.0.0.1 and says where, with no app token' \
	'case $HP in 127.0.0.1:[1-9]*) true;; *) false;; esac'

# deliver JSON: the fake signs and posts it; the status, then the body
deliver() {
	sk_post deliver "$1" | python3 -c 'import json, sys
r = json.load(sys.stdin)
print(r["status"], r["body"])'
}
ev='{"type":"event_callback","event_id":"EvH1","team_id":"T0TEAM","event":{"type":"message","channel":"D1","channel_type":"im","user":"U1","ts":"1700000100.000100","text":"over http"}}'
check 'url_verification: its challenge answered' \
	'[ "$(deliver "{\"url\":\"$U\",\"body\":{\"type\":\"url_verification\",\"challenge\":\"c-42\",\"token\":\"x\"}}")" = "200 {\"challenge\":\"c-42\"}" ]'
check 'an event, signed: 200' \
	'deliver "{\"url\":\"$U\",\"body\":$ev}" | grep -q "^200 "'
check '...written as a msg.in' \
	'wait_until 5 "grep -q \"over http\" \"$TMP/out\""'
check 'the same event again (a retry of Slack'"'"'s): 200, not written again' \
	'deliver "{\"url\":\"$U\",\"body\":$ev}" | grep -q "^200 " && sleep 0.3 &&
	 [ "$(grep -c "over http" "$TMP/out")" = 1 ]'
ev2='{"type":"event_callback","event_id":"EvH2","event":{"type":"message","channel":"D1","channel_type":"im","user":"U1","ts":"1700000101.000100","text":"forged"}}'
check 'a wrong signature: 401' \
	'deliver "{\"url\":\"$U\",\"body\":$ev2,\"sig\":\"bad\"}" | grep -q "^401 "'
check 'no signature: 401' \
	'deliver "{\"url\":\"$U\",\"body\":$ev2,\"sig\":\"none\"}" | grep -q "^401 "'
check 'a timestamp 6 minutes old (a replay): 401' \
	'deliver "{\"url\":\"$U\",\"body\":$ev2,\"ts\":$(($(date +%s) - 360))}" | grep -q "^401 "'
check '...none of them written, each warned' \
	'sleep 0.3; ! grep -q forged "$TMP/out" &&
	 [ "$(grep -c "webhook: a request with" "$TMP/err")" = 3 ]'
click='{"type":"block_actions","user":{"id":"U1","username":"ann"},"channel":{"id":"D1"},"actions":[{"value":"a:01JASK:deny","action_ts":"1700000102.5"}]}'
check 'a click, as the form Slack posts: 200' \
	'deliver "{\"url\":\"$U\",\"body\":$click,\"form\":true}" | grep -q "^200 "'
check '...an approval.answer' \
	'wait_until 5 "grep -q \"approval.answer\" \"$TMP/out\"" &&
	 [ "$(grep approval.answer "$TMP/out" | jget "[\"choice\"]" /dev/stdin)" = deny ]'
check 'a GET: 405' \
	'[ "$(curl -s -o /dev/null -w "%{http_code}" "$U")" = 405 ]'
sk_stop
check 'no secret or token in any diagnostic' \
	'! grep -q -e "$SIGNING_SECRET" -e "$SECRET_PART" "$TMP/err" "$TMP/fake.log"'
done_testing
