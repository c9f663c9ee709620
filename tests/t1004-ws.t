#!/bin/sh
# the WebSocket client of liboxi (lib/net/websock.c) through tests/wsc
# against the echo server of tests/fake/wsbase.py: the handshake, echo of
# text and binary, masking, fragments, ping and pong, close, the protocol
# errors and their close codes, the message cap, timeouts, refusals, wss://
# with a CA file, and a long stream under valgrind
cd "$(dirname "$0")" && . ./lib.sh || exit 1
[ -x "$TESTS/wsc" ] || skip_all "no tests/wsc (make all)"
plan 46

fake_server wsbase.py --log "$TMP/log"
U="ws://127.0.0.1:$PORT"

# wsc's answers to the commands of $2 (printf) against path $1
wsc_run() {
	_p=$1
	shift
	_c=$1
	shift
	printf "$_c" | with_timeout 20 wsc "$@" "$U$_p" >"$TMP/got" 2>"$TMP/err"
}
# the log lines of path $1 holding all of the strings $2...
logged() {
	_p=$1
	shift
	grep "\"path\": \"$_p\"" "$TMP/log" >"$TMP/plog" || return 1
	for _s; do
		grep -F -- "$_s" "$TMP/plog" >"$TMP/plog2" || return 1
		mv "$TMP/plog2" "$TMP/plog"
	done
}
# the SHA-1 wsc shows for N bytes 0, 1, ..., 255, 0, ...
sha() {
	python3 -c 'import hashlib, sys
n = int(sys.argv[1])
print(hashlib.sha1(bytes(i & 0xff for i in range(n))).hexdigest())' "$1"
}

wsc_run /echo 'text hi there\nrecv\nbinary 100000\nrecv\nping abc\nrecv\ntext stats\nrecv\nclose 1000 bye\n'
printf '%s\n' 'text 8 hi there' "binary 100000 sha1:$(sha 100000)" \
	'pong abc' 'text 5 stats' 'closed 0' >"$TMP/exp"
check_same 'echo: text, 100000 bytes of binary, a ping, a clean close' \
	"$TMP/got" "$TMP/exp"
check 'every frame of the client was masked and well formed' \
	'logged /echo "\"frames\": 4" "\"errors\": []"'
check 'the server heard the close: 1000 "bye"' \
	'logged /echo "\"code\": 1000" "\"reason\": \"bye\"" "\"errors\": []"'

wsc_run /first 'recv\n'
check_grep 'a frame in the same send as the 101 is not lost' \
	'^text 5 hello$' "$TMP/got"
wsc_run /frag 'recv\ntext stats\nrecv\n'
check_grep 'a text in three fragments, a ping between each two: one message' \
	'^text 18 fragmented message$' "$TMP/got"
check_grep '...then the echo goes on' '^text 5 stats$' "$TMP/got"
check 'both pings between the fragments were answered (pong, pong, text)' \
	'logged /frag "\"frames\": 3" "\"errors\": []"'
wsc_run /ping 'recv\n'
check 'a ping of the server is answered with its payload' \
	'wait_until 3 "logged /ping \"\\\"data\\\": \\\"p1\\\"\""'
check_grep '...and not returned: the recv times out' '^timeout$' "$TMP/got"

wsc_run /close 'recv\nrecv\ntext late\n'
check_grep 'a close of the server is returned with its code and reason' \
	'^close 4004 bad token$' "$TMP/got"
check_grep '...then recv fails with that code' \
	'^error 4004 ws: closed by the server \(4004\)$' "$TMP/got"
check 'the close was echoed with its code' \
	'wait_until 3 "logged /close \"\\\"got\\\": \\\"close\\\"\" \"\\\"code\\\": 4004\""'

wsc_run /drop 'recv\nrecv\n'
check_grep 'the server drops TCP: error 1006' \
	'^error 1006 ws: the connection was closed$' "$TMP/got"
check 'twice: it stays lost' '[ "$(grep -c "^error 1006" "$TMP/got")" = 2 ]'

