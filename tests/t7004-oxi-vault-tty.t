#!/bin/sh
# oxi-vault on a terminal: the passphrase of a new vault and a value to
# set are asked twice, never echoed; two that differ are refused; the
# terminal's modes are put back
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v setsid >/dev/null || skip_all "no setsid"
plan 7

export OXI_VAULT="$TMP/v/vault"
mkdir -m 700 "$TMP/v"
# tty NAME CMD...: CMD on a pseudo-terminal that is its controlling one,
# typing the steps of $TMP/NAME.keys; the screen in $TMP/NAME.shown
tty() {
	_k=$1
	shift
	with_timeout 60 python3 ptykeys.py "$TMP/$_k.out" "$TMP/$_k.shown" \
		"$TMP/$_k.keys" setsid -c "$@"
}
cat >"$TMP/init.keys" <<'EOF2'
wait 'new vault passphrase: '
keys 'typed-pass-phrase-1\r'
wait 'again: '
keys 'typed-pass-phrase-1\r'
EOF2
check 'init asks the passphrase twice' 'tty init oxi-vault init'
check 'and echoes neither; the terminal is as it was' \
	'! grep -q typed-pass "$TMP/init.shown" && [ "$(cat "$TMP/init.shown.modes")" = same ]'
check 'that passphrase opens it' \
	'[ -z "$(OXI_VAULT_PASSPHRASE=typed-pass-phrase-1 oxi-vault list)" ]'
cat >"$TMP/set.keys" <<'EOF2'
wait 'vault passphrase: '
keys 'typed-pass-phrase-1\r'
EOF2
cat >"$TMP/value.keys" <<'EOF2'
wait 'value of TYPED_KEY: '
keys 'sk-typed-value-42\r'
wait 'again: '
keys 'sk-typed-value-42\r'
EOF2
check 'set on a terminal asks the value twice, unechoed' \
	'OXI_VAULT_PASSPHRASE=typed-pass-phrase-1 tty value oxi-vault set TYPED_KEY &&
	 ! grep -q sk-typed "$TMP/value.shown" &&
	 [ "$(OXI_VAULT_PASSPHRASE=typed-pass-phrase-1 oxi-vault get TYPED_KEY)" = sk-typed-value-42 ]'
check 'the passphrase asked to read it, and not echoed' \
	'tty set oxi-vault list && [ "$(cat "$TMP/set.out")" = TYPED_KEY ] &&
	 ! grep -q typed-pass "$TMP/set.shown"'
cat >"$TMP/differ.keys" <<'EOF2'
wait 'new vault passphrase: '
keys 'one-pass-phrase\r'
wait 'again: '
keys 'another-phrase\r'
EOF2
check_exit 'two that differ: 100' 100 \
	'tty differ oxi-vault -f "$TMP/v/other" init'
check 'saying so; no vault made' \
	'grep -q "the passphrases differ" "$TMP/differ.shown" && [ ! -e "$TMP/v/other" ]'
done_testing
