#!/bin/sh
# oxi-chat keeps the model keys out of oxi-loop: the model stage runs
# beside it, joined by two FIFOs, the one stage with the keys in its
# environment; it is started again when it dies, and gets again what
# the dead one had in hand; nothing is left behind
cd "$(dirname "$0")" && . ./lib.sh || exit 1
[ -r /proc/self/environ ] || skip_all "no /proc/PID/environ"
plan 12

fake_server openai.py --delay 1 --log "$TMP/req.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OXI_MODEL=openai/fake
export OPENAI_API_KEY=sk-t9006-model-key-0123456789
export ANTHROPIC_API_KEY=sk-ant-t9006-other-key-0123
WS="$TMP/ws"
mkdir -p "$WS"

stage() { stage_pids "$@"; }
keys() { env_keys "$@"; }
# lines N: wait until the chat printed N lines
lines() {
	wait_until 20 '[ "$(wc -l <"$TMP/out" 2>/dev/null)" -ge '"$1"' ]'
}

mkfifo "$TMP/in"
oxi-chat -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
chat=$!
_bgpids="$_bgpids $chat"
exec 7>"$TMP/in"
echo 'one' >&7
lines 1
loop=$(stage oxi-loop)
llm=$(stage oxi-llm)
check 'a reply comes through the model stage beside the loop' \
	'[ "$(cat "$TMP/out")" = "echo: one" ] && [ -n "$loop" ] && [ -n "$llm" ]'
check 'oxi-loop holds no *_API_KEY' '[ -z "$(keys $loop)" ]'
check 'oxi-llm holds the model keys' \
	'[ "$(keys $llm)" = "ANTHROPIC_API_KEY OPENAI_API_KEY " ]'
check 'no other stage holds a model key' \
	'keyless oxi-recv oxi-tool oxi-send'
check 'the key is on no command line' \
	'! cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n" | grep -q "t9006-model-[k]ey"'

kill -9 $llm
wait_until 20 '[ -n "$(stage oxi-llm)" ] && [ "$(stage oxi-llm)" != "$llm" ]'
echo 'two' >&7
lines 2
check 'oxi-llm killed: started again, the next message is answered' \
	'[ "$(sed -n 2p "$TMP/out")" = "echo: two" ]'

# a request in hand: the model answers after a second, the stage dies
# first; the next one says stage.up and oxi-loop sends it again
llm=$(stage oxi-llm)
echo 'three' >&7
wait_until 20 '[ "$(wc -l <"$TMP/req.log")" -ge 3 ]'
kill -9 $llm
lines 3
check 'oxi-llm killed with a request in hand: the reply comes, once' \
	'[ "$(sed -n 3p "$TMP/out")" = "echo: three" ] && [ "$(wc -l <"$TMP/req.log")" = 4 ] &&
	 sleep 1 && [ "$(wc -l <"$TMP/out")" = 3 ]'

exec 7>&-
wait $chat
check 'end of input: oxi-chat exits 0' '[ $? = 0 ]'
check 'the model stage has ended with it' \
	'wait_until 20 "[ -z \"\$(stage oxi-llm)\" ]"'
check 'its FIFOs are removed' '[ -z "$(ls -d "$OXI_HOME"/run.* 2>/dev/null)" ]'
check_nogrep 'no warnings on a clean run' 'warning|fatal' "$TMP/err"

# a model stage slow to start: oxi-chat waits until it is ready, so that
# oxi-loop sends nothing before its stage.up (which would send it again)
mkdir -p "$TMP/slow"
cat >"$TMP/slow/oxi-llm" <<EOT
#!/bin/sh
sleep 1
exec "$TOP/bin/oxi-llm" "\$@"
EOT
chmod +x "$TMP/slow/oxi-llm"
: >"$TMP/req.log"
printf 'four\nfive\n' | PATH="$TMP/slow:$PATH" oxi-chat -w "$WS" >"$TMP/out2" 2>&1
check 'a slow model stage: each message one request, one reply' \
	'[ "$(wc -l <"$TMP/req.log")" = 2 ] &&
	 [ "$(cat "$TMP/out2")" = "echo: four
echo: five" ]'
done_testing
