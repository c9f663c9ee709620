#!/bin/sh
# oxi-llm with anthropic/ models against a fake Messages API: streaming,
# tool use, caching marks, thinking blocks sent back unchanged, and each
# way a reply can fail
cd "$(dirname "$0")" && . ./lib.sh && . ./llmprov.sh || exit 1
plan $((PROV_CHECKS + 8))

FAKE=anthropic.py MODEL=anthropic/claude-fake DIALECT=anthropic
BASEVAR=OXI_ANTHROPIC_BASE_URL BASE=/v1 KEYVAR=ANTHROPIC_API_KEY
KEY=sk-ant-test-0123456789abcdef KEYHDR='^x-api-key: sk-ant-test-0123456789abcdef$'
NEEDKEY=1 OVERLOAD='server True' REFUSAL=refusal
prov_start
prov_common

# the request bodies the fake logged in the first batch
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    b = json.loads(r["body"])
    print(json.dumps({"h": r["headers"], "b": b, "path": r["path"]}))
' "$TMP/log" >"$TMP/bodies"
# bodyof TEXT EXPR: x<EXPR> for the logged request whose first user text
# is TEXT (x = {"h": headers, "b": body, "path": path})
bodyof() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    x = json.loads(l)
    m = x["b"]["messages"]
    if m[0]["content"][0].get("text") == sys.argv[2]:
        v = eval("x" + sys.argv[3])
        print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
' "$TMP/bodies" "$1" "$2"
}
check 'POST /v1/messages with anthropic-version 2023-06-01' \
	'[ "$(bodyof hello "[\"path\"]")" = /v1/messages ] &&
	 [ "$(bodyof hello "[\"h\"][\"anthropic-version\"]")" = 2023-06-01 ]'
check 'the system prompt as a block marked for caching' \
	'[ "$(bodyof hello "[\"b\"][\"system\"]")" = "[{\"cache_control\": {\"type\": \"ephemeral\"}, \"text\": \"Be brief.\", \"type\": \"text\"}]" ]'
check 'tools with input_schema, the last one marked for caching' \
	'[ "$(bodyof hello "[\"b\"][\"tools\"][0].get(\"cache_control\")")" = null ] &&
	 [ "$(bodyof hello "[\"b\"][\"tools\"][1][\"cache_control\"]")" = "{\"type\": \"ephemeral\"}" ] &&
	 [ "$(bodyof hello "[\"b\"][\"tools\"][1][\"input_schema\"][\"properties\"]")" = "{\"path\": {\"type\": \"string\"}}" ]'
check 'max_tokens 4096 by default, stream true' \
	'[ "$(bodyof hello "[\"b\"][\"max_tokens\"]")" = 4096 ] &&
	 [ "$(bodyof hello "[\"b\"][\"stream\"]")" = true ]'
check 'usage: cache reads in cache_read and counted in input too' \
	'python3 -c "
import json, sys
b = [json.loads(l) for l in open(sys.argv[1])]
b = [x for x in b if x[\"b\"][\"messages\"][0][\"content\"][0][\"text\"] == \"hello\"][0][\"b\"]
r = [json.loads(l) for l in open(sys.argv[2])]
u = [x for x in r if x.get(\"id\") == \"r1\" and x[\"type\"] == \"llm.response\"][0][\"usage\"]
sys.exit(not (u[\"cache_read\"] == 3 and u[\"cache_write\"] == 0 and
              u[\"input\"] == len(json.dumps(b[\"messages\"], separators=(\", \", \": \"))) // 4 + 3))
" "$TMP/bodies" "$TMP/out1"'
# the follow-ups: the last logged bodies of the second batch
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    b = json.loads(r["body"])
    if len(b["messages"]) > 1:
        print(json.dumps(b, sort_keys=True))
' "$TMP/log" >"$TMP/follow"
check 'parallel tool results merged in one user message' \
	'grep -F "\"content\": [{\"content\": \"file body of list_dir\", \"tool_use_id\": \"toolu_1\", \"type\": \"tool_result\"}, {\"content\": \"file body of read_file\", \"tool_use_id\": \"toolu_2\", \"type\": \"tool_result\"}], \"role\": \"user\"}" "$TMP/follow" >/dev/null'
check 'the assistant turn as tool_use blocks with input objects' \
	'grep -F "{\"content\": [{\"id\": \"toolu_1\", \"input\": {\"path\": \".\"}, \"name\": \"list_dir\", \"type\": \"tool_use\"}, {\"id\": \"toolu_2\", \"input\": {\"path\": \"notes.txt\"}, \"name\": \"read_file\", \"type\": \"tool_use\"}], \"role\": \"assistant\"}" "$TMP/follow" >/dev/null'
check 'thinking sent back first and unchanged, signature included' \
	'grep -F "{\"content\": [{\"signature\": \"sig-think-1\", \"thinking\": \"I should read it.\", \"type\": \"thinking\"}, {\"data\": \"REDACTED-1\", \"type\": \"redacted_thinking\"}, {\"id\": \"toolu_1\", \"input\": {\"path\": \"notes.txt\"}, \"name\": \"read_file\", \"type\": \"tool_use\"}], \"role\": \"assistant\"}" "$TMP/follow" >/dev/null'
done_testing
