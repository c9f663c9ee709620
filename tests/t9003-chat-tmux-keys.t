#!/bin/sh
# oxi-chat in a real terminal (tmux): Ctrl-C stops a reply and the chat
# goes on, a paste and a """ block are one message each, a second Ctrl-C
# at an idle prompt leaves with the terminal as it was; a bad key, model
# or endpoint ends the chat before the prompt with one line and exit 100
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v tmux >/dev/null || skip_all "tmux is not installed"
plan 17

fake_server openai.py --log "$TMP/log"
GOOD=$PORT
WS="$TMP/ws"
mkdir -p "$WS"
export TMUX_TMPDIR="$TMP"
S="oxi-t9003-$$"
trap 'tmux kill-server 2>/dev/null; _cleanup' EXIT

# chat SESSION [ENV...] -- [ARG...]: oxi-chat in a new tmux session, with
# the terminal's modes before and after it in $TMP/SESSION.before/.after
chat() {
	_s=$1
	shift
	_env=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_env="$_env '$1'"
		shift
	done
	shift
	tmux new-session -d -s "$_s" -x 100 -y 30 \
	    "stty -g >'$TMP/$_s.before'; env -i PATH='$PATH' HOME='$HOME' \
	     TERM=xterm OXI_HOME='$OXI_HOME' OXI_CONFIG_DIR='$OXI_CONFIG_DIR' \
	     OXI_MODEL=openai/fake $_env oxi-chat -w '$WS' $*; \
	     echo EXIT=\$?; stty -g >'$TMP/$_s.after'; sleep 60"
}
# screen SESSION: the pane as text; until_screen SESSION PATTERN: wait
# for it, at most 30 s
screen() { tmux capture-pane -p -J -t "$1"; }
until_screen() {
	_i=0
	while ! screen "$1" | grep -q -- "$2" && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	screen "$1" | grep -q -- "$2"
}
requests() { wc -l <"$TMP/log" | tr -d ' '; }
# last: the user texts of the last request, |-separated
last() {
	tail -n 1 "$TMP/log" | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())["messages"]
print("|".join(x["content"] for x in m if x["role"] == "user"))'
}

chat "$S" "OXI_OPENAI_BASE_URL=http://127.0.0.1:$GOOD/v1" -- ||
	skip_all "tmux cannot start"
until_screen "$S" 'Ctrl-D to quit' || skip_all "oxi-chat does not start"

tmux send-keys -t "$S" 'slow story, please' Enter
until_screen "$S" '^echo: slow' >/dev/null
tmux send-keys -t "$S" C-c
sleep 0.5
tmux send-keys -t "$S" 'after the stop' Enter
check 'Ctrl-C mid-reply: the chat goes on and answers the next question' \
	'until_screen "$S" "^echo: after the stop$"'
check '...in the same conversation' \
	'last | grep -q "^slow story, please|.*after the stop$"'
check '...and no stage died: no Broken pipe, no fatal line' \
	'! screen "$S" | grep -q "Broken pipe\|fatal\|EXIT="'

n=$(requests)
tmux set-buffer -- "$(printf 'line one\nline two\nline three\nline four')"
tmux paste-buffer -p -t "$S"
until_screen "$S" '^\. line four$' >/dev/null
tmux send-keys -t "$S" Enter
check 'a pasted block of four lines is answered once' \
	'until_screen "$S" "^echo: line one$" && until_screen "$S" "^line four$"'
check '...from one request holding all four lines' \
	'[ "$(requests)" = $((n + 1)) ] && last | grep -q "|line one
line two
line three
line four$"'

n=$(requests)
tmux send-keys -t "$S" '"""' Enter 'alpha' Enter 'beta' Enter '"""' Enter
check 'a """ block is one message' \
	'until_screen "$S" "^echo: alpha$" && until_screen "$S" "^beta$"'
check '...one request' \
	'[ "$(requests)" = $((n + 1)) ] && last | grep -q "|alpha
beta$"'

sleep 0.3
n=$(screen "$S" | grep -c "^> *$")
tmux send-keys -t "$S" Enter
sleep 0.3
check 'the prompt comes back after an empty line' \
	'[ "$(screen "$S" | grep -c "^> *$")" = $((n + 1)) ]'
tmux send-keys -t "$S" C-c
check 'a Ctrl-C at the idle prompt says how to leave' \
	'until_screen "$S" "^oxi: press Ctrl-C again to leave"'
tmux send-keys -t "$S" C-c
check '...a second one leaves: exit 0' 'until_screen "$S" "^EXIT=0$"'
check '...with the terminal as it was' \
	'sleep 0.3; cmp -s "$TMP/$S.before" "$TMP/$S.after"'
check 'no warning, no info line on the screen' \
	'! screen "$S" | grep -q "oxi-[a-z]*: \(info\|warning\)"'

# the check before the prompt
fake_server openai.py --status 401 --log "$TMP/bad.log"
chat key "OXI_OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1" \
    OPENAI_API_KEY=sk-wrong-0123456789 --
until_screen key '^EXIT=' >/dev/null
check 'a rejected key: exit 100 before the prompt' \
	'screen key | grep -q "^EXIT=100$" && ! screen key | grep -q "Ctrl-D to quit"'
check '...with one line' \
	'[ "$(screen key | grep -v "^$" | grep -vc "^EXIT=")" = 1 ] &&
	 screen key | grep -q "^oxi-chat: fatal: openai/fake: auth: openai: HTTP 401: .*\[REDACTED\]"'
chat model "OXI_OPENAI_BASE_URL=http://127.0.0.1:$GOOD/v1" -- -m nosuch/model
until_screen model '^EXIT=' >/dev/null
check 'an unknown provider: exit 100 before the prompt' \
	'screen model | grep -q "^EXIT=100$" &&
	 screen model | grep -q "^oxi-chat: fatal: nosuch/model: unknown provider .nosuch."'
fake_server openai.py --status 404 --log "$TMP/nomodel.log"
chat name "OXI_OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1" -- -m openai/no-such-model
until_screen name '^EXIT=' >/dev/null
check 'a model the endpoint does not know: exit 100, one line' \
	'screen name | grep -q "^EXIT=100$" &&
	 [ "$(screen name | grep -v "^$" | grep -vc "^EXIT=")" = 1 ] &&
	 screen name | grep -q "^oxi-chat: fatal: openai/no-such-model: bad_request: .*does not exist"'
chat down "OXI_OPENAI_BASE_URL=http://127.0.0.1:1/v1" --
until_screen down '^EXIT=' >/dev/null
check 'an endpoint that does not answer: exit 100' \
	'screen down | grep -q "^EXIT=100$" &&
	 screen down | grep -q "^oxi-chat: fatal: openai/fake: network: "'
done_testing
