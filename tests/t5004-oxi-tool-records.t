#!/bin/sh
# oxi-tool: one result per call, errors as results, bad lines, other
# records passed through, taint, readiness, signals and exit codes
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 29

WS="$TMP/ws"
mkdir -p "$WS"
echo hello >"$WS/a.txt"
DLQ="$OXI_HOME/deadletter.ndjson"
call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {
	oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	return $_rc
}

# an unknown tool and bad arguments: error results, exit 0, no warnings
{
	call u1 run_shell '{"cmd":"id"}'
	call b1 read_file '{}'
	call b2 read_file '{"path":7}'
	call b3 read_file '{"path":"a.txt","offset":"2"}'
	call b4 read_file '{"path":"a.txt","limit":0}'
	call b5 read_file '{"path":"a.txt","mode":"r"}'
	call b6 write_file '{"path":"x.txt"}'
	call b7 write_file '{"path":"x.txt","content":["a"]}'
	call b8 list_dir '{"path":null,"recursive":true}'
	call b9 read_file '{"path":""}'
} >"$TMP/in"
check_exit 'unknown tool and bad arguments exit 0' 0 'run <"$TMP/in"'
jget '["content"]' "$TMP/out" >"$TMP/msgs"
# the message lists every tool --list shows
printf "unknown tool 'run_shell'; the tools are %s\n" "$(oxi-tool --list |
	python3 -c 'import json, sys
print(", ".join(t["name"] for t in json.load(sys.stdin)))')" >"$TMP/exp"
cat >>"$TMP/exp" <<'EOF2'
read_file: missing argument 'path'
read_file: argument 'path' must be a string
read_file: argument 'offset' must be an integer >= 0
read_file: argument 'limit' must be an integer >= 1
read_file: unknown argument 'mode'
write_file: missing argument 'content'
write_file: argument 'content' must be a string
list_dir: unknown argument 'recursive'
read_file: argument 'path' is empty
EOF2
check_same 'each names the problem' "$TMP/msgs" "$TMP/exp"
check 'each is is_error with its id' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = true ] &&
	 [ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = \
	   "u1 b1 b2 b3 b4 b5 b6 b7 b8 b9 " ]'
check 'they are not warned about' '[ ! -s "$TMP/err" ]'
check 'nothing was written' '[ ! -e "$WS/x.txt" ]'

# a malformed line between two calls
{
	call g1 read_file '{"path":"a.txt"}'
	echo '{"type":"tool.call", not json'
	call g2 read_file '{"path":"a.txt"}'
} >"$TMP/in"
check_exit 'a bad line: exit 1' 1 'run <"$TMP/in"'
check_lines 'exactly one stderr line' 1 "$TMP/err"
check_grep 'it names the line' '^oxi-tool: warning: stdin:2: invalid JSON' \
	"$TMP/err"
check_lines 'exactly one dead letter' 1 "$DLQ"
check 'the calls around it are answered' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = "g1 g2 " ]'
rm -f "$DLQ"

# a line over -l
{
	call l1 read_file '{"path":"a.txt"}'
	call l2 write_file "{\"path\":\"long.txt\",\"content\":\"$(printf '%0200d' 0)\"}"
	call l3 read_file '{"path":"a.txt"}'
} >"$TMP/in"
check_exit 'a line over -l: exit 1' 1 'run -l 100 <"$TMP/in"'
check 'one warning, one dead letter, the others answered' \
	'grep -q "^oxi-tool: warning: stdin:2: line too long" "$TMP/err" &&
	 [ "$(wc -l <"$TMP/err")" = 1 ] && [ "$(wc -l <"$DLQ")" = 1 ] &&
	 [ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = "l1 l3 " ] &&
	 [ ! -e "$WS/long.txt" ]'
rm -f "$DLQ"

# a tool.call without the keys it needs
{
	printf '%s\n' '{"v":1,"type":"tool.call","id":"k1","name":"read_file"}'
	printf '%s\n' '{"v":1,"type":"tool.call","name":"read_file","args":{}}'
	call k3 read_file '{"path":"a.txt"}'
} >"$TMP/in"
check_exit 'a tool.call lacking keys: exit 1' 1 'run <"$TMP/in"'
cat >"$TMP/exp" <<'EOF2'
{"v":1,"type":"tool.result","id":"k1","content":"invalid tool.call: tool.call record needs \"args\" (an object)","is_error":true,"taint":[]}
{"v":1,"type":"error","ref":null,"code":"bad_record","message":"invalid tool.call: tool.call record needs \"id\" (a string)","retryable":false}
{"v":1,"type":"tool.result","id":"k3","content":"hello\n","is_error":false,"taint":["workspace"]}
EOF2
check_json 'an error result with an id, an error record without' \
	"$TMP/out" "$TMP/exp"
