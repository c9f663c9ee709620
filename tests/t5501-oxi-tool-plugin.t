#!/bin/sh
# oxi-tool plugins: described at start-up, called with the arguments on
# stdin, errors, output caps, timeouts that leave no survivor, bad plugins
# skipped with a warning, tool directories
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 30

P=$TESTS/plugins
trust_plugins "$P" "$P/bad"	# each pinned by oxi-tool trust
WS=$TMP/ws
mkdir -p "$WS"
echo 'built-in text' >"$WS/a.txt"
call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
names() {	# names FILE: the tool names of a --list output
	python3 -c 'import json, sys
print(" ".join(t["name"] for t in json.load(open(sys.argv[1]))))' "$1"
}
content() {	# content N FILE: the content of the Nth record
	python3 -c 'import json, sys
r = open(sys.argv[2]).readlines()[int(sys.argv[1]) - 1]
sys.stdout.write(json.loads(r)["content"])' "$1" "$2"
}

# described at start-up
check_exit '--list with plugins exits 0' 0 \
	'oxi-tool -P "$P" --list >"$TMP/list" 2>"$TMP/err"'
cp "$TMP/list" "$TMP/list1"
check 'the plugins follow the built-in tools, in name order' '
	names "$TMP/list" |
	    grep -q "list_dir.* big fails hang net peek spawner upper$"'
check 'a definition is name, description and parameters, as printed' '
	python3 - "$TMP/list" <<"PY"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert t["upper"] == {"name": "upper",
    "description": "Return the text in upper case",
    "parameters": {"type": "object", "properties": {"text": {"type":
    "string", "description": "The text"}}, "required": ["text"],
    "additionalProperties": False}}, t["upper"]
assert t["fails"]["parameters"] == {"type": "object", "properties": {}}
assert sorted(t["net"]) == ["description", "name", "parameters"], t["net"]
PY'
check_grep 'a plugin asking for the network is warned about' \
	"^oxi-tool: warning: plugin 'net' asks for the network, not granted" \
	"$TMP/err"
check_lines 'and nothing else is' 1 "$TMP/err"

# bad plugins: each skipped with one warning, the rest go on
oxi-tool -P "$P/bad:$P" --list >"$TMP/list" 2>"$TMP/err"
check 'bad plugins are left out, good ones listed' '
	[ "$(names "$TMP/list")" = "$(names "$TMP/list1")" ]'
for w in "bad.name': not a tool name" \
    "exit1': --describe failed (exit status 1)" \
    "garbage': invalid --describe output (not JSON)" \
    "nodesc': invalid --describe output (no \"description\")" \
    "read_file' has the name of a built-in tool" \
    "wrongname': invalid --describe output (its \"name\" is not its"; do
	check "warned: ${w%%\'*}" \
		'grep -qF "plugin '\''$P/bad/$w" "$TMP/err"'
done
check 'one line each, none about the file that is not executable' \
	'[ "$(grep -c "" "$TMP/err")" = 7 ] && ! grep -q notexec "$TMP/err"'

# calls
{
	call u1 upper '{"text":"héllo wörld"}'
	call r1 read_file '{"path":"a.txt"}'
	call f1 fails '{"a":1}'
	call b1 big '{}'
	printf '%s\n' '{"v":1,"type":"tool.call","id":"t1","name":"upper","args":{"text":"x"},"taint":["web"]}'
} >"$TMP/in"
check_exit 'calls exit 0' 0 \
	'oxi-tool -o 1k -P "$P/bad:$P" -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'the arguments arrive on stdin, the result is stdout' \
	'[ "$(content 1 "$TMP/out")" = "HÉLLO WÖRLD" ]'
check 'its taint is plugin:NAME, after the call'"'"'s' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sed -n "1p;5p" | tr "\n" " ")" = \
	  "[\"plugin:upper\"] [\"web\", \"plugin:upper\"] " ]'
check 'a built-in tool wins over a plugin of its name' \
	'[ "$(content 2 "$TMP/out")" = "built-in text" ]'
check 'a non-zero exit is an error with the status and stderr' \
	'[ "$(content 3 "$TMP/out")" = \
	  "fails: failed with exit status 3: bad input: {\"a\":1}" ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | tr "\n" " ")" = \
	   "false false true false false " ]'
check 'output is cut at -o, with the marker' \
	'content 4 "$TMP/out" >"$TMP/big" &&
	 [ "$(sed -n 1p "$TMP/big" | tr -d x)" = "" ] &&
	 [ "$(sed -n 1p "$TMP/big" | wc -c)" = 1025 ] &&
	 [ "$(sed -n 2p "$TMP/big")" = \
	   "[output truncated: 1024 of 100000 bytes shown]" ]'

