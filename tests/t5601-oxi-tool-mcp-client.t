#!/bin/sh
# oxi-tool as an MCP client, against the fake server tests/fake/mcp-stdio.py:
# both protocol eras and the fallback, pagination, names, content, errors,
# restart after a crash with backoff, timeouts, shutdown, configuration
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 47

WS=$TMP/ws
mkdir -p "$WS"
MARK=oxi-mcp-$$-$(date +%s)	# in every fake's command line
cfg() {	# cfg TIMEOUT_MS ARGS...: a configuration of one server "fake"
	_t=$1
	shift
	python3 - "$TESTS" "$MARK" "$_t" "$@" >"$TMP/mcp.json" <<'PY'
import json, sys
tests, mark, t, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
print(json.dumps({"servers": {"fake": {
    "command": "python3",
    "args": [tests + "/fake/mcp-stdio.py"] + args + ["--mark", mark],
    "env": {"FOO": "bar"}, "timeout_ms": t,
    "sandbox": {"ro": [tests + "/fake"]}}}}))
PY
	trust_mcp "$TMP/mcp.json"	# each configuration pinned
}
call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
results() {	# $TMP/c.N: "error: " or "ok: ", then the Nth content
	rm -f "$TMP"/c.*
	python3 -c 'import json, sys
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    open("%s.%d" % (sys.argv[2], i + 1), "w").write(
        ("error: " if r["is_error"] else "ok: ") + r["content"])' \
	    "$TMP/out" "$TMP/c"
}
content() {
	cat "$TMP/c.$1"
}
run() {
	oxi-tool -M "$TMP/mcp.json" -w "$WS" "$@" <"$TMP/in" >"$TMP/out" \
	    2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	results
	return $_rc
}
logged() {	# logged: the methods the fake received, one a line
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l)
    print(m.get("method") or "response " + str(m.get("id")))' "$WS/log"
}

# the stateless revision
cfg 10000 --mode modern --page 4 --log "$WS/log"
check_exit 'modern: --list exits 0' 0 \
	'oxi-tool -M "$TMP/mcp.json" -w "$WS" --list >"$TMP/list" 2>"$TMP/err"'
check 'its tools follow, named server__tool, every page of them' '
	python3 - "$TMP/list" <<"PY"
import json, sys
t = [x["name"] for x in json.load(open(sys.argv[1]))]
t = [x for x in t if x.startswith("fake__")]
assert t == ["fake__" + n for n in ("echo fail mixed hang env pid dot_name "
    "read write connect environ quit").split()], t
PY'
check 'the definitions: description, and inputSchema as parameters' '
	python3 - "$TMP/list" <<"PY"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert t["fake__echo"] == {"name": "fake__echo", "description":
    "Echo the text back", "parameters": {"type": "object", "properties":
    {"text": {"type": "string"}}, "required": ["text"]}}, t["fake__echo"]
assert t["fake__hang"]["parameters"] == {"type": "object",
    "properties": {}}, t["fake__hang"]
PY'
check 'nothing on stderr' '[ ! -s "$TMP/err" ]'
check 'server/discover, then tools/list page after page, with the _meta' '
	[ "$(logged | tr "\n" " ")" = \
	  "server/discover tools/list tools/list tools/list " ] &&
	python3 - "$WS/log" <<"PY"
import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l)["params"]["_meta"]
    assert m["io.modelcontextprotocol/protocolVersion"] == "2026-07-28", m
    assert m["io.modelcontextprotocol/clientInfo"]["name"] == "oxi", m
    assert m["io.modelcontextprotocol/clientCapabilities"] == {}, m
PY'
rm -f "$WS/log"
{
	call c1 fake__echo '{"text":"hello mcp"}'
	call c2 fake__mixed '{}'
	call c3 fake__fail '{}'
	call c4 fake__env '{"name":"FOO"}'
	call c5 fake__dot_name '{}'
	printf '%s\n' '{"v":1,"type":"tool.call","id":"c6","name":"fake__echo","args":{"text":"t"},"taint":["web"]}'
} >"$TMP/in"
check_exit 'modern: calls exit 0' 0 run
check 'a call returns the text' '[ "$(content 1)" = "ok: hello mcp" ]'
check 'other content items are described' '[ "$(content 2)" = "ok: first
[image: image/png, 6 bytes]
[resource link: file:///x.txt]
inside y" ]'
check 'isError is an error result' '[ "$(content 3)" = "error: it failed" ]'
check 'the configured env reaches the server' '[ "$(content 4)" = "ok: bar" ]'
check 'a sanitised name calls the original' '[ "$(content 5)" = "ok: dotted" ]'
check 'the taint is mcp:SERVER, after the call'"'"'s, errors too' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sed -n "1p;3p;6p" | tr "\n" " ")" \
	  = "[\"mcp:fake\"] [\"mcp:fake\"] [\"web\", \"mcp:fake\"] " ]'