# the protocol errors: recv fails with the code, the server hears it
for c in masked:1002 rsv:1002 badutf8:1007 badlen:1002 badclose:1002 \
    cont:1002; do
	p=${c%:*} code=${c#*:}
	wsc_run "/$p" 'recv\n'
	check_grep "/$p: recv fails with $code" "^error $code ws: " "$TMP/got"
	check "/$p: the server gets a close frame with $code" \
		"wait_until 3 'logged /$p \"\\\"code\\\": $code\"'"
done

n=3000000
wsc_run "/big?n=$n" 'recv\n'
check_grep 'a message of 3 MB in 64 KiB fragments, joined' \
	"^binary $n sha1:$(sha $n)\$" "$TMP/got"
wsc_run "/big?n=$n" 'recv\n' -m 1000000
check_grep 'over a cap of 1 MB (-m): error 1009' '^error 1009 ' "$TMP/got"
wsc_run "/bighead?n=$n" 'recv\n' -m 1000000
check_grep 'a frame header over the cap: error 1009 at once' '^error 1009 ' \
	"$TMP/got"
check 'the server gets a close frame with 1009' \
	"wait_until 3 'logged /bighead \"\\\"code\\\": 1009\"'"

t0=$(date +%s%N)
wsc_run /slow 'recv\nrecv\nrecv\n' -t 300
t1=$(date +%s%N)
check_lines 'a silent server: three recv of 300 ms time out' 3 "$TMP/got"
check 'and take 0.9 s to 2 s in all: no recv waits longer than asked' \
	'ms=$(( (t1 - t0) / 1000000 )); echo $ms;
	 [ "$ms" -ge 880 ] && [ "$ms" -lt 2000 ]'

wsc_run /headers 'recv\n' -H 'X-Test: abc'
check_grep 'extra headers reach the server' '^text 3 abc$' "$TMP/got"
check_exit 'a header with a line break is refused: exit 111' 111 \
	"printf '' | wsc -H \"\$(printf 'X-Test: a\\r\\nX-Evil: b')\" $U/echo"
check_grep '...saying so' 'line break' "$TMP/.err"

check_exit 'a refused upgrade: exit 111' 111 \
	"printf '' | wsc '$U/refuse?ticket=SECRET-TICKET-123'"
check_grep '...with the status' '^wsc: ws: the server refused the upgrade: HTTP 401$' \
	"$TMP/.err"
check 'the error does not show the URL'"'"'s query' \
	'! grep -q SECRET-TICKET "$TMP/.err"'
check_exit 'a wrong Sec-WebSocket-Accept: exit 111' 111 \
	"printf '' | wsc $U/badaccept"
check_grep '...saying so' 'Sec-WebSocket-Accept' "$TMP/.err"
check_exit 'http:// is not a WebSocket URL' 111 \
	"printf '' | wsc http://127.0.0.1:$PORT/echo"
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' >"$TMP/free"
check_exit 'nothing listening: exit 111' 111 \
	"printf '' | wsc -c 2000 ws://127.0.0.1:$(cat "$TMP/free")/"
check_grep '...unable to connect' 'unable to connect to 127.0.0.1:' \
	"$TMP/.err"

# wss:// with a certificate of our own
if command -v openssl >/dev/null &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	-nodes -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 \
	-subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null; then
	PLAIN=$PORT
	fake_server wsbase.py --log "$TMP/log" --tls "$TMP/cert.pem" \
		"$TMP/key.pem"
	printf 'recv\ntext over tls\nrecv\nbinary 200000\nrecv\nclose 1000 x\n' |
		with_timeout 20 wsc -A "$TMP/cert.pem" \
		"wss://localhost:$PORT/first" >"$TMP/got" 2>"$TMP/err"
	printf '%s\n' 'text 5 hello' 'text 8 over tls' \
		"binary 200000 sha1:$(sha 200000)" 'closed 0' >"$TMP/exp"
	check_same 'wss:// with our CA file: first frame, text, binary, close' \
		"$TMP/got" "$TMP/exp"
	check_exit 'wss:// without it: the certificate is refused, exit 111' \
		111 "printf '' | wsc wss://localhost:$PORT/echo"
	PORT=$PLAIN
else
	_n=$((_n + 2))
	echo "ok $((_n - 1)) # SKIP no openssl"
	echo "ok $_n # SKIP no openssl"
fi

# a long stream under valgrind: no error, no leak
if command -v valgrind >/dev/null; then
	i=0
	: >"$TMP/cmds"
	while [ $i -lt 400 ]; do
		echo "text message $i"; echo recv
		echo "binary $((i * 37))"; echo recv
		i=$((i + 1))
	done >"$TMP/cmds"
	echo 'close 1000 done' >>"$TMP/cmds"
	with_timeout 120 valgrind -q --leak-check=full --error-exitcode=9 \
		"$TESTS/wsc" "ws://127.0.0.1:$PORT/echo" <"$TMP/cmds" \
		>"$TMP/got" 2>"$TMP/vg"
	rc=$?
	check 'valgrind: 800 messages echoed, no error, no leak' \
		'[ "$rc" = 0 ] && [ "$(grep -c "^text" "$TMP/got")" = 400 ] &&
		 [ "$(grep -c "^binary" "$TMP/got")" = 400 ] &&
		 grep -qx "closed 0" "$TMP/got" && ! [ -s "$TMP/vg" ]'
else
	_n=$((_n + 1))
	echo "ok $_n # SKIP no valgrind"
fi

done_testing
