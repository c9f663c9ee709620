#!/bin/sh
# oxi-guard out fails closed: a text it cannot judge (a PCRE2 match
# limit) or a decision it cannot audit blocks the record and
# dead-letters it, never passes it; the person gets a notice
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 8

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"
S=sk-proj-Vb6Kp3AcZ9fQ2xLm4Tz8Rw1Nq7Hs5Dj0
echo "$S" >"$TMP/secrets"
printf 'rule slow\n\tregex ^(a|a?)+$\n' >"$TMP/slow"
a=$(printf 'a%.0s' $(seq 80))
{
	printf '{"v":1,"type":"msg.out","id":"r1","channel":"cli","chat":"c1","text":"%s! %s"}\n' "$a" "$S"
	printf '{"v":1,"type":"msg.draft","id":"r2","channel":"cli","chat":"c1","text":"%s!"}\n' "$a"
	printf '{"v":1,"type":"msg.out","id":"r3","channel":"cli","chat":"c1","text":"fine"}\n'
} >"$TMP/in"
check_exit 'texts it cannot judge: exit 1' 1 \
	'oxi-guard out -s "$TMP/secrets" -r "$TMP/slow" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'the reply becomes a notice, the draft goes nowhere, the rest flows' \
	'[ "$(jget "[\"id\"]+\" \"+r[\"text\"]" "$TMP/out" | tr "\n" "|")" = "r1 [This reply was withheld: it could not be checked.]|r3 fine|" ]'
check_lines 'both dead-lettered' 2 "$OXI_DEADLETTER"
check_grep 'with the reason' '"reason":"a rule hit its match limit"' "$OXI_DEADLETTER"
check 'the dead letter holds no secret' '! grep -q "$S" "$OXI_DEADLETTER"'
check_grep 'the audit log has the decision' '"event":"out.unchecked"' \
	"$TMP/audit.log"

# a decision that cannot be audited is not sent
printf '{"v":1,"type":"msg.out","id":"r4","channel":"cli","chat":"c1","text":"key %s"}\n' "$S" >"$TMP/in2"
mkdir "$TMP/ro"
check_exit 'an audit log that cannot be written: exit 1' 1 \
	'OXI_AUDIT_LOG="$TMP/ro" oxi-guard out -s "$TMP/secrets" <"$TMP/in2" >"$TMP/out2" 2>"$TMP/err2"'
check 'nothing sent, the record dead-lettered' \
	'[ ! -s "$TMP/out2" ] && grep -q "audit log cannot be written" "$OXI_DEADLETTER"'
done_testing
