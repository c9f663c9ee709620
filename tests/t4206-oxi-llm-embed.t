#!/bin/sh
# oxi-llm embed.request: vectors from OpenAI-compatible /embeddings,
# Gemini batchEmbedContents and Ollama /api/embed, with usage, cost,
# retries and recording like llm.request; none from Anthropic
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 26

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_LLM_BACKOFF=0.01
fake_server embed.py --log "$TMP/log" --headers "$TMP/hdrs"
base="http://127.0.0.1:$PORT"
export OXI_OPENAI_BASE_URL="$base/v1" OXI_GEMINI_BASE_URL="$base/v1beta"
export OXI_OLLAMA_BASE_URL="$base" OXI_ANTHROPIC_BASE_URL="$base/v1"

ereq() {	# ereq ID MODEL INPUT-JSON [EXTRA]
	printf '{"v":1,"type":"embed.request","id":"%s","model":"%s",%s"input":%s}\n' \
		"$1" "$2" "$4" "$3"
}
posts() { wc -l <"$TMP/log" | tr -d ' '; }
last() { tail -n 1 "$TMP/log"; }
field() {	# field EXPR: of the one record out
	jget "$1" "$TMP/out"
}
run() { oxi-llm -j "$@" >"$TMP/out" 2>"$TMP/err"; }
hdr() {	# hdr NAME: its values in the last request
	tail -n 1 "$TMP/hdrs" | jget "[\"$1\"]" /dev/stdin
}

