#!/bin/sh
# oxi-recv cli: lines of stdin become msg.in records
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 41

unset OXI_MAXLINE
export OXI_DEADLETTER="$TMP/dead.ndjson"
export USER=alice LOGNAME=alice-login

# the records with their id and ts made constant, keys sorted
shape() {
	sed -e 's/"id":"cli:[0-9A-HJKMNP-TV-Z]\{26\}"/"id":"ID"/' \
	    -e 's/"ts":"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]\{3\}Z"/"ts":"TS"/' \
	    "$1" >"$1.shape"
}

# --help, --version, usage errors
check_exit '--help: exit 0' 0 'oxi-recv --help'
check_grep '--help prints the usage on stdout' \
	'^usage: oxi-recv \[-v\] \[-a account\] \[-d fd\] \[-l maxline\] \[-c chat\] \[-t thread\] \[-u user\] \[-m text\] \[-r fd\] \[-w \[addr:\]port\] channel$' "$TMP/.out"
check_exit '--version: exit 0' 0 'oxi-recv --version'
check_grep '--version prints the version' '^oxi-recv [0-9]' "$TMP/.out"
if command -v mandoc >/dev/null 2>&1; then
	oxi-recv --help | sed -e '$d' -e 's/^usage: //' -e 's/^ *//' >"$TMP/usage"
	mandoc -Tascii -O width=1000 "$TOP/man/oxi-recv.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed -e '1d' -e '$d' |
	    sed -e 's/^ *//' -e '/^$/d' >"$TMP/synopsis"
	check_same 'the usage equals the man page SYNOPSIS' \
	    "$TMP/usage" "$TMP/synopsis"
else
	_result 0 '# SKIP mandoc not installed'
fi
check_exit 'no channel: exit 100' 100 'oxi-recv </dev/null'
check_grep '...with the usage on stderr' '^usage: oxi-recv ' "$TMP/.err"
check_exit 'an unknown channel: exit 100' 100 'oxi-recv telegrom </dev/null'
check_grep '...naming the known channels' \
	"^oxi-recv: fatal: unknown channel 'telegrom' \(known: cli, telegram, slack, discord\)$" "$TMP/.err"
check_exit 'two channels: exit 100' 100 'oxi-recv cli cli </dev/null'
check_exit 'an unknown option: exit 100' 100 'oxi-recv -x cli </dev/null'
check_exit 'a bad -l: exit 100' 100 'oxi-recv -l lots cli </dev/null'
check_exit 'an empty -c: exit 100' 100 'oxi-recv -c "" cli </dev/null'

# lines to records
printf 'hello\n\n   \t\nsecond line\r\nlast, no newline' >"$TMP/in"
check_exit 'three messages: exit 0' 0 'oxi-recv cli <"$TMP/in" >"$TMP/out"'
check_lines 'empty and blank lines are skipped' 3 "$TMP/out"
check 'nothing on stderr' '[ ! -s "$TMP/.err" ]'
shape "$TMP/out"
cat >"$TMP/expect" <<'EOT'
{"v":1,"type":"msg.in","id":"ID","channel":"cli","account":"local","chat":"alice","thread":null,"from":"alice","from_name":"alice","text":"hello","ts":"TS","reply_to":null,"attachments":[],"trust":"user"}
{"v":1,"type":"msg.in","id":"ID","channel":"cli","account":"local","chat":"alice","thread":null,"from":"alice","from_name":"alice","text":"second line","ts":"TS","reply_to":null,"attachments":[],"trust":"user"}
{"v":1,"type":"msg.in","id":"ID","channel":"cli","account":"local","chat":"alice","thread":null,"from":"alice","from_name":"alice","text":"last, no newline","ts":"TS","reply_to":null,"attachments":[],"trust":"user"}
EOT
check_json 'each record has the msg.in keys; CR dropped; last line kept' \
	"$TMP/out.shape" "$TMP/expect"
