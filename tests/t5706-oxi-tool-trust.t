#!/bin/sh
# oxi-tool trust: plugins and MCP servers run only when pinned.  An
# untrusted plugin or server is left out with one warning saying how to
# trust it; a trusted plugin whose file changes, or a server whose command
# or configuration changes, is refused; the trust file is 0600 and one
# that others may write trusts nothing; an unknown name exits 100.
cd "${0%/*}" && . ./lib.sh

plan 17

WS=$TMP/ws
D=$TMP/tools
mkdir -p "$WS" "$D" "$TMP/srv"
cp "$TESTS/plugins/upper" "$D/upper"
cp "$TESTS/fake/mcp-stdio.py" "$TMP/srv/fake-server"
chmod 755 "$D/upper" "$TMP/srv/fake-server"
cfg() {	# cfg ENV: one server "fake" run from its own copy
	cat >"$TMP/mcp.json" <<EOF2
{"servers":{"fake":{"command":"$TMP/srv/fake-server",
 "env":{"ANSWER":"$1"},"sandbox":{"ro":["$TESTS/fake"]}}}}
EOF2
}
cfg 42
names() {
	oxi-tool -P "$D" -M "$TMP/mcp.json" -w "$WS" -L 2>"$TMP/err" |
		python3 -c 'import json, sys
print(" ".join(t["name"] for t in json.load(sys.stdin)))'
}

names >"$TMP/names"
check 'untrusted: neither the plugin nor the server is loaded' \
	'! grep -q "upper\|fake__" "$TMP/names"'
check_grep 'a warning for the plugin, saying how to trust it' \
	"^oxi-tool: warning: plugin 'upper' is not trusted \\(or changed since\\): run 'oxi-tool trust upper'$" \
	"$TMP/err"
check_grep 'and one for the server' \
	"^oxi-tool: warning: mcp server 'fake' is not trusted \\(or changed since\\): run 'oxi-tool trust fake'$" \
	"$TMP/err"

check_exit 'oxi-tool trust upper exits 0' 0 'oxi-tool -P "$D" trust upper'
check_exit 'oxi-tool trust fake exits 0' 0 'oxi-tool -M "$TMP/mcp.json" trust fake'
check 'the trust file is mode 0600' \
	'[ "$(stat -c %a "$OXI_CONFIG_DIR/trust")" = 600 ]'
names >"$TMP/names"
check 'trusted: both are loaded, no warning' \
	'grep -q "upper" "$TMP/names" && grep -q "fake__echo" "$TMP/names" &&
	 ! grep -q "not trusted" "$TMP/err"'

printf '{"type":"tool.call","id":"1","name":"upper","args":{"text":"a"}}\n' >"$TMP/in"
echo '# changed' >>"$D/upper"
names >"$TMP/names"
check 'a plugin whose file changed is left out, with the warning' \
	'! grep -q "upper" "$TMP/names" &&
	 grep -q "plugin '\''upper'\'' is not trusted (or changed since)" "$TMP/err"'
oxi-tool -P "$D" trust upper 2>/dev/null
mkfifo "$TMP/fifo"
oxi-tool -d 4 -P "$D" -M "" -w "$WS" <"$TMP/fifo" >"$TMP/out" \
    2>"$TMP/err2" 4>"$TMP/ready" &
pid=$!
exec 3>"$TMP/fifo"
i=0	# until it is ready: the plugins are loaded
while [ ! -s "$TMP/ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo '# changed again' >>"$D/upper"
cat "$TMP/in" >&3
exec 3>&-
wait $pid
check 'a plugin changed after the start is refused at the call' \
	'grep -q "refused: plugin '\''upper'\'' changed since it was trusted" "$TMP/out"'

cfg 43
names >"$TMP/names"
check 'a server whose configuration changed is left out, with the warning' \
	'! grep -q "fake__" "$TMP/names" &&
	 grep -q "mcp server '\''fake'\'' is not trusted (or changed since)" "$TMP/err"'
oxi-tool -M "$TMP/mcp.json" trust fake 2>/dev/null
names >"$TMP/names"
check 're-trusted, it is loaded again' 'grep -q "fake__echo" "$TMP/names"'
echo '# changed' >>"$TMP/srv/fake-server"
names >"$TMP/names"
check 'a server whose command changed is left out' \
	'! grep -q "fake__" "$TMP/names" &&
	 grep -q "mcp server '\''fake'\'' is not trusted (or changed since)" "$TMP/err"'

oxi-tool -M "$TMP/mcp.json" trust fake 2>/dev/null
oxi-tool -P "$D" trust upper 2>/dev/null
chmod 0620 "$OXI_CONFIG_DIR/trust"
names >"$TMP/names"
check 'a trust file others may write trusts nothing' \
	'! grep -q "upper\|fake__" "$TMP/names" &&
	 grep -q "trust file .* is not a file only its owner writes, ignored" "$TMP/err"'
chmod 0600 "$OXI_CONFIG_DIR/trust"
names >"$TMP/names"
check 'back to 0600, both are trusted' \
	'grep -q "upper" "$TMP/names" && grep -q "fake__echo" "$TMP/names"'

check_exit 'trust of an unknown name exits 100' 100 \
	'oxi-tool -P "$D" -M "$TMP/mcp.json" trust nosuch 2>"$TMP/err"'
check_grep 'with a message' \
	"^oxi-tool: fatal: no plugin or MCP server named 'nosuch'$" "$TMP/err"
check_exit 'trust without a name is a usage error' 100 'oxi-tool trust'

done_testing
