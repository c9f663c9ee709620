#!/bin/sh
# oxi-vault: secrets round trip through the encrypted file (a passphrase
# through Argon2id, or a key file), a wrong key and an altered file are
# refused, modes open to others are refused, rotate changes the key
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 32

export OXI_VAULT="$TMP/v/vault" OXI_VAULT_PASSPHRASE='correct horse 42'
mkdir -m 700 "$TMP/v"
S1='sk-proj-Wq3rT5yU7iO9pA1sD3fG5hJ7kL9zX1cV'
S2='123456789:AAHtelegramtokenvalue_0123456789ab'

check 'set creates the vault from stdin, mode 0600' \
	'printf "%s\n" "$S1" | oxi-vault set OPENAI_API_KEY &&
	 [ "$(stat -c %a "$OXI_VAULT")" = 600 ]'
check 'get gives the value back' \
	'[ "$(oxi-vault get OPENAI_API_KEY)" = "$S1" ]'
check 'a second secret; list gives the names sorted, no value' \
	'printf "%s" "$S2" | oxi-vault set TELEGRAM_BOT_TOKEN &&
	 [ "$(oxi-vault list | tr "\n" " ")" = "OPENAI_API_KEY TELEGRAM_BOT_TOKEN " ]'
check 'the file holds neither a value nor a name in clear' \
	'! grep -a -q -e "$S1" -e "$S2" -e OPENAI_API_KEY "$OXI_VAULT" &&
	 [ "$(head -c 8 "$OXI_VAULT")" = OXIVAULT ]'
check 'set replaces a value; bytes of any kind go through' \
	'printf "a b\tc=d\\\\e\"f\n" | oxi-vault set ODD_1 &&
	 [ "$(oxi-vault get ODD_1)" = "$(printf "a b\tc=d\\\\e\"f")" ] &&
	 printf "second value" | oxi-vault set ODD_1 &&
	 [ "$(oxi-vault get ODD_1)" = "second value" ]'
check 'rm takes it out' \
	'oxi-vault rm ODD_1 && ! oxi-vault list | grep -q ODD_1'
check_exit 'get of a name not there: 1' 1 'oxi-vault get NOPE'
check_exit 'rm of a name not there: 1' 1 'oxi-vault rm NOPE'
check_exit 'a bad name: 100' 100 'echo x | oxi-vault set "a-b"'
check_exit 'an empty value: 100' 100 'printf "" | oxi-vault set EMPTY'
check_exit 'no value on the command line: usage, 100' 100 \
	'oxi-vault set NAME value'

cp "$OXI_VAULT" "$TMP/good"
check_exit 'a wrong passphrase: 100' 100 \
	'OXI_VAULT_PASSPHRASE=wrong oxi-vault get OPENAI_API_KEY'
check_grep 'saying so in one line' \
	"^oxi-vault: fatal: unable to open the vault '.*': wrong passphrase, or the file was altered\$" \
	"$TMP/.err"
# every byte matters: the header is associated data, the rest the box
flip() {	# flip OFFSET: the good file with one bit changed there
	cp "$TMP/good" "$OXI_VAULT"
	python3 -c '
import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read()); b[o if o >= 0 else len(b) + o] ^= 1
open(p, "wb").write(b)' "$OXI_VAULT" "$1"
}
check 'an altered box, tag, nonce, salt or header: refused, 100' \
	'for o in 100 -1 50 30 10 11; do
		flip $o
		oxi-vault get OPENAI_API_KEY >"$TMP/o" 2>"$TMP/e"
		rc=$?
		[ $rc = 100 ] && [ ! -s "$TMP/o" ] || { echo "offset $o: $rc"; exit 1; }
	 done'
check 'an Argon2id cost raised in the header: refused before any work' \
	'flip 13 && { oxi-vault list 2>"$TMP/e"; [ $? = 100 ]; } &&
	 grep -q "cost out of bounds" "$TMP/e"'
