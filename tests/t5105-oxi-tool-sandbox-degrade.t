#!/bin/sh
# oxi-tool sandbox, SBX-7: fail closed.  With no mechanism (the test
# switch OXI_SANDBOX=none-available) the shell tool refuses to run; -U or
# OXI_SANDBOX=unsafe runs it unconfined with a warning per call; a broken
# bubblewrap is refused, or passed over for Landlock.
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 17

WS=$TMP/ws
mkdir -p "$WS"
call() {	# call COMMAND: one shell call
	printf '{"type":"tool.call","id":"%s","name":"shell","args":{"command":"%s"}}\n' \
		"$2" "$1"
}
export FIXTURE_TOKEN=fixture-token-0c0c
{ call printenv a; call 'echo hello' b; } >"$TMP/in"

check_exit 'no mechanism: exit 0' 0 \
	'OXI_SANDBOX=none-available oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
	 _rc=$?; nocalls "$TMP/err"; exit $_rc'
check_lines 'each call is answered' 2 "$TMP/out"
check 'with an error result' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = true ]'
check_grep 'saying no sandbox works and nothing runs' \
	'no sandbox works here.*refusing to run' "$TMP/out"
check_nogrep 'nothing ran' 'PATH=|hello' "$TMP/out"
check 'and nothing on stderr' '[ ! -s "$TMP/err" ]'

check_exit '-U: exit 0' 0 \
	'OXI_SANDBOX=none-available oxi-tool -U -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
	 _rc=$?; nocalls "$TMP/err"; exit $_rc'
check_grep '-U: the command runs' '"content":"hello\\n\[exit code 0\]"' \
	"$TMP/out"
check_lines '-U: one warning at start, one per call' 3 "$TMP/err"
check_grep '-U: the shell tool is forced to the strict policy, said at start' \
	'^oxi-tool: warning: shell: no sandbox works and unsafe mode is on.*strict' \
	"$TMP/err"
check_grep '-U: saying it runs unconfined' \
	'^oxi-tool: warning: sandbox: unsafe mode: running .*unconfined' \
	"$TMP/err"
check_nogrep '-U: the environment is still scrubbed' \
	'FIXTURE|TOKEN' "$TMP/out"
check 'OXI_SANDBOX=unsafe is -U' '
	OXI_SANDBOX=unsafe oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "\"content\":\"hello" "$TMP/out"'

# a bubblewrap that does not work
printf '#!/bin/sh\nexit 1\n' >"$TMP/bwrap"
chmod +x "$TMP/bwrap"
check_exit 'OXI_SANDBOX=bwrap with a broken bwrap: exit 0' 0 \
	'OXI_SANDBOX=bwrap OXI_BWRAP="$TMP/bwrap" oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check_grep 'refuses: only bwrap was allowed' 'no sandbox works here' \
	"$TMP/out"
if OXI_SANDBOX=landlock oxi-tool -w "$WS" <"$TMP/in" 2>/dev/null |
    grep -q 'no sandbox works'; then
	echo "ok 16 # SKIP no Landlock or seccomp here"
	echo "ok 17 # SKIP no Landlock or seccomp here"
	exit 0
fi
check 'auto with a broken bwrap: Landlock runs it' '
	OXI_BWRAP="$TMP/bwrap" oxi-tool -v -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "\"content\":\"hello" "$TMP/out"'
check_grep 'saying bubblewrap does not work' \
	'debug: sandbox: bubblewrap does not work here' "$TMP/err"
done_testing
