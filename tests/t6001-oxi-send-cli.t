#!/bin/sh
# oxi-send cli: replies printed, drafts live, terminals kept safe
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 71

unset OXI_MAXLINE
export OXI_DEADLETTER="$TMP/dead.ndjson"

# rec TYPE ID TEXT [CHANNEL]: one record on stdout
rec() {
	printf '{"v":1,"type":"%s","id":"%s","in_reply_to":"cli:X","channel":"%s","account":"local","chat":"alice","thread":null,"text":"%s","format":"markdown"}\n' \
	    "$1" "$2" "${4:-cli}" "$3"
}

# --help, --version, usage errors
check_exit '--help: exit 0' 0 'oxi-send --help'
check_grep '--help prints the usage on stdout' \
	'^usage: oxi-send \[-Dv\] \[-a account\] \[-d fd\] \[-e fd\] \[-l maxline\] \[-r fd\] channel$' "$TMP/.out"
check_exit '--version: exit 0' 0 'oxi-send --version'
check_grep '--version prints the version' '^oxi-send [0-9]' "$TMP/.out"
if command -v mandoc >/dev/null 2>&1; then
	oxi-send --help | sed -e '$d' -e 's/^usage: //' -e 's/^ *//' >"$TMP/usage"
	mandoc -Tascii -O width=1000 "$TOP/man/oxi-send.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed -e '1d' -e '$d' |
	    sed -e 's/^ *//' -e '/^$/d' >"$TMP/synopsis"
	check_same 'the usage equals the man page SYNOPSIS' \
	    "$TMP/usage" "$TMP/synopsis"
else
	_result 0 '# SKIP mandoc not installed'
fi
check_exit 'no channel: exit 100' 100 'oxi-send </dev/null'
check_grep '...with the usage on stderr' '^usage: oxi-send ' "$TMP/.err"
check_exit 'an unknown channel: exit 100' 100 'oxi-send irc </dev/null'
check_grep '...naming the known channels' \
	"^oxi-send: fatal: unknown channel 'irc' \(known: cli, telegram, slack, discord\)$" "$TMP/.err"
check_exit 'an unknown option: exit 100' 100 'oxi-send -x cli </dev/null'
check_exit 'a bad -l: exit 100' 100 'oxi-send -l -5 cli </dev/null'
check_exit '-r with a descriptor that is not open: exit 100' 100 \
	'oxi-send -r 7 cli </dev/null 7>&-'

# msg.out
{
	rec msg.out r1 'Hello there'
	rec msg.out r2 'two\nlines'
	rec msg.out r3 'ends with a newline\n'
	rec msg.out r4 ''
	rec msg.out r5 'tab\there, unicode \u00e9\u2713'
} >"$TMP/outs"
check_exit 'replies: exit 0' 0 'oxi-send cli <"$TMP/outs" >"$TMP/o1"'
printf 'Hello there\ntwo\nlines\nends with a newline\ntab\there, unicode \303\251\342\234\223\n' >"$TMP/e1"
check_same 'each text then a newline, none added after one' "$TMP/o1" "$TMP/e1"
check 'nothing on stderr' '[ ! -s "$TMP/.err" ]'
printf '%s\n' '{"type":"msg.out","channel":"cli","chat":"me","text":"hi"}' |
	oxi-send cli >"$TMP/o1b"
check 'a bare msg.out without id or v is shown' '[ "$(cat "$TMP/o1b")" = hi ]'

# drafts
{
	rec msg.draft r1 'Hel'
	rec msg.draft r1 'Hello'
	printf '%s\n' '{"v":1,"type":"typing","channel":"cli","chat":"alice"}'
	rec msg.out r1 'Hello world'
} >"$TMP/drafts"
oxi-send cli <"$TMP/drafts" >"$TMP/o2"
printf 'Hello world\n' >"$TMP/e2"
check_same 'not a terminal: drafts ignored, the reply alone' "$TMP/o2" "$TMP/e2"
oxi-send -D cli <"$TMP/drafts" >"$TMP/o3"
check_same '-D: drafts grow in place, the reply ends them: exactly "Hello world"' \
	"$TMP/o3" "$TMP/e2"
