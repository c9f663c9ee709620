#!/bin/sh
# oxi-tool shell: the tool's contract (arguments, output, exit code, cwd,
# timeout, cap), the binary looked up in the system directories only, and
# approvals bound to the exact argv, binary and cwd
cd "$(dirname "$0")" && . ./lib.sh || exit 1
# the argv policy: the strict mode (t5203 tests the default, sh -c in the
# sandbox)
export OXI_SHELL_POLICY=strict

WS=$TMP/ws
mkdir -p "$WS/sub" "$OXI_CONFIG_DIR"
echo 'hello notes' >"$WS/notes.txt"
if printf '{"type":"tool.call","id":"p","name":"shell","args":{"command":"true"}}\n' |
    oxi-tool -w "$WS" | grep -q 'no sandbox works'; then
	echo "1..0 # SKIP no sandbox works here"
	exit 0
fi

plan 49

# shell ID ARGS-JSON [TAINT-JSON]: one call
shell() {
	printf '{"type":"tool.call","id":"%s","name":"shell","args":%s,"taint":%s}\n' \
		"$1" "$2" "${3:-[]}"
}
# run: the calls on stdin, results by id in $TMP/r/ID (content) and
# $TMP/r/ID.err (when is_error)
run() {
	rm -rf "$TMP/r"
	mkdir -p "$TMP/r"
	oxi-tool "$@" -w "$WS" >"$TMP/results" 2>"$TMP/err"
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    open(sys.argv[2] + "/" + r["id"], "w").write(r["content"] + "\n")
    open(sys.argv[2] + "/" + r["id"] + ".taint", "w").write(
        json.dumps(r["taint"]) + "\n")
    if r["is_error"]:
        open(sys.argv[2] + "/" + r["id"] + ".err", "w").close()
' "$TMP/results" "$TMP/r"
}
ok_() { [ ! -e "$TMP/r/$1.err" ]; }
err_() { [ -e "$TMP/r/$1.err" ]; }

check '--list has shell with its schema' '
	oxi-tool --list | python3 -c "
