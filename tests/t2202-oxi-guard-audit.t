#!/bin/sh
# oxi-guard audit verify: a whole chain, and each kind of tampering named
# by its line; fail closed: a reader that goes away ends each guard with
# 111, not SIGPIPE
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 21

export OXI_DEADLETTER="$TMP/dead.ndjson"
WS=$TMP/ws
mkdir -p "$WS"
calls() {	# calls N: N tool.call records
	_i=0
	while [ $_i -lt "$1" ]; do
		_i=$((_i + 1))
		printf '{"v":1,"type":"tool.call","id":"c%d","name":"list_dir","args":{},"taint":["owner:cli"]}\n' $_i
	done
}

check_exit 'no subcommand: exit 100' 100 'oxi-guard audit </dev/null'
check_exit 'two files: exit 100' 100 'oxi-guard audit verify a b </dev/null'
check_exit 'no log yet: exit 100' 100 'oxi-guard audit verify'
check_grep '...saying it cannot read it' "unable to read audit log '.*audit.log'" \
	"$TMP/.err"

calls 6 | oxi-guard tool -- oxi-tool -w "$WS" >/dev/null 2>&1
L=$OXI_HOME/audit.log
check 'the log is in the state directory by default, mode 0600' \
	'[ "$(wc -l <"$L")" = 6 ] && [ "$(stat -c %a "$L")" = 600 ]'
check_exit 'a whole chain: exit 0' 0 'oxi-guard audit verify'
check_grep '...saying so' "audit.log: 6 entries, the chain is whole$" "$TMP/.out"
cp "$L" "$TMP/orig"
cp "$L.head" "$TMP/orig.head"
verify() {	# verify: exit status 1 expected, the problems in $TMP/v.err
	oxi-guard audit verify "$L" >"$TMP/v.out" 2>"$TMP/v.err"
	[ $? = 1 ]
}

sed -i '3s/"c3"/"c9"/' "$L"
check 'an edited entry: exit 1' verify
check_grep '...named by line and seq' 'line 3: seq 3: edited' "$TMP/v.err"
check_grep 'and counted' ': 6 entries, 1 problem$' "$TMP/v.out"

cp "$TMP/orig" "$L"
sed -i '4d' "$L"
check 'a removed entry: exit 1' verify
check_grep '...named' 'line 4: entry seq 4 removed before it' "$TMP/v.err"

cp "$TMP/orig" "$L"
awk 'NR == 2 { h = $0; next } NR == 3 { print; print h; next } { print }' "$TMP/orig" >"$L"
check 'two entries swapped: exit 1' verify
check_grep '...found out of order' 'line 3: seq 2 after seq 3: out of order' \
	"$TMP/v.err"

sed -n '1,4p' "$TMP/orig" >"$L"
check 'the end cut off: exit 1' verify
check_grep '...found by the head' 'entries seq 5 to 6 removed from the end' \
	"$TMP/v.err"

cp "$TMP/orig" "$L"
check_exit 'put back: whole again' 0 'oxi-guard audit verify "$L"'

# fail closed: a reader gone is exit 111, for each filter
msg='{"v":1,"type":"msg.in","id":"m1","channel":"cli","chat":"c","from":"u","text":"hi"}'
out='{"v":1,"type":"msg.out","id":"o1","channel":"cli","chat":"c","text":"hi"}'
gone() {	# gone CMD...: the exit status of CMD once its reader left
	{ sleep 0.5; echo "$msg"; echo "$out"; calls 1; } |
	    { "$@" 2>/dev/null; echo $? >"$TMP/rc"; } | true
	cat "$TMP/rc"
}
check 'oxi-guard in: a reader that went away: exit 111' \
	'[ "$(gone oxi-guard in -a "*")" = 111 ]'
check 'oxi-guard out: exit 111' '[ "$(gone oxi-guard out)" = 111 ]'
check 'oxi-guard tool: exit 111' \
	'[ "$(gone oxi-guard tool -- oxi-tool -w "$WS")" = 111 ]'
check 'an audit log that cannot be written dead-letters the call' \
	'calls 1 | OXI_AUDIT_LOG=/nonexistent/x oxi-guard tool -- oxi-tool -w "$WS" >/dev/null 2>&1;
	 [ $? = 1 ] && grep -q "the audit log cannot be written" "$OXI_DEADLETTER"'
