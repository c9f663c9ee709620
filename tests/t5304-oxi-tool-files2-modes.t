#!/bin/sh
# oxi-tool: write_file and edit_file never leave a set-user-ID,
# set-group-ID or sticky bit on what they write (as the tests' user, and
# as nobody through t5305)
cd "$(dirname "$0")" && . ./lib.sh || exit 1

[ "${MODES_AS:-}" = nobody ] && unpriv
plan 8
unpriv_copy bin/oxi-tool

WS="$TMP/ws"
mkdir -p "$WS"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {		# stdin to $TMP/out, stderr to $TMP/err
	$RUN oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
}
mode() { stat -c %a "$WS/$1"; }

for f in suid sgid sticky all; do printf 'old\n' >"$WS/$f"; done
for f in esuid esgid esticky eall; do printf 'old\n' >"$WS/$f"; done
[ -z "$RUN" ] || chown -R "$UOWNER" "$WS"
chmod 4755 "$WS/suid" "$WS/esuid"
chmod 2750 "$WS/sgid" "$WS/esgid"
chmod 1640 "$WS/sticky" "$WS/esticky"
chmod 7777 "$WS/all" "$WS/eall"
check 'the special bits are there to begin with' \
	'[ "$(mode suid)" = 4755 ] && [ "$(mode sgid)" = 2750 ] &&
	 [ "$(mode sticky)" = 1640 ] && [ "$(mode eall)" = 7777 ]'

{
	for f in suid sgid sticky all; do
		call "w$f" write_file '{"path":"'$f'","content":"new\n"}'
	done
	for f in esuid esgid esticky eall; do
		call "e$f" edit_file \
			'{"path":"'$f'","old_string":"old","new_string":"new"}'
	done
	call wnew write_file '{"path":"fresh","content":"x"}'
} >"$TMP/in"
check_exit 'the writes and edits are answered' 0 'run <"$TMP/in"'
check 'each succeeded' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = false ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | wc -l)" = 9 ]'
check 'write_file drops set-user-ID, keeps the rest' \
	'[ "$(mode suid)" = 755 ] && [ "$(cat "$WS/suid")" = new ]'
check 'write_file drops set-group-ID and sticky' \
	'[ "$(mode sgid)" = 750 ] && [ "$(mode sticky)" = 640 ] &&
	 [ "$(mode all)" = 777 ]'
check 'edit_file drops set-user-ID, keeps the rest' \
	'[ "$(mode esuid)" = 755 ] && [ "$(cat "$WS/esuid")" = new ]'
check 'edit_file drops set-group-ID and sticky' \
	'[ "$(mode esgid)" = 750 ] && [ "$(mode esticky)" = 640 ] &&
	 [ "$(mode eall)" = 777 ]'
check 'a new file has no special bit' \
	'[ $(( 0$(mode fresh) & 07000 )) = 0 ]'

done_testing
