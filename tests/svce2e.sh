# svce2e.sh - the body of t6904 (s6) and t6905 (runit): the Telegram
# pipeline as oxi-svc writes it, under the supervisor SV, against the
# fake Bot API and the fake model: 200 messages from 20 chats while every
# stage is killed with kill -9 at least twice, at random moments; every
# message gets exactly one reply, every stage is started again, and each
# holds only its own secret.  OXI_TEST_SEED repeats a run's kills.
. ./svc.sh
svc_skip
plan 11

CHATS=20
PER=10
FEED_SECONDS=10
TOK=123456:S3CR3T-e2e-bot-token
KEY=sk-S3CR3T-e2e-model-key-0123
stages="recv guard-in loop cron guard-out send llm tool"

fake_server telegram.py --token "$TOK" --log "$TMP/tg.log"
TGPORT=$PORT
mv "$TMP/fake.log" "$TMP/tg.out"
fake_server openai.py
OAPORT=$PORT
export TELEGRAM_BOT_TOKEN=$TOK OPENAI_API_KEY=$KEY
export OXI_TELEGRAM_BASE_URL="http://127.0.0.1:$TGPORT"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$OAPORT/v1"
export OXI_ALLOW='telegram:*'

T=$TMP/tree
oxi-svc -s "$SV" -m openai/fake "$T" </dev/null >/dev/null 2>"$TMP/svc.err" ||
	{ cat "$TMP/svc.err"; echo "Bail out! oxi-svc failed"; exit 1; }
mkdir -p "$T/tool/data/workspace"
python3 "$TESTS/svcload.py" files "$T/tool/data/workspace" $CHATS $PER
E2E_FEED='python3 "$TESTS/svcload.py" feed "$TGPORT" $CHATS $PER $FEED_SECONDS'
E2E_LOAD='python3 "$TESTS/svcload.py" check "$TGPORT" $CHATS $PER "$TMP/tg.log" "$TMP/killed"'
E2E_LOG=$TMP/tg.log
. ./e2ebody.sh

