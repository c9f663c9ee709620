#!/bin/sh
# long streams under valgrind: no per-record leaks, no memory errors.
# These processes run for weeks; a few bytes lost per record would show.
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 8

if ! command -v valgrind >/dev/null 2>&1 || nm "$TOP/bin/oxi-guard" 2>/dev/null | grep -q __asan_init; then
	for i in 1 2 3 4 5 6 7 8; do echo "ok $i # skip valgrind missing or an ASan build"; done
	exit 0
fi
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
export OXI_DEADLETTER="$TMP/dead.ndjson"

python3 - "$TMP" <<'EOF2'
import json, sys
d = sys.argv[1]
with open(d + "/msgs", "w") as f:
    for i in range(20000):
        f.write(json.dumps({"v": 1, "type": "msg.in", "id": "m%d" % i,
            "channel": "cli", "account": "local", "chat": "c%d" % (i % 5),
            "from": "u%d" % (i % 3), "text": "hello %d" % i}) + "\n")
        if i % 1000 == 0:
            f.write("{bad line\n")
with open(d + "/outs", "w") as f:
    for i in range(20000):
        t = "msg.draft" if i % 3 else "msg.out"
        f.write(json.dumps({"v": 1, "type": t, "id": "r%d" % (i // 3),
            "channel": "cli", "chat": "c", "text": "reply SECRET-0123456789 %d" % i}) + "\n")
with open(d + "/calls", "w") as f:
    for i in range(5000):
        name = ["read_file", "list_dir", "write_file", "nope"][i % 4]
        args = {"path": "f%d.txt" % (i % 10)}
        if name == "write_file":
            args["content"] = "x" * (i % 100)
        f.write(json.dumps({"v": 1, "type": "tool.call", "id": "c%d" % i,
            "name": name, "args": args}) + "\n")
with open(d + "/lines", "w") as f:
    for i in range(20000):
        f.write("a line of text number %d\n" % i)
EOF2

check 'oxi-recv cli: 20000 lines' \
	'$VG oxi-recv cli <"$TMP/lines" >/dev/null'
check 'oxi-guard in: 20000 records and bad lines' \
	'$VG oxi-guard -a "cli:u1" in <"$TMP/msgs" >/dev/null 2>"$TMP/err"; [ $? = 1 ]'
echo SECRET-0123456789 >"$TMP/secrets"
check 'oxi-guard out: 20000 drafts and replies redacted' \
	'$VG oxi-guard -s "$TMP/secrets" out <"$TMP/outs" >/dev/null'
check 'oxi-send cli: 20000 drafts and replies' \
	'$VG oxi-send -D cli <"$TMP/outs" >/dev/null'
mkdir -p "$TMP/ws"
check 'oxi-tool: 5000 calls' \
	'OXI_TOOL_PARALLEL=1 $VG oxi-tool -w "$TMP/ws" <"$TMP/calls" >/dev/null'
python3 - "$TMP" <<'EOF2'
import json, sys
d = sys.argv[1]
with open(d + "/gcalls", "w") as f:
    for i in range(3000):
        taint = ["owner:cli"] if i % 2 else ["owner:cli", "web:https://a.org"]
        name = ["list_dir", "shell", "web_fetch", "mcp__x", "write_file"][i % 5]
        f.write(json.dumps({"v": 1, "type": "tool.call", "id": "g%d" % i,
            "name": name, "args": {"path": "w%d" % (i % 7), "content": "x",
            "url": "https://a.org/%d" % i, "command": "true"},
            "session": "s%d" % (i % 40), "taint": taint}) + "\n")
        if i % 500 == 0:
            f.write("{bad line\n")
EOF2
printf 'deny .name == "mcp__x" and (.args.path | test("w3"))\nask .args.n > 1\n' \
	>"$TMP/policy"
check 'oxi-guard tool: 3000 calls judged, audited, passed or answered' \
	'OXI_AUDIT_LOG="$TMP/audit.log" $VG oxi-guard tool -p "$TMP/policy" -- \
	 python3 "$TESTS/fake/tool-stage.py" <"$TMP/gcalls" >"$TMP/gout" 2>/dev/null;
	 [ $? = 1 ] && [ "$(grep -c tool.result "$TMP/gout")" = 3000 ]'
head -n 300 "$TMP/msgs" >"$TMP/msgs600"
check 'oxi-loop: 300 messages through its coprocesses' \
	'OXI_LLM="python3 $TESTS/fake/llm-stage.py" OXI_TOOL="python3 $TESTS/fake/tool-stage.py" \
	 $VG oxi-loop -t 0 <"$TMP/msgs600" >"$TMP/loopout" 2>/dev/null; [ $? = 1 ] &&
	 [ "$(grep -c "\"msg.out\"" "$TMP/loopout")" = "$(grep -c msg.in "$TMP/msgs600")" ]'
fake_server openai.py
python3 -c '
import json
for i in range(150):
    t = "read notes.txt" if i % 3 == 0 else "hello %d" % i
    print(json.dumps({"v": 1, "type": "llm.request", "id": "r%d" % i,
        "model": "openai/m", "messages": [{"role": "user", "content": t}],
        "tools": [{"name": "read_file", "description": "d",
                   "parameters": {"type": "object"}}]}))
' >"$TMP/reqs"
check 'oxi-llm -j: 150 streamed requests over HTTP' \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" $VG oxi-llm -j <"$TMP/reqs" >"$TMP/llmout" &&
	 [ "$(grep -c "\"llm.response\"" "$TMP/llmout")" = 150 ]'
done_testing
