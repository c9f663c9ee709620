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
plan 11

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

svc_start "$T"
check "under $SV every stage comes up (and says it is ready)" \
	'wait_until 30 svc_allready'
why() {
	for s in $stages; do
		diag "$s: $(svc_pid $s)"
		tail -n 3 "$T/$s/log/main/current" 2>/dev/null | sed 's/^/#     /'
	done
}
[ "$_fail" = 0 ] || why

seed=${OXI_TEST_SEED:-$(date +%s)}
diag "seed $seed (OXI_TEST_SEED=$seed repeats these kills)"
python3 "$TESTS/dcload.py" feed "$DCPORT" $CHATS $PER $FEED_SECONDS 2 &
feeder=$!
_bgpids="$_bgpids $feeder"
python3 -c '
import random, sys
random.seed(int(sys.argv[1]))
s = sys.argv[2:] * 2 + random.sample(sys.argv[2:], 3)
random.shuffle(s)
for x in s:
    print("%.2f %s" % (random.uniform(0.1, 0.9), x))
' "$seed" $stages >"$TMP/kills"
: >"$TMP/killed"
while read -r pause s; do
	sleep "$pause"
	wait_until 20 '[ -n "$(svc_pid $s)" ]' || continue
	p=$(svc_pid $s)
	kill -9 "$p" 2>/dev/null && echo "$(date +%s.%N) $s $p" >>"$TMP/killed"
done <"$TMP/kills"
wait $feeder
check 'every stage was killed with kill -9 at least twice' \
	'for s in $stages; do
		[ "$(grep -c " $s " "$TMP/killed")" -ge 2 ] ||
			{ echo "$s: $(grep -c " $s " "$TMP/killed")"; exit 1; }
	 done'
restarted() {
	svc_allready || return 1
	for s in $stages; do
		grep -q " $s $(svc_pid $s)\$" "$TMP/killed" && return 1
	done
	return 0
}
check '...and the supervisor started each one again' \
	'wait_until 30 restarted'
gw() {
	curl -s "http://127.0.0.1:$DCPORT/control/state" | python3 -c 'import json, sys
s = json.load(sys.stdin)
print(s["drops"], s["resumes"], s["identifies"])'
}
check 'the Gateway dropped the connection twice; the receiver resumed' \
	'set -- $(gw); [ "$1" = 2 ] && [ "$2" -ge 2 ]'

load() {
	python3 "$TESTS/dcload.py" check "$DCPORT" $CHATS $PER >"$TMP/count" 2>&1
}
delivered() {
	load
	[ "$(sed -n 's/.* delivered \([0-9]*\) .*/\1/p' "$TMP/count")" -ge \
	    $((CHATS * PER)) ] 2>/dev/null
}
check "all $((CHATS * PER)) replies arrive" 'wait_until 90 delivered'
sleep 2
load
diag "$(head -n 1 "$TMP/count")"
check 'none lost' 'grep -q " lost 0 " "$TMP/count"'
check 'none doubled' 'grep -q " doubled 0 " "$TMP/count"'
check 'each in the chat of its message, and nothing else sent' \
	'grep -q " stray 0 misplaced 0" "$TMP/count"'
[ "$_fail" = 0 ] || { sed 's/^/# /' "$TMP/count"; why; }

check 'each stage holds only its own secret (/proc/PID/environ)' \
	'svc_secrets'
check 'no secret in any log' \
	'! grep -rl S3CR3T "$T"/*/log "$TMP/svscan.log" "$TMP/dc.log"'
svc_stop
check 'the supervisor stopped, no process is left in the tree' \
	'[ -z "$(svc_procs)" ]'
done_testing
