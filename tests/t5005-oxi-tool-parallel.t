#!/bin/sh
# oxi-tool: calls of different sessions at once, each session in order,
# OXI_TOOL_PARALLEL, a burst, a child killed, SIGTERM drains, the cache
# kept by the parent; the slow call is a web_fetch of a slow fake server
# (no sandbox needed)
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 21

fake_server web.py --slow 2
export OXI_SSRF_ALLOW="127.0.0.1:$PORT"
U="http://127.0.0.1:$PORT"
WS="$TMP/ws"
mkdir -p "$WS"
echo hello >"$WS/a.txt"

# call ID SESSION NAME ARGS
call() {
	printf '{"v":1,"type":"tool.call","id":"%s","session":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3" "$4"
}
slow() { call "$1" "$2" web_fetch "{\"url\":\"$U/slow?$1\"}"; }
ls_() { call "$1" "$2" list_dir '{}'; }
ids() { jget '["id"]' "$TMP/out" | tr '\n' ' '; }

# start: oxi-tool in the background on a FIFO held open on fd 3
start() {
	rm -f "$TMP/fifo" "$TMP/out"
	mkfifo "$TMP/fifo"
	oxi-tool -v -w "$WS" <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	exec 3>"$TMP/fifo"
}
# stop: end of input, its exit status in $rc
stop() {
	exec 3>&-
	wait $pid
	rc=$?
}
# waitfor COND: until the shell condition holds, at most 30 s
waitfor() {
	_i=0
	while ! eval "$1" && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}
waitlines() { waitfor "[ \$(wc -l <\"\$TMP/out\") -ge $1 ]"; }

# a slow call of session A does not hold up a list_dir of session B
start
t0=$(date +%s%N)
{ slow s1 A; ls_ l1 B; } >&3
waitlines 1
t1=$(date +%s%N)
check 'the list_dir of another session comes first' '[ "$(ids)" = "l1 " ]'
check 'within 1.5 s, the slow one taking 2' \
	'[ $(((t1 - t0) / 1000000)) -lt 1500 ]'
waitlines 2
stop
check 'the slow call is answered after it' '[ "$(ids)" = "l1 s1 " ] &&
	[ $rc = 0 ]'
check 'its content is the page' \
	'jget "[\"content\"]" "$TMP/out" | grep -qx late'

# two calls of one session: in order
start
{ slow s2 A; ls_ l2 A; ls_ l3 B; } >&3
waitlines 3
stop
check 'a session keeps its order, others pass it' \
	'[ "$(ids)" = "l3 s2 l2 " ]'

# calls without a session are one session
start
{
	printf '%s\n' "{\"v\":1,\"type\":\"tool.call\",\"id\":\"n1\",\"name\":\"web_fetch\",\"args\":{\"url\":\"$U/slow?n1\"}}"
	printf '%s\n' '{"v":1,"type":"tool.call","id":"n2","name":"list_dir","args":{}}'
	ls_ n3 B
} >&3
waitlines 3
stop
check 'calls without a session are answered in order' \
	'[ "$(ids)" = "n3 n1 n2 " ]'

# another record waits for the calls read before it, not after
start
{
	slow s3 A
	printf '%s\n' '{"v":1,"type":"msg.in","id":"m1"}'
	ls_ l4 B
} >&3
waitlines 3
stop
check 'a record passed through waits for the calls before it' \
	'[ "$(ids)" = "l4 s3 m1 " ]'

# OXI_TOOL_PARALLEL=1: one call at a time, in the order read
export OXI_TOOL_PARALLEL=1
start
{ slow s4 A; ls_ l5 B; } >&3
waitlines 2
stop
check 'OXI_TOOL_PARALLEL=1 serialises' '[ "$(ids)" = "s4 l5 " ]'
unset OXI_TOOL_PARALLEL
check_exit 'a bad OXI_TOOL_PARALLEL exits 100' 100 \
	'OXI_TOOL_PARALLEL=0 oxi-tool -w "$WS" </dev/null'