ereq e1 openai/text-embedding-3-small '["a","bb"]' | run
check 'OpenAI: one embed.response with a vector per input, in order' \
	'[ "$(field "[\"type\"]")" = embed.response ] &&
	 [ "$(field "[\"vectors\"]")" = "[[1, 0.097, 0.5], [2, 0.196, 0.5]]" ]'
check 'with id, model and usage' \
	'[ "$(field "[\"id\"]") $(field "[\"model\"]") $(field "[\"usage\"]")" = "e1 openai/text-embedding-3-small {\"input\": 2}" ]'
check 'and its cost from the price table' \
	'[ "$(field "[\"cost_usd\"] == 2 * 0.02 / 1e6")" = True ] ||
	 [ "$(field "[\"cost_usd\"] == 2 * 0.02 / 1e6")" = true ]'
check 'POST /v1/embeddings with the model and the texts' \
	'[ "$(last)" = "/v1/embeddings none {\"model\":\"text-embedding-3-small\",\"input\":[\"a\",\"bb\"]}" ]'
check 'the key as a bearer token' \
	'ereq e2 openai/text-embedding-3-small "\"one\"" |
	 OPENAI_API_KEY=sk-test-EMBED0123456789secret run &&
	 last | grep -q "^/v1/embeddings bearer " &&
	 ! grep -q EMBED0123456789 "$TMP/out" "$TMP/err"'
check 'a single string is one input' \
	'[ "$(field "[\"vectors\"]")" = "[[3, 0.322, 0.5]]" ]'
check '"dimensions" is passed on' \
	'ereq e3 openai/text-embedding-3-small "[\"a\"]" "\"dimensions\":5," | run &&
	 [ "$(field "[\"vectors\"]")" = "[[1, 0.097, 0.5, 0.25, 0.25]]" ]'

ereq g1 gemini/text-embedding-004 '["a","bb"]' |
	GEMINI_API_KEY=gemini-test-key0123 run
check 'Gemini: the vectors from batchEmbedContents' \
	'[ "$(field "[\"vectors\"]")" = "[[1, 0.097, 0.5], [2, 0.196, 0.5]]" ]'
check 'POST models/M:batchEmbedContents, one request per text, x-goog-api-key' \
	'last | grep -q "^/v1beta/models/text-embedding-004:batchEmbedContents goog " &&
	 [ "$(last | cut -d" " -f3- | jget "[\"requests\"][1]" /dev/stdin)" = "{\"model\": \"models/text-embedding-004\", \"content\": {\"parts\": [{\"text\": \"bb\"}]}}" ]'
check 'Gemini counts no tokens: usage input and cost_usd null' \
	'[ "$(field "[\"usage\"][\"input\"]") $(field "[\"cost_usd\"]")" = "null null" ]'

ereq o1 ollama/nomic-embed-text '["a","bb"]' | run
check 'Ollama: the vectors from /api/embed' \
	'[ "$(field "[\"vectors\"]")" = "[[1, 0.097, 0.5], [2, 0.196, 0.5]]" ] &&
	 last | grep -q "^/api/embed none {\"model\":\"nomic-embed-text\",\"input\":\[\"a\",\"bb\"\]}"'
check 'with prompt_eval_count as usage, at no cost' \
	'[ "$(field "[\"usage\"][\"input\"]") $(field "[\"cost_usd\"]")" = "2 0" ]'

check 'an OXI_<PROVIDER>_HEADERS Authorization line replaces the key'"'"'s' \
	'ereq h1 openai/text-embedding-3-small "[\"a\"]" |
	 OPENAI_API_KEY=sk-test-EMBED0123456789secret \
	 OXI_OPENAI_HEADERS="authorization: Bearer proxy-token" run &&
	 [ "$(field "[\"type\"]") $(hdr authorization)" = "embed.response [\"Bearer proxy-token\"]" ]'
check 'so does a line naming the provider'"'"'s key header' \
	'ereq h2 gemini/text-embedding-004 "[\"a\"]" |
	 GEMINI_API_KEY=gemini-test-key0123 \
	 OXI_GEMINI_HEADERS="X-Goog-Api-Key: proxy-key" run &&
	 [ "$(field "[\"type\"]") $(hdr x-goog-api-key)" = "embed.response [\"proxy-key\"]" ]'

n=$(posts)
check 'Anthropic offers no embeddings: a config error saying so, nothing sent' \
	'ereq a1 anthropic/claude-x "[\"a\"]" | run &&
	 grep -q "\"ref\":\"a1\",\"code\":\"config\",\"message\":\"anthropic: no embeddings: [^\"]*\",\"retryable\":false" "$TMP/out" &&
	 [ "$(field "[\"model\"]")" = anthropic/claude-x ] && [ "$(posts)" = $n ]'
check 'in a chain, the next model takes it' \
	'ereq a2 "anthropic/claude-x,openai/text-embedding-3-small" "[\"a\"]" | run &&
	 [ "$(field "[\"model\"]") $(field "[\"vectors\"]")" = "openai/text-embedding-3-small [[1, 0.097, 0.5]]" ] &&
	 [ "$(posts)" = $((n + 1)) ]'

# failures
{
	ereq b1 openai/text-embedding-3-small '[]'
	ereq b2 openai/text-embedding-3-small '["a",3]'
	printf '{"v":1,"type":"embed.request","model":"openai/x","input":["a"]}\n'
	ereq b4 openai/text-embedding-3-small '["fine"]'
} >"$TMP/in"
n=$(posts)
check_exit 'malformed embed.request records: exit 1' 1 \
	'oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'each an invalid error, a warning and a dead letter' \
	'[ "$(grep -c "\"code\":\"invalid\"" "$TMP/out")" = 3 ] &&
	 [ "$(grep -c "warning: stdin:[123]: embed.request" "$TMP/err")" = 3 ] &&
	 [ "$(wc -l <"$OXI_DEADLETTER")" = 3 ]'
check 'the good one is answered, the bad ones sent nothing' \
	'grep -q "\"type\":\"embed.response\",\"id\":\"b4\"" "$TMP/out" &&
	 [ "$(posts)" = $((n + 1)) ]'

fake_server embed.py --log "$TMP/log" --status 401
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
n=$(posts)
check 'HTTP 401: an auth error, no retry' \
	'ereq f1 openai/text-embedding-3-small "[\"a\"]" | run &&
	 grep -q "\"ref\":\"f1\",\"code\":\"auth\",\"message\":\"openai: HTTP 401: fake error 401\",\"retryable\":false" "$TMP/out" &&
	 [ "$(posts)" = $((n + 1)) ]'
fake_server embed.py --log "$TMP/log" --fail-times 2
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
n=$(posts)
check 'HTTP 500 twice: retried, then the vectors' \
	'ereq f2 openai/text-embedding-3-small "[\"a\"]" | run &&
	 [ "$(field "[\"vectors\"]")" = "[[1, 0.097, 0.5]]" ] &&
	 [ "$(field "[\"attempts\"]")" = 3 ] && [ "$(posts)" = $((n + 3)) ]'
good=$FAKE_PID
fake_server embed.py --log "$TMP/log2" --status 503
FAKE_PID=$good
check 'failover works for embeddings too' \
	'ereq f3 "vllm/e,openai/text-embedding-3-small" "[\"a\"]" |
	 OXI_LLM_RETRIES=0 OXI_VLLM_BASE_URL="http://127.0.0.1:$PORT/v1" run &&
	 [ "$(field "[\"model\"]")" = openai/text-embedding-3-small ]'

# recorded and replayed
check 'embeddings are recorded' \
	'ereq r1 openai/text-embedding-3-small "[\"x\"]" |
	 run --record "$TMP/rec.ndjson" && cp "$TMP/out" "$TMP/out1" &&
	 grep -q embed.request "$TMP/rec.ndjson"'
check 'and replayed, with the new id' \
	'kill "$FAKE_PID"; ereq r2 openai/text-embedding-3-small "[\"x\"]" |
	 run --replay "$TMP/rec.ndjson" &&
	 [ "$(sed "s/\"r1\"/\"r2\"/" "$TMP/out1")" = "$(cat "$TMP/out")" ]'
check 'other input: replay_miss' \
	'ereq r3 openai/text-embedding-3-small "[\"y\"]" |
	 run --replay "$TMP/rec.ndjson" && grep -q replay_miss "$TMP/out"'
check 'an embed.request in the pipeline passes other records through' \
	'printf "{\"type\":\"x\",\"n\":1}\n" | run && [ "$(cat "$TMP/out")" = "{\"type\":\"x\",\"n\":1}" ]'
done_testing
