#!/bin/sh
# oxi-chat with oxi-cron in its pipeline: /remind is answered in the
# chat, and at its time the reminder comes back through the loop, in the
# same chat; the model's schedule tools are there; the end of input still
# ends the chat, every line before it answered, and the schedules outlive
# it in $OXI_HOME/cron.db.  In a terminal (tmux): the reminder shows up
# while the prompt waits, and Ctrl-D still ends the chat
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v tmux >/dev/null || skip_all "tmux is not installed"
plan 10

export OXI_MODEL=openai/fake OXI_LLM_RETRIES=0
WS="$TMP/ws"
mkdir -p "$WS"
fake_server openai.py --log "$TMP/req.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"

# a chat whose input stays open: fd 9 writes the FIFO it reads
mkfifo "$TMP/in"
with_timeout 60 oxi-chat -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
chat=$!
exec 9>"$TMP/in"
echo '/remind in 2s tea' >&9
wait_until 20 'grep -q "^Scheduled [a-z0-9]\{6\} (once): next " "$TMP/out"'
check '/remind is answered by oxi-cron in the chat' \
	'grep -q "^Scheduled [a-z0-9]\{6\} (once): next " "$TMP/out"'
wait_until 20 'grep -q "Reminder: tea" "$TMP/out"'
check 'at its time the reminder comes back, answered by the model' \
	'grep -q "^echo: Reminder: tea$" "$TMP/out"'
check 'the model was asked with the schedule tools' \
	'grep -q "\"name\": *\"schedule_add\"" "$TMP/req.log"'
echo '/schedules' >&9
wait_until 20 'grep -q "^No schedules\.$" "$TMP/out"'
check '/schedules: the one-shot is done' 'grep -q "^No schedules\.$" "$TMP/out"'
echo '/remind in 1h stretch' >&9
echo 'hello' >&9
exec 9>&-
wait "$chat"
st=$?
check 'the end of input ends the chat, exit 0, the last line answered' \
	'[ $st = 0 ] && [ "$(tail -n 1 "$TMP/out")" = "echo: hello" ] &&
	 [ "$(grep -c "^Scheduled " "$TMP/out")" = 2 ]'
check 'the schedule left stays in cron.db' \
	'oxi-cron -L | grep -q "\"text\":\"Reminder: stretch\""'

printf 'one\ntwo\nthree\n' | with_timeout 60 oxi-chat -w "$WS" >"$TMP/out2" 2>"$TMP/err2"
check 'lines read at once: each answered, in order, then the end' \
	'[ "$(cat "$TMP/out2" | tr "\n" " ")" = "echo: one echo: two echo: three " ]'

# a terminal
S="oxi-t9008-$$"
export TMUX_TMPDIR="$TMP"
tmux new-session -d -s "$S" -x 200 -y 50 \
	"env -i PATH='$PATH' HOME='$HOME' TERM=xterm OXI_HOME='$OXI_HOME' \
	 OXI_CONFIG_DIR='$OXI_CONFIG_DIR' \
	 OXI_OPENAI_BASE_URL='http://127.0.0.1:$PORT/v1' OXI_MODEL=openai/fake \
	 oxi-chat -c term -w '$WS'; echo EXIT=\$?; sleep 60" || skip_all "tmux cannot start"
trap 'tmux kill-session -t "$S" 2>/dev/null; _cleanup' EXIT
# shows PATTERN: the pane shows it, within 30 s
shows() {
	_p=$1
	wait_until 30 'tmux capture-pane -p -J -t "$S" -S -200 | grep -q -- "$_p"'
}
shows 'Ctrl-D to quit'
tmux send-keys -t "$S" '/remind in 2s tea in the terminal' Enter
check 'a terminal: /remind answered' 'shows "Scheduled [a-z0-9]\{6\} (once)"'
check '...and the reminder fires in it, unasked' \
	'shows "echo: Reminder: tea in the terminal"'
tmux send-keys -t "$S" C-d
check '...Ctrl-D ends the chat cleanly' 'shows "^EXIT=0$"'