check_lines 'one warning each' 2 "$TMP/err"
check_lines 'one dead letter each' 2 "$DLQ"
rm -f "$DLQ"

# other records pass through byte for byte
{
	printf '%s\n' '{"type":"msg.in",  "text":"x","id":"m1" ,"z":[1,2]}'
	call p1 list_dir '{}'
	printf '%s\n' '{"type":"tool.result","id":"zz","content":"not mine"}'
} >"$TMP/in"
check_exit 'pass-through exits 0' 0 'run <"$TMP/in"'
check 'unknown records pass through unchanged' \
	'sed -n "1p;3p" "$TMP/out" >"$TMP/pass" &&
	 sed -n "1p;3p" "$TMP/in" | cmp -s - "$TMP/pass"'

# taint: the call's, each once, plus workspace for workspace content
{
	printf '%s\n' '{"v":1,"type":"tool.call","id":"t1","name":"read_file","args":{"path":"a.txt"},"taint":["web","web",3,"email"]}'
	printf '%s\n' '{"v":1,"type":"tool.call","id":"t2","name":"read_file","args":{"path":"nope"},"taint":["web"]}'
	printf '%s\n' '{"v":1,"type":"tool.call","id":"t3","name":"read_file","args":{"path":"a.txt"},"taint":["workspace"]}'
	printf '%s\n' '{"v":1,"type":"tool.call","id":"t4","name":"read_file","args":{"path":"a.txt"},"taint":"web"}'
} >"$TMP/in"
run <"$TMP/in"
check 'taint: call taint kept, workspace added, no duplicates' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | tr "\n" " ")" = \
	   "[\"web\", \"email\", \"workspace\"] [\"web\"] [\"workspace\"] [\"workspace\"] " ]'

# exit codes
check_exit 'a bad option exits 100' 100 'oxi-tool -x </dev/null'
check_exit 'an operand exits 100' 100 'oxi-tool foo </dev/null'
check_exit '-o 0 exits 100' 100 'oxi-tool -o 0 </dev/null'
check_exit 'a workspace that is a file exits 100' 100 \
	'oxi-tool -w "$WS/a.txt" </dev/null'
check_exit 'stdout gone exits 111' 111 \
	'call c1 list_dir "{}" | oxi-tool -w "$WS" >&-'
check_exit 'OXI_WORKSPACE is the default workspace' 0 \
	'call e1 list_dir "{}" | OXI_WORKSPACE="$WS" oxi-tool >"$TMP/out" &&
	 jget "[\"content\"]" "$TMP/out" | grep -qx a.txt'
check_exit 'else the workspace is in OXI_HOME' 0 \
	'call e2 write_file "{\"path\":\"h.txt\",\"content\":\"h\"}" |
	 oxi-tool >/dev/null && [ -f "$OXI_HOME/workspace/h.txt" ]'

# readiness, SIGHUP, SIGTERM
check 'readiness: a newline on fd 3' \
	'oxi-tool -w "$WS" -d 3 </dev/null 3>"$TMP/ready" &&
	 printf "\n" | cmp -s - "$TMP/ready"'
mkfifo "$TMP/fifo"
oxi-tool -w "$WS" <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" &
pid=$!
exec 3>"$TMP/fifo"
waitlines() {	# waitlines N: until $TMP/out has N lines, at most 30 s
	_i=0		# (a sanitizer build on a loaded machine starts slowly)
	while [ "$(wc -l <"$TMP/out")" -lt "$1" ] && [ $_i -lt 600 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}
call s1 list_dir '{}' >&3
waitlines 1
kill -HUP $pid
call s2 list_dir '{}' >&3
waitlines 2
check 'SIGHUP is ignored, calls still answered' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = "s1 s2 " ]'
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
check 'SIGTERM with input still open: exit 0' '[ $rc = 0 ]'
done_testing