check 'tools/call carries the _meta and the original name' '
	python3 - "$WS/log" <<"PY"
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
calls = [c for c in calls if c["method"] == "tools/call"]
assert [c["params"]["name"] for c in calls] == ["echo", "mixed", "fail",
    "env", "dot.name", "echo"], calls
assert all("_meta" in c["params"] for c in calls)
assert calls[0]["params"]["arguments"] == {"text": "hello mcp"}
PY'

# the initialize era, and the fallback to it
cfg 10000 --mode legacy --log "$WS/log"
rm -f "$WS/log"
call l1 fake__echo '{"text":"legacy"}' >"$TMP/in"
check_exit 'legacy: exit 0' 0 run
check 'legacy: the call is answered' '[ "$(content 1)" = "ok: legacy" ]'
check 'server/discover refused, then initialize, initialized, its ping answered' \
	'[ "$(logged | tr "\n" " ")" = "server/discover initialize \
notifications/initialized tools/list response srv-ping tools/call " ]'
check 'initialize offers 2025-11-25, and later requests have no _meta' '
	python3 - "$WS/log" <<"PY"
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])]
p = m[1]["params"]
assert p["protocolVersion"] == "2025-11-25", p
assert p["clientInfo"]["name"] == "oxi", p
assert all("_meta" not in x.get("params", {}) for x in m[2:]), m
PY'
cfg 10000 --mode old
check '2025-06-18 is accepted' \
	'run && [ "$(content 1)" = "ok: legacy" ] && [ ! -s "$TMP/err" ]'
cfg 10000 --mode ancient
check_exit '2024-11-05 is refused: exit 0 still' 0 run
check 'with a warning, and without its tools' \
	'grep -q "^oxi-tool: warning: mcp server '\''fake'\'': initialize: revision '\''2024-11-05'\'' not supported; its tools are left out" "$TMP/err" &&
	 content 1 | grep -q "^error: unknown tool"'
cfg 1500 --mode silent --log "$WS/log"
rm -f "$WS/log"
check 'no answer to server/discover in time: initialize' \
	'run && [ "$(content 1)" = "ok: legacy" ] &&
	 [ "$(logged | sed -n 2p)" = initialize ]'

# crashes, restarts, backoff, timeouts
cfg 10000 --mode legacy --crash-after 2 --log "$WS/log"
rm -f "$WS/log"
{
	call k1 fake__pid '{}'
	call k2 fake__pid '{}'
	call k3 fake__pid '{}'
} >"$TMP/in"
check_exit 'a crash: exit 0' 0 run
check 'the call in flight gets an error' \
	'[ "$(content 2)" = "error: fake__pid: MCP server '\''fake'\'' exited during the call (status 3); it restarts on a later call" ]'
check 'the next call restarts it' \
	'content 1 | grep -q "^ok: [0-9]" && content 3 | grep -q "^ok: [0-9]" &&
	 [ "$(logged | grep -c "^initialize")" = 2 ]'
cfg 10000 --mode legacy --crash-after 1 --log "$WS/log"
rm -f "$WS/log"
check 'crashing again: the next start waits, calls meanwhile fail at once' \
	'run && content 1 | grep -q "exited during the call" &&
	 content 2 | grep -q "exited during the call" &&
	 [ "$(content 3)" = "error: fake__pid: MCP server '\''fake'\'' is down; it restarts in 1 s" ] &&
	 [ "$(logged | grep -c "^initialize")" = 2 ]'
cfg 10000 --mode legacy --log "$WS/log"
rm -f "$WS/log"
check 'a server that exited between calls is started for the next one' \
	'{ call q1 fake__quit "{}"; sleep 0.5; call q2 fake__echo "{\"text\":\"again\"}"; } |
	 oxi-tool -M "$TMP/mcp.json" -w "$WS" >"$TMP/out" && results &&
	 [ "$(content 1)" = "ok: bye" ] && [ "$(content 2)" = "ok: again" ] &&
	 [ "$(logged | grep -c "^initialize")" = 2 ]'
