#!/bin/sh
# oxi-llm retries: capped exponential backoff with jitter on 429, 5xx,
# errors inside the stream, timeouts, truncation and refused connections,
# never sooner than Retry-After, never on 401, 403 or 400, and never once
# text went out.  Asserted on counts, the waits oxi-llm asks for, the
# records and the fake server's logs, not on how long anything took
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 34

export OXI_DEADLETTER="$TMP/dead.ndjson"
export OXI_LLM_BACKOFF=0.01 OXI_LLM_BACKOFF_MAX=0.05 OXI_LLM_BREAKER=0
M=openai/fake-model
req='{"v":1,"type":"llm.request","id":"e1","model":"openai/fake-model","messages":[{"role":"user","content":"hi"}]}'

# fake ARGS...: a fresh fake server logging requests
fake() {
	rm -f "$TMP/log" "$TMP/acc"
	fake_server openai.py --log "$TMP/log" --access-log "$TMP/acc" "$@"
	export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
}
run() {	# run ARGS...: the request through oxi-llm -j, logs emptied first
	: >"$TMP/log"
	: >"$TMP/acc"
	printf '%s\n' "$req" |
		with_timeout 30 oxi-llm -j "$@" >"$TMP/out" 2>"$TMP/err"
}
posts() { [ -f "$TMP/log" ] && wc -l <"$TMP/log" | tr -d ' ' || echo 0; }
final() {	# the final record, as "type code-or-content attempts"
	python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
fin = [r for r in rs if r["type"] != "llm.delta"]
if len(fin) != 1:
    print("records:", fin)
elif fin[0]["type"] == "error":
    print("error", fin[0]["code"], fin[0].get("attempts", 1))
else:
    print(fin[0]["type"], fin[0]["message"]["content"],
          fin[0].get("attempts", 1))
' "$TMP/out"
}
deltas() {	# the text of the llm.delta records, joined
	python3 -c '
import json, sys
print("".join(r["text"] for r in map(json.loads, open(sys.argv[1]))
              if r["type"] == "llm.delta"))
' "$TMP/out"
}

fake --status 500 --fail-times 2
check 'HTTP 500 twice, then an answer: exit 0' 'run'
check 'the answer, after three attempts' \
	'[ "$(final)" = "llm.response echo: hi 3" ] && [ "$(posts)" = 3 ]'
check 'each retry is one info line' \
	'[ "$(grep -c "info: request e1: server from openai/fake-model, retry [12] in" "$TMP/err")" = 2 ] &&
	 [ "$(grep -vc info: "$TMP/err")" = 0 ]'

fake --status 503
check 'HTTP 503 every time: one error after 1 + OXI_LLM_RETRIES attempts' \
	'OXI_LLM_RETRIES=3 run && [ "$(final)" = "error server 4" ] &&
	 [ "$(posts)" = 4 ]'
check 'the error is retryable, with its provider message' \
	'grep -q "\"code\":\"server\",\"message\":\"openai: HTTP 503: The engine is currently overloaded.\",\"retryable\":true" "$TMP/out"'
check 'default: three attempts' 'run && [ "$(posts)" = 3 ]'
check 'OXI_LLM_RETRIES=0: one attempt' \
	'OXI_LLM_RETRIES=0 run && [ "$(final)" = "error server 1" ] &&
	 [ "$(posts)" = 1 ]'

for code in 401 403 400; do
	fake --status $code
	check "HTTP $code: no retry, exactly one request" \
		'run && [ "$(posts)" = 1 ] && [ "$(grep -c info: "$TMP/err")" = 0 ]'
done

fake --status 429 --fail-times 1 --retry-after 1
check 'HTTP 429 with Retry-After: 1, then an answer' \
	'run && [ "$(final)" = "llm.response echo: hi 2" ]'
check 'the wait asked for is Retry-After, not the shorter backoff' \
	'[ "$(grep -c "info: request e1: rate_limit from openai/fake-model, retry 1 in 1000 ms$" "$TMP/err")" = 1 ]'