check_exit 'so does one that is not a number' 100 \
	'OXI_TOOL_PARALLEL=many oxi-tool -w "$WS" </dev/null'

# a burst of 50 calls over 10 sessions, more than the children
i=0
while [ $i -lt 50 ]; do
	if [ $((i % 3)) = 0 ]; then
		call "b$i" "S$((i % 10))" read_file '{"path":"a.txt"}'
	else
		ls_ "b$i" "S$((i % 10))"
	fi
	i=$((i + 1))
done >"$TMP/in"
check_exit 'a burst: exit 0' 0 \
	'OXI_TOOL_PARALLEL=3 oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out"'
check 'every call answered exactly once' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | sort)" = \
	   "$(jget "[\"id\"]" "$TMP/in" | sort)" ] &&
	 [ "$(wc -l <"$TMP/out")" = 50 ]'
check 'each session in order, every answer right' 'python3 -c "
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
res = [json.loads(l) for l in open(sys.argv[2])]
sess = {c[\"id\"]: c[\"session\"] for c in calls}
name = {c[\"id\"]: c[\"name\"] for c in calls}
for s in set(sess.values()):
    a = [c[\"id\"] for c in calls if c[\"session\"] == s]
    b = [r[\"id\"] for r in res if sess[r[\"id\"]] == s]
    assert a == b, (a, b)
for r in res:
    want = \"hello\n\" if name[r[\"id\"]] == \"read_file\" else \"a.txt\"
    assert r[\"content\"] == want and not r[\"is_error\"], r
" "$TMP/in" "$TMP/out"'

# a child killed: an error result for its call, and the stage goes on
start
slow k1 A >&3
waitfor '[ -n "$(pgrep -P $pid)" ]'
kill -KILL $(pgrep -P $pid)
waitlines 1
ls_ k2 A >&3
waitlines 2
stop
check 'the killed call gets an error result' \
	'[ "$(ids)" = "k1 k2 " ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | tr "\n" " ")" = "true false " ]'
check 'which says why' 'jget "[\"content\"]" "$TMP/out" | grep -qx \
	"web_fetch: the call ended without a result (killed by signal 9)"'
check 'one warning, nothing else' '[ "$(grep -v "^oxi-tool: \(debug\|info\)" "$TMP/err")" = \
	  "oxi-tool: warning: call '"'k1'"' web_fetch: its child ended without a result (killed by signal 9), answered with an error" ]'
check 'the stage goes on and exits 0' '[ $rc = 0 ]'

# SIGTERM: nothing more is read, the calls read are answered
start
{ slow t1 A; ls_ t2 A; slow t3 B; } >&3
# until t1 and t3 run: then t2 is read
waitfor '[ "$(pgrep -P $pid | wc -l)" -ge 2 ]'
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
check 'SIGTERM: the calls running and waiting are answered' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | sort | tr "\n" " ")" = \
	   "t1 t2 t3 " ] && [ "$(ids | sed "s/t3 //")" = "t1 t2 " ]'
check 'then exit 0' '[ $rc = 0 ]'

# the cache is the parent's: a second fetch is answered from it
start
call c1 A web_fetch "{\"url\":\"$U/page.html\"}" >&3
waitlines 1
call c2 B web_fetch "{\"url\":\"$U/page.html\"}" >&3
waitlines 2
stop
check 'a fetch kept by the parent answers the next one' \
	'grep -q "^oxi-tool: info: call .c2. web_fetch ok .* cached$" "$TMP/err" &&
	 [ "$(jget "[\"content\"]" "$TMP/out" | sort -u | wc -l)" -ge 1 ] &&
	 [ "$(sed -n 1p "$TMP/out" | jget "[\"content\"]" /dev/stdin)" = \
	   "$(sed -n 2p "$TMP/out" | jget "[\"content\"]" /dev/stdin)" ]'
check 'one log line per call' \
	'[ "$(grep -c "^oxi-tool: info: call " "$TMP/err")" = 2 ]'
done_testing
