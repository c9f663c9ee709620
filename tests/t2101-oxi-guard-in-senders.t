#!/bin/sh
# oxi-guard in: owners, trust, DM policies, own echoes, answers, strangers
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 24

export OXI_DEADLETTER="$TMP/dead.ndjson"
mkdir -p "$OXI_CONFIG_DIR" "$OXI_HOME"

msg() {	# msg ID CHANNEL CHAT FROM TEXT [CHAT_TYPE]
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"%s","chat":"%s","from":"%s","text":"%s","trust":"user"%s}\n' \
	    "$1" "$2" "$3" "$4" "$5" "${6:+,\"chat_type\":\"$6\"}"
}
trusts() {	# trusts ARGS...: "id:trust" of what passes, from $TMP/in
	oxi-guard in -R 0 "$@" <"$TMP/in" 2>"$TMP/err" >"$TMP/out"
	python3 -c '
import json, sys
print(" ".join("%s:%s" % (r["id"], r.get("trust", "-"))
    for r in map(json.loads, open(sys.argv[1])) if r["type"] == "msg.in"))
' "$TMP/out"
}

{
	msg m1 telegram 1001 1001 'hi from the owner'
	msg m2 telegram 2002 2002 'hi from a friend'
	msg m3 telegram -77 3003 'hi from a group member' group
	msg m4 cli me me 'hi from the terminal'
} >"$TMP/in"
check 'no owner list: named entries are the owner, wildcards external' \
	'[ "$(trusts -a "telegram:1001 telegram:* cli:me")" = "m1:owner m2:external m3:external m4:owner" ]'
check 'no owner list: whoever the terminal lets in is its owner' \
	'[ "$(trusts -a "cli:*")" = "m4:owner" ] && [ "$(trusts -a "*")" = "m1:external m2:external m3:external m4:owner" ]'
check 'with an owner list: the owner, then allowlisted' \
	'[ "$(trusts -a "telegram:2002 cli:*" -o "telegram:1001")" = "m1:owner m2:allowlisted m4:external" ]'
check 'OXI_OWNER and the owner file' \
	'[ "$(OXI_OWNER=telegram:1001 trusts -a telegram:2002)" = "m1:owner m2:allowlisted" ] &&
	 echo "telegram:2002" >"$OXI_CONFIG_DIR/owner" &&
	 [ "$(trusts -a telegram:1001)" = "m1:allowlisted m2:owner" ] &&
	 rm "$OXI_CONFIG_DIR/owner"'
check 'the group member is let in by the list alone' \
	'[ "$(trusts -a "telegram:3003")" = "m3:owner" ]'
check 'DM policy open: strangers in direct messages only, as external' \
	'[ "$(trusts -a cli:me -p open)" = "m1:external m2:external m4:owner" ]'
check 'DM policy per channel' \
	'[ "$(trusts -a cli:me -p "open telegram:allowlist")" = "m4:owner" ] &&
	 [ "$(OXI_DM_POLICY=telegram:open trusts -a cli:me)" = "m1:external m2:external m4:owner" ]'
check_exit 'a bad DM policy: exit 100' 100 \
	'oxi-guard in -a "*" -p sometimes </dev/null'
oxi-guard in -a '*' -p sometimes </dev/null 2>"$TMP/err"
check_grep 'naming it' "bad DM policy 'sometimes'" "$TMP/err"

# a message that already says its trust passes byte for byte
msg k1 cli me me 'kept' | sed 's/"user"/"owner"/' >"$TMP/kept"
oxi-guard in -a cli:me <"$TMP/kept" >"$TMP/keptout" 2>/dev/null
check_same 'a message with its trust passes byte for byte' "$TMP/kept" \
	"$TMP/keptout"

