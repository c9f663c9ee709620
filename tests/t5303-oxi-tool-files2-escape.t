#!/bin/sh
# oxi-tool: edit_file, glob and grep never lead out of the workspace
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 9

WS="$TMP/ws"
mkdir -p "$WS/sub" "$TMP/outside"
echo 'TOPSECRET one' >"$TMP/secret.txt"
echo 'TOPSECRET two' >"$TMP/outside/secret.txt"
echo 'inside one' >"$WS/in.txt"
ln -s /etc "$WS/etc"				# a symlink to /etc
ln -s ../secret.txt "$WS/rel"			# relative, to a file outside
ln -s "$TMP/secret.txt" "$WS/abs"		# absolute, to a file outside
ln -s "$TMP/outside" "$WS/outdir"		# to a directory outside
ln -s ../.. "$WS/sub/up"			# to the parent of the workspace

call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
{
	call e1 edit_file '{"path":"../secret.txt","old_string":"TOPSECRET","new_string":"x"}'
	call e2 edit_file "{\"path\":\"$TMP/secret.txt\",\"old_string\":\"TOPSECRET\",\"new_string\":\"x\"}"
	call e3 edit_file '{"path":"sub/../../secret.txt","old_string":"TOPSECRET","new_string":"x"}'
	call e4 edit_file '{"path":"outdir/secret.txt","old_string":"TOPSECRET","new_string":"x"}'
	call e5 edit_file '{"path":"etc/hostname","old_string":"a","new_string":"b"}'
	call e6 edit_file '{"path":"sub/up/secret.txt","old_string":"TOPSECRET","new_string":"x"}'
	call g1 glob '{"pattern":"*","path":".."}'
	call g2 glob '{"pattern":"*","path":"/etc"}'
	call g3 glob '{"pattern":"*","path":"outdir"}'
	call g4 glob '{"pattern":"../*"}'
	call g5 glob '{"pattern":"/etc/*"}'
	call g6 glob '{"pattern":"sub/../../*"}'
	call r1 grep '{"pattern":"TOPSECRET","path":".."}'
	call r2 grep '{"pattern":"root","path":"/etc/passwd"}'
	call r3 grep '{"pattern":"TOPSECRET","path":"outdir"}'
	call r4 grep '{"pattern":"TOPSECRET","path":"rel"}'
	call r5 grep '{"pattern":"TOPSECRET","path":"abs"}'
	call r6 grep '{"pattern":"root","path":"etc/passwd"}'
	call r7 grep '{"pattern":"TOPSECRET","glob":"../*"}'
	call r8 grep '{"pattern":"TOPSECRET","path":"sub/up"}'
	call s1 glob '{"pattern":"**/*"}'
	call s2 glob '{"pattern":"*/*"}'
	call s3 grep '{"pattern":"TOPSECRET|root:"}'
} >"$TMP/in"

check_exit 'escapes are answered, exit 0' 0 \
	'oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"; _rc=$?
	 nocalls "$TMP/err"; exit $_rc'
check 'the same ids, in order' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = \
	   "e1 e2 e3 e4 e5 e6 g1 g2 g3 g4 g5 g6 r1 r2 r3 r4 r5 r6 r7 r8 s1 s2 s3 " ]'
head -n 20 "$TMP/out" >"$TMP/escapes"
check 'every escape is an error' \
	'[ "$(jget "[\"is_error\"]" "$TMP/escapes" | sort -u)" = true ]'
jget '["content"]' "$TMP/escapes" >"$TMP/msgs"
check 'each is refused as outside the workspace, or a link not followed' \
	'[ "$(grep -c "is outside the workspace\|leads through a symbolic link, not followed" "$TMP/msgs")" = 20 ]'
tail -n 3 "$TMP/out" >"$TMP/walks"
jget '["content"]' "$TMP/walks" >"$TMP/found"
check 'walks of the whole workspace list the links but never enter them' \
	'[ "$(sed -n 1,6p "$TMP/found" | tr "\n" " ")" = "abs etc in.txt outdir rel sub/up " ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/walks" | sort -u)" = false ]'
check 'and grep of the whole workspace finds nothing outside' \
	'grep -qx "no matches (1 file searched)" "$TMP/found"'
check_nogrep 'nothing outside was read' 'TOPSECRET (one|two)|root:x' "$TMP/out"
check 'nothing outside was changed' \
	'[ "$(cat "$TMP/secret.txt")" = "TOPSECRET one" ] &&
	 [ "$(cat "$TMP/outside/secret.txt")" = "TOPSECRET two" ] &&
	 [ -L "$WS/rel" ] && [ -L "$WS/outdir" ]'
check 'no warnings, no temporary files' \
	'[ ! -s "$TMP/err" ] && [ -z "$(find "$TMP" -name ".oxi-tool.*")" ]'
done_testing