# a lower bound only: oxi-llm starts the wait once the first answer is in
check 'the second attempt came no sooner than Retry-After said' \
	'awk "NR == 1 { t = \$1 } NR == 2 { exit !(\$1 - t >= 1.0) }" "$TMP/acc" &&
	 [ "$(wc -l <"$TMP/acc")" = 2 ]'
fake --status 429 --retry-after 30
check 'a Retry-After past the retry window: no retry, the wait is passed on' \
	'OXI_LLM_RETRY_WINDOW=2 run && [ "$(final)" = "error rate_limit 1" ] &&
	 [ "$(jget "[\"retry_after\"]" "$TMP/out")" = 30 ] && [ "$(posts)" = 1 ]'
fake --status 429 --retry-after none
check 'HTTP 429 without Retry-After: backoff, three attempts' \
	'run && [ "$(final)" = "error rate_limit 3" ] && [ "$(posts)" = 3 ]'

# an error inside a 200 stream, before any text: tried again
printf 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\ndata: {"error":{"message":"Overloaded","type":"server_error"}}\n\n' >"$TMP/over.sse"
fake --replay "$TMP/over.sse" --fail-times 1
check 'overloaded inside the stream before any text: retried' \
	'run && [ "$(final)" = "llm.response echo: hi 2" ] && [ "$(posts)" = 2 ]'
check 'and the text went out once' '[ "$(deltas)" = "echo: hi" ]'

# the same after text went out: not retried, the error says partial
printf 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\ndata: {"error":{"message":"Overloaded","type":"server_error"}}\n\n' >"$TMP/late.sse"
fake --replay "$TMP/late.sse" --fail-times 1
check 'overloaded after text went out: no retry' \
	'run && [ "$(final)" = "error server 1" ] && [ "$(posts)" = 1 ]'
check 'the error is marked partial, the text was not repeated' \
	'grep "\"type\":\"error\"" "$TMP/out" | grep -q "\"partial\":true" &&
	 [ "$(deltas)" = Hel ]'

printf 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n' >"$TMP/cut.sse"
fake --replay "$TMP/cut.sse" --fail-times 1
check 'a stream cut before any text: retried' \
	'run && [ "$(final)" = "llm.response echo: hi 2" ] && [ "$(posts)" = 2 ]'

# 1 s of silence: the answer of the second attempt never pauses that long
fake --hang --fail-times 1
check 'a server gone silent: retried after the idle timeout' \
	'OXI_LLM_IDLE_TIMEOUT=1 run && [ "$(final)" = "llm.response echo: hi 2" ] &&
	 grep -q "info: request e1: timeout from openai/fake-model, retry 1 in" "$TMP/err"'

kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
check 'nobody listening: three attempts, then network' \
	'run && [ "$(final)" = "error network 3" ] &&
	 [ "$(grep -c "info: request e1: network from" "$TMP/err")" = 2 ]'

# human mode retries the same way
fake --status 502 --fail-times 1
check 'human mode: HTTP 502 once, then the answer, exit 0' \
	'oxi-llm -m $M hello </dev/null >"$TMP/hout" 2>"$TMP/herr" &&
	 [ "$(cat "$TMP/hout")" = "echo: hello" ] && [ "$(posts)" = 2 ]'
fake --status 502
check_exit 'human mode: HTTP 502 every time: 111 after three attempts' 111 \
	'oxi-llm -m $M hello </dev/null'
cp "$TMP/.err" "$TMP/herr"
check 'one fatal line, naming the code' \
	'[ "$(grep -c "fatal: server: openai: HTTP 502" "$TMP/herr")" = 1 ] &&
	 [ "$(posts)" = 3 ]'

# backoff grows and stays under the cap
fake --status 500
check 'the waits double from OXI_LLM_BACKOFF, jittered, up to the cap' \
	'OXI_LLM_RETRIES=5 OXI_LLM_BACKOFF=0.1 OXI_LLM_BACKOFF_MAX=0.2 run &&
	 grep -o "retry [0-9] in [0-9]* ms" "$TMP/err" | awk "
		{ n = \$2; ms = \$4 }
		n == 1 && (ms < 50 || ms > 100) { bad = 1 }
		n >= 2 && (ms < 100 || ms > 200) { bad = 1 }
		END { exit bad || NR != 5 }"'

# SIGTERM during a wait: no more attempts, the last error comes out
fake --status 500
mkfifo "$TMP/fifo"
exec 4<>"$TMP/fifo"
rm -f "$TMP/err"
OXI_LLM_BACKOFF=20 OXI_LLM_BACKOFF_MAX=20 oxi-llm -j <"$TMP/fifo" 4>&- \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
_bgpids="$_bgpids $pid"
printf '%s\n' "$req" >&4
i=0
while ! grep -qs "retry 1 in" "$TMP/err" && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -TERM $pid
wait $pid
rc=$?
exec 4>&-
# had it waited the 20 s out, a second attempt would be in the log
check 'SIGTERM while waiting to retry: the error at once, exit 0' \
	'[ $rc = 0 ] && [ "$(final)" = "error server 1" ] && [ "$(posts)" = 1 ]'

# Anthropic: an overloaded_error event inside the stream
printf '%s\n\n' 'event: message_start
data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}' 'event: ping
data: {"type":"ping"}' 'event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' >"$TMP/anth.sse"
areq='{"v":1,"type":"llm.request","id":"e1","model":"anthropic/claude-x","messages":[{"role":"user","content":"overload me"}]}'
arun() {	# arun: $areq through oxi-llm -j against the Anthropic fake
	: >"$TMP/alog"
	printf '%s\n' "$areq" |
		OXI_ANTHROPIC_BASE_URL="http://127.0.0.1:$APORT/v1" \
		with_timeout 30 oxi-llm -j >"$TMP/out" 2>"$TMP/err"
}
fake_server anthropic.py --replay "$TMP/anth.sse" --log "$TMP/alog"
APORT=$PORT
check 'Anthropic overloaded_error before any text: retried, three attempts' \
	'arun && [ "$(final)" = "error server 3" ] &&
	 [ "$(wc -l <"$TMP/alog")" = 3 ]'