check_exit 'a truncated file: 100' 100 \
	'head -c 60 "$TMP/good" >"$OXI_VAULT"; oxi-vault list'
check_exit 'not a vault: 100' 100 'echo hello >"$OXI_VAULT"; oxi-vault list'
cp "$TMP/good" "$OXI_VAULT"
check_exit 'a vault open to others (0644): refused, 100' 100 \
	'chmod 644 "$OXI_VAULT"; oxi-vault list'
check_grep 'with the fix' "is open to others \(mode 0644\): chmod 600" "$TMP/.err"
chmod 600 "$OXI_VAULT"
check_exit 'a directory open to others (0755): refused, 100' 100 \
	'chmod 755 "$TMP/v"; oxi-vault list'
chmod 700 "$TMP/v"
check 'no secret on stderr of any of these' \
	'! grep -rq -e "$S1" -e "$S2" "$TMP/.err" "$TMP/e"'

# rotate: a new passphrase, then a key file
check 'rotate to a new passphrase: the old one no longer opens it' \
	'OXI_VAULT_NEW_PASSPHRASE=second-pass-phrase oxi-vault rotate &&
	 ! oxi-vault list 2>/dev/null &&
	 [ "$(OXI_VAULT_PASSPHRASE=second-pass-phrase oxi-vault get OPENAI_API_KEY)" = "$S1" ]'
check 'rotate to a key file it makes (0600): the passphrase no longer opens it' \
	'OXI_VAULT_PASSPHRASE=second-pass-phrase oxi-vault rotate -K "$TMP/v/key" &&
	 [ "$(stat -c %a "$TMP/v/key")" = 600 ] &&
	 ! OXI_VAULT_PASSPHRASE=second-pass-phrase oxi-vault list 2>/dev/null &&
	 [ "$(oxi-vault -k "$TMP/v/key" get TELEGRAM_BOT_TOKEN)" = "$S2" ] &&
	 [ "$(OXI_VAULT_KEY_FILE="$TMP/v/key" oxi-vault get OPENAI_API_KEY)" = "$S1" ]'
check_exit 'another key file: 100' 100 \
	'oxi-vault keygen "$TMP/v/other" && oxi-vault -k "$TMP/v/other" list'
check_exit 'a key file open to others: refused, 100' 100 \
	'chmod 640 "$TMP/v/other"; oxi-vault -k "$TMP/v/other" list'
check_exit 'keygen does not overwrite a file: 100' 100 \
	'oxi-vault keygen "$TMP/v/key"'

# a new vault with a key file from the start; init
check 'init makes an empty vault by key file; -f names it' \
	'oxi-vault keygen "$TMP/v/k2" &&
	 oxi-vault -f "$TMP/v/two" -k "$TMP/v/k2" init &&
	 [ -z "$(oxi-vault -f "$TMP/v/two" -k "$TMP/v/k2" list)" ]'
check_exit 'init of an existing vault: 100' 100 \
	'oxi-vault -f "$TMP/v/two" -k "$TMP/v/k2" init'
check 'a rewrite leaves no temporary file behind' \
	'echo value-of-x | oxi-vault -f "$TMP/v/two" -k "$TMP/v/k2" set X &&
	 [ "$(ls -A "$TMP/v" | grep -c tmp)" = 0 ]'
check_exit 'no passphrase and no terminal: 100' 100 \
	'unset OXI_VAULT_PASSPHRASE; setsid -w oxi-vault -f "$TMP/v/three" init </dev/null'
check_grep 'naming the ways to give one' \
	'no passphrase: set OXI_VAULT_PASSPHRASE or OXI_VAULT_KEY_FILE, or run on a terminal' \
	"$TMP/.err"
check 'the default vault is "vault" in the configuration directory' \
	'unset OXI_VAULT; mkdir -p -m 700 "$OXI_CONFIG_DIR" &&
	 echo value-of-y | oxi-vault set Y && [ -f "$OXI_CONFIG_DIR/vault" ]'
done_testing