rec msg.draft r1 'Hel' | oxi-send -D cli >"$TMP/o3b"
check '-D: a draft alone is shown, its line ended at the end' \
	'[ "$(od -An -c "$TMP/o3b" | tr -d " ")" = "Hel\\n" ]'
{
	rec msg.draft r1 'Hello'
	rec msg.draft r1 'Help'
	rec msg.out r1 'Help me'
} | oxi-send -D cli >"$TMP/o4"
printf 'Hello\nHelp me\n' >"$TMP/e4"
check_same '-D: a draft that is not an extension starts a new line' "$TMP/o4" "$TMP/e4"
{
	rec msg.draft r1 'First'
	rec msg.draft r2 'Second'
	rec msg.out r2 'Second reply'
	rec msg.out r1 'First reply'
} | oxi-send -D cli >"$TMP/o5"
printf 'First\nSecond reply\nFirst reply\n' >"$TMP/e5"
check_same '-D: drafts of two replies do not mix' "$TMP/o5" "$TMP/e5"
{
	rec msg.draft r1 'line one\n'
	rec msg.draft r1 'line one\nline two'
	rec msg.out r1 'line one\nline two\n'
} | oxi-send -D cli >"$TMP/o6"
printf 'line one\nline two\n' >"$TMP/e6"
check_same '-D: multi-line drafts' "$TMP/o6" "$TMP/e6"

# status lines: dim, replaced by what follows; ignored off a terminal
{
	rec msg.draft r1 'Hello'
	rec status s1 'read_file a'
	rec status s2 'shell ls\u001b[2J\nrm'
	rec msg.draft r1 'Hello\n\nMore'
	rec msg.out r1 'Hello\n\nMore done'
} >"$TMP/st"
oxi-send cli <"$TMP/st" >"$TMP/o6s"
printf 'Hello\n\nMore done\n' >"$TMP/e6s"
check_same 'status: ignored off a terminal, the reply alone' "$TMP/o6s" "$TMP/e6s"
check_exit '-D: status records: exit 0' 0 'oxi-send -D cli <"$TMP/st" >"$TMP/o6t"'
printf 'Hello\n\033[2mread_file a\033[0m\r\033[K\033[2mshell ls^[[2J rm\033[0m\r\033[K\nMore done\n' >"$TMP/e6t"
check_same '-D: a dim line (SGR 2) each, on a line of its own, erased by the next and by the draft, cleaned' \
	"$TMP/o6t" "$TMP/e6t"
check '...leaving on screen what the reply alone would' \
	'[ "$(sed "s/.*\[K//" "$TMP/o6t")" = "$(cat "$TMP/e6s")" ]'
{
	rec status s1 'x'
	rec status s2 'for telegram' telegram
} | oxi-send -D cli >"$TMP/o6u"
check '-D: a status left at the end is erased; another channel'"'"'s ignored' \
	'[ "$(od -An -c "$TMP/o6u" | tr -d " \n")" = "033[2mx033[0m\r033[K" ]'
{
	rec status s1 'x'
	rec msg.out r9 'reply'
} | oxi-send -D cli >"$TMP/o6v"
check '-D: a reply of its own replaces the status line' \
	'[ "$(od -An -c "$TMP/o6v" | tr -d " \n")" = "033[2mx033[0m\r033[Kreply\n" ]'
printf '%s\n' '{"v":1,"type":"status","channel":"cli","chat":"alice"}' >"$TMP/st2"
check_exit '-D: a status without text: exit 1' 1 \
	'OXI_DEADLETTER="$TMP/dead.st" oxi-send -D cli <"$TMP/st2"'
check_exit '...and ignored without -D off a terminal: exit 0' 0 'oxi-send cli <"$TMP/st2"'

# control characters never reach the output raw
{
	rec msg.out r1 'red \u001b[31mALERT\u001b[0m \u001b]0;pwned\u0007'
	rec msg.out r2 'csi \u009b2J del \u007f bs \b cr\r\nnext'
	rec msg.draft r3 '\u001b[2J'
	rec msg.out r3 '\u001b[2Jdone'
} >"$TMP/esc"
oxi-send -D cli <"$TMP/esc" >"$TMP/o7"
check 'no ESC, BEL, BS, DEL, CR or C1 byte reaches the output' \
	'! LC_ALL=C grep -q "$(printf "[\033\007\010\177\r]\|\302[\200-\237]")" "$TMP/o7"'
printf 'red ^[[31mALERT^[[0m ^[]0;pwned^G\ncsi ^[[2J del ^? bs ^H cr\nnext\n^[[2Jdone\n' >"$TMP/e7"
check_same '...they are shown in caret notation' "$TMP/o7" "$TMP/e7"

# error records
printf '%s\n' '{"v":1,"type":"error","ref":"m1","code":"llm_unavailable","message":"the model is \u001b[5mdown\nnow","retryable":true,"channel":"cli","chat":"alice"}' \
	'{"v":1,"type":"error","ref":"m2","code":"llm_timeout","message":"no answer","retryable":true}' \
	'{"v":1,"type":"error","code":"x","message":"for someone else","channel":"slack","chat":"C1"}' >"$TMP/errs"
