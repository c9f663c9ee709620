#!/bin/sh
# oxi-guard tool in front of an oxi-tool in unsafe mode (no sandbox, the
# shell under its strict policy): a command the guard holds and the
# strict policy holds too is one question, not two; the owner's yes to
# the guard's question is passed on to the shell's one-shot store,
# audited, and used once; a command the strict policy runs, or a call
# the guard let through unasked, is left as it was; and in the whole
# loop the owner is asked once
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 10

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"
export OXI_SANDBOX=none-available	# no mechanism works: unsafe mode runs
WS=$TMP/ws
mkdir -p "$WS" "$OXI_CONFIG_DIR"
echo 'hello there' >"$WS/a.txt"
OWN='["owner:cli"]'
LOC='["owner:cli","workspace"]'
SHSTORE=$OXI_CONFIG_DIR/shell-approved
call() {	# call ID NAME ARGS TAINT
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s,"session":"s","taint":%s}\n' \
		"$1" "$2" "$3" "$4"
}
guard() {	# stdin through oxi-guard tool and oxi-tool -U
	with_timeout 60 oxi-guard tool -- oxi-tool -U -w "$WS" \
	    >"$TMP/out" 2>"$TMP/err"
}
field() {	# field ID KEY: KEY of the result of call ID
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("id") == sys.argv[2]:
        v = r.get(sys.argv[3])
        print(json.dumps(v) if not isinstance(v, str) else v)' \
	    "$TMP/out" "$1" "$2"
}

call v1 shell '{"command":"touch ran-v1"}' "$LOC" | guard
field v1 content | tail -n 1 >"$OXI_CONFIG_DIR/guard-approved-once"
check 'unsafe mode: a command after the workspace is held by the guard' \
	'[ ! -e "$WS/ran-v1" ] &&
	 field v1 content | head -n 1 | grep -q "^guard: needs approval: it runs a command outside the sandbox"'
call v1 shell '{"command":"touch ran-v1"}' "$LOC" | guard
check 'approved at the guard, the strict policy that holds it too is not asked again: it runs' \
	'[ -e "$WS/ran-v1" ] && [ "$(field v1 is_error)" = false ] &&
	 [ "$(grep -c "\"tool.result\"" "$TMP/out")" = 1 ]'
check '...the approval passed on to the shell'"'"'s one-shot store, used up' \
	'[ -e "$SHSTORE-once" ] && [ ! -s "$SHSTORE-once" ] &&
	 grep -q "call .v1.: the tool stage held it too: the owner.s approval passed on" "$TMP/err"'
check '...and audited, the chain whole' \
	'grep -q "\"event\":\"tool.approved\",\"id\":\"v1\"" "$OXI_AUDIT_LOG" &&
	 grep -q "\"event\":\"tool.passed\",\"id\":\"v1\",\"name\":\"shell\"" "$OXI_AUDIT_LOG" &&
	 ! grep -q "ran-v1" "$OXI_AUDIT_LOG" &&
	 oxi-guard audit verify "$OXI_AUDIT_LOG" >/dev/null'
call v1 shell '{"command":"touch ran-v1"}' "$LOC" | guard
check 'once: the same call again is held by the guard again' \
	'field v1 content | head -n 1 | grep -q "^guard: needs approval" &&
	 [ ! -s "$SHSTORE-once" ]'

# the owner's own command goes to the tool stage unasked by the guard:
# the one question is the strict policy's, left to oxi-loop
call o1 shell '{"command":"touch ran-o1"}' "$OWN" | guard
check 'a call the guard let through unasked: the tool stage'"'"'s question reaches the loop' \
	'[ ! -e "$WS/ran-o1" ] &&
	 field o1 content | head -n 1 | grep -q "^shell: needs approval: touch" &&
	 [ ! -s "$SHSTORE-once" ] && ! grep -q "passed on" "$TMP/err"'

# a store that cannot be written: the tool stage's question goes on
call w1 shell '{"command":"touch ran-w1"}' "$LOC" | guard
field w1 content | tail -n 1 >"$OXI_CONFIG_DIR/guard-approved-once"
call w1 shell '{"command":"touch ran-w1"}' "$LOC" |
	OXI_SHELL_APPROVED=/nonexistent/shell-approved guard
check 'the approval cannot be passed on: one warning, the tool stage asks' \
	'[ ! -e "$WS/ran-w1" ] &&
	 field w1 content | head -n 1 | grep -q "^shell: needs approval: touch" &&
	 [ "$(grep -c "warning: call .w1.: unable to pass the owner.s approval on" "$TMP/err")" = 1 ]'

# the whole loop: a file read, then a command the strict policy holds
rm -f "$OXI_CONFIG_DIR"/guard-approved* "$SHSTORE"*
cat >"$TMP/model.py" <<'EOF'
import json, os, sys
for line in sys.stdin:
    req = json.loads(line)
    if req.get("type") != "llm.request":
        continue
    open(os.environ["REQLOG"], "a").write(line)
    msgs = req["messages"]
    tools = [m for m in msgs[max(i for i, m in enumerate(msgs)
                                 if m["role"] == "user"):]
             if m["role"] == "tool"]
    if not tools:
        c = {"name": "read_file", "args": {"path": "a.txt"}}
    elif len(tools) == 1:
        c = {"name": "shell", "args": {"command": "touch ran-loop"}}
    else:
        c = None
    m = {"role": "assistant", "content": None if c else "done",
         "tool_calls": [dict(c, id="k")] if c else []}
    sys.stdout.write(json.dumps({"v": 1, "type": "llm.response",
        "id": req["id"], "message": m,
        "stop": "tool_use" if c else "end"}) + "\n")
    sys.stdout.flush()
EOF
cat >"$TMP/chat.py" <<'EOF'
import json, subprocess, sys
p = subprocess.Popen(["oxi-loop", "-t", "0"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)
p.stdin.write(json.dumps({"v": 1, "type": "msg.in", "id": "L0",
    "channel": "cli", "chat": "c0", "from": "me", "trust": "owner",
    "text": "go"}) + "\n")
p.stdin.flush()
for line in p.stdout:
    sys.stdout.write(line)
    r = json.loads(line)
    if r["type"] == "approval.ask":
        p.stdin.write(json.dumps({"v": 1, "type": "approval.answer",
            "ref": r["id"], "choice": "once", "channel": "cli",
            "chat": r["chat"], "from": "me", "trust": "owner"}) + "\n")
        p.stdin.flush()
    if r["type"] in ("msg.out", "error"):
        break
p.stdin.close()
sys.exit(p.wait())
EOF
export OXI_LLM="python3 $TMP/model.py" REQLOG="$TMP/req.log"
export OXI_TOOL="oxi-guard tool -- oxi-tool -U -w $WS"
check_exit 'oxi-loop: a file read, then a command both hold: exit 0' 0 \
	'with_timeout 60 python3 "$TMP/chat.py" >"$TMP/loop" 2>"$TMP/lerr"'
check '...the owner is asked once, by the guard, and the command runs' \
	'[ "$(grep -c "\"approval.ask\"" "$TMP/loop")" = 1 ] &&
	 grep "\"approval.ask\"" "$TMP/loop" | grep -q "Allow shell" &&
	 [ -e "$WS/ran-loop" ] && grep -q "\"msg.out\"" "$TMP/loop"'
check '...the model never saw a held result' \
	'[ -s "$TMP/req.log" ] && ! grep -q "needs approval" "$TMP/req.log"'
done_testing
