#!/bin/sh
# oxi-llm -j when things go wrong: every failing request gets exactly one
# error record (and no llm.response), retryable or not, with one stderr
# line, and the API key shows up nowhere
cd "$(dirname "$0")" && . ./lib.sh || exit 1
# one attempt per request: retries are t42xx's business
export OXI_LLM_RETRIES=0
plan 26

export OXI_DEADLETTER="$TMP/dead.ndjson"
KEY=sk-test-RECORDS0123456789secret
req='{"v":1,"type":"llm.request","id":"e1","model":"openai/fake-model","messages":[{"role":"user","content":"hi"}]}'

# run ARGS...: one request through oxi-llm -j against the current fake
run() {
	printf '%s\n' "$req" | OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
		with_timeout 30 oxi-llm -j "$@" >"$TMP/out" 2>"$TMP/err"
}
# the error record, as "code retryable", or what came instead
outcome() {
	python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
fin = [r for r in rs if r["type"] != "llm.delta"]
if len(fin) != 1 or fin[0]["type"] != "error" or fin[0]["ref"] != "e1":
    print("unexpected:", fin)
else:
    print(fin[0]["code"], str(fin[0]["retryable"]).lower())
' "$TMP/out"
}

fake_server openai.py --status 401
check 'HTTP 401: exit 0, the error is in the record' \
	'OPENAI_API_KEY=$KEY run -v'
check 'code auth, not retryable' '[ "$(outcome)" = "auth false" ]'
check 'the provider message, key masked' \
	'[ "$(jget "[\"message\"]" "$TMP/out")" = "openai: HTTP 401: Incorrect API key provided: [REDACTED]." ]'
check 'one warning line on stderr' \
	'[ "$(grep -c warning: "$TMP/err")" = 1 ] && grep -q "request e1: auth: " "$TMP/err"'
cat "$TMP/out" "$TMP/err" "$OXI_DEADLETTER" >"$TMP/all" 2>/dev/null
check_nogrep 'the key is in neither output, log nor dead letters' \
	'RECORDS0123456789' "$TMP/all"

fake_server openai.py --status 403
check 'HTTP 403: auth, not retryable' 'run && [ "$(outcome)" = "auth false" ]'
fake_server openai.py --status 400
check 'HTTP 400: bad_request, not retryable' \
	'run && [ "$(outcome)" = "bad_request false" ]'
fake_server openai.py --status 500
check 'HTTP 500: server, retryable' 'run && [ "$(outcome)" = "server true" ]'
fake_server openai.py --status 503
check 'HTTP 503: server, retryable' 'run && [ "$(outcome)" = "server true" ]'
fake_server openai.py --status 429
check 'HTTP 429: rate_limit, retryable' \
	'run && [ "$(outcome)" = "rate_limit true" ]'
check 'with retry_after from Retry-After' \
	'[ "$(jget "[\"retry_after\"]" "$TMP/out")" = 1 ]'

fake_server openai.py --truncate
check 'a stream cut before finish_reason and [DONE]: truncated, retryable' \
	'run && [ "$(outcome)" = "truncated true" ]'
check 'after the deltas that did arrive, and no llm.response' \
	'grep -q "\"type\":\"llm.delta\"" "$TMP/out" &&
	 ! grep -q "\"type\":\"llm.response\"" "$TMP/out"'

fake_server openai.py --hang
check 'a silent server: timeout after OXI_LLM_IDLE_TIMEOUT, retryable' \
	'OXI_LLM_IDLE_TIMEOUT=0.5 run && [ "$(outcome)" = "timeout true" ]'

fake_server openai.py --trickle
check 'a server trickling a byte a second: cut at the minimum rate, retryable' \
	'OXI_LLM_IDLE_TIMEOUT=2 OXI_LLM_MIN_RATE=4 run &&
	 [ "$(outcome)" = "timeout true" ] && grep -q "too slow" "$TMP/out"'

fake_server openai.py --garbage
check 'an answer that is not HTTP: network, retryable (not config)' \
	'run && [ "$(outcome)" = "network true" ]'

kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
check 'nobody listening: network, retryable' \
	'run && [ "$(outcome)" = "network true" ]'

# an error object inside a 200 stream
printf 'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\ndata: {"error":{"message":"The server is overloaded.","type":"server_error"}}\n\n' >"$TMP/err.sse"
fake_server openai.py --replay "$TMP/err.sse"
check 'an error inside a 200 stream: an error record' \
	'run && [ "$(outcome)" = "server true" ] &&
	 [ "$(grep "\"type\":\"error\"" "$TMP/out" | jget "[\"message\"]" /dev/stdin)" = "openai: The server is overloaded." ]'

# tool arguments that do not parse are an error, not a fake success
printf 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\\"path\\": \\"no"}}]},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n' >"$TMP/args.sse"
fake_server openai.py --replay "$TMP/args.sse"
check 'unparsable tool arguments: bad_tool_args' \
	'run && [ "$(outcome)" = "bad_tool_args false" ]'

# servers that reuse index 0 for every call of a batch
printf 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\\"x\\":1}"}}]},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n' >"$TMP/idx.sse"
fake_server openai.py --replay "$TMP/idx.sse"
check 'a new id at index 0 starts a new call' \
	'run && [ "$(jget "[\"message\"][\"tool_calls\"]" "$TMP/out")" = "[{\"id\": \"a\", \"name\": \"f\", \"args\": {}}, {\"id\": \"b\", \"name\": \"g\", \"args\": {\"x\": 1}}]" ]'

# configuration problems of one request do not stop the others
fake_server openai.py
{
	printf '%s\n' '{"type":"llm.request","id":"c1","model":"acme/x","messages":[{"role":"user","content":"a"}]}'
	printf '%s\n' '{"type":"llm.request","id":"c2","model":"groq/llama","messages":[{"role":"user","content":"b"}]}'
	printf '%s\n' '{"type":"llm.request","id":"c3","model":"openai/fake-model","messages":[{"role":"user","content":"c"}]}'
} >"$TMP/in"
check 'an unknown provider and a missing key: exit 0' \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'an unknown provider: config, not retryable' \
	'grep "\"ref\":\"c1\"" "$TMP/out" | grep -q "\"code\":\"config\".*\"retryable\":false"'
check 'a missing key: auth, naming the variable' \
	'grep "\"ref\":\"c2\"" "$TMP/out" | grep -q "\"code\":\"auth\",\"message\":\"no API key for groq: set GROQ_API_KEY\""'
check 'the good request is still answered' \
	'grep -q "\"type\":\"llm.response\",\"id\":\"c3\"" "$TMP/out"'
check 'one stderr line per failed request' '[ "$(wc -l <"$TMP/err")" = 2 ]'
check_exit 'a bad default model at start: 100' 100 \
	'oxi-llm -j -m acme/x </dev/null'
done_testing
