#!/bin/sh
# oxi-guard: --help and the man page agree, usage errors, exit codes
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 22

unset OXI_GUARD_MAX_IN OXI_GUARD_MAX_OUT OXI_SECRETS_FILE OXI_REDACT_ENV
unset OXI_MAXLINE
export OXI_DEADLETTER="$TMP/dead.ndjson"

check_exit '--help: exit 0' 0 'oxi-guard --help'
check_grep '--help prints the usage to stdout' '^usage: oxi-guard ' "$TMP/.out"
check_exit '--version: exit 0' 0 'oxi-guard --version'
check_grep '--version prints the version' '^oxi-guard [0-9]' "$TMP/.out"

if command -v mandoc >/dev/null 2>&1; then
	oxi-guard --help | sed -e '$d' -e 's/^usage: //' -e 's/^ *//' \
	    >"$TMP/usage"
	mandoc -Tascii -O width=1000 "$TOP/man/oxi-guard.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed -e '1d' -e '$d' |
	    sed -e 's/^ *//' -e '/^$/d' >"$TMP/synopsis"
	check_same 'the usage equals the man page SYNOPSIS' \
	    "$TMP/usage" "$TMP/synopsis"
	check 'the man page is clean under mandoc -Tlint' \
	    '! mandoc -Tlint "$TOP/man/oxi-guard.1" 2>&1 |
	     grep -v "referenced manual not found" | grep .'
else
	_result 0 '# SKIP mandoc not installed'
	_result 0 '# SKIP mandoc not installed'
fi

check_exit 'no mode: exit 100' 100 'oxi-guard </dev/null'
check_grep '...with the usage on stderr' '^usage: oxi-guard ' "$TMP/.err"
check_exit 'an unknown mode: exit 100' 100 'oxi-guard sideways </dev/null'
check_exit 'two modes: exit 100' 100 'oxi-guard in out </dev/null'
check_exit 'an unknown option: exit 100' 100 'oxi-guard -x in </dev/null'
check_exit '-a with out: exit 100' 100 'oxi-guard -a "*" out </dev/null'
check_exit '-s with in: exit 100' 100 'oxi-guard -s /dev/null in </dev/null'
check_exit 'a bad -m: exit 100' 100 'oxi-guard -a "*" -m lots in </dev/null'
check_exit 'a bad OXI_GUARD_MAX_OUT: exit 100' 100 \
	'OXI_GUARD_MAX_OUT=-1 oxi-guard out </dev/null'
check_exit 'an unreadable secrets file: exit 100' 100 \
	'oxi-guard -s "$TMP/none" out </dev/null'
mkdir -p "$OXI_CONFIG_DIR/allow"
check_exit 'an unreadable allow file: exit 100' 100 'oxi-guard in </dev/null'
rmdir "$OXI_CONFIG_DIR/allow"

# (a message that already says its trust passes byte for byte)
msg='{"v":1,"type":"msg.in","id":"m1","channel":"cli","chat":"c","from":"u","text":"hi","trust":"owner"}'
check_exit 'stdout unwritable: exit 111' 111 \
	"echo '$msg' | oxi-guard -a '*' in >/dev/full"

check 'the subcommand first, its options after' \
	"[ \"\$(echo '$msg' | oxi-guard in -a 'cli:u')\" = '$msg' ]"
check_exit 'an option of out after in: exit 100' 100 \
	'oxi-guard in -s /dev/null </dev/null'

long=$(printf '%0300d' 0)
{
	echo "$msg"
	printf '{"type":"x.custom","pad":"%s"}\n' "$long"
	echo "$msg"
} >"$TMP/long"
check_exit '-l: a longer line is rejected, exit 1' 1 \
	'oxi-guard -a "*" -l 200 in <"$TMP/long" >"$TMP/lout" 2>"$TMP/lerr"'
check 'one warning and one dead letter, the rest flows' \
	'[ "$(wc -l <"$TMP/lerr")" = 1 ] && [ "$(wc -l <"$OXI_DEADLETTER")" = 1 ] &&
	 [ "$(wc -l <"$TMP/lout")" = 2 ]'
