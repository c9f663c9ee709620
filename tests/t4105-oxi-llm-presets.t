#!/bin/sh
# oxi-llm's named providers: default keys and base URLs, extra headers
# per provider, and prompt-guided tools for models without tool calling
cd "$(dirname "$0")" && . ./lib.sh || exit 1
export OXI_LLM_RETRIES=0 OXI_LLM_BREAKER=0
for p in OPENAI ANTHROPIC GEMINI OLLAMA OPENROUTER GROQ DEEPSEEK MISTRAL \
    TOGETHER XAI LMSTUDIO VLLM LLAMA; do
	unset ${p}_API_KEY OXI_${p}_BASE_URL OXI_${p}_HEADERS OXI_${p}_TOOLS
done
unset OXI_LLAMACPP_BASE_URL OXI_OPENAI_RESPONSES_BASE_URL
plan 16

fake_server chat.py --log "$TMP/log" --chunk-sizes 2,5,3
URL="http://127.0.0.1:$PORT/v1"

# lastlog EXPR: x<EXPR> of the last logged request (headers, body parsed)
lastlog() {
	python3 -c '
import json, sys
x = json.loads(open(sys.argv[1]).readlines()[-1])
x["body"] = json.loads(x["body"])
v = eval("x" + sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
' "$TMP/log" "$1"
}

bad=
for pk in openai:OPENAI_API_KEY anthropic:ANTHROPIC_API_KEY \
    gemini:GEMINI_API_KEY openai-responses:OPENAI_API_KEY \
    openrouter:OPENROUTER_API_KEY groq:GROQ_API_KEY \
    deepseek:DEEPSEEK_API_KEY mistral:MISTRAL_API_KEY \
    together:TOGETHER_API_KEY xai:XAI_API_KEY; do
	oxi-llm -m "${pk%%:*}/m" hi >/dev/null 2>"$TMP/err"
	[ $? = 100 ] && grep -q "no API key for ${pk%%:*}: set ${pk#*:}" \
		"$TMP/err" || bad="$bad ${pk%%:*}"
done
check 'a hosted provider without its key: exit 100, the variable named' \
	'[ -z "$bad" ] || { diag "failed:$bad"; false; }'

bad=
for pk in openrouter:OPENROUTER_API_KEY groq:GROQ_API_KEY \
    deepseek:DEEPSEEK_API_KEY mistral:MISTRAL_API_KEY \
    together:TOGETHER_API_KEY xai:XAI_API_KEY lmstudio:LMSTUDIO_API_KEY \
    vllm:VLLM_API_KEY llamacpp:LLAMA_API_KEY; do
	p=${pk%%:*} k=${pk#*:}
	v=OXI_$(echo "$p" | tr a-z A-Z)_BASE_URL
	out=$(env "$v=$URL" "$k=key-of-$p-0123" oxi-llm -m "$p/m-$p" "hi $p" \
		2>"$TMP/err")
	[ "$out" = "echo: hi $p" ] &&
		[ "$(lastlog '["headers"]["authorization"]')" = "Bearer key-of-$p-0123" ] &&
		[ "$(lastlog '["path"]')" = /v1/chat/completions ] &&
		[ "$(lastlog '["body"]["model"]')" = "m-$p" ] || bad="$bad $p"
done
check 'each OpenAI-compatible preset: its base URL variable and key' \
	'[ -z "$bad" ] || { diag "failed:$bad"; false; }'
check 'local servers need no key' \
	'[ "$(OXI_VLLM_BASE_URL=$URL oxi-llm -m vllm/m hi)" = "echo: hi" ] &&
	 [ "$(lastlog "[\"headers\"].get(\"authorization\")")" = null ]'
check 'openai-responses falls back to OXI_OPENAI_BASE_URL' \
	'(OXI_OPENAI_BASE_URL=http://127.0.0.1:9/nowhere oxi-llm -v -m openai-responses/m hi 2>&1;
	  true) | grep -q "POST http://127.0.0.1:9/nowhere/responses"'
check_exit 'an unknown provider: exit 100' 100 'oxi-llm -m nope/m hi'
check 'with the known ones listed' \
	'oxi-llm -m nope/m hi 2>&1 | grep -q "unknown provider .nope. (known: openai, anthropic, gemini, openai-responses, ollama, openrouter, groq, deepseek, mistral, together, xai, lmstudio, vllm, llamacpp)"'

# extra headers
export OXI_MISTRAL_BASE_URL=$URL MISTRAL_API_KEY=key-mistral-0123
check 'OXI_<PROVIDER>_HEADERS: lines split at backslash-n, sent, not logged' \
	'OXI_MISTRAL_HEADERS="X-Title: oxi tests\nHTTP-Referer: https://example.org/secret-ref" \
	 oxi-llm -v -m mistral/m hi >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(lastlog "[\"headers\"][\"x-title\"]")" = "oxi tests" ] &&
	 [ "$(lastlog "[\"headers\"][\"http-referer\"]")" = https://example.org/secret-ref ] &&
	 ! grep -q secret-ref "$TMP/err"'
check 'real newlines separate them too' \
	'OXI_MISTRAL_HEADERS="X-A: 1
X-B: 2" oxi-llm -m mistral/m hi >/dev/null &&
	 [ "$(lastlog "[\"headers\"][\"x-a\"]+x[\"headers\"][\"x-b\"]")" = 12 ]'
check 'a header of ours can be replaced (Authorization for a proxy)' \
	'OXI_MISTRAL_HEADERS="authorization: Bearer proxy-token" \
	 oxi-llm -m mistral/m hi >/dev/null &&
	 [ "$(lastlog "[\"headers\"][\"authorization\"]")" = "Bearer proxy-token" ]'
check 'a bad header line: exit 100, the value never quoted' \
	'OXI_MISTRAL_HEADERS="X-Ok: 1\nnot a header secret-value" \
	 oxi-llm -m mistral/m hi >/dev/null 2>"$TMP/err";
	 [ $? = 100 ] && grep -q "OXI_MISTRAL_HEADERS: header 2 is not" "$TMP/err" &&
	 ! grep -q secret-value "$TMP/err"'
check_exit 'OXI_<PROVIDER>_TOOLS other than prompt or native: exit 100' 100 \
	'OXI_MISTRAL_TOOLS=maybe oxi-llm -m mistral/m hi'

# prompt-guided tools
export OXI_GROQ_BASE_URL=$URL GROQ_API_KEY=key-groq-0123 OXI_GROQ_TOOLS=prompt
tools='"tools":[{"name":"read_file","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]'
printf '%s\n' "{\"v\":1,\"type\":\"llm.request\",\"id\":\"p1\",\"model\":\"groq/m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"read notes.txt\"}],$tools}" >"$TMP/in"
oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
grep llm.response "$TMP/out" >"$TMP/resp"
check 'prompt mode: no tools sent, they are described in the system prompt' \
	'[ "$(lastlog "[\"body\"].get(\"tools\")")" = null ] &&
	 lastlog "[\"body\"][\"messages\"][0][\"content\"]" | grep -q "^## read_file$" &&
	 lastlog "[\"body\"][\"messages\"][0][\"content\"]" | grep -q "^Be brief.$"'
check 'the <tool_call> block becomes a tool call, cut out of the text' \
	'python3 -c "
import json, sys
r = json.loads(open(sys.argv[1]).read())
c = r[\"message\"][\"tool_calls\"]
sys.exit(not (len(c) == 1 and c[0][\"name\"] == \"read_file\" and
              c[0][\"args\"] == {\"path\": \"notes.txt\"} and
              r[\"stop\"] == \"tool_use\" and
              r[\"message\"][\"content\"] == \"Let me look.\n\n\"))
" "$TMP/resp"'
check 'and never shows in the deltas' \
	'[ "$(grep -c llm.delta "$TMP/out")" -gt 1 ] &&
	 python3 -c "
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if \"llm.delta\" in l]
sys.exit(\"\".join(x[\"text\"] for x in d) != \"Let me look.\n\n\")
" "$TMP/out"'
python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "llm.response" in l][0]
q = json.loads(open(sys.argv[2]).readline())
c = r["message"]["tool_calls"][0]
q["id"] = "p2"
q["messages"] += [r["message"], {"role": "tool", "tool_call_id": c["id"],
                                 "content": "file body"}]
print(json.dumps(q))
' "$TMP/out" "$TMP/in" >"$TMP/in2"
check 'the result goes back as user text, the call as its block' \
	'oxi-llm -j <"$TMP/in2" >"$TMP/out" 2>"$TMP/err" &&
	 python3 -c "
import json, sys
x = json.loads(open(sys.argv[1]).readlines()[-1])
m = json.loads(x[\"body\"])[\"messages\"]
r = [json.loads(l) for l in open(sys.argv[2]) if \"llm.response\" in l][0]
sys.exit(not (m[3] == {\"role\": \"user\", \"content\":
                \"<tool_result name=\\\"read_file\\\">\\nfile body\\n</tool_result>\"} and
              m[2][\"role\"] == \"assistant\" and \"tool_calls\" not in m[2] and
              m[2][\"content\"].endswith(\"<tool_call>{\\\"name\\\":\\\"read_file\\\",\\\"arguments\\\":{\\\"path\\\":\\\"notes.txt\\\"}}</tool_call>\") and
              r[\"message\"][\"content\"] == \"The tool said: file body\"))
" "$TMP/log" "$TMP/out"'
check '"tool_mode":"native" in a request overrides the setting' \
	'sed "s/\"id\":\"p1\"/\"id\":\"p3\",\"tool_mode\":\"native\"/" "$TMP/in" |
	 oxi-llm -j >"$TMP/out" &&
	 [ "$(lastlog "[\"body\"][\"tools\"][0][\"function\"][\"name\"]")" = read_file ]'
done_testing
