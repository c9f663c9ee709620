#!/bin/sh
# oxi-guard out: secret redaction, draft hold-back, size cap, bad input
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 30

unset OXI_GUARD_MAX_OUT OXI_SECRETS_FILE OXI_REDACT_ENV OXI_MAXLINE
export OXI_DEADLETTER="$TMP/dead.ndjson"

S1=sk-test-FILESECRET-0001
S2=tok-ENVSECRET-abcdef42
S3=xoxb-ANOTHER-ENV-777
# a draft holds back 8 bytes per byte of the longest secret (23): 184
PAD=" and then$(printf ' some text%.0s' $(seq 30))"
printf '%s\n' "$S1" tiny "" >"$TMP/secrets"
export OXI_T_KEY_A="$S2" OXI_T_KEY_B="$S3" OXI_T_SHORT=abc
export OXI_REDACT_ENV='OXI_T_KEY_A, OXI_T_KEY_B'

out() {	# out TYPE ID TEXT
	printf '{"v":1,"type":"%s","id":"%s","in_reply_to":"cli:1","channel":"cli","account":"local","chat":"c1","thread":null,"text":"%s","format":"markdown"}\n' "$1" "$2" "$3"
}

{
	out msg.out r1 "the key is $S1, and $S2$S2."
	out msg.draft r2 "draft: $S3 so far$PAD"
	out msg.out r3 'nothing secret here'
	printf '%s\n' '{"v":1,"type":"approval.ask","id":"a1","channel":"cli","chat":"c1","text":"run with '"$S1"'?"}'
	printf '%s\n' '{"v":1,"type":"error","ref":"r9","code":"llm_failed","message":"bad key '"$S2"'","retryable":false}'
	printf '%s\n' '{"v":1,"type":"msg.out","id":"r4","channel":"cli","chat":"c1","text":"escaped sk-test-FILE\u0053ECRET-0001"}'
	printf '%s\n' '{ "type":"x.custom", "n" : 1.50 }'
} >"$TMP/in"
check_exit 'redacting: exit 0' 0 \
	'oxi-guard -v -s "$TMP/secrets" out <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
sed -n 1p "$TMP/out" >"$TMP/r1"
check 'msg.out: a file secret and an env secret redacted' \
	'[ "$(jget "[\"text\"]" "$TMP/r1")" = "the key is [REDACTED], and [REDACTED][REDACTED]." ]'
out msg.out r1 'the key is [REDACTED], and [REDACTED][REDACTED].' >"$TMP/r1.exp"
check_json 'the other keys are kept' "$TMP/r1" "$TMP/r1.exp"
check 'msg.draft: a secret from a variable redacted, the tail held back' \
	'sed -n 2p "$TMP/out" | python3 -c "import json,sys
