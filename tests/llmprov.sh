# llmprov.sh - the checks every native provider of oxi-llm passes, sourced
# by tests/t410x-oxi-llm-*.t after lib.sh
#
# A test sets FAKE (tests/fake script), MODEL ("provider/model"), BASEVAR
# and BASE (its base URL variable and the path after the port), KEYVAR and
# KEY (a fake key), KEYHDR (a regex for the header line the key goes in),
# NEEDKEY (set if the default base URL needs the key), DIALECT, OVERLOAD
# (the error code and retryability of an error mid-stream) and REFUSAL
# (the stop of a refusal),
# then calls prov_start and prov_common, and adds its own checks of the
# request bodies (in $TMP/log, one {"path","headers","body"} per line) and
# of its special cases ($TMP/out1 holds the records of the first batch).
# prov_common runs PROV_CHECKS checks.

# one attempt per request: retries are t42xx's business
export OXI_LLM_RETRIES=0 OXI_LLM_BREAKER=0
unset ANTHROPIC_API_KEY GEMINI_API_KEY OLLAMA_API_KEY OPENAI_API_KEY
unset OXI_ANTHROPIC_BASE_URL OXI_GEMINI_BASE_URL OXI_OLLAMA_BASE_URL
unset OXI_OPENAI_RESPONSES_BASE_URL OXI_ANTHROPIC_HEADERS OXI_GEMINI_HEADERS
unset OXI_ANTHROPIC_TOOLS OXI_GEMINI_TOOLS OXI_OLLAMA_TOOLS OXI_OPENAI_TOOLS
export OXI_DEADLETTER="$TMP/dead.ndjson"
PROV_CHECKS=20

TOOLS='"tools":[{"name":"read_file","description":"read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}},{"name":"list_dir","description":"list a directory","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]'

# req ID TEXT [MORE-KEYS]: an llm.request line with a system prompt
req() {
	printf '{"v":1,"type":"llm.request","id":"%s","model":"%s","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"%s"}],%s%s}\n' \
		"$1" "$MODEL" "$2" "$TOOLS" "$3"
}

# pick TYPE ID FILE: the records of a type for a request
pick() {
	python3 -c '
import json, sys
for l in open(sys.argv[3]):
    r = json.loads(l)
    if r.get("type") == sys.argv[1] and sys.argv[2] in (r.get("id"), r.get("ref")):
        print(l, end="")
' "$1" "$2" "$3"
}

# field ID EXPR: r<EXPR> of the final record (llm.response or error) of ID
field() {
	python3 -c '
import json, sys
fin = [json.loads(l) for l in open(sys.argv[3])]
fin = [r for r in fin if r["type"] in ("llm.response", "error") and
       sys.argv[1] in (r.get("id"), r.get("ref"))]
if len(fin) != 1:
    print("%d final records" % len(fin))
else:
    v = eval("fin[0]" + sys.argv[2])
    print(v if isinstance(v, str) else json.dumps(v))
' "$1" "$2" "$TMP/out"
}

# lastbody EXPR: b<EXPR> of the body of the last request the fake logged
lastbody() {
	python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readlines()[-1])
b = json.loads(r["body"])
v = eval("b" + sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
' "$TMP/log" "$1"
}

# followup ID: the request that answers the calls of response ID with
# "file body" for each, the assistant message sent back as it came
followup() {
	python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
r = [r for r in rs if r["type"] == "llm.response" and r["id"] == sys.argv[2]][0]
m = r["message"]
msgs = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": sys.argv[3]}, m]
for c in m["tool_calls"]:
    msgs.append({"role": "tool", "tool_call_id": c["id"],
                 "content": "file body of " + c["name"]})
print(json.dumps({"v": 1, "type": "llm.request", "id": sys.argv[2] + "b",
                  "model": sys.argv[4], "messages": msgs}))
' "$TMP/out" "$1" "$2" "$MODEL"
}

prov_start() {
	fake_server "$FAKE" --log "$TMP/log" --chunk-sizes 1,3,2,7
	eval "export $BASEVAR=http://127.0.0.1:$PORT$BASE"
	eval "export $KEYVAR=$KEY"
}

