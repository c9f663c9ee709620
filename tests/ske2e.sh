# ske2e.sh - the body of t6912 (s6) and t6913 (runit): the Slack
# pipeline as oxi-svc writes it, under the supervisor SV, against the
# fake Slack and the fake model: 100 messages from 10 chats while every
# stage is killed with kill -9 at least twice, at random moments, and the
# fake drops the Socket Mode connection twice; every message gets
# exactly one reply (but in oxi-send's window: chat.postMessage has no
# idempotency key), every stage is started again, and each holds only
# its own secrets.  OXI_TEST_SEED repeats a run's kills.
. ./svc.sh
svc_skip
plan 14

CHATS=10
PER=10
FEED_SECONDS=10
BOT=xoxb-S3CR3T-e2e-bot-token-0123
APP=xapp-1-S3CR3T-e2e-app-token-0123
KEY=sk-S3CR3T-e2e-model-key-0123
TOK=$BOT	# svc_secrets: the bot token in recv and send alone
stages="recv guard-in loop guard-out send llm tool"

fake_server slack.py --bot-token "$BOT" --app-token "$APP" --log "$TMP/sk.log"
SKPORT=$PORT
mv "$TMP/fake.log" "$TMP/sk.out"
fake_server openai.py
OAPORT=$PORT
export SLACK_BOT_TOKEN=$BOT SLACK_APP_TOKEN=$APP OPENAI_API_KEY=$KEY
export OXI_SLACK_API="http://127.0.0.1:$SKPORT/api"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$OAPORT/v1"
export OXI_ALLOW='slack:*'

T=$TMP/tree
oxi-svc -s "$SV" -c slack -m openai/fake "$T" </dev/null >/dev/null \
	2>"$TMP/svc.err" ||
	{ cat "$TMP/svc.err"; echo "Bail out! oxi-svc failed"; exit 1; }
mkdir -p "$T/tool/data/workspace"
python3 "$TESTS/svcload.py" files "$T/tool/data/workspace" $CHATS $PER
check 'the receiver holds both tokens, the sender the bot token only' \
	'[ "$(cat "$T/recv/env/SLACK_APP_TOKEN")" = "$APP" ] &&
	 [ "$(cat "$T/recv/env/SLACK_BOT_TOKEN")" = "$BOT" ] &&
	 [ "$(cat "$T/send/env/SLACK_BOT_TOKEN")" = "$BOT" ] &&
	 [ ! -e "$T/send/env/SLACK_APP_TOKEN" ]'

E2E_FEED='python3 "$TESTS/skload.py" feed "$SKPORT" $CHATS $PER $FEED_SECONDS 2'
E2E_LOAD='python3 "$TESTS/skload.py" check "$SKPORT" $CHATS $PER "$TMP/sk.log" "$TMP/killed"'
E2E_LOG=$TMP/sk.log
e2e_after_kills() {
	check 'the fake dropped the Socket Mode connection twice' \
	    '[ "$(curl -s "http://127.0.0.1:$SKPORT/control/state" | python3 -c "import json, sys
print(json.load(sys.stdin)[\"drops\"])")" = 2 ]'
}
e2e_secrets() {
	check '...the app token in recv alone' \
	    'for s in $stages; do
		case $s in recv) w=1 ;; *) w=0 ;; esac
		[ "$(svc_env "$(svc_pid $s)" | grep -c -- "$APP")" = $w ] ||
			{ echo "$s"; exit 1; }
	     done'
}
. ./e2ebody.sh
