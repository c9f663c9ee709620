#!/bin/sh
# oxi-chat in a real terminal (tmux): the model runs a pipeline in the
# sandbox, asks for a networked command, the user presses y, and the
# result reaches the model; the loop's info lines stay off the screen
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v tmux >/dev/null || skip_all "tmux is not installed"
oxi-tool -L >/dev/null 2>&1 || skip_all "oxi-tool does not start"
plan 7

fake_server openai.py --log "$TMP/log"
WS="$TMP/ws"
mkdir -p "$WS"
echo a >"$WS/a"
echo b >"$WS/b"
S="oxi-t9002-$$"
export TMUX_TMPDIR="$TMP"
tmux new-session -d -s "$S" -x 120 -y 30 \
	"env -i PATH='$PATH' HOME='$HOME' TERM=xterm OXI_HOME='$OXI_HOME' \
	 OXI_CONFIG_DIR='$OXI_CONFIG_DIR' \
	 OXI_OPENAI_BASE_URL='http://127.0.0.1:$PORT/v1' OXI_MODEL=openai/fake \
	 oxi-chat -w '$WS'; echo EXIT=\$?; sleep 60" || skip_all "tmux cannot start"
trap 'tmux kill-session -t "$S" 2>/dev/null; _cleanup' EXIT

# screen: the pane as text; until PATTERN: wait for it, at most 30 s
screen() { tmux capture-pane -p -t "$S"; }
until_screen() {
	_i=0
	while ! screen | grep -q -- "$1" && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	screen | grep -q -- "$1"
}

until_screen 'Ctrl-D to quit'
tmux send-keys -t "$S" 'run ls | wc -l' Enter
check 'a pipeline runs in the sandbox, no approval asked' \
	'until_screen "^The tool said: 2$"'
tmux send-keys -t "$S" 'netrun echo via-net' Enter
check 'a networked command is asked about in the chat' \
	"until_screen \"^Run 'echo via-net' in the workspace, with the network? \\[y\\] once  \\[a\\] always  \\[n\\] no\$\""
check 'nothing ran before the answer' \
	'! screen | grep -q "^The tool said: via-net"'
tmux send-keys -t "$S" y Enter
check 'after y the result reaches the model and the chat' \
	'until_screen "^The tool said: via-net$"'
tmux send-keys -t "$S" C-d
check 'Ctrl-D ends the chat cleanly' 'until_screen "^EXIT=0$"'
check 'no info or warning line on the screen' \
	'! screen | grep -q "oxi-[a-z]*: \(info\|warning\)"'
check 'the held call and the approval are in loop.log' \
	'grep -q "held, asked" "$OXI_HOME/loop.log" &&
	 grep -q "approved once" "$OXI_HOME/loop.log"'
done_testing
