#!/bin/sh
# oxi-llm with openai-responses/ models against a fake Responses API:
# typed events, function calls with streamed arguments, reasoning items
# sent back encrypted, and each way a reply can fail
cd "$(dirname "$0")" && . ./lib.sh && . ./llmprov.sh || exit 1
plan $((PROV_CHECKS + 6))

FAKE=responses.py MODEL=openai-responses/gpt-fake DIALECT=responses
BASEVAR=OXI_OPENAI_RESPONSES_BASE_URL BASE=/v1 KEYVAR=OPENAI_API_KEY
KEY=sk-test-RESPONSES0123456789 KEYHDR='^authorization: Bearer sk-test-RESPONSES0123456789$'
NEEDKEY=1 OVERLOAD='server True' REFUSAL=refusal
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
    if x["b"]["input"][0]["content"] == sys.argv[2]:
        v = eval("x" + sys.argv[3])
        print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
        break
' "$TMP/bodies" "$1" "$2"
}
check 'POST /v1/responses: instructions, input items, store false' \
	'[ "$(bodyof hello "[\"path\"]")" = /v1/responses ] &&
	 [ "$(bodyof hello "[\"b\"][\"instructions\"]")" = "Be brief." ] &&
	 [ "$(bodyof hello "[\"b\"][\"input\"]")" = "[{\"content\": \"hello\", \"role\": \"user\"}]" ] &&
	 [ "$(bodyof hello "[\"b\"][\"store\"]")" = false ]'
check 'encrypted reasoning asked for; tools flat' \
	'[ "$(bodyof hello "[\"b\"][\"include\"]")" = "[\"reasoning.encrypted_content\"]" ] &&
	 [ "$(bodyof hello "[\"b\"][\"tools\"][0]")" = "{\"description\": \"read a file\", \"name\": \"read_file\", \"parameters\": {\"properties\": {\"path\": {\"type\": \"string\"}}, \"type\": \"object\"}, \"type\": \"function\"}" ]'
grep '"function_call_output"' "$TMP/bodies" >"$TMP/follow"
check 'function_call items, then function_call_output items' \
	'grep -qF "{\"arguments\": \"{\\\"path\\\":\\\".\\\"}\", \"call_id\": \"call_1\", \"name\": \"list_dir\", \"type\": \"function_call\"}, {\"arguments\": \"{\\\"path\\\":\\\"notes.txt\\\"}\", \"call_id\": \"call_2\", \"name\": \"read_file\", \"type\": \"function_call\"}, {\"call_id\": \"call_1\", \"output\": \"file body of list_dir\", \"type\": \"function_call_output\"}, {\"call_id\": \"call_2\", \"output\": \"file body of read_file\", \"type\": \"function_call_output\"}]" "$TMP/follow"'
check 'the reasoning item goes back first, with its encrypted content' \
	'grep -qF "{\"content\": \"think first\", \"role\": \"user\"}, {\"encrypted_content\": \"enc-1\", \"id\": \"rs_1\", \"summary\": [], \"type\": \"reasoning\"}, {\"arguments\": \"{\\\"path\\\":\\\"notes.txt\\\"}\", \"call_id\": \"call_1\", \"name\": \"read_file\", \"type\": \"function_call\"}" "$TMP/follow"'
check 'the reasoning item kept is the final one, not the one first added' \
	'! grep -q "enc-0" "$TMP/follow" "$TMP/out1"'
check 'reasoning tokens counted' \
	'python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in r if x.get(\"id\") == \"r4\" and x[\"type\"] == \"llm.response\"][0]
sys.exit(r[\"usage\"][\"reasoning\"] != 4)
" "$TMP/out1"'
done_testing
