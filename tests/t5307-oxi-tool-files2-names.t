#!/bin/sh
# oxi-tool: names with control characters, bytes that are not UTF-8 and
# code points that move text are shown escaped (\n \xHH \uHHHH) by
# list_dir, glob and grep and in error messages: no terminal escape, no
# fake line
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 7

WS="$TMP/ws"
mkdir -p "$WS"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
res() { jq -r --arg id "$1" 'select(.id == $id) | .content' "$TMP/out"; }

for n in "$(printf 'a\033[31mred')" "$(printf 'b\n..\n')x" 'c\n' \
	"$(printf 'd\302\233x')" "$(printf 'e\342\200\256txt')" \
	"$(printf 'f\377')" "$(printf 'g\tt\rr\177')"; do
	echo hello >"$WS/$n"
done
cat >"$TMP/names" <<'EOF2'
a\x1b[31mred
b\n..x
c\\n
d\u009bx
e\u202etxt
f\xff
g\tt\rr\x7f
EOF2
{
	call l1 list_dir '{}'
	call g1 glob '{"pattern":"*"}'
	call r1 grep '{"pattern":"hello"}'
	call f1 read_file '{"path":"nothere\n../x\u001b[2J"}'
	call h1 http_request '{"method":"GET","url":"http://192.0.2.1/","headers":{"X-A\u0000b":"v"}}'
	call h2 http_request '{"method":"GET","url":"http://192.0.2.1/","headers":{"X\u001b[2J":"v"}}'
} >"$TMP/in"
check_exit 'the calls are answered' 0 \
	'OXI_TOOLS_ON=http_request oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'list_dir escapes each name' 'res l1 | diff -u "$TMP/names" -'
check 'glob too' 'res g1 | diff -u "$TMP/names" -'
check 'grep too' 'res r1 >"$TMP/r1" &&
	sed "s/\$/:1:hello/" "$TMP/names" | diff -u - "$TMP/r1"'
check 'a path in an error is escaped' \
	'[ "$(res f1)" = "read_file: '"'"'nothere\\n../x\\x1b[2J'"'"': no such file or directory" ]'
check 'a header name is refused whole at a NUL, and shown escaped' \
	'[ "$(res h1)" = "http_request: header '"'"'X-A\\x00b'"'"' is not a valid header" ] &&
	 [ "$(res h2)" = "http_request: header '"'"'X\\x1b[2J'"'"' is not a valid header" ]'
check 'no control character in any result' \
	'! jq -r .content "$TMP/out" | tr -d "\n" | LC_ALL=C grep -q "[[:cntrl:]]"'

done_testing
