#!/bin/sh
# oxi-tool: a call bounds its output before building it and keeps to its
# deadline in every loop; the stage outlives any call (the next call on
# the same oxi-tool is answered)
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 9

WS="$TMP/ws"
mkdir -p "$WS"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
# the content of the result of call ID in $TMP/out
res() { jq -r --arg id "$1" 'select(.id == $id) | .content' "$TMP/out"; }
iserr() { jq -r --arg id "$1" 'select(.id == $id) | .is_error' "$TMP/out"; }

# 1 MiB of one byte, and a replacement of 1 MiB for each
awk 'BEGIN { s = "aaaaaaaaaaaaaaaa"; while (length(s) < 1048576) s = s s;
	printf "%s", s }' >"$WS/big.txt"
{
	printf '{"path":"big.txt","old_string":"a","new_string":"'
	tr a b <"$WS/big.txt"
	printf '","replace_all":true}'
} >"$TMP/amp.json"
# a deep tree where each ** can take any number of levels
d=$WS
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 \
	26 27 28; do
	d=$d/aa
done
mkdir -p "$d"
echo hello >"$d/zz.c"
stars='**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*'
long=$(printf 'a%.0s' $(seq 200))
: >"$WS/$long"
{
	call e1 edit_file "$(cat "$TMP/amp.json")"
	call n1 list_dir '{}'
	call g1 glob '{"pattern":"'"$stars"'/**/zz.c"}'
	call n2 list_dir '{}'
	call g2 grep '{"pattern":"hello","glob":"'"$stars"'/**/*.c"}'
	call g3 glob '{"pattern":"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"}'
	call g4 glob '{"pattern":"[[:alpha:]]*/a[!b]/[a-b]?/**/z[z]\\.c"}'
	call n3 list_dir '{}'
} >"$TMP/in"
check_exit 'every call is answered, the stage lives' 0 \
	'OXI_TOOL_TIMEOUT=20 oxi-tool -l 3000000 -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(jq -r .id "$TMP/out" | tr "\n" " ")" = "e1 n1 g1 n2 g2 g3 g4 n3 " ]'
check 'an edit past the size limit is refused before it is built' \
	'[ "$(iserr e1)" = true ] &&
	 res e1 | grep -q "^edit_file: the result would be over 16 MiB (1048576 occurrences of old_string), too large to write$"'
check 'and the file is left as it was' \
	'[ "$(wc -c <"$WS/big.txt")" = 1048576 ] && ! grep -q b "$WS/big.txt"'
check 'the calls after it are answered' \
	'[ "$(iserr n1)" = false ] && [ "$(iserr n3)" = false ] &&
	 res n3 | grep -qx "big.txt"'
check 'a glob of many ** is matched in linear time' \
	'[ "$(iserr g1)" = false ] && res g1 | grep -q "aa/zz.c$" &&
	 [ "$(res g1 | wc -l)" = 1 ]'
check 'a grep filter of many ** too' \
	'[ "$(iserr g2)" = false ] && res g2 | grep -q "aa/zz.c:1:hello$"'
check 'a name of many * too' \
	'[ "$(res g3)" = "no files match '"'"'*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b'"'"'" ]'
check 'classes, ranges, negation and escapes still match' \
	'[ "$(res g4)" = "aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/aa/zz.c" ]'
check 'no warning, no death on stderr' '! grep -v ": info: " "$TMP/err"'

done_testing
