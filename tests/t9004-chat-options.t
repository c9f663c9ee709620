#!/bin/sh
# oxi-chat from a script: each failure shown once, exit 1 when every
# message failed; --chat keeps a conversation apart, --new starts afresh;
# the long options
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 16

export OXI_MODEL=openai/fake OXI_LLM_RETRIES=0
WS="$TMP/ws"
mkdir -p "$WS"

fake_server openai.py --status 401 --log "$TMP/bad.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OPENAI_API_KEY=sk-wrong-0123456789
printf 'one\ntwo\n' >"$TMP/in"
check_exit 'every message fails: exit 1' 1 \
	'with_timeout 60 oxi-chat -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check_lines 'each failure shown once' 2 "$TMP/err"
check 'as oxi-send: warning: CODE: MESSAGE, the key masked' \
	'[ "$(grep -c "^oxi-send: warning: auth: openai: HTTP 401: .*\[REDACTED\]" "$TMP/err")" = 2 ]'
check 'the loop and the model stage log theirs to loop.log and llm.log' \
	'[ "$(grep -c "^oxi-loop: warning: cli:.*: auth: " "$OXI_HOME/loop.log")" = 2 ] &&
	 [ "$(grep -c "^oxi-llm: warning: request .*: auth: " "$OXI_HOME/llm.log")" = 2 ]'
check 'nothing on stdout' '[ ! -s "$TMP/out" ]'
unset OPENAI_API_KEY

fake_server openai.py --status 401 --fail-times 1 --log "$TMP/half.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
check_exit 'one message fails, the next is answered: exit 0' 0 \
	'with_timeout 60 oxi-chat -w "$WS" <"$TMP/in" >"$TMP/out2" 2>"$TMP/err2"'
check 'one warning, one reply' \
	'[ "$(wc -l <"$TMP/err2")" = 1 ] && [ "$(cat "$TMP/out2")" = "echo: two" ]'

# conversations
fake_server openai.py --log "$TMP/req.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
# users LOG: the user texts of the last request in LOG, |-separated
users() {
	tail -n 1 "$1" | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())["messages"]
print("|".join(x["content"] for x in m if x["role"] == "user"))'
}
echo 'in the default chat' | oxi-chat -w "$WS" >/dev/null 2>&1
echo 'in a' | oxi-chat --chat a -w "$WS" >/dev/null 2>&1
echo 'in b' | oxi-chat -c b -w "$WS" >/dev/null 2>&1
echo 'again a' | oxi-chat --chat=a --workspace="$WS" >"$TMP/out3" 2>&1
check '--chat NAME: a conversation of its own, continued by name' \
	'[ "$(users "$TMP/req.log")" = "in a|again a" ] && [ "$(cat "$TMP/out3")" = "echo: again a" ]'
echo 'default again' | oxi-chat -w "$WS" >/dev/null 2>&1
check '...apart from the default one' \
	'users "$TMP/req.log" | grep -q "in the default chat|default again$" &&
	 ! users "$TMP/req.log" | grep -q "in a\|in b"'

# --new: oxi-recv sends /new first (a shim records its arguments)
mkdir -p "$TMP/shim"
cat >"$TMP/shim/oxi-recv" <<EOT
#!/bin/sh
echo "\$*" >>"$TMP/recv.args"
exec "$TOP/bin/oxi-recv" "\$@"
EOT
chmod +x "$TMP/shim/oxi-recv"
echo hi | PATH="$TMP/shim:$PATH" oxi-chat --new --chat=c -w "$WS" >/dev/null 2>&1
echo hi | PATH="$TMP/shim:$PATH" oxi-chat -n -w "$WS" >/dev/null 2>&1
check '--new and -n: oxi-recv -m /new; --chat: -t NAME' \
	'[ "$(sed -n 1p "$TMP/recv.args")" = "-t c -m /new cli" ] &&
	 [ "$(sed -n 2p "$TMP/recv.args")" = "-m /new cli" ]'
check '...the model sees /new before the message, or nothing of it' \
	'users "$TMP/req.log" | grep -Eq "(^|\|)hi$"'

check_exit '--model=, --system and --verbose are taken' 0 \
	'echo hi | oxi-chat --model=openai/fake --system "Be brief." --verbose -w "$WS" >"$TMP/out4" 2>/dev/null &&
	 [ "$(cat "$TMP/out4")" = "echo: hi" ]'
check_exit 'an unknown long option: exit 100' 100 'oxi-chat --bogus </dev/null'
check_grep '...with the usage' '^usage: oxi-chat \[-nv\] \[-c name\]' "$TMP/.err"
check_exit '--chat without a name: exit 100' 100 'oxi-chat --chat </dev/null'
check_exit '--chat with an empty name: exit 100' 100 'oxi-chat --chat= </dev/null'
done_testing
