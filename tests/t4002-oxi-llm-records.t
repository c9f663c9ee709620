#!/bin/sh
# oxi-llm -j: llm.request in, llm.delta and one llm.response out, tool
# calls reassembled, several requests in flight, bad lines, pass-through
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 28

export OXI_DEADLETTER="$TMP/dead.ndjson"
fake_server openai.py --log "$TMP/log" --chunk-sizes 1,2,3
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"

req() {	# req ID TEXT [MORE-KEYS]: an llm.request line
	printf '{"v":1,"type":"llm.request","id":"%s","model":"openai/fake-model","messages":[{"role":"user","content":"%s"}]%s}\n' \
		"$1" "$2" "$3"
}
pick() {	# pick TYPE ID FILE: the records of a type for a request
	python3 -c '
import json, sys
for l in open(sys.argv[3]):
    r = json.loads(l)
    if r.get("type") == sys.argv[1] and sys.argv[2] in (r.get("id"), r.get("ref")):
        print(l, end="")
' "$1" "$2" "$3"
}
logof() {	# logof TEXT: the request whose last message has this content
	python3 -c '
import json, sys
for l in open(sys.argv[2]):
    r = json.loads(l)
    if r["messages"][-1].get("content") == sys.argv[1]:
        print(l, end="")
' "$1" "$TMP/log"
}

tools=',"tools":[{"name":"read_file","description":"read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}],"max_tokens":64'
unknown='{"type":"x.custom","id":"u1", "keep":[1, 2.50,"spacing"]}'
{
	req r1 hello
	req r2 'read notes.txt' "$tools"
	echo "$unknown"
	req r3 'two tools now'
	printf '%s\n' '{"v":1,"type":"llm.request","id":"r4","model":"openai/fake-model","messages":[{"role":"user","content":"read x"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","name":"read_file","args":{"path":"x"}}]},{"role":"tool","tool_call_id":"call_1","content":"file body"}]}'
	req r5 'no stream' ',"stream":false'
} >"$TMP/in"
check 'a batch of requests: exit 0' 'oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'quietly' '[ ! -s "$TMP/err" ]'

