#!/bin/sh
# oxi-guard in and approval answers: only the owner's goes on, with its
# trust; a stranger's, an allowlisted sender's and one that spoofs
# "trust":"owner" are refused; every answer, passed or refused, is in the
# audit log (who, what, to which ask); verify still finds tampering with
# those entries; an owner's answer that cannot be audited is not passed
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 14

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"
ans() {	# ans ID FROM CHANNEL CHOICE [TRUST]
	printf '{"v":1,"type":"approval.answer","id":"%s","ref":"ask-%s","choice":"%s","channel":"%s","chat":"42","from":"%s"%s}\n' \
	    "$1" "$1" "$4" "$3" "$2" "${5:+,\"trust\":\"$5\"}"
}
gin() {	# gin: stdin through oxi-guard in, owner 1001 on telegram
	with_timeout 30 oxi-guard in -a 'telegram:1001,telegram:2002' \
	    -o 'telegram:1001' >"$TMP/out" 2>"$TMP/err"
}
ev() {	# ev ID: the event of answer ID in the audit log
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("id") == sys.argv[2]:
        print(e["event"], e.get("ref"), e.get("choice"), e.get("from"),
              e.get("chat"), e.get("trust"), e.get("why", "-"))' \
	    "$OXI_AUDIT_LOG" "$1"
}

{
	ans a1 1001 telegram once
	ans a2 1001 telegram deny owner
	ans a3 2002 telegram always
	ans a4 2002 telegram always owner
	ans a5 6666 telegram once owner
	ans a6 6666 discord once
} >"$TMP/in"
check_exit 'six answers: exit 0' 0 'gin <"$TMP/in"'
check 'the owner'"'"'s two answers go on, and only they' \
	'[ "$(jget "[\"id\"]" "$TMP/out" | tr "\n" " ")" = "a1 a2 " ]'
check 'each says the owner'"'"'s trust' \
	'[ "$(jget "[\"trust\"]" "$TMP/out" | sort -u)" = owner ]'
check 'the answer that had its trust already passes byte for byte' \
	'grep -qxF "$(ans a2 1001 telegram deny owner)" "$TMP/out"'
check 'audited: who answered what to which ask' \
	'[ "$(ev a1)" = "in.answer ask-a1 once 1001 42 owner -" ] &&
	 [ "$(ev a2)" = "in.answer ask-a2 deny 1001 42 owner -" ]'
check 'an allowlisted sender'"'"'s answer is refused and audited' \
	'[ "$(ev a3)" = "in.answer.refused ask-a3 always 2002 42 allowlisted only the owner may answer" ]'
check 'so is one that says it is the owner'"'"'s' \
	'[ "$(ev a4)" = "in.answer.refused ask-a4 always 2002 42 allowlisted only the owner may answer" ] &&
	 [ "$(ev a5)" = "in.answer.refused ask-a5 once 6666 42 none not on the allowlist" ]'
check 'and a stranger'"'"'s elsewhere' \
	'[ "$(ev a6)" = "in.answer.refused ask-a6 once 6666 42 none not on the allowlist" ]'
check_grep 'one info line each refusal' \
	"refused an approval answer from '2002' on channel 'telegram': only the owner may answer" \
	"$TMP/err"
check 'the log is whole' 'oxi-guard audit verify >/dev/null'

# tampering with an answer's entry: a refusal made to look like a pass
cp "$OXI_AUDIT_LOG" "$TMP/orig"
sed -i '/"a3"/s/"in.answer.refused"/"in.answer"/' "$OXI_AUDIT_LOG"
check_exit 'an answer'"'"'s entry edited: verify exits 1' 1 \
	'oxi-guard audit verify'
check_grep '...naming its line' 'line 3: seq 3: edited' "$TMP/.err"
cp "$TMP/orig" "$OXI_AUDIT_LOG"

# fail closed: no audit log, no answer
ans b1 1001 telegram always | OXI_AUDIT_LOG=/nonexistent/x gin
check 'an owner'"'"'s answer that cannot be audited is not passed on' \
	'[ ! -s "$TMP/out" ]'
check 'it is dead-lettered' \
	'grep -q "the audit log cannot be written" "$OXI_DEADLETTER"'
done_testing
