#!/bin/sh
# oxi-guard: readiness, SIGHUP reloads the allowlist and the secrets, SIGTERM
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 15

unset OXI_GUARD_MAX_IN OXI_GUARD_MAX_OUT OXI_SECRETS_FILE OXI_REDACT_ENV
export OXI_DEADLETTER="$TMP/dead.ndjson"
mkdir -p "$OXI_CONFIG_DIR"

msg() {	# msg ID FROM
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"cli","chat":"c","from":"%s","text":"hi"}\n' "$1" "$2"
}
out() {	# out ID TEXT
	printf '{"v":1,"type":"msg.out","id":"%s","channel":"cli","chat":"c","text":"%s"}\n' "$1" "$2"
}
# waitfor CMD: until CMD succeeds, at most about 10 s
waitfor() {
	_w=0
	until eval "$1"; do
		_w=$((_w + 1))
		[ $_w -lt 200 ] || return 1
		sleep 0.05
	done
}
lines() { wc -l <"$1" | tr -d ' '; }

# oxi-guard in, fed through a FIFO that stays open
mkfifo "$TMP/fifo"
echo 'cli:alice' >"$OXI_CONFIG_DIR/allow"
oxi-guard -d 3 in <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" 3>"$TMP/ready" &
pid=$!
_bgpids="$_bgpids $pid"
exec 4>"$TMP/fifo"
check 'readiness: a newline on fd 3' \
	'waitfor "[ -s \"$TMP/ready\" ]" && [ "$(od -An -c "$TMP/ready" | tr -d " ")" = "\\n" ]'

{ msg a1 bob; msg a2 alice; } >&4
check 'the first list lets alice in' \
	'waitfor "[ \$(lines \"$TMP/out\") = 1 ]" && grep -q "\"a2\"" "$TMP/out"'
check_grep '...and keeps bob out' "denied .*'bob'" "$TMP/err"

echo 'cli:bob  # alice is out now' >"$OXI_CONFIG_DIR/allow"
kill -HUP $pid
check 'SIGHUP: one info line when reloaded' \
	'waitfor "grep -q \"info: reloaded allowlist\" \"$TMP/err\"" &&
	 [ "$(grep -c reloaded "$TMP/err")" = 1 ]'
{ msg a3 alice; msg a4 bob; } >&4
check 'the next messages are judged by the new list' \
	'waitfor "[ \$(lines \"$TMP/out\") = 2 ]" && tail -n 1 "$TMP/out" | grep -q "\"a4\"" &&
	 grep -q "denied .*'"'"'alice'"'"'" "$TMP/err"'

rm "$OXI_CONFIG_DIR/allow"
kill -HUP $pid
waitfor '[ "$(grep -c reloaded "$TMP/err")" = 2 ]'
msg a5 bob >&4
check 'a removed allow file empties the list' \
	'waitfor "[ \$(grep -c \"denied .*bob\" \"$TMP/err\") = 2 ]" &&
	 [ "$(lines "$TMP/out")" = 2 ]'
check_grep '...with a warning' 'allowlist .* is empty' "$TMP/err"

kill -TERM $pid
wait $pid
check 'SIGTERM: exits 0 with its input still open' "[ $? = 0 ]"
exec 4>&-

# oxi-guard out: SIGHUP reloads the secrets
S1=alpha-FIRST-value-0001
S2=bravo-SECOND-token-0002
echo "$S1" >"$TMP/secrets"
rm -f "$TMP/fifo"
mkfifo "$TMP/fifo"
oxi-guard -d 3 -s "$TMP/secrets" out <"$TMP/fifo" >"$TMP/oout" \
	2>"$TMP/oerr" 3>"$TMP/oready" &
pid=$!
_bgpids="$_bgpids $pid"
exec 4>"$TMP/fifo"
waitfor '[ -s "$TMP/oready" ]'
out o1 "a $S1 b $S2" >&4
check 'before: only the first secret is known' \
	'waitfor "[ \$(lines \"$TMP/oout\") = 1 ]" &&
	 [ "$(jget "[\"text\"]" "$TMP/oout")" = "a [REDACTED] b $S2" ]'
echo "$S2" >"$TMP/secrets"
kill -HUP $pid
check 'SIGHUP: the secrets are reloaded' \
	'waitfor "grep -q \"info: reloaded secrets: 1 value,\" \"$TMP/oerr\""'
out o2 "a $S1 b $S2" >&4
check 'after: only the second one' \
	'waitfor "[ \$(lines \"$TMP/oout\") = 2 ]" &&
	 [ "$(tail -n 1 "$TMP/oout" | jget "[\"text\"]" /dev/stdin)" = "a $S1 b [REDACTED]" ]'

rm "$TMP/secrets"
mkdir "$TMP/secrets"
kill -HUP $pid
check 'an unreadable file on reload: a warning' \
	'waitfor "grep -q \"keeping the previous secrets\" \"$TMP/oerr\""'
out o3 "b $S2" >&4
check '...and the previous secrets stay in force' \
	'waitfor "[ \$(lines \"$TMP/oout\") = 3 ]" &&
	 [ "$(tail -n 1 "$TMP/oout" | jget "[\"text\"]" /dev/stdin)" = "b [REDACTED]" ]'
check 'no secret value on stderr' '! grep -F -e "$S1" -e "$S2" "$TMP/oerr"'
exec 4>&-
wait $pid
check 'end of input: exit 0' "[ $? = 0 ]"
