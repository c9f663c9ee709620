#!/bin/sh
# oxi-recv cli on a terminal: the line editor, pastes, """ blocks, Ctrl-C
# and the receipts that say what is in flight; """ in piped input
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v python3 >/dev/null || skip_all "python3 is not installed"
plan 35

unset OXI_MAXLINE
export OXI_DEADLETTER="$TMP/dead.ndjson"
export USER=alice LOGNAME=alice

# keys NAME [OPTION...]: oxi-recv cli on a pseudo-terminal, driven by the
# steps on stdin (see ptykeys.py); records in NAME.out, the screen in
# NAME.shown
keys() {
	_k=$1
	shift
	cat >"$TMP/$_k.steps"
	with_timeout 60 python3 ptykeys.py "$TMP/$_k.out" "$TMP/$_k.shown" \
	    "$TMP/$_k.steps" oxi-recv "$@" cli
	echo $? >"$TMP/$_k.rc"
}
# text NAME N: the text of the Nth record
text() { sed -n "${2}p" "$TMP/$1.out" >"$TMP/$1.$2"; jget '["text"]' "$TMP/$1.$2"; }

keys paste <<'EOT'
wait "> "
keys "\x1b[200~line one\rline two\rline three\rline four\x1b[201~"
wait "line four"
keys "\r"
records 1
keys "\x04"
EOT
check 'a paste of four lines is one message, sent on Enter' \
	'[ "$(wc -l <"$TMP/paste.out")" = 1 ] &&
	 [ "$(text paste 1)" = "line one
line two
line three
line four" ]'
check '...its later lines show the prompt ". "' \
	'grep -q "^\. line two$" "$TMP/paste.shown" && grep -q "^\. line four$" "$TMP/paste.shown"'
check '...bracketed paste on at the start, off at the end' \
	'[ "$(head -c 8 "$TMP/paste.shown" | od -An -c | tr -d " ")" = "033[?2004h" ] &&
	 [ "$(tail -c 8 "$TMP/paste.shown" | od -An -c | tr -d " ")" = "033[?2004l" ]'
check '...and the terminal modes are back as they were' \
	'[ "$(cat "$TMP/paste.shown.modes")" = same ]'

keys paste2 <<'EOT'
wait "> "
keys "\x1b[200~first\r\nsecond\r\x1b[201~"
keys "what is this?\r"
records 1
keys "\x04"
EOT
check 'a paste ending in a newline, then a typed line: one message' \
	'[ "$(text paste2 1)" = "first
second
what is this?" ]'

keys block <<'EOT'
wait "> "
keys "\"\"\"\r"
keys "one\r"
keys "\r"
keys "two\r"
keys " \"\"\" \r"
records 1
keys "y\r"
records 2
keys "\x04"
EOT
check '""" on a line of its own opens and closes one message' \
	'[ "$(text block 1)" = "one

two" ]'
check '...whose lines show the prompt ". "' \
	'grep -q "^\. two$" "$TMP/block.shown"'
check '...and then y is an answer again' \
	'[ "$(jget "[\"type\"]" "$TMP/block.out" | sed -n 2p)" = approval.answer ]'

keys edit <<'EOT'
wait "> "
keys "hellp\x7fo wrld\x17world\r"
records 1
keys "junk\x15kept\r"
records 2
keys "caf\u00e9\x7fe\r"
records 3
keys "a\x1b[Db\x1bOA\x01c\r"
records 4
keys "\x04"
EOT
check 'Backspace and Ctrl-W edit the line' '[ "$(text edit 1)" = "hello world" ]'
check 'Ctrl-U erases it' '[ "$(text edit 2)" = kept ]'
check 'Backspace erases a whole UTF-8 character' '[ "$(text edit 3)" = cafe ]'
check 'arrow keys and other control keys are ignored' '[ "$(text edit 4)" = abc ]'

keys empty <<'EOT'
wait "> "
keys "\r"
wait "> "
keys "  \r"
wait "> "
keys "\x04"
EOT
check 'Enter on an empty line draws the prompt again, sends nothing' \
	'[ ! -s "$TMP/empty.out" ] && [ "$(grep -c "^> " "$TMP/empty.shown")" -ge 3 ]'

keys drop <<'EOT'
wait "> "
keys "half a thou\x03"
wait "^C"
keys "real\r"
records 1
keys "\x04"
EOT
check 'Ctrl-C drops what is being typed' \
	'[ "$(wc -l <"$TMP/drop.out")" = 1 ] && [ "$(text drop 1)" = real ]'

keys stop -c room -t plans <<'EOT'
wait "> "
keys "tell me a long story\r"
records 1
keys "\x03"
records 2
keys "\x04"
EOT
check 'Ctrl-C with a message in flight: a msg.in "/stop"' \
	'[ "$(wc -l <"$TMP/stop.out")" = 2 ] && [ "$(text stop 2)" = /stop ]'
check '...for the same session: channel, chat and thread' \
	'[ "$(jq -r "[.type, .channel, .chat, .thread] | join(\" \")" "$TMP/stop.out" | sort -u)" = "msg.in cli room plans" ]'
check '...and the input goes on' \
	'grep -q "tell me a long story" "$TMP/stop.shown" && [ "$(cat "$TMP/stop.shown.modes")" = same ]'

keys idle -r 3 <<'EOT'
wait "> "
keys "hi\r"
records 1
receipt 1
sleep 0.2
keys "\x03"
wait "again to leave"
keys "\x03"
EOT
check 'a Ctrl-C at an idle prompt, then another: exit 0' \
	'[ "$(cat "$TMP/idle.rc")" = 0 ] && [ "$(wc -l <"$TMP/idle.out")" = 1 ]'
check '...the first says to press it again, and sends nothing' \
	'grep -q "^oxi: press Ctrl-C again to leave, or Ctrl-D$" "$TMP/idle.shown"'

keys cancel -r 3 <<'EOT'
wait "> "
keys "slow story\r"
records 1
keys "\x03"
records 2
receipt 1
sleep 0.2
keys "\x03"
EOT
check 'Ctrl-C stops the reply; the next one at the idle prompt leaves' \
	'[ "$(text cancel 2)" = /stop ] && [ "$(wc -l <"$TMP/cancel.out")" = 2 ] &&
	 ! grep -q "again to leave" "$TMP/cancel.shown"'

keys twice <<'EOT'
wait "> "
keys "slow story\r"
records 1
keys "\x03"
records 2
keys "\x03"
EOT
check 'a second Ctrl-C while the stop is answered leaves too' \
	'[ "$(wc -l <"$TMP/twice.out")" = 2 ]'

keys ahead -r 3 <<'EOT'
wait "> "
keys "first\r"
records 1
keys "and then"
wait "and then"
receipt 1
wait "\r\x1b[J> and then"
keys "\r"
records 2
keys "\x04"
EOT
check 'what was typed during a reply is drawn again after the prompt' \
	'[ "$(text ahead 2)" = "and then" ]'

keys first -m /new -t t2 <<'EOT'
records 1
wait "> "
keys "\x03"
records 2
keys "\x04"
EOT
check '-m: the first message goes before any key, in the thread' \
	'[ "$(text first 1)" = /new ] && [ "$(jget "[\"thread\"]" "$TMP/first.out" | sed -n 1p)" = t2 ]'
check '...in flight like a typed one' '[ "$(text first 2)" = /stop ]'

keys long -l 400 <<'EOT'
wait "> "
keys "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\r"
wait "too long"
wait "> "
keys "short\r"
records 1
keys "\x04"
EOT
check 'a message over maxline: exit 1' '[ "$(cat "$TMP/long.rc")" = 1 ]'
check 'one warning on a line of its own, a dead letter, the prompt, the next one flows' \
	'grep -q "^oxi-recv: warning: stdin:1: message too long, line dead-lettered$" "$TMP/long.shown" &&
	 [ "$(wc -l <"$OXI_DEADLETTER")" = 1 ] && [ "$(text long 1)" = short ]'

keys eof <<'EOT'
wait "> "
keys "q\r"
records 1
keys "\x04"
EOT
check 'Ctrl-D ends the input and stops nothing' \
	'[ "$(wc -l <"$TMP/eof.out")" = 1 ] && [ "$(cat "$TMP/eof.shown.modes")" = same ]'

# not a terminal: """ blocks and threads
printf '%s\n' '"""' 'a' '' 'b' '"""' 'after' '"""' '"""' 'last' >"$TMP/in"
check_exit 'piped: exit 0' 0 'oxi-recv -t work cli <"$TMP/in" >"$TMP/piped.out"'
check 'piped: a """ block is one message, an empty one none' \
	'[ "$(wc -l <"$TMP/piped.out")" = 3 ] && [ "$(text piped 1)" = "a

b" ] && [ "$(text piped 2)" = after ] && [ "$(text piped 3)" = last ]'
check '-t: the thread of every record' \
	'[ "$(jget "[\"thread\"]" "$TMP/piped.out" | sort -u)" = work ]'
printf '%s\n' 'one' '"""' 'never closed' >"$TMP/in2"
check_exit 'input ending inside """: exit 0' 0 'oxi-recv cli <"$TMP/in2" >"$TMP/o2"'
check_grep 'the open block is dropped with a warning' \
	'input ended inside """, message dropped' "$TMP/.err"
check_exit '-m with an empty text: exit 100' 100 'oxi-recv -m "" cli </dev/null'
check_exit '-r with a closed fd: exit 100' 100 'oxi-recv -r 7 cli </dev/null'
check_exit '-t with an empty name: exit 100' 100 'oxi-recv -t "" cli </dev/null'
done_testing
