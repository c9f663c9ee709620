# e2ebody.sh - the body of the supervised end-to-end tests (svce2e.sh,
# ske2e.sh): the tree in $T, written by oxi-svc, started under $SV; the
# messages fed by E2E_FEED (a command, run in the background) while every
# stage is killed with kill -9 at least twice; the replies counted by
# E2E_LOAD (a command printing svcload.py check's line); E2E_LOG the
# fake's log, where no secret may be.  e2e_after_kills and e2e_secrets,
# when defined, add their checks after the kills and after the secrets.
# 11 checks of its own.
svc_start "$T"
check "under $SV every stage comes up (and says it is ready)" \
	'wait_until 30 svc_allready'
# why: what each stage's log says last, when something failed
why() {
	for s in $stages; do
		diag "$s: $(svc_pid $s)"
		tail -n 3 "$T/$s/log/main/current" 2>/dev/null | sed 's/^/#     /'
	done
}
[ "$_fail" = 0 ] || why

# the messages, over FEED_SECONDS, and meanwhile every stage killed at
# least twice (three more at random), each when it is up, at random
# moments; the kills go to $TMP/killed as "time stage pid"
seed=${OXI_TEST_SEED:-$(date +%s)}
diag "seed $seed (OXI_TEST_SEED=$seed repeats these kills)"
eval "$E2E_FEED" &
feeder=$!
_bgpids="$_bgpids $feeder"
svc_killall "$seed"
wait $feeder
check 'every stage was killed with kill -9 at least twice' \
	'for s in $stages; do
		[ "$(grep -c " $s " "$TMP/killed")" -ge 2 ] ||
			{ echo "$s: $(grep -c " $s " "$TMP/killed")"; exit 1; }
	 done'
check '...and the supervisor started each one again' \
	'wait_until 30 svc_restarted'

command -v e2e_after_kills >/dev/null && e2e_after_kills

# load: the count of replies, as svcload.py check prints it
load() {
	eval "$E2E_LOAD" >"$TMP/count" 2>&1
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
# a reply is sent twice only when oxi-send is killed after the platform
# took it (or had the request) and before its sent-ledger recorded so
# (its one window; neither the Bot API nor Slack's chat.postMessage has
# an idempotency key): any other double fails
doubled=$(sed -n 's/.* doubled \([0-9]*\) .*/\1/p' "$TMP/count")
window=$(sed -n 's/.* window \([0-9]*\)$/\1/p' "$TMP/count")
check 'none doubled but in the window of a kill of oxi-send' \
	'[ -n "$doubled" ] && [ "$doubled" = "$window" ]'
_n=$((_n + 1))
if [ "$doubled" = 0 ]; then
	echo "ok $_n - none doubled at all # TODO oxi-send's window"
else
	echo "not ok $_n - none doubled at all # TODO oxi-send's window: $doubled sent twice"
fi
check 'each in the chat of its message, and nothing else sent' \
	'grep -q " stray 0 misplaced 0 " "$TMP/count"'
[ "$_fail" = 0 ] || { sed 's/^/# /' "$TMP/count"; why; }

check 'each stage holds only its own secret (/proc/PID/environ)' \
	'svc_secrets'
command -v e2e_secrets >/dev/null && e2e_secrets
check 'no secret in any log' \
	'! grep -rl S3CR3T "$T"/*/log "$TMP/svscan.log" "$E2E_LOG"'
svc_stop
check 'the supervisor stopped, no process is left in the tree' \
	'[ -z "$(svc_procs)" ]'
done_testing