pick llm.delta r1 "$TMP/out" >"$TMP/d1"
pick llm.response r1 "$TMP/out" >"$TMP/r1"
check 'text arrives as several deltas that add up to the reply' \
	'[ "$(wc -l <"$TMP/d1")" -gt 1 ] &&
	 [ "$(jget "[\"text\"]" "$TMP/d1" | tr -d "\n")" = "echo: hello" ]'
check_lines 'one llm.response' 1 "$TMP/r1"
check 'with the message, stop "end" and the model as requested' \
	'[ "$(jget "[\"message\"]" "$TMP/r1")" = "{\"role\": \"assistant\", \"content\": \"echo: hello\", \"tool_calls\": []}" ] &&
	 [ "$(jget "[\"stop\"]" "$TMP/r1")" = end ] &&
	 [ "$(jget "[\"model\"]" "$TMP/r1")" = openai/fake-model ] &&
	 [ "$(jget "[\"cost_usd\"]" "$TMP/r1")" = null ]'
check 'usage from the final chunk' \
	'[ "$(jget "[\"usage\"][\"input\"] > 0 and r[\"usage\"][\"output\"] > 0" "$TMP/r1")" = true ] &&
	 [ "$(jget "[\"usage\"][\"cache_read\"] + r[\"usage\"][\"cache_write\"]" "$TMP/r1")" = 0 ]'
check 'the deltas come before the response' \
	'[ "$(grep -n "\"id\":\"r1\"" "$TMP/out" | tail -n 1 | grep -c llm.response)" = 1 ]'

pick llm.response r2 "$TMP/out" >"$TMP/r2"
check 'a tool call is reassembled, with args an object' \
	'[ "$(jget "[\"message\"][\"tool_calls\"]" "$TMP/r2")" = "[{\"id\": \"call_1\", \"name\": \"read_file\", \"args\": {\"path\": \"notes.txt\"}}]" ] &&
	 [ "$(jget "[\"stop\"]" "$TMP/r2")" = tool_use ] &&
	 [ "$(jget "[\"message\"][\"content\"]" "$TMP/r2")" = null ]'
logof 'read notes.txt' >"$TMP/l2"
check 'tools and max_tokens are sent the OpenAI way' \
	'[ "$(jget "[\"tools\"]" "$TMP/l2")" = "[{\"type\": \"function\", \"function\": {\"name\": \"read_file\", \"description\": \"read a file\", \"parameters\": {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}}}]" ] &&
	 [ "$(jget "[\"max_tokens\"]" "$TMP/l2")" = 64 ]'
pick llm.response r3 "$TMP/out" >"$TMP/r3"
check 'two parallel calls, in order' \
	'[ "$(jget "[\"message\"][\"tool_calls\"]" "$TMP/r3")" = "[{\"id\": \"call_1\", \"name\": \"list_dir\", \"args\": {\"path\": \".\"}}, {\"id\": \"call_2\", \"name\": \"read_file\", \"args\": {\"path\": \"notes.txt\"}}]" ]'
pick llm.response r4 "$TMP/out" >"$TMP/r4"
check 'a tool result reaches the model' \
	'[ "$(jget "[\"message\"][\"content\"]" "$TMP/r4")" = "The tool said: file body" ]'
logof 'file body' >"$TMP/l4"
check 'as a tool message after the assistant tool_calls' \
	'[ "$(jget "[\"messages\"][1]" "$TMP/l4")" = "{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"call_1\", \"type\": \"function\", \"function\": {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\":\\\"x\\\"}\"}}], \"content\": null}" ] &&
	 [ "$(jget "[\"messages\"][2]" "$TMP/l4")" = "{\"role\": \"tool\", \"tool_call_id\": \"call_1\", \"content\": \"file body\"}" ]'
check '"stream":false: no deltas, one response' \
	'[ -z "$(pick llm.delta r5 "$TMP/out")" ] &&
	 [ "$(pick llm.response r5 "$TMP/out" | jget "[\"message\"][\"content\"]" /dev/stdin)" = "echo: no stream" ] &&
	 [ "$(logof "no stream" | jget "[\"stream\"]" /dev/stdin)" = false ]'
check 'an unknown record passes through unchanged' \
	'grep -Fqx "$unknown" "$TMP/out"'
check 'every request got exactly one answer' \
	'[ "$(grep -c "\"type\":\"llm.response\"" "$TMP/out")" = 5 ] &&
	 [ "$(grep -c "\"type\":\"error\"" "$TMP/out")" = 0 ]'

# several requests in flight at once, each answered under its own id
i=0
: >"$TMP/many"
while [ $i -lt 12 ]; do
	req "m$i" "message $i" >>"$TMP/many"
	i=$((i + 1))
done
check 'twelve requests at once' \
	'OXI_LLM_PARALLEL=6 oxi-llm -j <"$TMP/many" >"$TMP/out" 2>"$TMP/err"'
check 'each answered once, with its own text' \
	'python3 -c "
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
fin = [r for r in rs if r[\"type\"] != \"llm.delta\"]
assert sorted(r[\"id\"] for r in fin) == sorted(\"m%d\" % i for i in range(12)), fin
for r in fin:
    assert r[\"message\"][\"content\"] == \"echo: message \" + r[\"id\"][1:], r
    d = \"\".join(x[\"text\"] for x in rs if x[\"type\"] == \"llm.delta\" and x[\"id\"] == r[\"id\"])
    assert d == r[\"message\"][\"content\"], (d, r)
" "$TMP/out"'

# the default model, and a request without any
check '-m is the model of requests without one' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"d1\",\"messages\":[{\"role\":\"user\",\"content\":\"default model\"}]}" |
	 oxi-llm -j -m openai/other >"$TMP/out" &&
	 [ "$(logof "default model" | jget "[\"model\"]" /dev/stdin)" = other ] &&
	 [ "$(pick llm.response d1 "$TMP/out" | jget "[\"model\"]" /dev/stdin)" = openai/other ]'
check 'no model anywhere: an error record for that request' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"d2\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}" |
	 oxi-llm -j >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(jget "[\"code\"]+\" \"+r[\"ref\"]" "$TMP/out")" = "config d2" ] &&
	 grep -q OXI_MODEL "$TMP/out" && [ "$(wc -l <"$TMP/err")" = 1 ]'

# bad input: one stderr line, one dead letter, the rest still answered
{ req b1 first; echo '{"type": broken'; req b2 second; } >"$TMP/bad"
check_exit 'a malformed line: exit 1' 1 \
	'oxi-llm -j <"$TMP/bad" >"$TMP/out" 2>"$TMP/err"'
check 'one stderr line naming the line' \
	'[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "stdin:2: invalid JSON" "$TMP/err"'
check_lines 'one dead letter' 1 "$OXI_DEADLETTER"
check 'the requests around it are answered' \
	'[ "$(pick llm.response b1 "$TMP/out" | wc -l)" = 1 ] &&
	 [ "$(pick llm.response b2 "$TMP/out" | wc -l)" = 1 ]'
rm -f "$OXI_DEADLETTER"
{ printf '%s\n' '{"v":1,"type":"llm.request","id":"w1","model":"openai/fake-model"}'
  printf '%s\n' '{"v":1,"type":"llm.request","id":"w2","model":"openai/fake-model","messages":[{"content":"no role"}]}'
  req w3 fine; } >"$TMP/bad"
check_exit 'requests with wrong fields: exit 1' 1 \
	'oxi-llm -j <"$TMP/bad" >"$TMP/out" 2>"$TMP/err"'
check 'each gets an error record, a stderr line and a dead letter' \
	'[ "$(pick error w1 "$TMP/out" | jget "[\"code\"]+str(r[\"retryable\"])" /dev/stdin)" = invalidFalse ] &&
	 [ "$(pick error w2 "$TMP/out" | jget "[\"message\"]" /dev/stdin)" = "messages[0] has no \"role\"" ] &&
	 [ "$(wc -l <"$TMP/err")" = 2 ] && [ "$(wc -l <"$OXI_DEADLETTER")" = 2 ]'
check 'and the good one is answered' \
	'[ "$(pick llm.response w3 "$TMP/out" | wc -l)" = 1 ]'

check 'readiness on -d' \
	'req r9 ready | oxi-llm -j -d 3 3>"$TMP/ready" >/dev/null &&
	 [ "$(od -An -c "$TMP/ready" | tr -d " ")" = "\n" ]'
check 'a line over -l is dead-lettered, the next answered' \
	'{ req l1 "$(printf "%0300d" 0)"; req l2 short; } |
	 oxi-llm -j -l 200 >"$TMP/out" 2>"$TMP/err";
	 [ $? = 1 ] && grep -q "line too long" "$TMP/err" &&
	 [ "$(pick llm.response l2 "$TMP/out" | wc -l)" = 1 ]'
done_testing
