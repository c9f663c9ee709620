#!/bin/sh
# oxi-loop keeps the model's thinking blocks and call signatures in the
# history and sends them back unchanged in the next request of the turn
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 3

cat >"$TMP/llm.py" <<'EOF2'
import json, sys
n = 0
for line in sys.stdin:
    r = json.loads(line)
    n += 1
    with open(sys.argv[1], "a") as f:
        f.write(line)
    if n == 1:
        m = {"role": "assistant", "content": None,
             "thinking": [{"dialect": "anthropic", "type": "thinking",
                           "thinking": "let me look", "signature": "SIG=="}],
             "tool_calls": [{"id": "c1", "name": "read_file",
                             "args": {"path": "x"}, "signature": "TS=="}]}
        out = {"v": 1, "type": "llm.response", "id": r["id"], "message": m,
               "stop": "tool_use"}
    else:
        out = {"v": 1, "type": "llm.response", "id": r["id"],
               "message": {"role": "assistant", "content": "done"},
               "stop": "end"}
    print(json.dumps(out), flush=True)
EOF2
export OXI_LLM="python3 $TMP/llm.py $TMP/reqs" OXI_TOOL="python3 $TESTS/fake/tool-stage.py"
echo '{"v":1,"type":"msg.in","id":"t1","channel":"cli","chat":"c","text":"go"}' |
	oxi-loop >"$TMP/out"
check_grep 'the turn ends with the answer' '"type":"msg.out".*"text":"done"' "$TMP/out"
check 'the thinking block goes back with its signature' \
	'sed -n 2p "$TMP/reqs" | python3 -c "
import json, sys
m = json.loads(sys.stdin.read())[\"messages\"]
a = [x for x in m if x[\"role\"] == \"assistant\"][0]
assert a[\"thinking\"] == [{\"dialect\": \"anthropic\", \"type\": \"thinking\", \"thinking\": \"let me look\", \"signature\": \"SIG==\"}], a
"'
check 'and so does the call signature' \
	'sed -n 2p "$TMP/reqs" | grep -q "\"signature\":\"TS==\""'
done_testing