t = json.load(sys.stdin)[\"text\"]
full = \"draft: [REDACTED] so far\" + sys.argv[1]
assert t.startswith(\"draft: [REDACTED] so far and then\"), t
assert full.startswith(t) and len(t) <= len(full) - 184, t" "$PAD"'
sed -n 3p "$TMP/out" >"$TMP/r3"
sed -n 3p "$TMP/in" >"$TMP/r3.exp"
check_same 'a clean record passes byte-identical' "$TMP/r3" "$TMP/r3.exp"
check 'approval.ask text redacted' \
	'[ "$(sed -n 4p "$TMP/out" | jget "[\"text\"]" /dev/stdin)" = "run with [REDACTED]?" ]'
check 'error message redacted' \
	'[ "$(sed -n 5p "$TMP/out" | jget "[\"message\"]" /dev/stdin)" = "bad key [REDACTED]" ]'
check 'a secret spelt with JSON escapes is still found' \
	'[ "$(sed -n 6p "$TMP/out" | jget "[\"text\"]" /dev/stdin)" = "escaped [REDACTED]" ]'
sed -n 7p "$TMP/out" >"$TMP/r7"
sed -n 7p "$TMP/in" >"$TMP/r7.exp"
check_same 'an unknown record passes byte-identical' "$TMP/r7" "$TMP/r7.exp"
printf '%s\n' '{"v":1,"type":"status","id":"s1","channel":"cli","chat":"c1","text":"shell curl -u '"$S1"'"}' |
	oxi-guard -s "$TMP/secrets" out >"$TMP/st"
check 'status text redacted like a reply' \
	'[ "$(jget "[\"text\"]" "$TMP/st")" = "shell curl -u [REDACTED]" ]'
check_grep 'one info line per record, with the count' \
	"^oxi-guard: info: msg.out 'r1': redacted 3 secrets$" "$TMP/err"
check '...and only for records that had one' \
	'[ "$(grep -c "redacted" "$TMP/err")" = 5 ]'
check 'no secret value in stdout or stderr' \
	'[ -s "$TMP/out" ] && [ -s "$TMP/err" ] &&
	 ! grep -F -e "$S1" -e "$S2" -e "$S3" "$TMP/out" "$TMP/err"'
check_grep 'a short value in the file is ignored with a warning' \
	"^oxi-guard: warning: secrets file .*: ignored 1 value shorter than 8 bytes \\(first on line 2\\)" \
	"$TMP/err"

# short values from the environment, and names that are not set
out msg.out s1 'abc and tiny stay' |
	OXI_REDACT_ENV='OXI_T_SHORT OXI_T_UNSET' oxi-guard -s "$TMP/secrets" out \
	>"$TMP/sout" 2>"$TMP/serr"
check 'short values never redact ordinary words' \
	'[ "$(jget "[\"text\"]" "$TMP/sout")" = "abc and tiny stay" ]'
check_grep 'a short variable is warned about' \
	"warning: OXI_REDACT_ENV: variable 'OXI_T_SHORT' is shorter than 8 bytes" \
	"$TMP/serr"
check_grep 'so is a variable that is not set' \
	"warning: OXI_REDACT_ENV: variable 'OXI_T_UNSET' is not set" "$TMP/serr"
check 'OXI_SECRETS_FILE names the file' \
	'[ "$(out msg.out e1 "x $S1" | OXI_REDACT_ENV= OXI_SECRETS_FILE="$TMP/secrets" oxi-guard out 2>/dev/null | jget "[\"text\"]" /dev/stdin)" = "x [REDACTED]" ]'

# a draft that ends with the start of a secret holds it back: here the
# whole of the drafts, shorter than the tail held back, so that only the
# reply shows, redacted
{
	out msg.draft d1 "the token is ${S2%??????????}"
	out msg.draft d1 "the token is $S2 ok"
	out msg.out d1 "the token is $S2 ok"
} | oxi-guard out >"$TMP/dout" 2>"$TMP/derr"
check 'drafts never show the start of a secret' \
	'[ "$(jget "[\"text\"]" "$TMP/dout" | tr "\n" "|")" = "the token is [REDACTED] ok|" ]'
check 'no part of it in the output' '! grep -F "${S2%??????????}" "$TMP/dout"'

# the size cap, at a UTF-8 boundary
e100=$(python3 -c 'print("\u00e9" * 100)')
out msg.out t1 "$e100" | oxi-guard -m 51 out >"$TMP/tout" 2>"$TMP/terr"
check 'a long text is cut at a character boundary with a marker' \
	'python3 -c "import json,sys
t = json.loads(open(sys.argv[1]).read())[\"text\"]
assert t == \"\u00e9\" * 19 + \"\n[truncated]\", repr(t)
assert len(t.encode()) <= 51" "$TMP/tout"'
check_grep 'with an info line' "info: msg.out 't1': text of 200 bytes" "$TMP/terr"
check 'OXI_GUARD_MAX_OUT sets the cap' \
	'out msg.out t2 "$e100" | OXI_GUARD_MAX_OUT=100 oxi-guard out |
	 python3 -c "import json,sys; assert len(json.load(sys.stdin)[\"text\"].encode()) <= 100"'
check 'the default leaves a 200-byte text alone' \
	'[ "$(out msg.out t3 "$e100" | oxi-guard out)" = "$(out msg.out t3 "$e100")" ]'
check 'a redacted text is capped after redaction' \
	'[ "$(out msg.out t4 "$S1 and $S1" | oxi-guard -s "$TMP/secrets" -m 22 out 2>/dev/null |
	    jget "[\"text\"]" /dev/stdin | tr "\n" "|")" = "[REDACTED]|[truncated]|" ]'

# a malformed line and a msg.out without its keys
{
	out msg.out b1 one
	echo 'not json at all'
	printf '%s\n' '{"v":1,"type":"msg.out","id":"b2","text":"no route '"$S1"'"}'
	out msg.out b3 "three $S1"
} >"$TMP/bad"
rm -f "$OXI_DEADLETTER"
echo "$S1" >"$TMP/secrets1"
check_exit 'bad input: exit 1' 1 \
	'oxi-guard -s "$TMP/secrets1" out <"$TMP/bad" >"$TMP/badout" 2>"$TMP/baderr"'
check 'the good records around them flow' \
	'[ "$(jget "[\"id\"]" "$TMP/badout" | tr "\n" " ")" = "b1 b3 " ]'
check_lines 'one stderr line for each, plus one redaction' 3 "$TMP/baderr"
check_lines 'one dead letter for each' 2 "$OXI_DEADLETTER"
check 'the dead letter holds no secret' \
	'grep -q "no route \[REDACTED\]" "$OXI_DEADLETTER" &&
	 ! grep -F "$S1" "$OXI_DEADLETTER"'
