#!/bin/sh
# oxi-loop with a real oxi-tool: a shell call asking for the network is
# held, asked in the chat, and settled by the owner's approval.answer:
# once, always (a second identical call runs without asking), deny, an
# answer from a non-owner, expiry, and an answer after a restart
cd "${0%/*}" && . ./lib.sh
plan 13

export OXI_DEADLETTER="$TMP/dead.ndjson"
export OXI_SHELL_APPROVED="$TMP/conf/shell-approved"
mkdir -p "$TMP/ws" "$TMP/conf"

# a model that runs the user's text with the network, then says what the
# tool said
cat >"$TMP/model.py" <<'EOT'
import json, sys
import re
def unwrap(s):
    m = re.match(r'<external_content [^\n]*id="([0-9a-f]+)">\n(.*)\n'
                 r'</external_content id="\1">$', s, re.S)
    return m.group(2) if m else s
for line in sys.stdin:
    req = json.loads(line)
    if req.get("type") != "llm.request":
        continue
    last = req["messages"][-1]
    if last["role"] == "tool":
        msg = {"role": "assistant", "content": "tool: " + unwrap(last["content"])}
        stop = "end"
    else:
        msg = {"role": "assistant", "content": None,
               "tool_calls": [{"id": "k", "name": "shell", "args":
                               {"command": last["content"],
                                "network": True}}]}
        stop = "tool_use"
    sys.stdout.write(json.dumps({"v": 1, "type": "llm.response",
                                 "id": req["id"], "message": msg,
                                 "stop": stop}) + "\n")
    sys.stdout.flush()
EOT
cat >"$TMP/tool.sh" <<EOT
#!/bin/sh
[ "\$1" = --list ] && exec oxi-tool -w "$TMP/ws" --list
tee -a "$TMP/calls" | oxi-tool -w "$TMP/ws"
EOT
chmod +x "$TMP/tool.sh"
export OXI_LLM="python3 $TMP/model.py" OXI_TOOL="$TMP/tool.sh"

