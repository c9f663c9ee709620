#!/bin/sh
# oxi-loop with a real oxi-tool: taint kept across a turn, work made visible
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 11

export OXI_DEADLETTER="$TMP/dead.ndjson"
mkdir -p "$TMP/ws"
echo 'alpha' >"$TMP/ws/a.txt"
echo 'beta' >"$TMP/ws/b.txt"

# a model that reads a.txt, then b.txt, then answers with what it read
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
    msgs = req["messages"]
    tools = [m for m in msgs if m["role"] == "tool"]
    if len(tools) < 2:
        name = "ab"[len(tools)] + ".txt"
        msg = {"role": "assistant", "content": None,
               "tool_calls": [{"id": "c%d" % len(tools), "name": "read_file",
                               "args": {"path": name}}]}
        stop = "tool_use"
    else:
        msg = {"role": "assistant",
               "content": "Read: " + " ".join(unwrap(t["content"]).strip()
                                          for t in tools)}
        stop = "end"
    sys.stdout.write(json.dumps({"v": 1, "type": "llm.response",
                                 "id": req["id"], "message": msg,
                                 "stop": stop}) + "\n")
    sys.stdout.flush()
EOT
# the real tool stage, its calls copied to a file
cat >"$TMP/tool.sh" <<EOT
#!/bin/sh
[ "\$1" = --list ] && exec oxi-tool -w "$TMP/ws" --list
tee -a "$TMP/calls" | oxi-tool -w "$TMP/ws"
EOT
chmod +x "$TMP/tool.sh"
export OXI_LLM="python3 $TMP/model.py" OXI_TOOL="$TMP/tool.sh"

printf '%s\n' '{"v":1,"type":"msg.in","id":"w1","channel":"cli","account":"local","chat":"me","from":"u","text":"read both","trust":"user"}' >"$TMP/in"
check_exit 'a turn of two tool rounds: exit 0' 0 \
	'oxi-loop -t 0 <"$TMP/in" >"$TMP/out"'
check_lines 'two tool.calls reached oxi-tool' 2 "$TMP/calls"
check 'the first carries the message'"'"'s origin' \
	'[ "$(sed -n 1p "$TMP/calls" | jget "[\"taint\"]" /dev/stdin)" = "[\"user:cli\"]" ]'
check 'the second also the taint of the first result (workspace)' \
	'[ "$(sed -n 2p "$TMP/calls" | jget "[\"taint\"]" /dev/stdin)" = "[\"user:cli\", \"workspace\"]" ]'
check 'the answer used both results' \
	'[ "$(grep "\"msg.out\"" "$TMP/out" | jget "[\"text\"]" /dev/stdin)" = "Read: alpha beta" ]'
grep '"type":"status"' "$TMP/out" >"$TMP/status"
check 'one status record per call, saying the tool and its argument' \
	'[ "$(jget "[\"text\"]" "$TMP/status")" = "read_file a.txt
read_file b.txt" ]'
check 'each status answers the message and names its call' \
	'[ "$(jget "[\"in_reply_to\"]+\" \"+r[\"channel\"]+\" \"+r[\"chat\"]" "$TMP/status" | sort -u)" = "w1 cli me" ] &&
	 [ "$(jget "[\"ref\"]" "$TMP/status" | sort -u | wc -l)" -eq 2 ]'
check 'typing before each round of tools' \
	'[ "$(grep -c "\"type\":\"typing\"" "$TMP/out")" -ge 5 ]'
check 'the status records pass oxi-guard out' \
	'oxi-guard out <"$TMP/out" | grep -c "\"type\":\"status\"" | grep -qx 2'

# what a terminal shows: dim lines, replaced; nothing of them in a file
oxi-send -D cli <"$TMP/out" >"$TMP/screen"
printf '\033[2mread_file a.txt\033[0m\r\033[K\033[2mread_file b.txt\033[0m\r\033[KRead: alpha beta\n' >"$TMP/screen.exp"
check_same 'oxi-send -D: each status shown dim, erased by the next and by the reply' \
	"$TMP/screen" "$TMP/screen.exp"
oxi-send cli <"$TMP/out" >"$TMP/file"
check 'oxi-send off a terminal: the reply alone' \
	'[ "$(cat "$TMP/file")" = "Read: alpha beta" ]'
done_testing
