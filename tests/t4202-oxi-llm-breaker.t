#!/bin/sh
# oxi-llm circuit breakers: a provider that failed OXI_LLM_BREAKER times
# in a row is not called for OXI_LLM_BREAKER_TIME (requests fail at once
# with circuit_open), then one probe decides whether it closes again.
# Asserted on the order of the records and the fake server's log; the
# only wall-clock assumption is in the failed-probe case (see there)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 16

export OXI_LLM_RETRIES=0 OXI_LLM_PARALLEL=1 OXI_MODEL=openai/fake-model

req() {
	printf '{"type":"llm.request","id":"%s","messages":[{"role":"user","content":"hi"}]}\n' "$@"
}
posts() { wc -l <"$TMP/log" | tr -d ' '; }
waitfor() {	# waitfor TEST: up to 30 s for a shell test to hold
	_w=0
	while ! eval "$1" && [ $_w -lt 600 ]; do
		sleep 0.05
		_w=$((_w + 1))
	done
	eval "$1"
}
answers() { grep -c '"type":"\(llm.response\|error\)"' "$TMP/out"; }
# what request $1 got: its error code, or "ok"
got() {
	grep "\"\\(ref\\|id\\)\":\"$1\"" "$TMP/out" | grep -v llm.delta |
	python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
print(r["code"] if r["type"] == "error" else "ok")'
}
# start: oxi-llm -j reading the FIFO held open on fd 4
start() {
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	exec 4<>"$TMP/fifo"
	oxi-llm -j "$@" <"$TMP/fifo" 4>&- >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	_bgpids="$_bgpids $pid"
}
stop() {
	exec 4>&-
	wait $pid
}

# open: a cool-down no loaded machine outlasts, so what is refused does not
# depend on how fast the requests go through
fake_server openai.py --status 500 --fail-times 2 --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
touch "$TMP/log"
OXI_LLM_BREAKER=2 OXI_LLM_BREAKER_TIME=3600 start
req r1 r2 r3 >&4
check 'two failures, then the third request is refused' \
	'waitfor "[ \"\$(answers)\" = 3 ]" && [ "$(got r1)" = server ] &&
	 [ "$(got r2)" = server ] && [ "$(got r3)" = circuit_open ]'
check 'without an HTTP request' '[ "$(posts)" = 2 ]'
check 'circuit_open is retryable and says when the next try is' \
	'grep "\"ref\":\"r3\"" "$TMP/out" >"$TMP/r3" &&
	 grep -q "\"message\":\"openai: circuit open after 2 failures in a row; next try in [0-9]*\.[0-9] s\",\"retryable\":true" "$TMP/r3" &&
	 sed "s/.*next try in \([0-9.]*\) s.*/\1/" "$TMP/r3" |
	     awk "{ exit !(\$1 > 0 && \$1 <= 3600) }"'
check_grep 'the breaker opening is one info line' \
	'info: provider openai: circuit open for 3600.0 s after 2 failures' \
	"$TMP/err"
stop

# the cool-down: it began before the answers that this sleep waits after,
# so the sleep is at least as long (waitfor allows 30 s for the answers)
fake_server openai.py --status 500 --fail-times 2 --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
: >"$TMP/log"
OXI_LLM_BREAKER=2 OXI_LLM_BREAKER_TIME=0.2 start
req r1 r2 >&4
waitfor "[ \"\$(answers)\" = 2 ]"
sleep 0.3
req r4 r5 >&4
check 'after the cool-down a probe goes through, and it closes' \
	'waitfor "[ \"\$(answers)\" = 4 ]" && [ "$(got r1)$(got r2)" = serverserver ] &&
	 [ "$(got r4)" = ok ] && [ "$(got r5)" = ok ] && [ "$(posts)" = 4 ]'
stop
rc=$?
check 'exit 0' '[ $rc = 0 ]'

# a failed probe opens it again at once.  The cool-down must pass once,
# and hold while the request queued behind a failure is taken, in the next
# turn of oxi-llm's loop without a wait: 1 s, for a turn of microseconds
fake_server openai.py --status 500 --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
: >"$TMP/log"
OXI_LLM_BREAKER=1 OXI_LLM_BREAKER_TIME=1 start
req p1 p2 >&4
check 'one failure opens it' \
	'waitfor "[ \"\$(answers)\" = 2 ]" && [ "$(got p2)" = circuit_open ] &&
	 [ "$(posts)" = 1 ]'
sleep 1.1
req p3 p4 >&4
check 'the probe fails: open again, the next request refused' \
	'waitfor "[ \"\$(answers)\" = 4 ]" && [ "$(got p3)" = server ] &&
	 [ "$(got p4)" = circuit_open ] && [ "$(posts)" = 2 ] &&
	 [ "$(grep -c "info: provider openai: circuit open for" "$TMP/err")" = 2 ]'
stop

# half-open lets one request through, not two: h2 and h3 come in one
# write, so h3 is taken while the probe h2 is in flight, whatever the load
: >"$TMP/log"
OXI_LLM_PARALLEL=8 OXI_LLM_BREAKER=1 OXI_LLM_BREAKER_TIME=0.2 start
req h1 >&4
waitfor "[ \"\$(answers)\" = 1 ]"
sleep 0.3
req h2 h3 >&4
check 'half-open: one probe in flight, the other request refused' \
	'waitfor "[ \"\$(answers)\" = 3 ]" && [ "$(posts)" = 2 ] &&
	 [ "$(got h2)$(got h3)" = servercircuit_open ]'
check 'saying a probe is in flight' \
	'grep "\"ref\":\"h3\"" "$TMP/out" | grep -q "circuit half-open, a probe is in flight"'
stop

# what does not count
fake_server openai.py --status 401 --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
: >"$TMP/log"
req a1 a2 a3 >"$TMP/in"
check 'auth errors do not open it' \
	'OXI_LLM_BREAKER=2 oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(posts)" = 3 ] && ! grep -q circuit_open "$TMP/out"'
fake_server openai.py --status 429 --retry-after none --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
: >"$TMP/log"
check 'neither do rate limits' \
	'OXI_LLM_BREAKER=2 oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(posts)" = 3 ] && ! grep -q circuit_open "$TMP/out"'
fake_server openai.py --status 500 --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
: >"$TMP/log"
check 'OXI_LLM_BREAKER=0: never open' \
	'OXI_LLM_BREAKER=0 oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(posts)" = 3 ] && ! grep -q circuit_open "$TMP/out"'
: >"$TMP/log"
check 'retries count: two failed attempts of one request open it' \
	'req b1 b2 | OXI_LLM_RETRIES=3 OXI_LLM_BACKOFF=0.01 OXI_LLM_BREAKER=2 \
		oxi-llm -j >"$TMP/out" 2>"$TMP/err" && [ "$(posts)" = 2 ] &&
	 [ "$(got b1)" = circuit_open ] && [ "$(got b2)" = circuit_open ]'
check 'the retried request ends with circuit_open, after its attempts' \
	'grep "\"ref\":\"b1\"" "$TMP/out" | grep -q "\"attempts\":2"'
check 'other providers are not affected' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"v1\",\"model\":\"vllm/x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" >>"$TMP/in2"
	 { req c1 c2; cat "$TMP/in2"; } |
	 OXI_VLLM_BASE_URL=http://127.0.0.1:1/v1 OXI_LLM_BREAKER=1 \
		oxi-llm -j >"$TMP/out" 2>"$TMP/err";
	 [ "$(got c2)" = circuit_open ] && [ "$(got v1)" = network ]'
done_testing
