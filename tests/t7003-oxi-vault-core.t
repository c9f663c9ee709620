#!/bin/sh
# oxi-vault keeps values, keys and passphrases in locked memory left out
# of core dumps and wiped when freed: a core (gdb's gcore) taken while a
# value is in use, and one taken at exit, hold no secret; the same core
# does hold a plain variable of the environment, so the search can fail
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v gdb >/dev/null || skip_all "no gdb (make deps installs it)"
gdb -q -batch -nx -ex run --args true >/dev/null 2>&1 </dev/null ||
	skip_all "gdb cannot trace a process here (ptrace)"
plan 7

export OXI_VAULT="$TMP/vault" OXI_VAULT_PASSPHRASE='pass-phrase-CORE-4711'
S='sk-VALUEinCOREcheck-0123456789abcdef'
printf '%s' "$S" | oxi-vault set K || exit 1
VAULT=$(command -v oxi-vault)

# core AT CMD...: runs CMD under gdb, takes a core at the breakpoint AT
# (the process goes on, then is killed) into $TMP/core
core() {
	_at=$1
	shift
	rm -f "$TMP/core"
	with_timeout 120 gdb -q -batch -nx -ex 'set pagination off' \
		-ex "break $_at" -ex 'run' -ex "gcore $TMP/core" -ex 'kill' \
		--args "$@" >"$TMP/gdb" 2>&1 <"${STDIN:-/dev/null}"
	[ -s "$TMP/core" ] || { sed 's/^/# gdb: /' "$TMP/gdb"; return 1; }
}
found() { grep -a -c -F -e "$1" "$TMP/core"; }

check 'a core of get, while the value is being written' \
	'PLAIN_MARKER=plain-marker-in-environ core oxi_writeall "$VAULT" get K'
check 'the control: a plain variable of its environment is in the core' \
	'[ "$(found plain-marker-in-environ)" -ge 1 ]'
check 'the value in use is not in it' '[ "$(found "$S")" = 0 ]'
check 'nor the passphrase, which came from the environment' \
	'[ "$(found pass-phrase-CORE-4711)" = 0 ]'
check 'a core of get at exit: neither' \
	'core exit "$VAULT" get K &&
	 [ "$(found "$S")" = 0 ] && [ "$(found pass-phrase-CORE-4711)" = 0 ]'
printf '%s' "$S-second" >"$TMP/value"
check 'a core of set, after the value was read from stdin: not in it' \
	'STDIN="$TMP/value" core oxi_vault_save "$VAULT" set K2 &&
	 [ "$(found "$S-second")" = 0 ] && [ "$(found "$S")" = 0 ]'
check 'a core of exec, just before the command starts: no value' \
	'core execvp "$VAULT" exec -s K -- true && [ "$(found "$S")" = 0 ]'
done_testing