check_exit 'error records and no reply: exit 1' 1 'oxi-send cli <"$TMP/errs" >"$TMP/o8" 2>"$TMP/e8"'
check_lines 'one stderr line each, for this channel or none' 2 "$TMP/e8"
check_grep '...oxi-send: warning: <code>: <message>, on one line, cleaned' \
	'^oxi-send: warning: llm_unavailable: the model is \^\[\[5mdown now$' "$TMP/e8"
check 'not a terminal: nothing on stdout' '[ ! -s "$TMP/o8" ]'

# approval.ask
printf '%s\n' '{"v":1,"type":"approval.ask","id":"a1","ref":"c1","channel":"cli","chat":"alice","text":"Run '"'rm -rf old'"' in the workspace?","choices":["once","always","deny"],"expires":"2030-01-01T00:00:00Z"}' |
	oxi-send cli >"$TMP/o9"
check 'approval.ask: the question and its keys on one line' \
	'[ "$(cat "$TMP/o9")" = "Run '"'rm -rf old'"' in the workspace? [y] once  [a] always  [n] no" ]'

# other types and other channels are ignored
{
	printf '%s\n' '{"v":1,"type":"msg.in","id":"cli:1","channel":"cli","chat":"alice","text":"from the user"}'
	printf '%s\n' '{"v":1,"type":"llm.delta","id":"r","text":"zz"}'
	printf '%s\n' '{"type":"x.custom","a":1}'
	rec msg.out t1 'for telegram' telegram
	rec msg.draft t1 'for telegram' telegram
	rec msg.out r1 'mine'
} >"$TMP/other"
check_exit 'records not for this terminal: exit 0' 0 \
	'oxi-send -D cli <"$TMP/other" >"$TMP/o10"'
check 'they are ignored, silently' \
	'[ "$(cat "$TMP/o10")" = mine ] && [ ! -s "$TMP/.err" ]'
check '-v: one debug line each' \
	'oxi-send -v cli <"$TMP/other" 2>&1 >/dev/null | grep -c "^oxi-send: debug: .*ignored" | grep -qx 5'

