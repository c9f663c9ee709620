#!/bin/sh
# oxi-guard out: a broken line carrying a secret leaves it nowhere
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 4

export OXI_DEADLETTER="$TMP/dead.ndjson"
printf 'SECRETVALUE123456\n' >"$TMP/secrets"
printf '%s\n' '{"type":"msg.out","text":"SECRETVALUE123456' \
	'{"v":1,"type":"msg.out","channel":"cli","chat":"x","text":"a SECRETVALUE123456"}' \
	>"$TMP/in"
check_exit 'the broken line is rejected' 1 \
	'oxi-guard -s "$TMP/secrets" out <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check_grep 'the good line is redacted' '"text":"a \[REDACTED\]"' "$TMP/out"
check 'the dead letter holds the line with the secret redacted' \
	'grep -q "REDACTED" "$OXI_DEADLETTER" && ! grep -q SECRETVALUE "$OXI_DEADLETTER"'
check_nogrep 'stderr never repeats the input line' 'SECRETVALUE' "$TMP/err"
done_testing
