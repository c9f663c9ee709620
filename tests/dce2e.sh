# dce2e.sh - the body of t6910 (s6) and t6911 (runit): the Discord
# pipeline as oxi-svc writes it, under the supervisor SV, against the
# fake Discord and the fake model: 100 messages from 10 chats while every
# stage is killed with kill -9 at least twice, at random moments, and the
# fake drops the Gateway connection twice; every message gets exactly one
# reply (Discord's enforced nonces leave oxi-send no window), every stage
# is started again, and each holds only its own secret.  OXI_TEST_SEED
# repeats a run's kills.
. ./svc.sh
svc_skip
plan 13

CHATS=10
PER=10
FEED_SECONDS=10
TOK=S3CR3T.discord-e2e-bot-token-0123456789
KEY=sk-S3CR3T-e2e-model-key-0123
stages="recv guard-in loop guard-out send llm tool"

fake_server discord.py --token "$TOK" --log "$TMP/dc.log" --heartbeat 1000
DCPORT=$PORT
mv "$TMP/fake.log" "$TMP/dc.out"
fake_server openai.py
OAPORT=$PORT
export DISCORD_BOT_TOKEN=$TOK OPENAI_API_KEY=$KEY
export OXI_DISCORD_API="http://127.0.0.1:$DCPORT/api/v10"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$OAPORT/v1"
export OXI_ALLOW='discord:*'

T=$TMP/tree
oxi-svc -s "$SV" -c discord -m openai/fake "$T" </dev/null >/dev/null \
	2>"$TMP/svc.err" ||
	{ cat "$TMP/svc.err"; echo "Bail out! oxi-svc failed"; exit 1; }
mkdir -p "$T/tool/data/workspace"
python3 "$TESTS/svcload.py" files "$T/tool/data/workspace" $CHATS $PER

E2E_FEED='python3 "$TESTS/dcload.py" feed "$DCPORT" $CHATS $PER $FEED_SECONDS 2'
E2E_LOAD='python3 "$TESTS/dcload.py" check "$DCPORT" $CHATS $PER'
E2E_LOG=$TMP/dc.log
e2e_after_kills() {
	check 'the Gateway dropped the connection twice; the receiver resumed' \
	    'set -- $(curl -s "http://127.0.0.1:$DCPORT/control/state" |
		python3 -c "import json, sys
s = json.load(sys.stdin)
print(s[\"drops\"], s[\"resumes\"])"); [ "$1" = 2 ] && [ "$2" -ge 2 ]'
}
e2e_secrets() {
	check 'none doubled at all: the nonces Discord enforces leave oxi-send no window' \
	    '[ "$doubled" = 0 ]'
}
. ./e2ebody.sh
