#!/bin/sh
# oxi-guard in: sender allowlist, size limit, pass-through, bad input
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 33

unset OXI_GUARD_MAX_IN OXI_MAXLINE
export OXI_DEADLETTER="$TMP/dead.ndjson"
mkdir -p "$OXI_CONFIG_DIR"

msg() {	# msg ID CHANNEL FROM TEXT
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"%s","account":"local","chat":"c1","thread":null,"from":"%s","from_name":"N","text":"%s","ts":"2026-11-22T10:00:00.000Z","reply_to":null,"attachments":[],"trust":"owner"}\n' "$1" "$2" "$3" "$4"
}

# the same four senders, judged by each list: ids of those let through
msg m1 cli alice 'hello from alice' >"$TMP/four"
msg m2 cli bob 'hello from bob' >>"$TMP/four"
msg m3 telegram 1001 'hello from 1001' >>"$TMP/four"
msg m4 telegram alice 'alice again' >>"$TMP/four"
passed() {	# passed [ARGS...]: the ids oxi-guard in lets through
	oxi-guard "$@" in <"$TMP/four" 2>"$TMP/err" | jget '["id"]' /dev/stdin |
	    tr '\n' ' '
}

check 'no allowlist at all denies everyone' '[ "$(passed)" = "" ]'
check_grep 'and warns that it is empty' \
	'^oxi-guard: warning: allowlist .*allow is empty' "$TMP/err"
check 'an empty -a denies everyone' '[ "$(passed -a "")" = "" ]'
check '* allows everyone' '[ "$(passed -a "*")" = "m1 m2 m3 m4 " ]'
check 'CHANNEL:* allows that channel' '[ "$(passed -a "telegram:*")" = "m3 m4 " ]'
check 'CHANNEL:FROM allows that sender there only' \
	'[ "$(passed -a "telegram:alice")" = "m4 " ]'
check 'bare FROM allows that sender on any channel' \
	'[ "$(passed -a alice)" = "m1 m4 " ]'
check 'entries separated by commas and spaces' \
	'[ "$(passed -a "bob, telegram:1001")" = "m2 m3 " ]'

printf '# the owner\ncli:bob   # trailing comment\n\n#telegram:*\n' \
	>"$OXI_CONFIG_DIR/allow"
check 'the allow file, with comments' '[ "$(passed)" = "m2 " ]'
check 'OXI_ALLOW replaces the file' \
	'[ "$(OXI_ALLOW=telegram:1001 passed)" = "m3 " ]'
check '-a replaces OXI_ALLOW' '[ "$(OXI_ALLOW=bob passed -a alice)" = "m1 m4 " ]'

# a denied message: no output, one info line without the text
grep '"m1"' "$TMP/four" | oxi-guard -a bob in >"$TMP/out1" 2>"$TMP/err1"
check 'a denied message writes nothing' '[ ! -s "$TMP/out1" ]'
check_lines 'and one stderr line' 1 "$TMP/err1"
check_grep 'naming channel and sender' \
	"^oxi-guard: info: denied .*'alice'.*'cli'" "$TMP/err1"
check_nogrep 'never the text' 'hello' "$TMP/err1"

# accepted lines that already say their trust pass on byte for byte, odd
# spacing and key order kept (a named sender with no owner list is the owner)
{
	printf '%s\n' '{ "type" : "msg.in", "text":"caf\u00e9 \"q\"", "id":"x1",  "chat":"c", "channel":"cli","from":"bob","extra":[1,2.50],"trust":"owner"}'
	printf '%s\n' '{"type":"x.custom","n":1.0,"s":"\u0041"}'
	msg m5 cli bob 'plain'
} >"$TMP/odd"
oxi-guard -a bob in <"$TMP/odd" >"$TMP/oddout" 2>"$TMP/odderr"
check_same 'accepted and unknown records pass byte-identical' \
	"$TMP/oddout" "$TMP/odd"
check 'with nothing on stderr' '[ ! -s "$TMP/odderr" ]'
printf '{"type":"msg.in","id":"n1","channel":"cli","chat":"c","from":42,"text":"x"}\n' >"$TMP/num"
check 'a numeric from is matched as a string' \
	'[ "$(oxi-guard -a cli:42 in <"$TMP/num" | jget "[\"id\"]" /dev/stdin)" = n1 ]'

# over the size limit: a refusal goes back instead
long=$(printf '%0200d' 0)
{ msg big cli bob "$long"; msg ok1 cli bob short; } >"$TMP/big"
oxi-guard -a bob -m 100 in <"$TMP/big" >"$TMP/bigout" 2>"$TMP/bigerr"
check_lines 'one refusal and the next message' 2 "$TMP/bigout"
head -n 1 "$TMP/bigout" >"$TMP/refusal"
check 'the refusal is a msg.out to the same chat' \
	'[ "$(jget "[\"type\"]+\" \"+r[\"channel\"]+\" \"+r[\"chat\"]+\" \"+r[\"account\"]" "$TMP/refusal")" = "msg.out cli c1 local" ]'
check 'in reply to the message, with a new ULID' \
	'[ "$(jget "[\"in_reply_to\"]" "$TMP/refusal")" = big ] &&
	 jget "[\"id\"]" "$TMP/refusal" | grep -Eqx "[0-9A-HJKMNP-TV-Z]{26}"'
check 'saying how long, and the limit' \
	'[ "$(jget "[\"text\"]" "$TMP/refusal")" = "Your message is too long (200 bytes; the limit is 100)." ]'
check_lines 'one warning line' 1 "$TMP/bigerr"
check_grep 'that names the sizes' '^oxi-guard: warning: .*200 bytes.*100' \
	"$TMP/bigerr"
tail -n 1 "$TMP/bigout" >"$TMP/bigtail"
tail -n 1 "$TMP/big" >"$TMP/bigexp"
check_same 'the message after it flows unchanged' "$TMP/bigtail" "$TMP/bigexp"
check 'OXI_GUARD_MAX_IN sets the limit' \
	'OXI_GUARD_MAX_IN=100 oxi-guard -a bob in <"$TMP/big" 2>/dev/null |
	 head -n 1 | grep -q "\"msg.out\""'
check '-m replaces OXI_GUARD_MAX_IN' \
	'[ "$(OXI_GUARD_MAX_IN=100 oxi-guard -a bob -m 1k in <"$TMP/big" |
	    grep -c "\"msg.in\"")" = 2 ]'
oxi-guard -a alice -m 100 in <"$TMP/big" >"$TMP/strangerout" 2>/dev/null
check 'a stranger over the limit gets no reply' '[ ! -s "$TMP/strangerout" ]'

# a malformed line and a msg.in without its keys
{
	msg g1 cli bob one
	echo '{"type":"msg.in", broken'
	msg g2 cli bob two
	echo '{"v":1,"type":"msg.in","id":"g3","channel":"cli","from":"bob","text":"no chat"}'
	msg g4 cli bob four
} >"$TMP/bad"
rm -f "$OXI_DEADLETTER"
check_exit 'bad input: exit 1' 1 \
	'oxi-guard -a bob in <"$TMP/bad" >"$TMP/badout" 2>"$TMP/baderr"'
check 'the good records around them flow' \
	'[ "$(jget "[\"id\"]" "$TMP/badout" | tr "\n" " ")" = "g1 g2 g4 " ]'
check_lines 'one stderr line for each' 2 "$TMP/baderr"
check_lines 'one dead letter for each' 2 "$OXI_DEADLETTER"
check_grep 'the dead letter says what is missing' 'needs \\"chat\\"' \
	"$OXI_DEADLETTER"
