#!/bin/sh
# oxi-tool trust: plugins and MCP servers run only when pinned.  An
# untrusted plugin or server is left out with one warning saying how to
# trust it; a trusted plugin whose file changes, or a server whose command
# or configuration changes, is refused, at load and at every later start
# (a plugin's call, a server's restart) with a result saying how to trust
# it again; the trust file is 0600 and one that others may write trusts
# nothing; an unknown name exits 100.
cd "${0%/*}" && . ./lib.sh

plan 23

WS=$TMP/ws
D=$TMP/tools
mkdir -p "$WS" "$D" "$TMP/srv"
cp "$TESTS/plugins/upper" "$D/upper"
cp "$TESTS/fake/mcp-stdio.py" "$TMP/srv/fake-server"
chmod 755 "$D/upper" "$TMP/srv/fake-server"
cfg() {	# cfg ENV [ARGS]: one server "fake" run from its own copy
	cat >"$TMP/mcp.json" <<EOF2
{"servers":{"fake":{"command":"$TMP/srv/fake-server","args":[${2:-}],
 "env":{"ANSWER":"$1"},"sandbox":{"ro":["$TESTS/fake"]}}}}
EOF2
}
cfg 42
# session ARGS: an oxi-tool fed through a FIFO on fd 3, once it is ready
# (plugins and servers loaded); call ID NAME ARGS sends a call, answers N
# waits for N results, content N is the Nth, over ends the session
session() {
	rm -f "$TMP/fifo" "$TMP/ready"
	mkfifo "$TMP/fifo"
	oxi-tool -d 4 "$@" -w "$WS" <"$TMP/fifo" >"$TMP/out" \
	    2>"$TMP/err2" 4>"$TMP/ready" &
	pid=$!
	_bgpids="$_bgpids $pid"
	exec 3>"$TMP/fifo"
	i=0
	while [ ! -s "$TMP/ready" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
call() {
	printf '{"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
	    "$1" "$2" "$3" >&3
}
answers() {
	i=0
	while [ "$(wc -l <"$TMP/out")" -lt "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
content() {
	sed -n "$1p" "$TMP/out" | python3 -c 'import json, sys
sys.stdout.write(json.load(sys.stdin)["content"])'
}
over() {
	exec 3>&-
	wait $pid
}
refused() {	# refused N TOOL KIND NAME: the Nth result refuses a start
	[ "$(content "$1")" = "$2: refused: $3 '$4' changed since it was \
trusted (or is no longer trusted): run 'oxi-tool trust $4'. Nothing was run." ] &&
	    grep -q "$3 '$4' is not trusted (or changed since)" "$TMP/err2"
}
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

echo '# changed' >>"$D/upper"
names >"$TMP/names"
check 'a plugin whose file changed is left out, with the warning' \
	'! grep -q "upper" "$TMP/names" &&
	 grep -q "plugin '\''upper'\'' is not trusted (or changed since)" "$TMP/err"'

# each call of a plugin is a start: checked again
oxi-tool -P "$D" trust upper 2>/dev/null
session -P "$D" -M ""
echo '# changed again' >>"$D/upper"
call 1 upper '{"text":"a"}'
answers 1
check 'a plugin changed after the start is refused at its call, saying how to trust it again' \
	'refused 1 upper plugin upper'
oxi-tool -P "$D" trust upper 2>/dev/null
call 2 upper '{"text":"b"}'
answers 2
over
check 'trusted again, its next call runs, in the same oxi-tool' \
	'[ "$(content 2)" = B ]'

# each restart of a server is a start: checked again
cfg 42 "\"--crash-after\",\"2\",\"--log\",\"$WS/srv.log\""
oxi-tool -M "$TMP/mcp.json" trust fake 2>/dev/null
session -P "" -M "$TMP/mcp.json"
echo '# changed' >>"$TMP/srv/fake-server"
call 1 fake__env '{"name":"ANSWER"}'
call 2 fake__echo '{"text":"crash"}'
call 3 fake__env '{"name":"ANSWER"}'
answers 3
check 'a server started before its command changed runs until it exits' \
	'[ "$(content 1)" = 42 ] &&
	 content 2 | grep -q "exited during the call (status 3)"'
check 'its restart is refused, saying how to trust it again' \
	'refused 3 fake__env "mcp server" fake'
oxi-tool -M "$TMP/mcp.json" trust fake 2>/dev/null
call 4 fake__env '{"name":"ANSWER"}'
answers 4
over
check 'trusted again, it is started again at its next call' \
	'[ "$(content 4)" = 42 ]'
check 'the refused start ran nothing: two starts in all' \
	'[ "$(grep -c "\"server/discover\"" "$WS/srv.log")" = 2 ]'

cfg 42 '"--crash-after","1"'
oxi-tool -M "$TMP/mcp.json" trust fake 2>/dev/null
session -P "" -M "$TMP/mcp.json"
cfg 43 '"--crash-after","1"'
call 1 fake__echo '{"text":"crash"}'
call 2 fake__env '{"name":"ANSWER"}'
answers 2
over
refused="fake__env: refused: the configuration of mcp server 'fake' \
changed since oxi-tool started: run 'oxi-tool trust fake' and start \
oxi-tool again. Nothing was run."
check 'a server whose configuration changed after the start is refused at its restart' \
	'content 1 | grep -q "exited during the call" &&
	 [ "$(content 2)" = "$refused" ] &&
	 grep -q "mcp server '\''fake'\'': its configuration changed since the start" "$TMP/err2"'

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
