#!/bin/sh
# oxi-tool: no path leads out of the workspace, for reading or writing
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 14

WS="$TMP/ws"
mkdir -p "$WS/sub" "$TMP/outside"
echo 'TOPSECRET' >"$TMP/secret.txt"
echo 'TOPSECRET' >"$TMP/outside/secret.txt"
echo inside >"$WS/in.txt"
ln -s /etc "$WS/etc"				# a symlink to /etc
ln -s ../secret.txt "$WS/rel"			# relative, to a file outside
ln -s "$TMP/secret.txt" "$WS/abs"		# absolute, to a file outside
ln -s "$TMP/outside" "$WS/outdir"		# to a directory outside
ln -s in.txt "$WS/inlink"			# stays inside

call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
{
	call r1 read_file '{"path":"../secret.txt"}'
	call r2 read_file '{"path":"/etc/passwd"}'
	call r3 read_file '{"path":"etc/passwd"}'
	call r4 read_file '{"path":"rel"}'
	call r5 read_file '{"path":"abs"}'
	call r6 read_file '{"path":"sub/../../secret.txt"}'
	call r7 read_file '{"path":"outdir/secret.txt"}'
	call r8 read_file "{\"path\":\"$TMP/secret.txt\"}"
	call r9 read_file '{"path":"/proc/self/environ"}'
	call l1 list_dir '{"path":".."}'
	call l2 list_dir '{"path":"etc"}'
	call l3 list_dir '{"path":"sub/../.."}'
	call l4 list_dir '{"path":"/"}'
	call w1 write_file '{"path":"../w1.txt","content":"x"}'
	call w2 write_file '{"path":"/tmp/oxi-tool-escape-w2","content":"x"}'
	call w3 write_file '{"path":"etc/oxi-tool-escape-w3","content":"x"}'
	call w4 write_file '{"path":"rel","content":"x"}'
	call w5 write_file '{"path":"outdir/w5.txt","content":"x"}'
	call w6 write_file '{"path":"sub/../../w6.txt","content":"x"}'
	call w7 write_file '{"path":"sub/../../newdir/w7.txt","content":"x"}'
	call w8 write_file '{"path":"outdir/newdir/w8.txt","content":"x"}'
	call ok1 read_file '{"path":"inlink"}'
	call ok2 read_file '{"path":"sub/../in.txt"}'
} >"$TMP/in"

check_exit 'escapes are answered, exit 0' 0 \
	'oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"; _rc=$?
	 nocalls "$TMP/err"; exit $_rc'
check_lines 'one result per call' 23 "$TMP/out"
check 'the same ids, in order' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = \
	   "r1 r2 r3 r4 r5 r6 r7 r8 r9 l1 l2 l3 l4 w1 w2 w3 w4 w5 w6 w7 w8 ok1 ok2 " ]'
head -n 21 "$TMP/out" >"$TMP/escapes"
check 'every escape is an error' \
	'[ "$(jget "[\"is_error\"]" "$TMP/escapes" | sort -u)" = true ]'
jget '["content"]' "$TMP/escapes" >"$TMP/msgs"
check 'every escape is refused as outside the workspace' \
	'[ "$(grep -c "is outside the workspace$" "$TMP/msgs")" = 20 ] &&
	 [ "$(sed -n 17p "$TMP/msgs")" = \
	   "write_file: '"'rel'"' is a symbolic link, not replaced" ]'
check_nogrep 'nothing outside was read' 'TOPSECRET|root:|PATH=' "$TMP/out"
check 'no listing of outside directories' \
	'[ "$(sed -n 10,13p "$TMP/msgs" | grep -c "^list_dir: .* is outside the workspace$")" = 4 ]'

check 'nothing was written next to the workspace' \
	'[ ! -e "$TMP/w1.txt" ] && [ ! -e "$TMP/w6.txt" ] &&
	 [ ! -e "$TMP/newdir" ]'
check 'nothing was written in /tmp or /etc' \
	'[ ! -e /tmp/oxi-tool-escape-w2 ] && [ ! -e /etc/oxi-tool-escape-w3 ]'
check 'nothing was written through symlinks' \
	'[ "$(cat "$TMP/secret.txt")" = TOPSECRET ] &&
	 [ "$(ls "$TMP/outside")" = secret.txt ] && [ -L "$WS/rel" ]'
check 'no error result carries workspace taint' \
	'[ "$(jget "[\"taint\"]" "$TMP/escapes" | sort -u)" = "[]" ]'
tail -n 2 "$TMP/out" >"$TMP/inside"
if oxi-tool -v -w "$WS" </dev/null 2>&1 | grep -q 'component walk'; then
	# no openat2 here: the stricter walk refuses both
	check 'without openat2, a symlink and a .. inside are refused' \
		'[ "$(jget "[\"is_error\"]" "$TMP/inside" | sort -u)" = true ]'
else
	check 'a symlink and a .. that stay inside are followed' \
		'[ "$(jget "[\"content\"]" "$TMP/inside" | grep -c "^inside$")" = 2 ] &&
		 [ "$(jget "[\"is_error\"]" "$TMP/inside" | sort -u)" = false ]'
fi
check 'no warnings for refused paths' '[ ! -s "$TMP/err" ]'
check 'no temporary files left' '[ -z "$(find "$TMP" -name ".oxi-tool.*")" ]'
done_testing