fake_server anthropic.py --log "$TMP/alog"
APORT=$PORT
fake_server openai.py
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
areq='{"v":1,"type":"llm.request","id":"e1","model":"anthropic/claude-x,openai/fake-model","messages":[{"role":"user","content":"overload me"}]}'
check 'Anthropic overloaded_error after text: no retry, no failover, partial' \
	'arun && [ "$(final)" = "error server 1" ] &&
	 [ "$(wc -l <"$TMP/alog")" = 1 ] &&
	 grep "\"type\":\"error\"" "$TMP/out" | grep -q "\"partial\":true" &&
	 [ "$(deltas)" = "Half an answer" ]'
fake_server anthropic.py --status 529 --log "$TMP/alog"
APORT=$PORT
check 'Anthropic HTTP 529 three times: the next model of the chain answers' \
	'arun && [ "$(final)" = "llm.response echo: overload me 4" ] &&
	 [ "$(wc -l <"$TMP/alog")" = 3 ]'

check_exit 'a bad OXI_LLM_RETRIES: 100' 100 \
	'OXI_LLM_RETRIES=many oxi-llm -j </dev/null'
check_exit 'a bad OXI_LLM_BACKOFF: 100' 100 \
	'OXI_LLM_BACKOFF=-1 oxi-llm -j </dev/null'
fake --status 500
check 'the key never shows in retry lines' \
	'OPENAI_API_KEY=sk-test-RETRY0123456789secret run -v &&
	 ! grep -q RETRY0123456789 "$TMP/out" "$TMP/err"'
fake --status 401
check 'a 401 from a key holder is still one request' \
	'OPENAI_API_KEY=sk-test-RETRY0123456789secret run &&
	 [ "$(posts)" = 1 ] && ! grep -q RETRY0123456789 "$TMP/out" "$TMP/err"'
done_testing
