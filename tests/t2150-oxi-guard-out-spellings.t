#!/bin/sh
# oxi-guard out: a secret configured reaches the sender in no spelling, in
# no field, in no chunk of a draft stream (checked on the captured stream
# by tests/leakcheck.py, a decoder of its own)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 14

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"
S=sk-live-9fQ2xLm4Tz8Rw1Vb6Kp3AcZ
echo "$S" >"$TMP/secrets"

# one reply per spelling, whole and as drafts, plus the other fields
python3 - "$S" >"$TMP/in" <<'EOF'
import base64, json, sys
from leakcheck import spellings
s = sys.argv[1]
b = s.encode()
h = len(s) // 2
forms = spellings(s)
def rec(t, rid, text):
    print(json.dumps({'v': 1, 'type': t, 'id': rid, 'channel': 'cli',
                      'chat': 'c1', 'text': text}))
for k, f in forms.items():
    rec('msg.out', k, 'It is %s, there.' % f)
    text = 'Thinking about it, the value is %s and that is all. ' % f + \
        'Some more words follow to close the reply. ' * 3
    for n in range(7, len(text), 9):
        rec('msg.draft', k + '/d', text[:n])
    rec('msg.out', k + '/d', text)
# drafts that replace each other, and a start turned elsewhere
for t in ('first part: ' + s[:h], 'second part: ' + s[h:], 'done'):
    rec('msg.draft', 'replace', t)
rec('msg.out', 'replace', 'done')
for t in ('it begins ' + s[:h - 2], 'it begins ' + s[:h - 2] +
          ', no, rather ' + s[h - 2:], 'never mind'):
    rec('msg.draft', 'turned', t)
rec('msg.out', 'turned', 'never mind')
print(json.dumps({'v': 1, 'type': 'msg.out', 'id': 'reply:' + s,
                  'channel': 'cli', 'chat': 'c1', 'text': 'x'}))
print(json.dumps({'v': 1, 'type': 'error', 'ref': 'r1', 'code': 'e_' + s,
                  'message': 'failed', 'retryable': False}))
print(json.dumps({'v': 1, 'type': 'status', 'id': 's1', 'channel': 'cli',
                  'chat': 'c1', 'text': 'shell echo ' + s}))
print(json.dumps({'v': 1, 'type': 'approval.ask', 'id': 'a1', 'ref': 'c9',
                  'channel': 'cli', 'chat': 'c1', 'text': 'Run it with ' +
                  base64.b64encode(b).decode() + '?',
                  'choices': ['once', 'always', 'deny'],
                  'expires': '2026-11-26T10:00:00.000Z'}))
EOF
check_exit 'every spelling, whole and as drafts: exit 0' 0 \
	'oxi-guard out -s "$TMP/secrets" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'no piece of half the secret or more, in any record, any chunk' \
	'python3 leakcheck.py "$S" <"$TMP/out" >"$TMP/why" || { cat "$TMP/why"; false; }'
check 'the pieces of one reply together show less than half of it' \
	'python3 leakcheck.py -r "$S" <"$TMP/out" >"$TMP/why" || { cat "$TMP/why"; false; }'
check 'every reply came out, each spelling redacted' \
	'python3 -c "import json, sys
out = [json.loads(l) for l in open(sys.argv[1])]
replies = [r for r in out if r[\"type\"] == \"msg.out\"]
assert len(replies) == 45, len(replies)
assert sum(\"[REDACTED]\" in r[\"text\"] for r in replies) == 42" "$TMP/out"'
check_grep 'a secret in an id is redacted there' '"id":"reply:\[REDACTED\]"' \
	"$TMP/out"
check_grep 'so is one in an error code' '"code":"e_\[REDACTED\]"' "$TMP/out"
check_grep 'and in an approval.ask, whose choices stay' \
	'"text":"Run it with \[REDACTED\]\?".*"choices":\["once","always","deny"\]' \
	"$TMP/out"
check_nogrep 'the info lines name redacted ids only' "$S" "$TMP/err"
check_grep 'an info line for the record with the id' \
	"info: msg.out 'reply:\\[REDACTED\\]': redacted 1 secret" "$TMP/err"
check 'each reply redacted is in the audit log, without its text' \
	'[ "$(grep -c "\"event\":\"out.redacted\"" "$TMP/audit.log")" -ge 40 ] &&
	 ! grep -q -e "$S" -e "It is" "$TMP/audit.log" &&
	 oxi-guard audit verify "$TMP/audit.log" 2>/dev/null'

# a broken line with the secret \u-escaped: redacted in the dead letter
printf '%s\n' "{\"type\":\"msg.out\",\"text\":\"$(python3 -c 'import sys; print("".join("\\\\u%04x" % ord(c) for c in sys.argv[1]))' "$S")\"" \
	>"$TMP/bad"
check_exit 'a broken line: exit 1' 1 \
	'oxi-guard out -s "$TMP/secrets" <"$TMP/bad" >/dev/null 2>"$TMP/berr"'
check_grep 'it is dead-lettered' '"reason"' "$OXI_DEADLETTER"
check 'the dead letter holds no spelling of the secret' \
	'jget "[\"data\"]" "$OXI_DEADLETTER" >"$TMP/dl" &&
	 grep -q REDACTED "$TMP/dl" && ! grep -q "u0073" "$TMP/dl"'
check_nogrep 'nor does stderr' "$S" "$TMP/berr"
done_testing
