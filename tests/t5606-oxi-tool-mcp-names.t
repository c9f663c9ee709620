#!/bin/sh
# oxi-tool as an MCP client: a tool whose name holds a NUL byte (it would
# be cut there, and call another tool) or is empty is left out, with a
# warning that shows the name escaped
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 4

WS=$TMP/ws
mkdir -p "$WS"
MARK=oxi-mcp-$$-$(date +%s)	# in every fake's command line
python3 - "$TESTS" "$MARK" >"$TMP/mcp.json" <<'PY'
import json, sys
tests, mark = sys.argv[1], sys.argv[2]
print(json.dumps({"servers": {"fake": {
    "command": "python3",
    "args": [tests + "/fake/mcp-stdio.py", "--nul-names", "--mark", mark],
    "timeout_ms": 10000, "sandbox": {"ro": [tests + "/fake"]}}}}))
PY
trust_mcp "$TMP/mcp.json"
check_exit '--list exits 0' 0 \
	'oxi-tool -M "$TMP/mcp.json" -w "$WS" --list >"$TMP/list" 2>"$TMP/err"'
check 'the tools with a NUL or no name are left out, the others kept' \
	'! grep -q "fake__evil" "$TMP/list" && ! grep -q "\"fake__\"" "$TMP/list" &&
	 ! grep -q "fake___\"" "$TMP/list" && grep -q "fake__echo" "$TMP/list"'
check 'each is named in a warning, escaped' \
	'grep -qF "mcp server '"'"'fake'"'"': tool '"'"'evil\\x00echo'"'"' has a NUL byte in its name, left out" "$TMP/err" &&
	 grep -qF "mcp server '"'"'fake'"'"': tool '"'"'\\x00'"'"' has a NUL byte in its name, left out" "$TMP/err" &&
	 grep -qF "mcp server '"'"'fake'"'"': tool '"'"''"'"' has an empty name, left out" "$TMP/err"'
check 'no server left behind' '! pgrep -f "$MARK" >/dev/null'

done_testing
