#!/bin/sh
# oxi-guard in -p pairing and oxi-guard pairing: codes, approval,
# invitations, wrong codes and the lockout, revocation
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 26

mkdir -p "$OXI_CONFIG_DIR" "$OXI_HOME"
msg() {	# msg ID FROM TEXT: a direct message on telegram
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"telegram","chat":"%s","from":"%s","from_name":"N%s","text":"%s","chat_type":"private"}\n' \
	    "$1" "$2" "$2" "$2" "$3"
}
guard() {	# guard: oxi-guard in with pairing, $TMP/in to $TMP/out
	oxi-guard in -a telegram:1 -p pairing -R 0 <"$TMP/in" >"$TMP/out" \
	    2>"$TMP/err"
}

{ msg p1 500 'hello'; msg p2 500 'hello again'; } >"$TMP/in"
guard
check_lines 'a stranger gets one reply, then none' 1 "$TMP/out"
code=$(sed -n 's/.*pairing code is \([0-9A-Z]\{4\}-[0-9A-Z]\{4\}\).*/\1/p' "$TMP/out")
check 'with a code of 8 characters of Crockford base32' \
	'printf "%s" "$code" | grep -Eqx "[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}"'
check 'the reply goes to the chat, answers the message' \
	'[ "$(jget "[\"type\"]+\" \"+r[\"chat\"]+\" \"+r[\"in_reply_to\"]+\" \"+r[\"guard\"]" "$TMP/out")" = "msg.out 500 p1 pairing" ]'
check_grep 'the request is logged' "pairing requested by '500'" "$TMP/err"
check_nogrep 'never the code' "$code" "$TMP/err"
oxi-guard pairing list >"$TMP/list"
check 'pairing list shows the pending request' \
	'grep -q "^pending	telegram:500	N500	$code	20..-..-..T..:..:..Z$" "$TMP/list"'

check_exit 'approving a wrong code: exit 1' 1 'oxi-guard pairing approve ZZZZ-ZZZZ'
check_exit 'approving the code (any case, no dash): exit 0' 0 \
	"oxi-guard pairing approve $(printf '%s' "$code" | tr -d - | tr A-Z a-z)"
msg p3 500 'now let me in' >"$TMP/in"
guard
check 'the paired sender passes, allowlisted' \
	'[ "$(jget "[\"id\"]+\":\"+r[\"trust\"]" "$TMP/out")" = "p3:allowlisted" ]'
check 'pairing list shows it paired' \
	'oxi-guard pairing list | grep -q "^paired	telegram:500	N500		"'
check_exit 'the same code twice: exit 1' 1 "oxi-guard pairing approve $code"

# invitations redeemed by the stranger, with /pair
inv=$(oxi-guard pairing invite telegram)
check 'invite prints a code' \
	'printf "%s" "$inv" | grep -Eqx "[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}"'
{ msg i1 600 "/pair $inv"; msg i2 600 'hi'; } >"$TMP/in"
guard
check 'an invitation redeemed pairs at once' \
	'grep -q "you are paired" "$TMP/out" &&
	 [ "$(grep -c "\"type\":\"msg.in\"" "$TMP/out")" = 1 ]'
{ msg i3 601 "/pair $inv"; } >"$TMP/in"
guard
check 'an invitation serves once' 'grep -q "not valid (4 tries left)" "$TMP/out"'

# five wrong codes lock a stranger out, even of a right code
inv=$(oxi-guard pairing invite)
for i in 1 2 3 4 5; do msg w$i 700 "/pair 0000-000$i"; done >"$TMP/in"
msg w6 700 "$inv" >>"$TMP/in"
guard
check 'four wrong codes are told the tries left' \
	'[ "$(grep -c "tr\(y\|ies\) left" "$TMP/out")" = 4 ]'
check 'the fifth locks out: no reply to it or to the right code' \
	'[ "$(grep -c "msg.out" "$TMP/out")" = 4 ] &&
	 [ "$(grep -c "pairing locked for '"'"'700'"'"'" "$TMP/err")" = 2 ]'
check 'pairing list shows the lockout' \
	'oxi-guard pairing list | grep -q "^locked	telegram:700	"'
check 'the invitation is still there for someone else' \
	'msg ok 701 "$inv" >"$TMP/in" && guard && grep -q "you are paired" "$TMP/out"'

check_exit 'revoke: exit 0' 0 'oxi-guard pairing revoke telegram:500'
msg p4 500 'still here?' >"$TMP/in"
guard
check 'a revoked sender is a stranger again' \
	'grep -q "pairing code is" "$TMP/out" && ! grep -q "\"msg.in\"" "$TMP/out"'
check_exit 'revoking nobody: exit 1' 1 'oxi-guard pairing revoke telegram:404'
check_exit 'revoke without a channel: exit 100' 100 'oxi-guard pairing revoke 404'
check_exit 'an unknown action: exit 100' 100 'oxi-guard pairing frob'

# a group message from a stranger is no pairing request
printf '{"v":1,"type":"msg.in","id":"g1","channel":"telegram","chat":"-5","from":"800","text":"hi","chat_type":"group"}\n' >"$TMP/in"
guard
check 'a stranger in a group gets nothing' '[ ! -s "$TMP/out" ]'
check 'the decisions are audited, never a code' \
	'grep -q "\"event\":\"pairing.approved\",\"who\":\"telegram:500\"" "$OXI_HOME/audit.log" &&
	 grep -q "\"event\":\"in.paired\"" "$OXI_HOME/audit.log" &&
	 grep -q "\"event\":\"in.pairing.locked\"" "$OXI_HOME/audit.log" &&
	 ! grep -q "$code\|$inv" "$OXI_HOME/audit.log"'
check 'the database is not world-readable' \
	'[ -z "$(find "$OXI_HOME/pairing.db" -perm /044)" ]'
done_testing
