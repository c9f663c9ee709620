#!/bin/sh
# oxi-llm -j under a supervisor: readiness, SIGHUP is harmless, SIGTERM
# stops reading and finishes the requests in flight, then exits 0
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 9

fake_server openai.py --hang --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OXI_LLM_IDLE_TIMEOUT=1 OXI_MODEL=openai/fake-model

req() {
	printf '{"type":"llm.request","id":"%s","messages":[{"role":"user","content":"hi"}]}\n' "$1"
}
waitfor() {	# waitfor TEST: up to 10 s for a shell test to hold
	_w=0
	while ! eval "$1" && [ $_w -lt 200 ]; do
		sleep 0.05
		_w=$((_w + 1))
	done
	eval "$1"
}

# the FIFO is held open read-write here, so stdin never ends
mkfifo "$TMP/fifo"
exec 4<>"$TMP/fifo"
# (not through bg: an asynchronous command's stdin would be /dev/null)
oxi-llm -j -d 3 <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" 3>"$TMP/ready" &
pid=$!
_bgpids="$_bgpids $pid"
check 'readiness is signalled' 'waitfor "[ -s \"$TMP/ready\" ]"'
kill -HUP $pid
req r1 >&4
req r2 >&4
check 'the requests reach the server' \
	'waitfor "[ \"\$(wc -l <\"$TMP/log\")\" = 2 ]"'
check 'SIGHUP did not stop it' 'kill -0 $pid'
kill -TERM $pid
req r3 >&4
wait $pid
rc=$?
check 'SIGTERM: exit 0 once the requests in flight are done' '[ $rc = 0 ]'
check 'both got their one answer' \
	'[ "$(grep -c "\"ref\":\"r[12]\"" "$TMP/out")" = 2 ]'
check 'a request sent after SIGTERM is not read' \
	'! grep -q r3 "$TMP/out" && [ "$(wc -l <"$TMP/log")" = 2 ]'
check_grep 'it says it is stopping' 'info: stopping: finishing 2 request' \
	"$TMP/err"

# idle: SIGTERM ends it at once
oxi-llm -j -d 3 <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" 3>"$TMP/ready2" &
pid=$!
_bgpids="$_bgpids $pid"
check 'idle and ready' 'waitfor "[ -s \"$TMP/ready2\" ]"'
kill -TERM $pid
wait $pid
rc=$?
check 'SIGTERM when idle: exit 0' '[ $rc = 0 ]'
exec 4>&-
done_testing