# the chat: sends each message, answers each approval.ask as told, and
# stops at each msg.out; prints every record oxi-loop wrote
cat >"$TMP/chat.py" <<'EOT'
import json, subprocess, sys
# argv: db, then "TEXT=ANSWER[:FROM]" per message (ANSWER "-": none)
p = subprocess.Popen(["oxi-loop", "-t", "0", "-f", sys.argv[1]],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(r):
    p.stdin.write(json.dumps(r) + "\n"); p.stdin.flush()
for i, spec in enumerate(sys.argv[2:]):
    text, ans = spec.rsplit("=", 1)
    who = "owner"
    if ":" in ans:
        ans, who = ans.split(":")
    send({"v": 1, "type": "msg.in", "id": "%s%d" % (sys.argv[1][-1], i), "channel": "cli",
          "chat": "me", "from": "owner", "text": text})
    for line in p.stdout:
        sys.stdout.write(line); sys.stdout.flush()
        r = json.loads(line)
        if r["type"] == "approval.ask" and ans != "-":
            send({"v": 1, "type": "approval.answer", "ref": "last",
                  "choice": ans, "channel": "cli", "chat": "me",
                  "from": who})
        if r["type"] in ("msg.out", "error"):
            break
p.stdin.close()
sys.exit(p.wait())
EOT

run() {
	with_timeout 60 python3 "$TMP/chat.py" "$@"
}
answer() {
	grep '"msg.out"' "$1" | sed -n "${2}p" | jget '["text"]' /dev/stdin
}

check_exit 'once, then deny: exit 0' 0 \
	'run "$TMP/db1" "echo one >once.txt; echo ran=once" "echo two >two.txt=deny" >"$TMP/out1"'
check 'an approval.ask in the chat, in plain words, naming no file' \
	'grep "\"approval.ask\"" "$TMP/out1" | head -1 | jget "[\"text\"]" /dev/stdin |
	 grep -qx "Run '"'"'echo one >once.txt; echo ran'"'"' in the workspace, with the network?" &&
	 ! grep "\"approval.ask\"" "$TMP/out1" | grep -q shell-approved'
check 'once: the call ran, its result reached the model' \
	'[ -f "$TMP/ws/once.txt" ] && answer "$TMP/out1" 1 | grep -qx "tool: ran"'
check 'the tool stage saw the same call twice, and nothing asked the model again' \
	'[ "$(grep -c "echo one" "$TMP/calls")" = 2 ]'
check 'deny: nothing ran, the model learns only that the owner declined' \
	'[ ! -f "$TMP/ws/two.txt" ] && [ "$(answer "$TMP/out1" 2)" = "tool: the owner declined; nothing was run" ]'
check 'no store line is left for either' \
	'! grep -q "two.txt" "$TMP/conf/shell-approved-once" 2>/dev/null &&
	 ! grep -q "once.txt" "$TMP/conf/shell-approved-once" 2>/dev/null'

check_exit 'always, then the same call again: exit 0' 0 \
	'run "$TMP/db2" "echo x >>a.txt=always" "echo x >>a.txt=-" >"$TMP/out2"'
check 'always writes the store; the second identical call runs unasked' \
	'grep -q "a.txt" "$TMP/conf/shell-approved" &&
	 [ "$(grep -c "\"approval.ask\"" "$TMP/out2")" = 1 ] &&
	 [ "$(cat "$TMP/ws/a.txt")" = "x
x" ]'

export OXI_APPROVAL_TIMEOUT=1
check_exit 'an answer from a non-owner, then silence: exit 0' 0 \
	'run "$TMP/db3" "echo n >n.txt=once:mallory" >"$TMP/out3"'
check 'the non-owner runs nothing; silence expires into a denial' \
	'[ ! -f "$TMP/ws/n.txt" ] && [ "$(answer "$TMP/out3" 1)" = "tool: the approval expired; nothing was run" ]'
unset OXI_APPROVAL_TIMEOUT

# a restart: the first oxi-loop ends with an ask pending (its input ends
# and SIGTERM-like draining waits for nothing more: kill it), the second
# gets the answer
cat >"$TMP/restart.py" <<'EOT'
import json, subprocess, sys
db = sys.argv[1]
p = subprocess.Popen(["oxi-loop", "-f", db], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)
p.stdin.write(json.dumps({"v": 1, "type": "msg.in", "id": "r1",
    "channel": "cli", "chat": "me", "from": "owner",
    "text": "echo r >r.txt"}) + "\n")
p.stdin.flush()
for line in p.stdout:
    r = json.loads(line)
    if r["type"] == "approval.ask":
        ask = r["id"]
        break
p.kill(); p.wait()
q = subprocess.run(["oxi-loop", "-f", db], text=True, capture_output=True,
    input=json.dumps({"v": 1, "type": "approval.answer", "ref": ask,
    "choice": "once", "channel": "cli", "chat": "me", "from": "owner"}) + "\n")
sys.stdout.write(q.stdout)
sys.stderr.write(q.stderr)
sys.exit(q.returncode)
EOT
check_exit 'an answer after a restart: exit 0' 0 \
	'with_timeout 60 python3 "$TMP/restart.py" "$TMP/db" >"$TMP/out4" 2>"$TMP/err4"'
check 'the old ask is gone after the restart: nothing runs, nothing is stored' \
	'[ ! -f "$TMP/ws/r.txt" ] && grep -q "no pending ask" "$TMP/err4" &&
	 ! grep -q "r.txt" "$TMP/conf/shell-approved-once"'
check 'the message was taken up again and asked anew, then left for the next start' \
	'grep -q "messages were in work" "$TMP/err4" &&
	 grep "\"approval.ask\"" "$TMP/out4" | grep -q "echo r" &&
	 grep -q "r1: left for the next start" "$TMP/err4"'
done_testing
