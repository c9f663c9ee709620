#!/bin/sh
# oxi-tool: read_file, write_file and list_dir in the workspace
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 21

WS="$TMP/ws"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {		# run OPTIONS...: stdin to $TMP/out, stderr to $TMP/err
	oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	return $_rc
}

check_exit 'the workspace is made if missing' 0 \
	'run </dev/null && [ -d "$WS" ]'
check 'and it is private' '[ "$(stat -c %a "$WS")" = 700 ]'

{
	call w1 write_file '{"path":"notes.txt","content":"one\ntwo\nthree\n"}'
	call w2 write_file '{"path":"a/b/c.txt","content":"deep é"}'
	call r1 read_file '{"path":"notes.txt"}'
	call r2 read_file '{"path":"a/b/c.txt"}'
	call r3 read_file '{"path":"notes.txt","offset":1,"limit":1}'
	call r4 read_file '{"path":"notes.txt","offset":2}'
	call r5 read_file '{"path":"notes.txt","limit":2}'
	call l1 list_dir '{}'
	call l2 list_dir '{"path":"a/b"}'
	call l3 list_dir '{"path":"."}'
} >"$TMP/in"
check_exit 'round trip exits 0' 0 'run <"$TMP/in"'
cat >"$TMP/exp" <<'EOF2'
{"v":1,"type":"tool.result","id":"w1","content":"wrote 14 bytes to 'notes.txt'","is_error":false,"taint":[]}
{"v":1,"type":"tool.result","id":"w2","content":"wrote 7 bytes to 'a/b/c.txt'","is_error":false,"taint":[]}
{"v":1,"type":"tool.result","id":"r1","content":"one\ntwo\nthree\n","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"r2","content":"deep é","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"r3","content":"two\n","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"r4","content":"three\n","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"r5","content":"one\ntwo\n","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"l1","content":"a/\nnotes.txt","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"l2","content":"c.txt","is_error":false,"taint":["workspace"]}
{"v":1,"type":"tool.result","id":"l3","content":"a/\nnotes.txt","is_error":false,"taint":["workspace"]}
EOF2
check_json 'write, read (with offset and limit), list' "$TMP/out" "$TMP/exp"
check 'nothing else on stderr' '[ ! -s "$TMP/err" ]'
check 'the files are in the workspace' \
	'printf "one\ntwo\nthree\n" | cmp -s - "$WS/notes.txt" &&
	 printf "deep \303\251" | cmp -s - "$WS/a/b/c.txt"'
check 'no temporary file is left' \
	'[ -z "$(find "$WS" -name ".oxi-tool.*")" ]'

# replacing: atomic, keeps the mode, leaves a symlink alone
chmod 600 "$WS/notes.txt"
echo keep >"$TMP/target"
ln -s "$TMP/target" "$WS/link"
{
	call w3 write_file '{"path":"notes.txt","content":"new"}'
	call w4 write_file '{"path":"link","content":"x"}'
	call w5 write_file '{"path":"empty","content":""}'
	call r6 read_file '{"path":"empty"}'
} >"$TMP/in"
check_exit 'replacing exits 0' 0 'run <"$TMP/in"'
check 'the new text replaced the old' 'printf new | cmp -s - "$WS/notes.txt"'
check 'an existing file keeps its mode' \
	'[ "$(stat -c %a "$WS/notes.txt")" = 600 ]'
check 'a symlink is neither written through nor replaced' \
	'[ "$(cat "$TMP/target")" = keep ] && [ -L "$WS/link" ] &&
	 [ "$(jget "[\"content\"]" "$TMP/out" | sed -n 2p)" = \
	   "write_file: '"'link'"' is a symbolic link, not replaced" ]'
check 'an empty file reads as ""' \
	'[ "$(jget "[\"content\"]" "$TMP/out" | sed -n 4p)" = "" ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | tr "\n" " ")" = \
	   "false true false false " ]'

# -v: one line per call, no contents
check_exit 'one log line per call' 0 \
	'call v1 read_file "{\"path\":\"notes.txt\"}" | run &&
	 grep -c "call .v1. read_file ok [0-9]* ms" "$TMP/err.calls" | grep -qx 1'
check_nogrep 'it holds no file contents' 'new' "$TMP/err.calls"

# the output cap
awk 'BEGIN { for (i = 0; i < 1000; i++) print "line " i }' >"$WS/big.txt"
size=$(wc -c <"$WS/big.txt" | tr -d ' ')
call t1 read_file '{"path":"big.txt"}' | run -o 100
head -c 100 "$WS/big.txt" >"$TMP/exp"
printf '\n[output truncated: 100 of %s bytes shown]\n' "$size" >>"$TMP/exp"
jget '["content"]' "$TMP/out" >"$TMP/got"
check_same 'a long file is cut at -o bytes, with a marker' "$TMP/got" "$TMP/exp"
awk 'BEGIN { for (i = 0; i < 10000; i++) print "line " i }' >"$WS/big.txt"
size=$(wc -c <"$WS/big.txt" | tr -d ' ')
call t2 read_file '{"path":"big.txt"}' | run
check 'the default cap is 64 KiB' \
	'jget "[\"content\"]" "$TMP/out" | tail -n 1 |
	 grep -qx "\[output truncated: 65536 of $size bytes shown\]"'
python3 -c 'import sys; sys.stdout.write("é" * 100)' >"$WS/utf8.txt"
call t3 read_file '{"path":"utf8.txt"}' | run -o 51
check 'the cut never splits a UTF-8 character' \
	'[ "$(jget "[\"content\"]" "$TMP/out")" = \
	   "$(python3 -c "print(\"é\" * 25)")
[output truncated: 50 of 200 bytes shown]" ]'
call t4 list_dir '{}' | run -o 5
check 'list_dir output is capped too' \
	'jget "[\"content\"]" "$TMP/out" | grep -q "^\[output truncated: 5 of [0-9]* bytes shown\]$"'

# what read_file refuses
printf 'a\000b' >"$WS/bin"
printf '\377\376' >"$WS/latin1"
mkfifo "$WS/fifo"
{
	call b1 read_file '{"path":"bin"}'
	call b2 read_file '{"path":"latin1"}'
	call b3 read_file '{"path":"fifo"}'
	call b4 read_file '{"path":"a"}'
	call b5 read_file '{"path":"nope.txt"}'
	call b6 write_file '{"path":"a","content":"x"}'
	call b7 list_dir '{"path":"notes.txt"}'
} >"$TMP/in"
check_exit 'refusals are error results, exit 0' 0 'run <"$TMP/in"'
jget '["content"]' "$TMP/out" >"$TMP/msgs"
cat >"$TMP/exp" <<'EOF2'
read_file: 'bin' is a binary file (it holds NUL bytes)
read_file: 'latin1' is not UTF-8 text
read_file: 'fifo' is not a regular file
read_file: 'a' is a directory (use list_dir)
read_file: 'nope.txt': no such file or directory
write_file: 'a': is a directory
list_dir: 'notes.txt': not a directory
EOF2
check_same 'binary, non-UTF-8, FIFO, directory, missing file' \
	"$TMP/msgs" "$TMP/exp"
check 'all of them are is_error with no workspace taint' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = true ] &&
	 [ "$(jget "[\"taint\"]" "$TMP/out" | sort -u)" = "[]" ]'
done_testing
