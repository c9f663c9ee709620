#!/bin/sh
# oxi-llm -j over HTTP against recorded Anthropic, Gemini and Responses
# streams from $SHARED/wire, replayed in odd-sized pieces: what a user of
# each provider gets from each recording
cd "$(dirname "$0")" && . ./lib.sh || exit 1
if [ -z "$SHARED" ] || [ ! -d "$SHARED/wire/anthropic" ]; then
	echo "1..0 # SKIP no shared wire samples"
	exit 0
fi
export OXI_LLM_RETRIES=0 OXI_LLM_BREAKER=0
export ANTHROPIC_API_KEY=sk-ant-wire GEMINI_API_KEY=gk-wire OPENAI_API_KEY=sk-wire
plan 12

W="$SHARED/wire"

# replay FAKE MODEL BASEVAR BASE FILE: the final record's outcome, as
# "STOP: CONTENT" for a response or "error CODE RETRYABLE" for an error
replay() {
	fake_server "$1" --replay "$W/$5" --chunk-sizes 3,1,4,1,5,9,2,6
	printf '{"v":1,"type":"llm.request","id":"w1","model":"%s","messages":[{"role":"user","content":"x"}]}\n' "$2" |
		env "$3=http://127.0.0.1:$PORT$4" oxi-llm -j >"$TMP/out" 2>"$TMP/err"
	kill "$FAKE_PID"
	python3 -c '
import json, sys
fin = [json.loads(l) for l in open(sys.argv[1])]
fin = [r for r in fin if r["type"] != "llm.delta"]
if len(fin) != 1:
    print("%d final records" % len(fin))
elif fin[0]["type"] == "error":
    print("error", fin[0]["code"], str(fin[0]["retryable"]).lower())
else:
    m = fin[0]["message"]
    print(fin[0]["stop"] + ": " + (m["content"] or "") + "".join(
        " " + c["name"] + json.dumps(c["args"], sort_keys=True)
        for c in m["tool_calls"]))
' "$TMP/out"
}
anth() { replay anthropic.py anthropic/claude OXI_ANTHROPIC_BASE_URL /v1 "anthropic/anthropic-sdk-python_$1.sse"; }
gem() { replay gemini.py gemini/gemini-2.0-flash OXI_GEMINI_BASE_URL /v1beta "gemini/$1.txt"; }
resp() { replay responses.py openai-responses/gpt-5 OXI_OPENAI_RESPONSES_BASE_URL /v1 "openai-responses/swiftagent_$1.sse"; }

check 'anthropic basic_response: the text' \
	'[ "$(anth basic_response)" = "end: Hello there!" ]'
check 'anthropic tool_use_response: the text and the call' \
	'[ "$(anth tool_use_response)" = "tool_use: I'\''ll check the current weather in Paris for you. get_weather{\"location\": \"Paris\"}" ]'
check 'anthropic midstream_overloaded_error: error server, retryable' \
	'[ "$(anth midstream_overloaded_error)" = "error server true" ]'
check 'anthropic refusal_response: stop refusal' \
	'[ "$(anth refusal_response)" = "refusal: " ]'
check 'anthropic incomplete_partial_json_response: bad_tool_args' \
	'[ "$(anth incomplete_partial_json_response)" = "error bad_tool_args false" ]'
check 'gemini basic-reply-short: the text' \
	'[ "$(gem googleai_streaming-success-basic-reply-short)" = "end: The capital of Wyoming is **Cheyenne**." ]'
check 'gemini function-call-short: the call' \
	'[ "$(gem vertexai_streaming-success-function-call-short)" = "tool_use:  getTemperature{\"city\": \"San Jose\"}" ]'
check 'gemini error-mid-stream: an error, not the text before it' \
	'[ "$(gem vertexai_streaming-failure-error-mid-stream)" = "error server true" ]'
check 'gemini prompt-blocked-safety: stop refusal' \
	'[ "$(gem googleai_streaming-failure-prompt-blocked-safety)" = "refusal: " ]'
check 'gemini invalid-json: bad_reply' \
	'[ "$(gem vertexai_streaming-failure-invalid-json)" = "error bad_reply false" ]'
check 'responses ToolCalls_response1: the call, arguments whole' \
	'[ "$(resp ToolCalls_response1)" = "tool_use:  get_weather{\"location\": \"New York City, USA\"}" ]'
check 'responses insufficientQuota_failed: an error, not retryable' \
	'[ "$(resp insufficientQuota_failed)" = "error provider false" ]'
done_testing
