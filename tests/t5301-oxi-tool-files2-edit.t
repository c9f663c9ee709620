#!/bin/sh
# oxi-tool: edit_file, exact string replacement in a workspace file
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 18

WS="$TMP/ws"
mkdir -p "$WS/dir"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {		# stdin to $TMP/out, stderr to $TMP/err; contents to $TMP/msgs
	oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	jget '["content"]' "$TMP/out" >"$TMP/msgs"
	return $_rc
}
edit() {	# edit ID ARGS: one edit_file call
	call "$1" edit_file "$2"
}

printf 'one\ntwo\nthree\ntwo\ncaf\303\251\n' >"$WS/notes.txt"
chmod 640 "$WS/notes.txt"
check_exit 'a unique string is replaced' 0 \
	'edit e1 "{\"path\":\"notes.txt\",\"old_string\":\"one\n\",\"new_string\":\"ONE\n\"}" | run'
check 'the result says so, with the call taint only' \
	'[ "$(cat "$TMP/msgs")" = "replaced 1 occurrence in '"'notes.txt'"'" ] &&
	 [ "$(jget "[\"taint\"]" "$TMP/out")" = "[]" ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out")" = false ]'
check 'the file changed there only, and kept its mode' \
	'printf "ONE\ntwo\nthree\ntwo\ncaf\303\251\n" | cmp -s - "$WS/notes.txt" &&
	 [ "$(stat -c %a "$WS/notes.txt")" = 640 ]'

edit e2 '{"path":"notes.txt","old_string":"two","new_string":"2"}' | run
check 'a string found twice is refused, with the count' \
	'[ "$(cat "$TMP/msgs")" = "edit_file: old_string occurs 2 times in '"'notes.txt'"'; include more context to make it unique, or set replace_all" ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out")" = true ]'
check 'and nothing changed' \
	'printf "ONE\ntwo\nthree\ntwo\ncaf\303\251\n" | cmp -s - "$WS/notes.txt"'

edit e3 '{"path":"notes.txt","old_string":"two","new_string":"2","replace_all":true}' | run
check 'replace_all replaces each' \
	'[ "$(cat "$TMP/msgs")" = "replaced 2 occurrences in '"'notes.txt'"'" ] &&
	 printf "ONE\n2\nthree\n2\ncaf\303\251\n" | cmp -s - "$WS/notes.txt"'

edit e4 '{"path":"notes.txt","old_string":"caf\u00e9\n","new_string":""}' | run
check 'UTF-8 is matched as bytes, and an empty new_string deletes' \
	'[ "$(cat "$TMP/msgs")" = "replaced 1 occurrence in '"'notes.txt'"'" ] &&
	 printf "ONE\n2\nthree\n2\n" | cmp -s - "$WS/notes.txt"'

check 'no temporary file is left' '[ -z "$(find "$WS" -name ".oxi-tool.*")" ]'

