#!/bin/sh
# oxi-tool mcp: oxi's tools served over stdio MCP, both eras, every error
# code, notifications, stdout holding protocol messages only
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 23

WS=$TMP/ws
mkdir -p "$WS"
echo hello >"$WS/a.txt"
trust_plugins "$TESTS/plugins"
serve() {	# serve ARGS...: the lines of $TMP/in through oxi-tool mcp
	OXI_PLUGINS_NET=net oxi-tool -w "$WS" -P "$TESTS/plugins" "$@" mcp \
	    <"$TMP/in" \
	    >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	return $_rc
}
answers() {	# answers <<PY: asserts about a, the answers by str(id), and n
	{
		cat <<"PY"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "no final newline"
msgs = [json.loads(l) for l in lines[:-1]]
assert all(m["jsonrpc"] == "2.0" for m in msgs), msgs
a = {str(m.get("id")): m for m in msgs}
n = len(msgs)
PY
		cat
	} >"$TMP/check.py"
	python3 "$TMP/check.py" "$TMP/out"
}
M='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# the initialize era
cat >"$TMP/in" <<'EOF2'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"read_file","arguments":{"path":"../x"}}}
{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"upper","arguments":{"text":"plug"}}}
{"jsonrpc":"2.0","id":"p","method":"ping"}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}
{"jsonrpc":"2.0","id":"r","result":{}}
EOF2
check_exit 'legacy session: exit 0 at end of input' 0 serve
check 'stdout holds one answer per request, nothing else' 'answers <<"PY"
assert n == 6 and list(a) == ["1", "2", "c1", "c2", "c3", "p"], a
PY'
check 'initialize: the revision offered, tools, serverInfo' 'answers <<"PY"
r = a["1"]["result"]
assert r["protocolVersion"] == "2025-11-25", r
assert r["capabilities"] == {"tools": {"listChanged": False}}, r
assert r["serverInfo"]["name"] == "oxi-tool", r
assert "resultType" not in r, r
PY'
check 'tools/list: name, description, inputSchema; plugins included' \
	'oxi-tool -w "$WS" -P "$TESTS/plugins" --list >"$TMP/list" &&
	 answers <<"PY"
t = a["2"]["result"]["tools"]
d = json.load(open(sys.argv[1].replace("/out", "/list")))
assert [x["name"] for x in t] == [x["name"] for x in d], t
for x, y in zip(t, d):
    assert x == {"name": y["name"], "description": y["description"],
                 "inputSchema": y["parameters"]}, (x, y)
assert "upper" in [x["name"] for x in t]
PY'
check 'tools/call: one text item, isError false' 'answers <<"PY"
assert a["c1"]["result"] == {"content": [{"type": "text",
    "text": "hello\n"}], "isError": False}, a
PY'
check 'a failing call: isError true with the message' 'answers <<"PY"
r = a["c2"]["result"]
assert r["isError"] is True, r
assert r["content"][0]["text"] == \
    "read_file: \x27../x\x27: is outside the workspace", r
PY'
check 'a plugin is called too' 'answers <<"PY"
assert a["c3"]["result"]["content"][0]["text"] == "PLUG", a
PY'
check 'ping: an empty result' 'answers <<"PY"
assert a["p"]["result"] == {}, a
PY'
check 'nothing on stderr' '[ ! -s "$TMP/err" ]'
check 'the workspace is unchanged' '[ "$(ls "$WS")" = a.txt ]'

# revisions
for v in 2025-06-18:2025-06-18 2024-11-05:2025-11-25 2099-01-01:2025-11-25; do
	printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{}}}\n' \
		"${v%:*}" >"$TMP/in"
	check "initialize offering ${v%:*} gets ${v#*:}" \
		'serve && answers <<PY
assert a["1"]["result"]["protocolVersion"] == "${v#*:}", a
PY'
done

# the stateless revision
{
	echo '{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{'"$M"'}}'
	echo '{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{'"$M"'}}'
	echo '{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"list_dir","arguments":{},'"$M"'}}'
	echo '{"jsonrpc":"2.0","id":"o","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01"}}}'
} >"$TMP/in"
check_exit 'stateless session: exit 0' 0 serve
check 'server/discover: 2026-07-28, tools, serverInfo in _meta, resultType' \
	'answers <<"PY"
r = a["d"]["result"]
assert r["resultType"] == "complete", r
assert r["supportedVersions"] == ["2026-07-28"], r
assert r["capabilities"] == {"tools": {}}, r
assert r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == \
    "oxi-tool", r
PY'
check 'requests with the _meta get resultType complete' 'answers <<"PY"
assert a["l"]["result"]["resultType"] == "complete", a
r = a["c"]["result"]
assert r == {"content": [{"type": "text", "text": "a.txt"}],
    "isError": False, "resultType": "complete"}, r
PY'
check 'another revision in the _meta: UnsupportedProtocolVersion' \
	'answers <<"PY"
e = a["o"]["error"]
assert e["code"] == -32022, e
assert e["data"] == {"supported": ["2026-07-28"]}, e
PY'

# errors
{
	echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}'
	echo '[{"jsonrpc":"2.0","id":2,"method":"ping"}]'
	echo '{"jsonrpc":"2.0","id":3}'
	echo '{"jsonrpc":"2.0","id":4,"method":"resources/list"}'
	echo '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}'
	echo '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}'
	echo '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_dir","arguments":[1]}}'
	echo '{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}'
	echo '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}'
	printf '{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"%0300d"}}\n' 0
	echo '{"jsonrpc":"2.0","id":10,"method":"ping"}'
	printf '{"jsonrpc":"2.0","id":11,"method":"ping"}'
} >"$TMP/in"
check_exit 'errors: still exit 0' 0 'serve -l 200'
check 'each gets its code, in order, and the last line counts unterminated' \
	'python3 - "$TMP/out" <<"PY"
import json, sys
got = [(m["id"], m["error"]["code"] if "error" in m else "ok")
       for m in map(json.loads, open(sys.argv[1]))]
want = [(None, -32700), (None, -32600), (3, -32600), (4, -32601),
        (5, -32602), (6, -32602), (7, -32602), (8, -32602), (None, -32600),
        (None, -32700), (10, "ok"), (11, "ok")]
assert got == want, got
PY'
check 'an unknown tool is named' \
	'grep -q "\"message\":\"Unknown tool: nope\"" "$TMP/out"'
check 'nothing on stderr for protocol errors' '[ ! -s "$TMP/err" ]'

# ends
check_exit 'empty input: exit 0, no output' 0 \
	'oxi-tool -w "$WS" mcp </dev/null >"$TMP/out" && [ ! -s "$TMP/out" ]'
check_exit 'an operand after mcp exits 100' 100 'oxi-tool mcp extra </dev/null'
done_testing
