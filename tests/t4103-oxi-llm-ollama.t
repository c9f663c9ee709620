#!/bin/sh
# oxi-llm with ollama/ models against a fake Ollama /api/chat: NDJSON
# streaming, tool calls with object arguments, tool_name on results,
# thinking sent back, and each way a reply can fail
cd "$(dirname "$0")" && . ./lib.sh && . ./llmprov.sh || exit 1
plan $((PROV_CHECKS + 5))

FAKE=ollama.py MODEL=ollama/llama-fake DIALECT=ollama
BASEVAR=OXI_OLLAMA_BASE_URL BASE= KEYVAR=OLLAMA_API_KEY
KEY=ol-test-0123456789abcdef KEYHDR='^authorization: Bearer ol-test-0123456789abcdef$'
KEYHDR_NAME=authorization NEEDKEY= OVERLOAD='provider False' REFUSAL=end
prov_start
prov_common

python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(json.dumps({"h": r["headers"], "b": json.loads(r["body"]),
                      "path": r["path"]}, sort_keys=True))
' "$TMP/log" >"$TMP/bodies"
bodyof() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    x = json.loads(l)
    if x["b"]["messages"][1]["content"] == sys.argv[2]:
        v = eval("x" + sys.argv[3])
        print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
        break
' "$TMP/bodies" "$1" "$2"
}
check 'POST /api/chat, NDJSON asked for, stream true' \
	'[ "$(bodyof hello "[\"path\"]")" = /api/chat ] &&
	 [ "$(bodyof hello "[\"h\"][\"accept\"]")" = application/x-ndjson ] &&
	 [ "$(bodyof hello "[\"b\"][\"stream\"]")" = true ]'
check 'messages as they are, tools in the OpenAI shape' \
	'[ "$(bodyof hello "[\"b\"][\"messages\"]")" = "[{\"content\": \"Be brief.\", \"role\": \"system\"}, {\"content\": \"hello\", \"role\": \"user\"}]" ] &&
	 [ "$(bodyof hello "[\"b\"][\"tools\"][0][\"function\"][\"name\"]")" = read_file ]'
grep '"role": "tool"' "$TMP/bodies" >"$TMP/follow"
check 'tool calls go back with arguments as objects' \
	'grep -qF "{\"content\": \"\", \"role\": \"assistant\", \"tool_calls\": [{\"function\": {\"arguments\": {\"path\": \".\"}, \"name\": \"list_dir\"}}, {\"function\": {\"arguments\": {\"path\": \"notes.txt\"}, \"name\": \"read_file\"}}]}" "$TMP/follow"'
check 'results carry tool_name, found from their calls' \
	'grep -qF "{\"content\": \"file body of list_dir\", \"role\": \"tool\", \"tool_name\": \"list_dir\"}, {\"content\": \"file body of read_file\", \"role\": \"tool\", \"tool_name\": \"read_file\"}" "$TMP/follow"'
check 'the thinking goes back with its assistant message' \
	'grep -qF "{\"content\": \"\", \"role\": \"assistant\", \"thinking\": \"I should read the notes.\", \"tool_calls\": [{\"function\": {\"arguments\": {\"path\": \"notes.txt\"}, \"name\": \"read_file\"}}]}" "$TMP/follow"'
done_testing
