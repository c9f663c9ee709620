#!/bin/sh
# every command: usage equals its man page SYNOPSIS, the page is clean
# under mandoc -Tlint, and bash, zsh and fish completions exist
cd "$(dirname "$0")" && . ./lib.sh || exit 1

cmds="oxi-recv oxi-send oxi-guard oxi-loop oxi-llm oxi-tool oxi-cron oxi-vault
	oxi-doctor oxi-chat oxi-svc"
set -- $cmds
plan $((6 * $# + 2))

synopsis() {	# the SYNOPSIS lines of a page, one per form
	mandoc -Tascii -O width=1000 "$1" | col -b |
		sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed '1d;$d' |
		sed 's/^ *//;/^$/d'
}

for c in $cmds; do
	page="$TOP/man/$c.1"
	"$c" --help >"$TMP/help" 2>&1
	sed '$d' "$TMP/help" | sed 's/^usage: //;s/^       //' >"$TMP/usage"
	synopsis "$page" >"$TMP/syn" 2>&1
	check_same "$c: --help usage equals the SYNOPSIS" "$TMP/usage" "$TMP/syn"
	check "$c: man page is clean under mandoc -Tlint" \
		'[ -z "$(mandoc -Tlint -W warning "$page" 2>&1)" ]'
	check "$c: bash completion" \
		'bash -n "$TOP/completions/bash/$c" &&
		 grep -q "complete .*$c" "$TOP/completions/bash/$c"'
	check "$c: zsh completion" \
		'head -n 1 "$TOP/completions/zsh/_$c" | grep -q "^#compdef $c"'
	check "$c: fish completion" \
		'grep -q "^complete -c $c" "$TOP/completions/fish/$c.fish"'
	check "$c: --version" '"$c" --version | grep -q "^$c [0-9]"'
done
check 'oxi(7) is clean under mandoc -Tlint' \
	'[ -z "$(mandoc -Tlint -W warning "$TOP/man/oxi.7" 2>&1)" ]'
check 'oxi(7) documents every record type of protocol v1' \
	'for t in msg.in msg.out msg.draft typing receipt llm.request llm.delta \
	    llm.response tool.call tool.result error approval.ask deadletter \
	    embed.request embed.response; do
		grep -q "$t" "$TOP/man/oxi.7" || { echo "missing $t"; exit 1; }
	 done'
done_testing
