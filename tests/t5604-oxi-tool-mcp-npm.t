#!/bin/sh
# oxi-tool and real MCP peers from the npm registry (make deps installs
# them into tests/npm): the reference server
# @modelcontextprotocol/server-everything under oxi-tool as a client, and
# the official TypeScript SDK's Client (tests/mcp/client.mjs) against
# oxi-tool mcp; then oxi-tool against itself in the stateless revision
cd "$(dirname "$0")" && . ./lib.sh || exit 1

NPM=$TESTS/npm/node_modules
EVERYTHING=$NPM/.bin/mcp-server-everything
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}
command -v node >/dev/null || skip_all "no node"
[ -x "$EVERYTHING" ] && [ -f "$NPM/@modelcontextprotocol/sdk/package.json" ] ||
	skip_all "the npm packages are not installed (run make deps)"
version() {
	sed -n 's/^ *"version": *"\(.*\)".*/\1/p' "$NPM/$1/package.json"
}

plan 16

diag "server-everything $(version @modelcontextprotocol/server-everything)," \
    "sdk $(version @modelcontextprotocol/sdk), node $(node --version)"
WS=$TMP/ws
mkdir -p "$WS/sub"
echo 'workspace text' >"$WS/notes.txt"
cat >"$TMP/mcp.json" <<EOF2
{"servers":{"everything":{"command":"$EVERYTHING","args":["stdio"],
 "timeout_ms":30000,"sandbox":{"ro":["$TESTS/npm"]}}}}
EOF2
trust_mcp "$TMP/mcp.json"
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

# oxi-tool, client of the reference server
check_exit 'everything: --list exits 0' 0 \
	'oxi-tool -M "$TMP/mcp.json" -w "$WS" --list >"$TMP/list" 2>"$TMP/err"'
check 'its tools are listed as everything__*, echo among them' '
	python3 - "$TMP/list" <<"PY"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))}
e = [n for n in t if n.startswith("everything__")]
assert len(e) >= 5, e
assert t["everything__echo"]["parameters"]["properties"]["message"]["type"] \
    == "string", t["everything__echo"]
assert "everything__get-sum" in t, e
PY'
{
	call e1 everything__echo '{"message":"hello from oxi"}'
	call e2 everything__get-sum '{"a":2,"b":3}'
	call e3 everything__echo '{}'
	call e4 everything__get-env '{}'
} >"$TMP/in"
check_exit 'everything: calls exit 0' 0 \
	'SOME_API_KEY=k1 GITHUB_TOKEN=t1 oxi-tool -v -M "$TMP/mcp.json" \
	    -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
results
check 'echo: the echoed text comes back' \
	'[ "$(content 1)" = "ok: Echo: hello from oxi" ]'
check 'get-sum: the sum' 'content 2 | grep -q "^ok: .*\<5\>"'
check 'a call it refuses is an error result' 'content 3 | grep -q "^error: "'
check 'its environment holds no KEY, TOKEN or SECRET' \
	'content 4 | grep -q "^ok: " && content 4 | grep -q "\"PATH\"" &&
	 ! content 4 | grep -Eqi "key|token|secret|password"'
check 'the taint is mcp:everything' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sort -u)" = "[\"mcp:everything\"]" ]'
check 'it speaks 2025-11-25, after refusing server/discover' \
	'grep -q "debug: mcp '\''everything'\'': revision 2025-11-25" "$TMP/err"'
check 'no server is left' '! pgrep -f "$EVERYTHING"'

# the SDK's client, against oxi-tool mcp
check_exit 'sdk client: exit 0' 0 \
	'node "$TESTS/mcp/client.mjs" \
	    "[[\"list_dir\",{}],[\"read_file\",{\"path\":\"notes.txt\"}],
	      [\"read_file\",{\"path\":\"/etc/passwd\"}],[\"nope\",{}]]" \
	    oxi-tool -w "$WS" -P "" mcp >"$TMP/out" 2>"$TMP/err"'
check 'it connects with 2025-11-25 and lists the tools with their schemas' '
	python3 - "$TMP/out" <<"PY"
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])]
assert m[0]["protocolVersion"] == "2025-11-25", m[0]
assert m[0]["server"]["name"] == "oxi-tool", m[0]
t = {x["name"]: x for x in m[1]["tools"]}
assert t["read_file"]["inputSchema"]["required"] == ["path"], t
assert "list_dir" in t and "write_file" in t, t
PY'
check 'it calls list_dir and read_file on the workspace' '
	python3 - "$TMP/out" <<"PY"
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])][2:]
assert m[0]["result"] == {"content": [{"type": "text", "text":
    "notes.txt\nsub/"}], "isError": False}, m[0]
assert m[1]["result"]["content"][0]["text"] == "workspace text\n", m[1]
assert m[2]["result"]["isError"] is True, m[2]
assert "outside the workspace" in m[2]["result"]["content"][0]["text"], m[2]
assert "Unknown tool: nope" in m[3]["error"], m[3]
PY'

# oxi-tool against oxi-tool mcp: the stateless revision end to end
cat >"$TMP/self.json" <<EOF2
{"servers":{"oxi":{"command":"$TOP/bin/oxi-tool",
 "args":["-w","$WS","-P","","mcp"]}}}
EOF2
trust_mcp "$TMP/self.json"
call s1 oxi__list_dir '{"path":"."}' >"$TMP/in"
check_exit 'oxi-tool through oxi-tool mcp: exit 0' 0 \
	'oxi-tool -v -P "" -M "$TMP/self.json" -w "$WS" <"$TMP/in" \
	    >"$TMP/out" 2>"$TMP/err"'
results
check 'they agree on 2026-07-28' \
	'grep -q "debug: mcp '\''oxi'\'': revision 2026-07-28" "$TMP/err"'
check 'and the call goes through' '[ "$(content 1)" = "ok: notes.txt
sub/" ]'
done_testing