prov_common() {
	{
		req r1 hello
		req r2 'read notes.txt'
		echo '{"type":"x.custom","id":"u1", "keep":[1, 2.50]}'
		req r3 'two tools now'
		req r4 'think first'
		req r5 'refuse this'
		req r6 'long story'
		req r7 'overload now'
		req r8 'cut short'
		req r9 'no stream' ',"stream":false'
	} >"$TMP/in"
	check 'a batch of requests: exit 0' \
		'with_timeout 60 oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
	check 'a warning for each failed request only (r7, r8)' \
		'[ "$(grep -c warning: "$TMP/err")" = 2 ] &&
		 grep -q "request r7: " "$TMP/err" && grep -q "request r8: " "$TMP/err"'
	check 'an unknown record passes through unchanged' \
		'grep -qxF "{\"type\":\"x.custom\",\"id\":\"u1\", \"keep\":[1, 2.50]}" "$TMP/out"'
	pick llm.delta r1 "$TMP/out" >"$TMP/d1"
	check 'streamed text: several deltas adding up to the reply' \
		'[ "$(wc -l <"$TMP/d1")" -gt 1 ] &&
		 [ "$(jget "[\"text\"]" "$TMP/d1" | tr -d "\n")" = "echo: hello" ]'
	check 'the response: content, stop end, model as asked' \
		'[ "$(field r1 "[\"message\"][\"content\"]")" = "echo: hello" ] &&
		 [ "$(field r1 "[\"stop\"]")" = end ] &&
		 [ "$(field r1 "[\"model\"]")" = "$MODEL" ]'
	check 'usage: input and output tokens, all five counts' \
		'[ "$(field r1 "[\"usage\"][\"input\"] > 0 and fin[0][\"usage\"][\"output\"] > 0")" = true ] &&
		 [ "$(field r1 "[\"usage\"].keys().__len__()")" = 5 ]'
	check 'the key goes in its header' \
		'head -n 1 "$TMP/log" | python3 -c "import json,sys; h=json.load(sys.stdin)[\"headers\"]; print(\"\n\".join(k+\": \"+v for k,v in h.items()))" | grep -Eq "$KEYHDR"'
	check 'one tool call, args an object' \
		'[ "$(field r2 "[\"message\"][\"tool_calls\"][0][\"name\"]")" = read_file ] &&
		 [ "$(field r2 "[\"message\"][\"tool_calls\"][0][\"args\"]")" = "{\"path\": \"notes.txt\"}" ] &&
		 [ "$(field r2 "[\"message\"][\"tool_calls\"].__len__()")" = 1 ] &&
		 [ "$(field r2 "[\"stop\"]")" = tool_use ] &&
		 [ "$(field r2 "[\"message\"][\"content\"]")" = null ]'
	check 'two parallel calls, in order, with distinct ids' \
		'[ "$(field r3 "[\"message\"][\"tool_calls\"][0][\"name\"]+\" \"+fin[0][\"message\"][\"tool_calls\"][1][\"name\"]")" = "list_dir read_file" ] &&
		 [ "$(field r3 "[\"message\"][\"tool_calls\"][1][\"args\"][\"path\"]")" = notes.txt ] &&
		 [ "$(field r3 "[\"message\"][\"tool_calls\"][0][\"id\"] != fin[0][\"message\"][\"tool_calls\"][1][\"id\"]")" = true ]'
	check 'thinking comes back in the message, tagged with the dialect' \
		'[ "$(field r4 "[\"message\"][\"thinking\"][0][\"dialect\"]")" = "$DIALECT" ] &&
		 [ "$(field r4 "[\"stop\"]")" = tool_use ]'
	check "a refusal: stop $REFUSAL, the words kept" \
		'[ "$(field r5 "[\"stop\"]+\": \"+fin[0][\"message\"][\"content\"]")" = "$REFUSAL: I can'"'"'t help with that." ]'
	check 'a length cut-off is stop length, with the text' \
		'[ "$(field r6 "[\"stop\"]+\": \"+fin[0][\"message\"][\"content\"]")" = "length: This answer goes on and on" ]'
	check 'an error inside the 200 stream: one error record, no response' \
		'[ "$(field r7 "[\"type\"]")" = error ] &&
		 [ "$(field r7 "[\"code\"]+\" \"+str(fin[0][\"retryable\"])")" = "$OVERLOAD" ]'
	check 'a stream that just stops: error truncated, retryable' \
		'[ "$(field r8 "[\"code\"]+\" \"+str(fin[0][\"retryable\"])")" = "truncated True" ]'
	check 'stream false: no deltas, one response' \
		'[ -z "$(pick llm.delta r9 "$TMP/out")" ] &&
		 [ "$(field r9 "[\"message\"][\"content\"]")" = "echo: no stream" ]'

	cp "$TMP/out" "$TMP/out1"

	# the assistant message with its calls (and thinking) goes back
	followup r3 'two tools now' >"$TMP/in2"
	followup r4 'think first' >>"$TMP/in2"
	check 'tool results: the follow-up requests run' \
		'with_timeout 30 oxi-llm -j <"$TMP/in2" >"$TMP/out" 2>"$TMP/err" &&
		 [ ! -s "$TMP/err" ]'
	check 'the model sees both results' \
		'[ "$(field r3b "[\"message\"][\"content\"]")" = "The tool said: file body of list_dir | file body of read_file" ]'
	check 'and the result of the call that followed thinking' \
		'[ "$(field r4b "[\"message\"][\"content\"]")" = "The tool said: file body of read_file" ]'

	# failures before any stream
	kill "$FAKE_PID"
	fake_server "$FAKE" --status 401 --log "$TMP/log401"
	eval "export $BASEVAR=http://127.0.0.1:$PORT$BASE"
	req e1 hi >"$TMP/in3"
	check 'HTTP 401: error auth, not retryable, the key masked everywhere' \
		'with_timeout 30 oxi-llm -j <"$TMP/in3" >"$TMP/out" 2>"$TMP/err" &&
		 [ "$(field e1 "[\"code\"]+\" \"+str(fin[0][\"retryable\"])")" = "auth False" ] &&
		 ! grep -qF "$KEY" "$TMP/out" "$TMP/err"'
	if [ -n "$NEEDKEY" ]; then
		check 'no key for the default base URL: exit 100, variable named' \
			'(unset $BASEVAR $KEYVAR; oxi-llm -m "$MODEL" hi \
			 >"$TMP/out" 2>"$TMP/err"
			 [ $? = 100 ] && grep -q "$KEYVAR" "$TMP/err")'
	else
		check 'no key needed: none sent' \
			'(unset $KEYVAR; oxi-llm -j <"$TMP/in3" >"$TMP/out" 2>&1
			 tail -n 1 "$TMP/log401" | grep -v "\"$KEYHDR_NAME\"" |
			 grep -q "\"content-type\"")'
	fi
}

# prov_all: one fake per dialect at once (openai responses anthropic
# gemini ollama), each logging to $TMP/DIALECT.log, their base URLs and
# keys exported, for tests that send the same to every dialect
prov_all() {
	for _d in openai responses anthropic gemini ollama; do
		fake_server "$_d.py" --log "$TMP/$_d.log"
		case $_d in
		openai) export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" ;;
		responses)
			export OXI_OPENAI_RESPONSES_BASE_URL="http://127.0.0.1:$PORT/v1" ;;
		anthropic)
			export OXI_ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT/v1" ;;
		gemini) export OXI_GEMINI_BASE_URL="http://127.0.0.1:$PORT/v1beta" ;;
		ollama) export OXI_OLLAMA_BASE_URL="http://127.0.0.1:$PORT" ;;
		esac
	done
	export ANTHROPIC_API_KEY=sk-ant-test GEMINI_API_KEY=gm-test
}

# dbody DIALECT EXPR: b<EXPR> of the body of the last request the fake of
# DIALECT got (prov_all)
dbody() {
	python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readlines()[-1])
b = json.loads(r["body"]) if isinstance(r.get("body"), str) else r
v = eval("b" + sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
' "$TMP/$1.log" "$2"
}
