#!/bin/sh
# the terminal pipeline end to end: oxi-chat against a fake OpenAI-compatible
# server on 127.0.0.1 that streams in odd-sized pieces and asks for a tool
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 15

fake_server openai.py --log "$TMP/requests.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OXI_MODEL=openai/fake-model
export OXI_DEADLETTER="$TMP/dead.ndjson"
WS="$TMP/workspace"
mkdir -p "$WS"
echo 'the plans are in the shed' >"$WS/notes.txt"

printf 'read notes.txt\nhello there\n' >"$TMP/in"
check 'a chat through the whole pipeline ends cleanly' \
	'with_timeout 60 oxi-chat -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'the model called read_file and got the file' \
	'grep -qx "The tool said: the plans are in the shed" "$TMP/out"'
check 'the next message is answered after it, in order' \
	'[ "$(sed -n 2p "$TMP/out")" = "echo: hello there" ] && [ "$(wc -l <"$TMP/out")" -eq 2 ]'
check 'the tool result reached the model as a tool message' \
	'python3 -c "
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
tool = [m for r in reqs for m in r[\"messages\"] if m[\"role\"] == \"tool\"]
assert tool and tool[0][\"content\"].startswith(\"<external_content trust=\\\"external\\\" source=\\\"workspace\\\"\"), tool
assert \"\\nthe plans are in the shed\\n\" in tool[0][\"content\"], tool
calls = [m for r in reqs for m in r[\"messages\"] if m.get(\"tool_calls\")]
assert calls[0][\"tool_calls\"][0][\"id\"] == tool[0][\"tool_call_id\"]
assert any(t[\"function\"][\"name\"] == \"read_file\" for t in reqs[0][\"tools\"])
" "$TMP/requests.log"'
check_nogrep 'no warnings on a clean run' 'warning|fatal' "$TMP/err"

# history carries over to the next chat of the same user
printf 'what did I ask?\n' | oxi-chat -w "$WS" >/dev/null 2>&1
check 'a new chat continues the stored history' \
	'tail -n 1 "$TMP/requests.log" | python3 -c "
import json, sys
m = json.loads(sys.stdin.read())[\"messages\"]
assert [x[\"content\"] for x in m if x[\"role\"] == \"user\"] == [\"read notes.txt\", \"hello there\", \"what did I ask?\"], m
"'

# keys never leave through the chat
export OPENAI_API_KEY=sk-test-0123456789abcdef
printf 'my key is sk-test-0123456789abcdef ok\n' >"$TMP/in2"
oxi-chat -w "$WS" <"$TMP/in2" >"$TMP/out2" 2>"$TMP/err2"
check 'a key echoed by the model is redacted' \
	'grep -qx "echo: my key is \[REDACTED\] ok" "$TMP/out2"'
check_nogrep 'and appears nowhere in the output or diagnostics' \
	'0123456789abcdef' "$TMP/out2"
unset OPENAI_API_KEY

# a malformed line in front of any stage: one stderr line, one dead letter,
# and the good records around it still flow
export OXI_ALLOW='cli:*' OXI_TOOL="oxi-tool -w $WS"
cat >"$TMP/inject" <<'EOT'
#!/bin/sh
exec awk '{ print } NR == 1 { print "{junk" } { fflush() }'
EOT
chmod +x "$TMP/inject"
inject="$TMP/inject"
n=0
for pos in 1 2 3 4; do
	rm -f "$OXI_DEADLETTER"
	s1='oxi-recv cli' s2='oxi-guard in' s3='oxi-loop' s4='oxi-guard out'
	eval "s$pos=\"\$s$pos | $inject\""
	printf 'one\ntwo\n' | eval "$s1 | $s2 | $s3 | $s4 | oxi-send cli" \
		>"$TMP/out3" 2>"$TMP/err3"
	case $pos in 1) st=oxi-guard ;; 2) st=oxi-loop ;; 3) st=oxi-guard ;;
	4) st=oxi-send ;; esac
	check "junk after stage $pos: both replies still arrive" \
		'[ "$(cat "$TMP/out3")" = "echo: one
echo: two" ]'
	if [ "$(grep -vc ": info: " "$TMP/err3")" = 1 ] && grep -q "^$st: warning: .*invalid JSON" "$TMP/err3" &&
	   [ "$(wc -l <"$OXI_DEADLETTER")" = 1 ] && grep -q "\"prog\":\"$st\"" "$OXI_DEADLETTER"; then
		n=$((n + 1))
	else
		diag "stage $pos:"; sed 's/^/#   /' "$TMP/err3"
	fi
done
check 'each time one stderr line and one dead letter from the next stage' '[ $n = 4 ]'

check_exit 'no model configured: oxi-chat exits 100' 100 \
	'env -u OXI_MODEL -u OXI_OPENAI_BASE_URL -u OPENAI_API_KEY oxi-chat </dev/null'
check_grep 'and says what to set' 'OPENAI_API_KEY=' "$TMP/.err"
done_testing