printf 'bin\000ary two\n' >"$WS/bin.dat"
echo keep >"$TMP/target"
ln -s "$TMP/target" "$WS/link"
ln -s notes.txt "$WS/inlink"
{
	edit b1 '{"path":"notes.txt","old_string":"four","new_string":"4"}'
	edit b2 '{"path":"notes.txt","old_string":"","new_string":"x"}'
	edit b3 '{"path":"notes.txt","old_string":"ONE","new_string":"ONE"}'
	edit b4 '{"path":"notes.txt","old_string":"ONE"}'
	edit b5 '{"path":"notes.txt","old_string":"ONE","new_string":"1","replace_all":"yes"}'
	edit b6 '{"path":"dir","old_string":"a","new_string":"b"}'
	edit b7 '{"path":"bin.dat","old_string":"two","new_string":"2"}'
	edit b8 '{"path":"missing.txt","old_string":"a","new_string":"b"}'
	edit b9 '{"path":"link","old_string":"keep","new_string":"lost"}'
	edit b10 '{"path":"inlink","old_string":"ONE","new_string":"1"}'
	edit b11 '{"path":"dir/","old_string":"a","new_string":"b"}'
	edit b12 '{"old_string":"a","new_string":"b"}'
	edit b13 '{"path":"notes.txt","old_string":"a","new_string":"b","mode":1}'
} >"$TMP/in"
check_exit 'bad edits are error results, exit 0' 0 'run <"$TMP/in"'
cat >"$TMP/exp" <<'EOF2'
edit_file: old_string not found in 'notes.txt' (it must match exactly, white space included)
edit_file: old_string is empty; use write_file to make a file
edit_file: old_string and new_string are the same
edit_file: missing argument 'new_string'
edit_file: argument 'replace_all' must be true or false
edit_file: 'dir' is not a regular file
edit_file: 'bin.dat' is a binary file (it holds NUL bytes)
edit_file: 'missing.txt': no such file or directory
edit_file: 'link' is a symbolic link, not edited
edit_file: 'inlink' is a symbolic link, not edited
edit_file: 'dir/' names a directory, not a file
edit_file: missing argument 'path'
edit_file: unknown argument 'mode'
EOF2
check_same 'each names its problem' "$TMP/msgs" "$TMP/exp"
check 'each is an error' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = true ]'
check 'nothing was changed, nor written through a link' \
	'printf "ONE\n2\nthree\n2\n" | cmp -s - "$WS/notes.txt" &&
	 [ "$(cat "$TMP/target")" = keep ] && [ -L "$WS/link" ] &&
	 [ -L "$WS/inlink" ]'
check 'no warnings' '[ ! -s "$TMP/err" ]'

# a file in a subdirectory, and a large one
mkdir -p "$WS/a/b"
printf 'x = 1\ny = 2\n' >"$WS/a/b/c.py"
edit s1 '{"path":"a/b/c.py","old_string":"y = 2","new_string":"y = 3"}' | run
check 'a file in a subdirectory' \
	'printf "x = 1\ny = 3\n" | cmp -s - "$WS/a/b/c.py"'
python3 -c 'import sys; sys.stdout.write("line\n" * 300000 + "END\n")' \
	>"$WS/big.txt"
edit s2 '{"path":"big.txt","old_string":"END","new_string":"FIN"}' | run
check 'a file of 1.5 MB' \
	'[ "$(tail -n 1 "$WS/big.txt")" = FIN ] &&
	 [ "$(wc -l <"$WS/big.txt")" = 300001 ]'
python3 -c 'import sys; sys.stdout.write("y" * (17 * 1024 * 1024))' \
	>"$WS/huge.txt"
edit s3 '{"path":"huge.txt","old_string":"yy","new_string":"z"}' | run
check 'a file over 16 MiB is refused' \
	'[ "$(cat "$TMP/msgs")" = "edit_file: '"'huge.txt'"' is over 16 MiB, too large to edit" ]'
rm -f "$WS/huge.txt"

check '--list describes edit_file' '
	oxi-tool --list | python3 -c "
import json, sys
t = {x[\"name\"]: x[\"parameters\"] for x in json.load(sys.stdin)}[\"edit_file\"]
assert sorted(t[\"properties\"]) == [\"new_string\", \"old_string\", \"path\", \"replace_all\"], t
assert t[\"required\"] == [\"path\", \"old_string\", \"new_string\"], t
assert t[\"properties\"][\"replace_all\"][\"type\"] == \"boolean\", t
"'
# valgrind (skipped without it, or in an ASan build)
check_exit 'valgrind: no leak or memory error over the bad edits' 0 '
	command -v valgrind >/dev/null &&
	    ! nm "$TOP/bin/oxi-tool" | grep -q __asan_init || exit 0
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --error-exitcode=99 \
		oxi-tool -w "$WS" <"$TMP/in" >/dev/null'
done_testing