cfg 1000 --mode modern
{
	call h1 fake__hang '{}'
	call h2 fake__echo '{"text":"back"}'
} >"$TMP/in"
check_exit 'a call that hangs: exit 0' 0 run
check 'it times out, the server is stopped, the next call restarts it' \
	'[ "$(content 1)" = "error: fake__hang: no answer from MCP server '\''fake'\'' in 1000 ms; it was stopped and restarts on a later call" ] &&
	 [ "$(content 2)" = "ok: back" ]'
check 'no server is left running' '! pgrep -f "$MARK"'

# shutdown on SIGTERM: stdin closed, then signals
cfg 10000 --mode modern
mkfifo "$TMP/fifo"
rm -f "$TMP/out"
oxi-tool -M "$TMP/mcp.json" -w "$WS" <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" &
pid=$!
exec 3>"$TMP/fifo"
call s1 fake__echo '{"text":"up"}' >&3
i=0
while [ ! -s "$TMP/out" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check 'a server runs while oxi-tool does' 'pgrep -f "$MARK" >/dev/null'
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
results
check 'SIGTERM: exit 0 and no server left' \
	'[ $rc = 0 ] && [ "$(content 1)" = "ok: up" ] && ! pgrep -f "$MARK"'

# configuration
cfg 10000 --mode modern
call v1 fake__echo '{"text":"v"}' >"$TMP/in"
check '-v: the server'"'"'s stderr becomes debug lines, not output' \
	'run -v && grep -q "^oxi-tool: debug: mcp '\''fake'\'': fake mcp: started in mode modern" "$TMP/err" &&
	 ! grep -q "fake mcp" "$TMP/out"'
cp "$TMP/mcp.json" "$OXI_CONFIG_DIR/mcp.json" 2>/dev/null ||
	{ mkdir -p "$OXI_CONFIG_DIR"; cp "$TMP/mcp.json" "$OXI_CONFIG_DIR/mcp.json"; }
check 'the default configuration is mcp.json in the configuration directory' \
	'oxi-tool -L 2>/dev/null | grep -q fake__echo'
mv "$OXI_CONFIG_DIR/mcp.json" "$TMP/other.json"
check 'OXI_MCP_CONFIG names another' \
	'OXI_MCP_CONFIG="$TMP/other.json" oxi-tool -L | grep -q fake__echo'
check "-M '' turns MCP off" \
	'OXI_MCP_CONFIG="$TMP/other.json" oxi-tool -M "" -L | grep -qv fake__'
python3 - "$TMP/mcp.json" >"$TMP/alias.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["servers"]["fake"]
print(json.dumps({"mcpServers": {"my srv.1": c, "off": dict(c, disabled=True)}}))
PY
trust_mcp "$TMP/alias.json"
check 'mcpServers is read as servers; names are sanitised; disabled is off' \
	'oxi-tool -M "$TMP/alias.json" -L >"$TMP/list" &&
	 grep -q "\"my_srv_1__echo\"" "$TMP/list" && ! grep -q off__ "$TMP/list"'
echo '{"servers":{"x":{"command":"/nonexistent/mcp-server"}}}' \
	>"$TMP/bad.json"
check 'a server that cannot start: a warning, its tools left out' \
	'oxi-tool -M "$TMP/bad.json" -L >"$TMP/list" 2>"$TMP/err" &&
	 grep -q "^oxi-tool: warning: mcp server '\''x'\'': " "$TMP/err" &&
	 ! grep -q x__ "$TMP/list"'
check_exit 'a missing default configuration is no error' 0 'oxi-tool -L >/dev/null'
check_exit 'a missing -M file exits 100' 100 'oxi-tool -M "$TMP/none.json" -L'
for bad in 'not json' '[]' '{"servers":[]}' '{"servers":{"x":{}}}' \
    '{"servers":{"x":{"url":"http://127.0.0.1:1/mcp"}}}' \
    '{"servers":{"x":{"command":"a","args":[1]}}}' \
    '{"servers":{"x":{"command":"a","sandbox":{"ro":["rel"]}}}}' \
    '{"servers":{"x":{"command":"a","timeout_ms":0}}}'; do
	printf '%s\n' "$bad" >"$TMP/bad.json"
	check_exit "invalid configuration exits 100: $bad" 100 \
		'oxi-tool -M "$TMP/bad.json" -w "$WS" </dev/null'
done
done_testing