# receipts
{
	rec msg.out r1 'one'
	rec msg.draft r2 'tw'
	rec msg.out r2 'two'
	printf '%s\n' '{"type":"msg.out","channel":"cli","chat":"me","text":"no id"}'
	rec msg.out t1 'not mine' telegram
} >"$TMP/rc"
check_exit '-r: exit 0' 0 'oxi-send -r 3 cli <"$TMP/rc" >"$TMP/o11" 3>"$TMP/receipts"'
check_lines 'one receipt per msg.out with an id delivered' 2 "$TMP/receipts"
check 'receipts: ref, channel, platform_id cli:<ULID>, ok' \
	'[ "$(jget "[\"type\"]" "$TMP/receipts" | sort -u)" = receipt ] &&
	 [ "$(jget "[\"ref\"]" "$TMP/receipts" | tr "\n" " ")" = "r1 r2 " ] &&
	 [ "$(jget "[\"ok\"]" "$TMP/receipts" | sort -u)" = true ] &&
	 [ "$(jget "[\"channel\"]" "$TMP/receipts" | sort -u)" = cli ] &&
	 [ "$(jget "[\"platform_id\"]" "$TMP/receipts" | grep -c "^cli:[0-9A-Z]\{26\}$")" = 2 ] &&
	 [ "$(jget "[\"platform_id\"]" "$TMP/receipts" | sort -u | wc -l)" = 2 ]'
check 'receipts: in_reply_to, the message the reply answers' \
	'[ "$(jget "[\"in_reply_to\"]" "$TMP/receipts" | sort -u)" = cli:X ]'
{
	rec msg.out r1 'one'
	printf '%s\n' '{"v":1,"type":"error","ref":"cli:M2","code":"auth","message":"bad key","channel":"cli","chat":"alice"}'
	printf '%s\n' '{"v":1,"type":"error","code":"x","message":"no ref"}'
} >"$TMP/rce"
oxi-send -r 3 cli <"$TMP/rce" >/dev/null 2>&1 3>"$TMP/receipts2"
check 'an error shown with a ref gets a receipt: ref and in_reply_to its ref' \
	'[ "$(jget "[\"ref\"]" "$TMP/receipts2" | tr "\n" " ")" = "r1 cli:M2 " ] &&
	 [ "$(jget "[\"in_reply_to\"]" "$TMP/receipts2" | tr "\n" " ")" = "cli:X cli:M2 " ]'
check 'a reply and an error: exit 0' \
	'oxi-send cli <"$TMP/rce" >/dev/null 2>&1'
{
	sleep 0.5
	rec msg.out r1 'one'
	rec msg.out r2 'two'
} | { oxi-send -r 3 cli 3>&1 >"$TMP/o11b" 2>"$TMP/e11b"; echo $? >"$TMP/rc11b"; } | true
check 'the reader of receipts gone: the replies still shown, exit 0' \
	'[ "$(cat "$TMP/rc11b")" = 0 ] && [ "$(cat "$TMP/o11b")" = "one
two" ] && [ ! -s "$TMP/e11b" ]'

# the other stages' diagnostics (-e)
printf 'oxi-guard: warning: one\noxi-loop: warning: \033[2Jtwo\nno newline' >"$TMP/diag"
rec msg.out r1 'hi' >"$TMP/dg"
check_exit '-e: exit 0' 0 'oxi-send -e 4 cli <"$TMP/dg" 4<"$TMP/diag" >"$TMP/o14" 2>"$TMP/e14"'
printf 'oxi-guard: warning: one\noxi-loop: warning: ^[[2Jtwo\nno newline\n' >"$TMP/e14.exp"
check_same '...each line on stderr, cleaned, the last one too' "$TMP/e14" "$TMP/e14.exp"
check '...the replies on stdout' '[ "$(cat "$TMP/o14")" = hi ]'
check_exit '-e with a closed fd: exit 100' 100 'oxi-send -e 7 cli </dev/null'

# malformed input: one stderr line, one dead letter, the rest flows
{
	rec msg.out r1 'before'
	echo '{not json'
	printf '%s\n' '{"v":1,"type":"msg.out","id":"bad1","channel":"cli","chat":"alice"}'
	printf '%s\n' '{"v":1,"type":"msg.draft","channel":"cli","chat":"alice","text":"no id"}'
	printf '%s\n' '{"v":1,"type":"msg.out","id":"bad2","channel":"cli","chat":"alice","text":42}'
	rec msg.out r2 'after'
} >"$TMP/bad"
check_exit 'malformed records: exit 1' 1 \
	'oxi-send -D -r 3 cli <"$TMP/bad" >"$TMP/o12" 2>"$TMP/e12" 3>"$TMP/r12"'
check 'the good replies around them are still printed' \
	'[ "$(cat "$TMP/o12")" = "before
after" ]'
check_lines 'one stderr line per bad line' 4 "$TMP/e12"
check_grep '...invalid JSON, with its line number' \
	'^oxi-send: warning: stdin:2: invalid JSON.*dead-lettered$' "$TMP/e12"
check_grep '...a missing text' \
	'^oxi-send: warning: stdin:3: msg.out record needs "text" \(a string\), record dead-lettered$' "$TMP/e12"
check_grep '...a draft without id' \
	'^oxi-send: warning: stdin:4: msg.draft record needs "id" \(a string\), record dead-lettered$' "$TMP/e12"
check 'one dead letter per bad line, from oxi-send' \
	'[ "$(wc -l <"$OXI_DEADLETTER")" = 4 ] &&
	 [ "$(grep -c "\"prog\":\"oxi-send\"" "$OXI_DEADLETTER")" = 4 ]'
check 'a rejected msg.out with an id gets a receipt with ok false' \
	'[ "$(jget "[\"ref\"]" "$TMP/r12" | tr "\n" " ")" = "r1 bad1 bad2 r2 " ] &&
	 [ "$(jget "[\"ok\"]" "$TMP/r12" | tr "\n" " ")" = "true false false true " ]'

rm -f "$OXI_DEADLETTER"
{
	rec msg.out r1 'short'
	rec msg.out r2 "$(printf '%0300d' 0)"
	rec msg.out r3 'short too'
} >"$TMP/long"
check_exit '-l: a longer line is rejected, exit 1' 1 \
	'oxi-send -l 250 cli <"$TMP/long" >"$TMP/o13" 2>"$TMP/e13"'
check 'one warning and one dead letter, the rest flows' \
	'[ "$(wc -l <"$TMP/e13")" = 1 ] && [ "$(wc -l <"$OXI_DEADLETTER")" = 1 ] &&
	 [ "$(cat "$TMP/o13")" = "short
short too" ]'

# readiness, I/O errors, SIGTERM
check 'readiness: a newline on -d fd' \
	'oxi-send -d 3 cli </dev/null 3>"$TMP/ready" && [ "$(od -An -c "$TMP/ready" | tr -d " ")" = "\\n" ]'
check_exit 'stdout unwritable: exit 111' 111 \
	'rec msg.out r1 hi | oxi-send cli >/dev/full'
check_exit 'receipt fd unwritable: exit 111' 111 \
	'rec msg.out r1 hi | oxi-send -r 3 cli >/dev/null 3>/dev/full'

mkfifo "$TMP/fifo"
oxi-send cli <"$TMP/fifo" >"$TMP/tout" 2>"$TMP/terr" &
pid=$!
exec 5>"$TMP/fifo"
rec msg.out r1 first >&5
i=0
while [ ! -s "$TMP/tout" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid
wait $pid
rc=$?
exec 5>&-
check 'SIGTERM: exit 0 after the record in hand' \
	'[ $rc = 0 ] && [ "$(cat "$TMP/tout")" = first ] && [ ! -s "$TMP/terr" ]'

# on a terminal: drafts live, prompts, visible errors
cat >"$TMP/ttyrun.py" <<'EOT'
import os, pty, subprocess, sys
# ttyrun.py IN OUT ERR CMD...: stdout (and stderr if ERR is "tty") on a
# pseudo-terminal; what the terminal got goes to OUT, with CR LF as LF
m, s = pty.openpty()
err = s if sys.argv[3] == "tty" else open(sys.argv[3], "wb")
p = subprocess.Popen(sys.argv[4:], stdin=open(sys.argv[1], "rb"), stdout=s,
    stderr=err)
os.close(s)
data = b""
while True:
	try:
		chunk = os.read(m, 4096)
	except OSError:
		break
	if not chunk:
		break
	data += chunk
open(sys.argv[2], "wb").write(data.replace(b"\r\n", b"\n"))
sys.exit(p.wait())
EOT
{
	rec msg.draft r1 'Hel'
	rec msg.draft r1 'Hello'
	rec msg.out r1 'Hello world'
	printf '%s\n' '{"v":1,"type":"error","ref":"m2","code":"llm_timeout","message":"no answer"}'
	rec msg.out r2 'Bye \u001b[2J'
} >"$TMP/tty.in"
check_exit 'on a terminal: exit 0' 0 \
	'with_timeout 20 python3 "$TMP/ttyrun.py" "$TMP/tty.in" "$TMP/tty.out" "$TMP/tty.err" oxi-send cli'
printf '\r\033[KHello world\n> \r\033[Koxi: error: no answer\n> \r\033[KBye ^[[2J\n> \r\033[K' >"$TMP/tty.exp"
check_same '...drafts live, a prompt after each reply, erased before the next' \
	"$TMP/tty.out" "$TMP/tty.exp"
{
	rec msg.draft r1 'Let me look'
	rec status s1 'read_file notes.txt'
	rec msg.out r1 'Let me look\n\nFound it'
} >"$TMP/tty3.in"
with_timeout 20 python3 "$TMP/ttyrun.py" "$TMP/tty3.in" "$TMP/tty3.out" "$TMP/tty3.err" oxi-send cli
printf '\r\033[KLet me look\n\033[2mread_file notes.txt\033[0m\r\033[K\nFound it\n> \r\033[K' >"$TMP/tty3.exp"
check_same 'on a terminal: a status line is dim and the reply replaces it' \
	"$TMP/tty3.out" "$TMP/tty3.exp"
check_grep '...the error on stderr too' '^oxi-send: warning: llm_timeout: no answer$' "$TMP/tty.err"
with_timeout 20 python3 "$TMP/ttyrun.py" "$TMP/tty.in" "$TMP/tty2.out" tty oxi-send cli
printf '\r\033[KHello world\n> \r\033[Koxi-send: warning: llm_timeout: no answer\n> \r\033[KBye ^[[2J\n> \r\033[K' >"$TMP/tty2.exp"
check_same 'stderr on the same terminal: the warning line only' \
	"$TMP/tty2.out" "$TMP/tty2.exp"
mkfifo "$TMP/dfifo" "$TMP/sfifo"
{ sleep 0.5; echo 'oxi-guard: warning: late'; } >"$TMP/dfifo" &
{ rec msg.out r1 'hi'; sleep 1.5; } >"$TMP/sfifo" &
with_timeout 20 python3 "$TMP/ttyrun.py" "$TMP/sfifo" "$TMP/tty4.out" tty \
    sh -c 'exec oxi-send -e 4 cli 4<"$1"' sh "$TMP/dfifo"
printf '\r\033[Khi\n> \r\033[Koxi-guard: warning: late\n> \r\033[K' >"$TMP/tty4.exp"
check_same 'on a terminal, a diagnostic of another stage: the prompt again after it' \
	"$TMP/tty4.out" "$TMP/tty4.exp"
done_testing