import json, sys
t = {x[\"name\"]: x for x in json.load(sys.stdin)}[\"shell\"]
p = t[\"parameters\"]
assert sorted(p[\"properties\"]) == [\"command\", \"cwd\", \"network\", \"timeout\"], p
assert p[\"required\"] == [\"command\"], p
assert p[\"properties\"][\"timeout\"][\"type\"] == \"integer\", p
assert \"sandbox\" in t[\"description\"], t
"'

{
	shell echo '{"command":"echo hello"}' '["web"]'
	shell fail '{"command":"ls no-such-file"}'
	shell quote '{"command":"echo '"'"'a  b'"'"' \"c\\\"d\" e\\\\ f"}'
	shell pwd '{"command":"pwd","cwd":"sub"}'
	shell up '{"command":"pwd","cwd":".."}'
	shell abs '{"command":"pwd","cwd":"/etc"}'
	shell nocwd '{"command":"pwd","cwd":"nope"}'
	shell t0 '{"command":"true","timeout":0}'
	shell t601 '{"command":"true","timeout":601}'
	shell tstr '{"command":"true","timeout":"5"}'
	shell nocmd '{}'
	shell extra '{"command":"true","env":{"A":"1"}}'
	shell empty '{"command":""}'
	shell quiet '{"command":"true"}'
	shell slow '{"command":"sleep 5","timeout":1}'
	shell sed '{"command":"sed 1e\\\\ id notes.txt"}'
	shell home '{"command":"printenv HOME"}'
} >"$TMP/in"
run <"$TMP/in"

check 'a command runs: its output and exit code' \
	'ok_ echo && [ "$(cat "$TMP/r/echo")" = "hello
[exit code 0]" ]'
check 'the taint is the call'\''s plus shell' \
	'[ "$(cat "$TMP/r/echo.taint")" = "[\"web\", \"shell\"]" ]'
check 'a non-zero exit is an error result' 'err_ fail'
check_grep 'with the exit code' '^\[exit code 2\]$' "$TMP/r/fail"
check_grep 'and stderr in the content' 'No such file' "$TMP/r/fail"
check_grep 'quotes and backslashes make words as sh would' \
	'^a  b c"d e\\ f$' "$TMP/r/quote"
check 'cwd: a directory of the workspace' \
	'ok_ pwd && grep -qx "$WS/sub" "$TMP/r/pwd"'
check_grep 'cwd: .. is outside the workspace' 'outside the workspace' \
	"$TMP/r/up"
check_grep 'cwd: an absolute path is outside' 'outside the workspace' \
	"$TMP/r/abs"
check_grep 'cwd: a missing directory' 'no such file' "$TMP/r/nocwd"
check_grep 'timeout 0 is refused' "timeout' must be an integer >= 1" \
	"$TMP/r/t0"
check_grep 'timeout 601 is refused' 'at most 600 seconds' "$TMP/r/t601"
check_grep 'timeout must be an integer' 'must be an integer' "$TMP/r/tstr"
check_grep 'command is required' "missing argument 'command'" \
	"$TMP/r/nocmd"
check_grep 'unknown arguments are refused' "unknown argument 'env'" \
	"$TMP/r/extra"
check_grep 'an empty command is refused' 'refused: the command is empty' \
	"$TMP/r/empty"
check 'no output says so' '[ "$(cat "$TMP/r/quiet")" = "(no output)
[exit code 0]" ]'
check 'a timeout kills the command: an error result' 'err_ slow'
check_grep 'saying so' 'killed: the command ran over its timeout of 1 s' \
	"$TMP/r/slow"
check 'sed runs with --sandbox: no e command' \
	'err_ sed && grep -q "sandbox" "$TMP/r/sed" && ! grep -q "uid=" "$TMP/r/sed"'
check 'HOME is the workspace' 'grep -qx "$WS" "$TMP/r/home"'

# the output cap
shell big '{"command":"seq 1000"}' | run -o 1k
check 'a long output is cut with a marker' \
	'grep -q "^\[output truncated: [0-9]* of 3893 bytes shown\]$" "$TMP/r/big"'
check 'within the cap, the exit line included' \
	'[ $(wc -c <"$TMP/r/big") -le 1025 ] && grep -q "^\[exit code 0\]$" "$TMP/r/big"'

# a hijacked PATH changes nothing: the system's ls runs
mkdir -p "$TMP/evil"
printf '#!/bin/sh\necho HIJACKED\n' >"$TMP/evil/ls"
chmod +x "$TMP/evil/ls"
cp "$TMP/evil/ls" "$WS/ls"
shell ls '{"command":"ls"}' | PATH="$TMP/evil:$PATH" run
check 'PATH hijack: the system ls runs, not $PATH'\''s' \
	'ok_ ls && grep -q notes.txt "$TMP/r/ls" && ! grep -q HIJACKED "$TMP/r/ls"'
shell dotls '{"command":"./ls"}' | run
check_grep './ls is refused' "refused: './ls' is a path" "$TMP/r/dotls"

# approvals
STORE=$OXI_CONFIG_DIR/shell-approved
py='{"command":"python3 -c '"'"'print(6 * 7)'"'"'"}'
shell held "$py" | run
check 'an interpreter is held' 'err_ held'
check_grep 'saying it needs approval and nothing ran' \
	'needs approval: python3 is an interpreter.*Nothing was run' \
	"$TMP/r/held"
check_grep 'naming the store' "adding this line to $STORE \(always\)" \
	"$TMP/r/held"
tail -n 1 "$TMP/r/held" >"$TMP/line"
check_grep 'the line binds argv, the resolved binary and cwd' \
	'^\{"argv":\["python3","-c","print\(6 \* 7\)"\],"bin":"/usr/[^"]*python3[^"]*","cwd":".","env":\[\]\}$' \
	"$TMP/line"
check_nogrep 'not the name called' '"bin":"python3"' "$TMP/line"
cat "$TMP/line" >"$STORE-once"
shell once "$py" | run
check 'approved once: it runs' \
	'ok_ once && grep -qx 42 "$TMP/r/once"'
shell twice "$py" | run
check 'and only once' 'err_ twice && grep -q "needs approval" "$TMP/r/twice"'
cat "$TMP/line" >"$STORE"
{ shell a1 "$py"; shell a2 "$py"; } | run
check 'approved always: it runs every time' \
	'grep -qx 42 "$TMP/r/a1" && grep -qx 42 "$TMP/r/a2"'
{
	shell other '{"command":"python3 -c '"'"'print(6 * 8)'"'"'"}'
	shell more '{"command":"python3 -c '"'"'print(6 * 7)'"'"' x"}'
	shell elsewhere '{"command":"python3 -c '"'"'print(6 * 7)'"'"'","cwd":"sub"}'
} | run
check 'another argument is not approved' \
	'err_ other && grep -q "needs approval" "$TMP/r/other"'
check 'one more argument is not approved' \
	'err_ more && grep -q "needs approval" "$TMP/r/more"'
check 'another cwd is not approved' \
	'err_ elsewhere && grep -q "needs approval" "$TMP/r/elsewhere"'
check 'the same binary under another environment is not approved' '
	shell env "$py" | OXI_SANDBOX_ENV=LANGUAGE run &&
	grep -q "needs approval" "$TMP/r/env"'
shell pipe '{"command":"python3 -c 1 | sh"}' | run
check 'a refused command offers no approval' \
	'grep -q "^shell: refused:" "$TMP/r/pipe" && ! grep -q "approval" "$TMP/r/pipe"'
cp "$STORE" "$WS/approved"
shell inws "$py" | OXI_SHELL_APPROVED="$WS/approved" run
check 'a store inside the workspace approves nothing' \
	'err_ inws && grep -q "inside the workspace, ignored" "$TMP/err"'

# policy settings
{ shell which '{"command":"which ls"}'; shell cat '{"command":"cat notes.txt"}'; } |
	run
check 'allowlist: a command not listed is held' \
	'grep -q "needs approval: .which. is not in the shell allowlist" "$TMP/r/which"'
{ shell which '{"command":"which ls"}'; shell py '{"command":"python3 -c 1"}'; } |
	OXI_SHELL_POLICY=denylist run
check 'denylist: a command not listed runs' 'ok_ which'
check 'denylist: an interpreter is still held' \
	'grep -q "needs approval" "$TMP/r/py"'
shell cat '{"command":"cat notes.txt"}' | OXI_SHELL_DENY='cat head' run
check 'OXI_SHELL_DENY refuses a name' \
	'grep -q "refused: .cat. is denied by OXI_SHELL_DENY" "$TMP/r/cat"'
shell which '{"command":"which ls"}' | OXI_SHELL_ALLOW=which run
check 'OXI_SHELL_ALLOW adds a name' 'ok_ which'
shell cat '{"command":"cat notes.txt"}' | OXI_SHELL_POLICY=open run
check 'an unknown policy refuses everything' \
	'grep -q "unknown OXI_SHELL_POLICY" "$TMP/r/cat"'
# exit codes as execline's wrappers give them: 128 + N for signal N, 128
# for an exit of 128 or more
printf 'exit 200\n' >"$WS/e200.sh"
printf 'kill -9 $$\n' >"$WS/k9.sh"
{ shell e200 '{"command":"sh e200.sh"}'; shell k9 '{"command":"sh k9.sh"}'; } >"$TMP/in"
run <"$TMP/in"
tail -n 1 "$TMP/r/e200" >>"$STORE"
tail -n 1 "$TMP/r/k9" >>"$STORE"
run <"$TMP/in"
check 'an exit of 200 is an error result' 'err_ e200'
check_grep 'reported as exit code 128, not as a signal' '^\[exit code 128\]$' \
	"$TMP/r/e200"
check_grep 'a command killed by a signal says which' \
	'^\[killed by signal 9\]$' "$TMP/r/k9"
done_testing