# the assistant's own messages are echoes
{
	msg e1 slack C1 UBOT 'my own reply'
	msg e2 slack C1 U1 'a person'
} >"$TMP/in"
check 'the -S ids are echoes, dropped' \
	'[ "$(trusts -a "slack:*" -S slack:UBOT)" = "e2:external" ]'
check 'OXI_GUARD_SELF too' \
	'[ "$(OXI_GUARD_SELF=slack:UBOT trusts -a "slack:*")" = "e2:external" ]'
check_nogrep 'an echo is dropped without an info line' 'UBOT' "$TMP/err"

# approval answers: only the owner's goes on, saying its trust (the
# others are refused and audited: t2204)
{
	printf '{"v":1,"type":"approval.answer","id":"a1","ref":"q1","choice":"once","channel":"telegram","chat":"1001","from":"1001"}\n'
	printf '{"v":1,"type":"approval.answer","id":"a2","ref":"q1","choice":"once","channel":"telegram","chat":"2002","from":"2002"}\n'
	printf '{"v":1,"type":"approval.answer","id":"a3","ref":"q1","choice":"once","channel":"telegram","chat":"9","from":"9"}\n'
} >"$TMP/in"
oxi-guard in -a telegram:2002 -o telegram:1001 <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
check 'answers: the owner'"'"'s; the allowlisted and the stranger dropped' \
	'[ "$(jget "[\"id\"]+\":\"+r[\"trust\"]" "$TMP/out" | tr "\n" " ")" = "a1:owner " ]'
check_grep 'with one info line' "refused an approval answer from '9'" "$TMP/err"

# AUTH-5: 1000 random strangers on 4 channels: nothing passes, nothing
# is answered, so no model call and no tool call can follow
python3 -c '
import json, random
r = random.Random(5)
for i in range(1000):
    ch = r.choice(["telegram", "slack", "discord", "cli"])
    f = str(r.randrange(10**6, 10**9))
    print(json.dumps({"v": 1, "type": "msg.in", "id": "s%d" % i,
        "channel": ch, "chat": f, "from": f, "text": "hello, run ls"}))
' >"$TMP/strangers"
oxi-guard in -a telegram:1001 <"$TMP/strangers" >"$TMP/sout" 2>"$TMP/serr"
check '1000 strangers: nothing written' '[ ! -s "$TMP/sout" ]'
check_lines 'one info line each' 1000 "$TMP/serr"
check_nogrep 'never their text' 'run ls' "$TMP/serr"
echo '{"v":1,"type":"msg.in","id":"x","channel":"telegram","chat":"5","from":"5","text":"hi"}' |
	oxi-guard in -a '' >"$TMP/eout" 2>"$TMP/eerr"
check 'an empty allowlist denies everyone' '[ ! -s "$TMP/eout" ]'

# the rate of each sender but the owner
for i in 1 2 3 4 5; do msg r$i cli me me "message $i"; done >"$TMP/in"
oxi-guard in -a cli:me -o cli:boss -R 3/60 <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
check 'three a minute: the first three pass' \
	'[ "$(jget "[\"type\"]+\":\"+r.get(\"in_reply_to\", r[\"id\"])" "$TMP/out" | tr "\n" " ")" = "msg.in:r1 msg.in:r2 msg.in:r3 msg.out:r4 " ]'
check 'the fourth gets one reply, the fifth none' \
	'grep -q "faster than I can take them" "$TMP/out" &&
	 [ "$(grep -c "over the rate limit" "$TMP/err")" = 2 ]'
check_exit 'a bad rate: exit 100' 100 'oxi-guard in -a "*" -R fast </dev/null'
check 'the rate off with 0' \
	'[ "$(oxi-guard in -a cli:me -o cli:boss -R 0 <"$TMP/in" 2>/dev/null | grep -c msg.in)" = 5 ]'
check 'the owner is not limited' \
	'[ "$(oxi-guard in -a cli:me -R 3/60 <"$TMP/in" 2>/dev/null | grep -c msg.in)" = 5 ]'
done_testing
