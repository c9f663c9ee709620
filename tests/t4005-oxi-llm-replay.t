#!/bin/sh
# oxi-llm -j over HTTP against recorded OpenAI streams from
# $SHARED/wire/openai-chat, replayed in odd-sized pieces
cd "$(dirname "$0")" && . ./lib.sh || exit 1
if [ -z "$SHARED" ] || [ ! -d "$SHARED/wire/openai-chat" ]; then
	echo "1..0 # SKIP no shared wire samples"
	exit 0
fi
plan 7

W="$SHARED/wire/openai-chat"
req='{"v":1,"type":"llm.request","id":"p1","model":"openai/gpt-4o","messages":[{"role":"user","content":"x"}]}'

# replay FILE FILTER: the response's field, through a fake replaying FILE
replay() {
	fake_server openai.py --replay "$W/openai-python_$1.sse" \
		--chunk-sizes 3,1,4,1,5,9,2,6
	printf '%s\n' "$req" |
		OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" oxi-llm -j \
		>"$TMP/out" 2>"$TMP/err" &&
		grep '"type":"llm.response"' "$TMP/out" >"$TMP/resp" &&
		jget "$2" "$TMP/resp"
	kill "$FAKE_PID"
}

check 'plain_text: the full text' \
	'[ "$(replay plain_text "[\"message\"][\"content\"]")" = "I'\''m unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app." ]'
check 'content_logprobs: text and usage' \
	'[ "$(replay content_logprobs "[\"message\"][\"content\"]+\" \"+str(r[\"usage\"][\"input\"])+\"/\"+str(r[\"usage\"][\"output\"])")" = "Foo! 9/2" ]'
check 'single_tool_call: one call, args parsed' \
	'[ "$(replay single_tool_call "[\"message\"][\"tool_calls\"]")" = "[{\"id\": \"call_c91SqDXlYFuETYv8mUHzz6pp\", \"name\": \"GetWeatherArgs\", \"args\": {\"city\": \"Edinburgh\", \"country\": \"UK\", \"units\": \"c\"}}]" ]'
check 'strict_tool_call: one call, stop tool_use' \
	'[ "$(replay strict_tool_call "[\"stop\"]+\" \"+r[\"message\"][\"tool_calls\"][0][\"name\"]+\" \"+r[\"message\"][\"tool_calls\"][0][\"args\"][\"state\"]")" = "tool_use get_weather CA" ]'
check 'parallel_tool_calls_two_functions: two calls' \
	'[ "$(replay parallel_tool_calls_two_functions "[\"message\"][\"tool_calls\"][1][\"args\"]")" = "{\"ticker\": \"AAPL\", \"exchange\": \"NASDAQ\"}" ] &&
	 [ "$(jget "[\"message\"][\"tool_calls\"][0][\"name\"]" "$TMP/resp")" = GetWeatherArgs ]'
check 'refusal: stop refusal, the refusal as content' \
	'[ "$(replay refusal "[\"stop\"]+\": \"+r[\"message\"][\"content\"]")" = "refusal: I'\''m sorry, I can'\''t assist with that request." ]'
check 'finish_length_max_tokens: stop length' \
	'[ "$(replay finish_length_max_tokens "[\"stop\"]")" = length ]'
done_testing