# the environment is scrubbed
call e1 big '{"env":true}' >"$TMP/in"
check 'a plugin sees no KEY, TOKEN, SECRET or PASSWORD variable' \
	'FAKE_API_KEY=k1 GITHUB_TOKEN=t1 MY_SECRET=s1 DB_PASSWORD=p1 \
	 oxi-tool -P "$P" -w "$WS" <"$TMP/in" 2>/dev/null >"$TMP/out" &&
	 jget "[\"content\"]" "$TMP/out" >"$TMP/env" &&
	 grep -qx PATH "$TMP/env" &&
	 ! grep -Ei "key|token|secret|password" "$TMP/env"'

# a plugin that hangs is killed at the timeout, with all it started
marker=oxi-hang-$$-$(date +%s)
call h1 hang "{\"marker\":\"$marker\"}" >"$TMP/in"
call h2 upper '{"text":"after"}' >>"$TMP/in"
check_exit 'a hanging plugin: exit 0' 0 \
	'OXI_PLUGIN_TIMEOUT=1 oxi-tool -P "$P" -w "$WS" <"$TMP/in" \
	    >"$TMP/out" 2>/dev/null'
check 'it gets an error result, the next call is answered' \
	'[ "$(jget "[\"content\"]" "$TMP/out" | tr "\n" "|")" = \
	  "hang: timed out after 1000 ms, killed|AFTER|" ]'
check 'no process of it survives' '! pgrep -f "$marker"'
marker=oxi-spawn-$$-$(date +%s)
call b1 spawner "{\"marker\":\"$marker\"}" >"$TMP/in"
check 'a plugin that leaves a process behind is answered when it ends' \
	'OXI_PLUGIN_TIMEOUT=60 oxi-tool -P "$P" -w "$WS" <"$TMP/in" \
	    >"$TMP/out" 2>/dev/null &&
	 [ "$(content 1 "$TMP/out")" = started ]'
check 'and what it left is killed' '! pgrep -f "$marker"'
# the plugin gets what is left of the call's 1 s when it starts: 1000 ms,
# or 999 on a loaded machine (never the 30 s of OXI_PLUGIN_TIMEOUT); what
# it started is gone when the answer is out (the sandbox waits for its pid
# namespace, or cgroup, to empty), so pgrep needs no wait
check 'OXI_TOOL_TIMEOUT bounds a plugin call too' \
	'call h3 hang "{\"marker\":\"$marker\"}" |
	 OXI_TOOL_TIMEOUT=hang=1 oxi-tool -P "$P" -w "$WS" >"$TMP/out" \
	    2>/dev/null &&
	 content 1 "$TMP/out" >"$TMP/c" &&
	 grep -Eqx "hang: timed out after [0-9]+ ms, killed" "$TMP/c" &&
	 [ "$(tr -dc 0-9 <"$TMP/c")" -le 1000 ] &&
	 ! pgrep -f "$marker"'

# tool directories
mkdir -p "$OXI_CONFIG_DIR/tools" "$TMP/d2"
cp "$P/upper" "$OXI_CONFIG_DIR/tools/upper"
cp "$P/fails" "$TMP/d2/upper"
trust_plugins "$OXI_CONFIG_DIR/tools" "$TMP/d2"
check 'by default the tools directory of the configuration' \
	'oxi-tool -L 2>/dev/null >"$TMP/list" &&
	 names "$TMP/list" | grep -q " upper$"'
check 'OXI_TOOL_PATH instead, the first directory winning' \
	'OXI_TOOL_PATH="$TMP/d2:$OXI_CONFIG_DIR/tools" oxi-tool -L \
	    >"$TMP/list" 2>/dev/null &&
	 grep -q "Always fails" "$TMP/list" &&
	 ! grep -q "upper case" "$TMP/list"'
check '-P instead of OXI_TOOL_PATH' \
	'OXI_TOOL_PATH="$TMP/d2" oxi-tool -P "$OXI_CONFIG_DIR/tools" -L \
	    >"$TMP/list" 2>/dev/null && grep -q "upper case" "$TMP/list"'
check "-P '' turns plugins off" \
	'oxi-tool -P "" -L >"$TMP/list" 2>"$TMP/err" &&
	 ! grep -q upper "$TMP/list" && [ ! -s "$TMP/err" ]'
done_testing