check 'ids are cli:<ULID>, one per record, all different' \
	'[ "$(grep -c "\"id\":\"cli:[0-9A-Z]\{26\}\"" "$TMP/out")" = 3 ] &&
	 [ "$(jget "[\"id\"]" "$TMP/out" | sort -u | wc -l)" = 3 ]'
check 'ids sort in arrival order' \
	'jget "[\"id\"]" "$TMP/out" >"$TMP/ids" && sort "$TMP/ids" | cmp -s - "$TMP/ids"'
check 'ts is RFC 3339 UTC' \
	'[ "$(grep -c "\"ts\":\"20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]\{8\}\.[0-9]\{3\}Z\"" "$TMP/out")" = 3 ]'

printf '  keep  my spacing\t\n' | oxi-recv cli >"$TMP/sp"
check 'inner and outer spaces of a line are kept' \
	'[ "$(jget "[\"text\"]" "$TMP/sp")" = "  keep  my spacing	" ]'
printf 'caf\351 \342\202\n' | oxi-recv cli >"$TMP/utf"
check 'invalid UTF-8 becomes U+FFFD' \
	'[ "$(jget "[\"text\"]" "$TMP/utf")" = "caf� �" ]'
printf 'a \033[31m b\n' | oxi-recv cli >"$TMP/esc"
check 'control characters are escaped in the JSON' \
	'grep -q "a \\\\u001b\[31m b" "$TMP/esc"'

# -c and -u, and the defaults
echo hi | oxi-recv -c room1 -u bob cli >"$TMP/cu"
check '-c sets chat, -u sets from and from_name' \
	'[ "$(jget "[\"chat\"]" "$TMP/cu")" = room1 ] &&
	 [ "$(jget "[\"from\"]" "$TMP/cu")" = bob ] &&
	 [ "$(jget "[\"from_name\"]" "$TMP/cu")" = bob ]'
echo hi | env -u USER oxi-recv cli >"$TMP/ln"
check 'without USER: LOGNAME' \
	'[ "$(jget "[\"chat\"]" "$TMP/ln")" = alice-login ] &&
	 [ "$(jget "[\"from\"]" "$TMP/ln")" = alice-login ]'
echo hi | env -u USER -u LOGNAME oxi-recv cli >"$TMP/lo"
check 'without USER and LOGNAME: "local"' \
	'[ "$(jget "[\"chat\"]" "$TMP/lo")" = local ] &&
	 [ "$(jget "[\"from\"]" "$TMP/lo")" = local ]'

# over-long lines: one warning, one dead letter, the next line flows
{
	echo before
	printf '%0400d\n' 0
	echo after
} >"$TMP/long"
check_exit 'a line over -l: exit 1' 1 \
	'oxi-recv -l 300 cli <"$TMP/long" >"$TMP/lout" 2>"$TMP/lerr"'
check 'the lines around it still flow' \
	'[ "$(jget "[\"text\"]" "$TMP/lout" | tr "\n" " ")" = "before after " ]'
check_lines 'exactly one stderr line' 1 "$TMP/lerr"
check_grep '...a warning naming the line' \
	'^oxi-recv: warning: stdin:2: line too long, line dead-lettered$' "$TMP/lerr"
check 'exactly one dead letter, from oxi-recv' \
	'[ "$(wc -l <"$OXI_DEADLETTER")" = 1 ] &&
	 grep -q "\"prog\":\"oxi-recv\".*\"reason\":\"line too long\"" "$OXI_DEADLETTER"'

rm -f "$OXI_DEADLETTER"
python3 -c 'import sys; sys.stdout.write("one\n" + "x" * 300000 + "\n" + "y" * 300000 + "\ntwo\n")' >"$TMP/huge"
check_exit 'lines longer than a read, over -l: exit 1' 1 \
	'oxi-recv -l 100k cli <"$TMP/huge" >"$TMP/hout" 2>"$TMP/herr"'
check 'one warning and one dead letter each, the rest flows' \
	'[ "$(wc -l <"$TMP/herr")" = 2 ] && [ "$(wc -l <"$OXI_DEADLETTER")" = 2 ] &&
	 [ "$(jget "[\"text\"]" "$TMP/hout" | tr "\n" " ")" = "one two " ]'

rm -f "$OXI_DEADLETTER"
printf 'ok\n\001\001\001\001\001\001\001\001\001\001\n' >"$TMP/esclong"
check_exit 'a line whose record would pass -l: rejected, exit 1' 1 \
	'oxi-recv -l 260 cli <"$TMP/esclong" >"$TMP/eout" 2>"$TMP/eerr"'
check 'one warning, one dead letter, the short line flows' \
	'grep -q "stdin:2: record too long" "$TMP/eerr" && [ "$(wc -l <"$TMP/eerr")" = 1 ] &&
	 [ "$(wc -l <"$OXI_DEADLETTER")" = 1 ] && [ "$(jget "[\"text\"]" "$TMP/eout")" = ok ]'

# readiness, I/O errors, SIGTERM
check 'readiness: a newline on -d fd' \
	'oxi-recv -d 3 cli </dev/null 3>"$TMP/ready" && [ "$(od -An -c "$TMP/ready" | tr -d " ")" = "\\n" ]'
check_exit 'stdout unwritable: exit 111' 111 'echo hi | oxi-recv cli >/dev/full'

mkfifo "$TMP/fifo"
oxi-recv cli <"$TMP/fifo" >"$TMP/tout" 2>"$TMP/terr" &
pid=$!
exec 5>"$TMP/fifo"
echo first >&5
i=0
while [ ! -s "$TMP/tout" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
printf 'half a li' >&5
kill -TERM $pid
wait $pid
rc=$?
exec 5>&-
check 'SIGTERM: exit 0 after the line in hand' \
	'[ $rc = 0 ] && [ "$(jget "[\"text\"]" "$TMP/tout")" = first ] && [ ! -s "$TMP/terr" ]'

# the hint, on a terminal only, never on stdout
cat >"$TMP/keys" <<'EOT'
wait "> "
keys "hello from a tty\r"
records 1
keys "\x04"
EOT
check 'on a terminal: the hint and a prompt on stderr, exit 0' \
	'with_timeout 30 python3 ptykeys.py "$TMP/ttyout" "$TMP/tty" "$TMP/keys" oxi-recv cli &&
	 grep -q "oxi: type a message (.*), Ctrl-C stops a reply, Ctrl-D to quit" "$TMP/tty" && grep -q "^> " "$TMP/tty"'
check 'the typed line is a record; stdout holds nothing else' \
	'[ "$(wc -l <"$TMP/ttyout")" = 1 ] && [ "$(jget "[\"text\"]" "$TMP/ttyout")" = "hello from a tty" ]'
echo hi | oxi-recv cli >/dev/null 2>"$TMP/nohint"
check 'no hint when stdin is not a terminal' '[ ! -s "$TMP/nohint" ]'
done_testing
