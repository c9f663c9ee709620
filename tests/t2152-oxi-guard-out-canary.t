#!/bin/sh
# the canary (oxi(7), CANARY): oxi-loop puts a session's canary in its
# system prompt; a model that shows it, in any spelling and in drafts,
# has its reply blocked by oxi-guard out, and nothing of the canary goes
# out; other replies pass
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 16

export OXI_LLM="python3 $TESTS/fake/leaky-model.py"
export OXI_TOOL="python3 $TESTS/fake/tool-stage.py"
export FAKE_LLM_LOG="$TMP/llm.log"
export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"

msg() {	# msg ID CHAT TEXT
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"cli","account":"local","chat":"%s","from":"u","text":"%s"}\n' "$1" "$2" "$3"
}

{
	msg m0 c0 'hello there'
	for f in plain base64 hex rot13 reversed spaced code; do
		msg "m-$f" "c-$f" "leak $f"
	done
} >"$TMP/in"
check 'the loop answers' 'oxi-loop -t 5 <"$TMP/in" >"$TMP/loop.out" 2>"$TMP/loop.err"'
check 'a key of 32 random bytes in hex, mode 0600, in the state directory' \
	'[ "$(stat -c %a "$OXI_HOME/canary.key")" = 600 ] &&
	 grep -qxE "[0-9a-f]{64}" "$OXI_HOME/canary.key"'
jget '["messages"][0]["content"]' "$TMP/llm.log" |
	sed -n 's/^Canary: \([0-9a-f]*\) .*/\1/p' >"$TMP/canaries"
check 'each request has a canary of 128 bits in its system prompt' \
	'[ "$(wc -l <"$TMP/canaries")" = 8 ] &&
	 ! grep -vqxE "[0-9a-f]{32}" "$TMP/canaries"'
check 'one per session: eight chats, eight canaries' \
	'[ "$(sort -u "$TMP/canaries" | wc -l)" = 8 ]'
check 'only the system prompt holds it' \
	'! jget "[\"messages\"][1:]" "$TMP/llm.log" | grep -qf "$TMP/canaries"'
check 'replies carry their session' \
	'grep "\"msg.out\"" "$TMP/loop.out" | jget "[\"session\"]" /dev/stdin |
	 grep -qx "cli:local:c-hex"'

oxi-guard out <"$TMP/loop.out" >"$TMP/out" 2>"$TMP/err"
check 'the plain reply passes' \
	'grep "\"msg.out\"" "$TMP/out" | grep -q "fine: hello there"'
check 'every reply that shows the canary is withheld' \
	'[ "$(grep -c "This reply was withheld: it showed protected data" "$TMP/out")" = 7 ]'
check 'no piece of any canary in any record that goes out' \
	'for c in $(cat "$TMP/canaries"); do
		python3 leakcheck.py "$c" <"$TMP/out" || exit 1
	 done'
check 'nor in all the drafts of a reply together' \
	'for c in $(cat "$TMP/canaries"); do
		python3 leakcheck.py -r "$c" <"$TMP/out" || exit 1
	 done'
check 'the drafts of a blocked reply stop' \
	'[ "$(grep "\"msg.draft\"" "$TMP/out" | grep -c "Sure, here")" = 0 ]'
check_grep 'one warning per blocked reply' \
	"warning: msg\.(out|draft) 'reply:m-plain' shows the session's canary" "$TMP/err"
check_nogrep 'stderr never shows the canary' "$(head -n 1 "$TMP/canaries")" \
	"$TMP/err"
check 'each block is in the audit log' \
	'[ "$(grep -c "\"event\":\"out.blocked\"" "$TMP/audit.log")" -ge 7 ] &&
	 grep -q "\"why\":\"canary\"" "$TMP/audit.log"'

# the canary without a session key: a record's conversation names it
c=$(sed -n 1p "$TMP/canaries")
sess=$(grep "\"msg.out\"" "$TMP/loop.out" | sed -n 1p | jget '["session"]' /dev/stdin)
printf '{"v":1,"type":"msg.out","id":"o1","channel":"cli","account":"local","chat":"%s","text":"%s"}\n' \
	"${sess##*:}" "$(printf %s "$c" | rev)" | oxi-guard out >"$TMP/o1" 2>/dev/null
check 'a record without "session" is judged by its chat (reversed here)' \
	'grep -q withheld "$TMP/o1"'
OXI_CANARY=off oxi-loop <<EOF2 >/dev/null 2>&1
$(msg n1 cz hi)
EOF2
check 'OXI_CANARY=off: no canary' \
	'! tail -n 1 "$TMP/llm.log" | grep -q Canary'
done_testing
