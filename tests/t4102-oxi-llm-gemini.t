#!/bin/sh
# oxi-llm with gemini/ models against a fake generateContent API:
# streaming, function calls and responses, thought signatures sent back,
# and each way a reply can fail
cd "$(dirname "$0")" && . ./lib.sh && . ./llmprov.sh || exit 1
plan $((PROV_CHECKS + 7))

FAKE=gemini.py MODEL=gemini/gemini-fake DIALECT=gemini
BASEVAR=OXI_GEMINI_BASE_URL BASE=/v1beta KEYVAR=GEMINI_API_KEY
KEY=gk-test-0123456789abcdef KEYHDR='^x-goog-api-key: gk-test-0123456789abcdef$'
NEEDKEY=1 OVERLOAD='server True' REFUSAL=refusal
prov_start
prov_common

# bodies LOG: each logged request as {"path", "h", "b"}
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(json.dumps({"h": r["headers"], "b": json.loads(r["body"]),
                      "path": r["path"]}, sort_keys=True))
' "$TMP/log" >"$TMP/bodies"
# bodyof TEXT EXPR: x<EXPR> for the request whose first user text is TEXT
bodyof() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    x = json.loads(l)
    if x["b"]["contents"][0]["parts"][0].get("text") == sys.argv[2]:
        v = eval("x" + sys.argv[3])
        print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
        break
' "$TMP/bodies" "$1" "$2"
}
check 'POST models/MODEL:streamGenerateContent?alt=sse, the key not in it' \
	'[ "$(bodyof hello "[\"path\"]")" = "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse" ] &&
	 ! grep -q "key=" "$TMP/bodies"'
check 'not streamed: models/MODEL:generateContent' \
	'[ "$(bodyof "no stream" "[\"path\"]")" = "/v1beta/models/gemini-fake:generateContent" ]'
check 'systemInstruction, user contents, functionDeclarations' \
	'[ "$(bodyof hello "[\"b\"][\"systemInstruction\"]")" = "{\"parts\": [{\"text\": \"Be brief.\"}]}" ] &&
	 [ "$(bodyof hello "[\"b\"][\"contents\"]")" = "[{\"parts\": [{\"text\": \"hello\"}], \"role\": \"user\"}]" ] &&
	 [ "$(bodyof hello "[\"b\"][\"tools\"][0][\"functionDeclarations\"][1][\"name\"]")" = list_dir ]'
grep '"role": "model"' "$TMP/bodies" >"$TMP/follow"
check 'the model turn as functionCall parts, args objects' \
	'grep -qF "{\"parts\": [{\"functionCall\": {\"args\": {\"path\": \".\"}, \"name\": \"list_dir\"}}, {\"functionCall\": {\"args\": {\"path\": \"notes.txt\"}, \"name\": \"read_file\"}}], \"role\": \"model\"}" "$TMP/follow"'
check 'results as functionResponse parts named after their calls, in one turn' \
	'grep -qF "{\"parts\": [{\"functionResponse\": {\"name\": \"list_dir\", \"response\": {\"output\": \"file body of list_dir\"}}}, {\"functionResponse\": {\"name\": \"read_file\", \"response\": {\"output\": \"file body of read_file\"}}}], \"role\": \"user\"}" "$TMP/follow"'
check 'the thought signature goes back on its functionCall part' \
	'grep -qF "{\"parts\": [{\"functionCall\": {\"args\": {\"path\": \"notes.txt\"}, \"name\": \"read_file\"}, \"thoughtSignature\": \"sig-gem-1\"}], \"role\": \"model\"}" "$TMP/follow"'
check 'thought text: kept in the response, reasoning tokens counted' \
	'python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in r if x.get(\"id\") == \"r4\" and x[\"type\"] == \"llm.response\"][0]
sys.exit(not (r[\"message\"][\"thinking\"][0][\"text\"] == \"**Planning**\n\nRead the notes.\" and
              r[\"message\"][\"thinking\"][0][\"thought\"] is True and
              r[\"usage\"][\"reasoning\"] == 7 and r[\"usage\"][\"output\"] == 20))
" "$TMP/out1"'
done_testing
