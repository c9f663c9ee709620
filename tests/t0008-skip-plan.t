#!/bin/sh
# lib.sh's skip_all: a skipped file prints exactly one plan, whether it
# skips before plan() or after, and the stream it prints is valid TAP
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 7

# t NAME BODY: a test file $TMP/NAME.t that sources lib.sh, then BODY
t() {
	printf '#!/bin/sh\ncd "%s" && . ./lib.sh\n%s\n' "$TESTS" "$2" \
	    >"$TMP/$1.t"
	chmod +x "$TMP/$1.t"
}
plans() {	# plans FILE: its number of plan lines
	grep -c '^1\.\.' "$1"
}
t before 'skip_all "no frobnicator"
plan 3'
t after 'plan 3
check one true
skip_all "no frobnicator"'
t fail 'plan 3
check one false
skip_all "no frobnicator"'

check_exit 'skip before plan: exit 0' 0 '"$TMP/before.t" >"$TMP/before"'
check 'one plan, 1..0 with the reason' \
	'[ "$(plans "$TMP/before")" = 1 ] &&
	 [ "$(cat "$TMP/before")" = "1..0 # SKIP no frobnicator" ]'
check_exit 'skip after plan: exit 0' 0 '"$TMP/after.t" >"$TMP/after"'
check 'one plan, the tests left are skipped' \
	'[ "$(plans "$TMP/after")" = 1 ] &&
	 [ "$(grep -c "^ok [23] # SKIP no frobnicator$" "$TMP/after")" = 2 ]'
check_exit 'a failure before the skip still fails the file' 1 \
	'"$TMP/fail.t" >"$TMP/fail"'
check 'prove takes both skipping files' \
	'prove "$TMP/before.t" "$TMP/after.t"'
# the nobody tests as an unprivileged user: one plan, the skip
if [ "$(id -u)" = 0 ]; then
	_n=$((_n + 1))
	echo "ok $_n # SKIP run as root: the nobody tests do not skip"
else
	check 'a nobody test skips with one plan when not root' \
		'./t5503-oxi-tool-plugin-sandbox-nobody.t >"$TMP/nobody" &&
		 [ "$(plans "$TMP/nobody")" = 1 ] &&
		 grep -q "^1\.\.0 # SKIP" "$TMP/nobody"'
fi
done_testing
