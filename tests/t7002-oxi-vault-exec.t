#!/bin/sh
# oxi-vault exec: the command gets exactly the secrets named (seen in
# /proc/PID/environ), every other secret oxi knows of is taken out; the
# credential chain (environment, helper, vault); oxi-guard out fed from
# the vault holds no value in its environment once it has read them
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 20

export OXI_VAULT="$TMP/v/vault" OXI_VAULT_KEY_FILE="$TMP/v/key"
mkdir -m 700 "$TMP/v"
oxi-vault keygen "$OXI_VAULT_KEY_FILE" || exit 1
SA='sk-ant-api03-AAAAvaultsecretA-0123456789'
SB='BSAbravekey-vaultsecretB-987654321'
SC='123456:AAvaultsecretC-telegramtoken'
printf '%s' "$SA" | oxi-vault set ANTHROPIC_API_KEY
printf '%s' "$SB" | oxi-vault set BRAVE_API_KEY
printf '%s' "$SC" | oxi-vault set TELEGRAM_BOT_TOKEN

# environ PID: the environment of a process, one variable a line
environ() { tr '\0' '\n' <"/proc/$1/environ"; }
# started NAMES: a sleep started by oxi-vault exec -s NAMES, its environ in
# $TMP/env
started() {
	oxi-vault exec -s "$1" -- sleep 30 2>"$TMP/serr" &
	_p=$!
	_bgpids="$_bgpids $_p"
	wait_until 5 '[ "$(readlink /proc/$_p/exe)" = "$(command -v sleep)" ] ||
		[ "$(basename "$(readlink /proc/$_p/exe)")" = sleep ]'
	environ $_p >"$TMP/env"
	kill $_p
}

export OPENAI_API_KEY=sk-parent-env-openai-key GROQ_API_KEY=gsk-parent \
	TAVILY_API_KEY=tvly-parent PLAIN_SETTING=kept OXI_MODEL=openai/x
started BRAVE_API_KEY
check 'the named secret from the vault is there' \
	'grep -qx "BRAVE_API_KEY=$SB" "$TMP/env"'
check 'no other secret of the vault' \
	'! grep -q -e "$SA" -e "$SC" -e ANTHROPIC_API_KEY -e TELEGRAM_BOT_TOKEN "$TMP/env"'
check 'no key of the parent oxi knows as a secret' \
	'! grep -q -e OPENAI_API_KEY -e GROQ_API_KEY -e TAVILY_API_KEY "$TMP/env"'
check 'nor the key file of the vault' '! grep -q OXI_VAULT_KEY_FILE "$TMP/env"'
check 'the rest of the environment is kept' \
	'grep -qx PLAIN_SETTING=kept "$TMP/env" && grep -qx OXI_MODEL=openai/x "$TMP/env" &&
	 grep -q "^PATH=" "$TMP/env"'
check 'exactly the named secrets: the environment is the parent less known ones, plus them' \
	'env | grep -v -e "^_=" -e API_KEY= -e ^OXI_VAULT_KEY_FILE= | sort >"$TMP/want" &&
	 echo "BRAVE_API_KEY=$SB" >>"$TMP/want" && sort -o "$TMP/want" "$TMP/want" &&
	 grep -v "^_=" "$TMP/env" | sort >"$TMP/got" && cmp "$TMP/want" "$TMP/got"'

# the chain: the environment first, then a helper, then the vault
started 'ANTHROPIC_API_KEY,OPENAI_API_KEY'
check 'two names: the vault one and the one from the environment' \
	'grep -qx "ANTHROPIC_API_KEY=$SA" "$TMP/env" &&
	 grep -qx OPENAI_API_KEY=sk-parent-env-openai-key "$TMP/env" &&
	 [ "$(grep -c _API_KEY= "$TMP/env")" = 2 ]'
(export ANTHROPIC_API_KEY=sk-ant-from-env; started ANTHROPIC_API_KEY)
check 'the environment wins over the vault' \
	'grep -qx ANTHROPIC_API_KEY=sk-ant-from-env "$TMP/env"'
mkdir -p -m 700 "$OXI_CONFIG_DIR"
printf 'ANTHROPIC_API_KEY printf "%%s\\n%%s" sk-ant-from-helper second-line\n' \
	>"$OXI_CONFIG_DIR/vault-helpers"
chmod 600 "$OXI_CONFIG_DIR/vault-helpers"
started ANTHROPIC_API_KEY
check 'a helper command (its first line) wins over the vault' \
	'grep -qx ANTHROPIC_API_KEY=sk-ant-from-helper "$TMP/env"'
printf 'ANTHROPIC_API_KEY false\nMY_HELPED helper-only-value-x\n' \
	>"$OXI_CONFIG_DIR/vault-helpers"
started ANTHROPIC_API_KEY
check 'a helper that fails: the vault, with a warning' \
	'grep -qx "ANTHROPIC_API_KEY=$SA" "$TMP/env" &&
	 grep -qx "oxi-vault: warning: the helper of ANTHROPIC_API_KEY failed; trying the vault" "$TMP/serr"'
check_exit 'a helpers file others may write: refused, 100' 100 \
	'chmod 620 "$OXI_CONFIG_DIR/vault-helpers"; oxi-vault exec -s ANTHROPIC_API_KEY true'
check_grep 'saying how to fix it' 'writable by others or not yours: chmod 600' "$TMP/.err"
rm -f "$OXI_CONFIG_DIR/vault-helpers"
check_exit 'a secret in none of them: 100, named' 100 \
	'oxi-vault exec -s NOT_ANYWHERE -- true'
check_grep 'in one line' "^oxi-vault: fatal: secret 'NOT_ANYWHERE' is in none of the environment, a helper, the vault\$" "$TMP/.err"
check_exit 'the command not found: 127' 127 \
	'oxi-vault exec -s BRAVE_API_KEY -- no-such-command-here'
check_exit 'the command exit code passes through' 3 \
	'oxi-vault exec -s BRAVE_API_KEY -- sh -c "exit 3"'
check 'no vault: the environment alone still works' \
	'[ "$(OXI_VAULT="$TMP/none" OPENAI_API_KEY=k1 oxi-vault exec -s OPENAI_API_KEY -- printenv OPENAI_API_KEY)" = k1 ]'

# oxi-guard out with every secret of the vault (-a) to redact (-r)
mkfifo "$TMP/in"
oxi-vault exec -a -r -- oxi-guard out <"$TMP/in" >"$TMP/out" 2>"$TMP/gerr" &
gp=$!
_bgpids="$_bgpids $gp"
exec 7>"$TMP/in"
printf '{"v":1,"type":"msg.out","id":"o1","channel":"cli","chat":"c","text":"key %s and %s"}\n' "$SB" "$SC" >&7
wait_until 5 '[ -s "$TMP/out" ]'
environ $gp >"$TMP/genv"
check 'guard out: redacts the values it was given' \
	'[ "$(jget "[\"text\"]" "$TMP/out")" = "key [REDACTED] and [REDACTED]" ]'
check 'guard out: OXI_REDACT_ENV named them; their values are gone from its /proc/PID/environ' \
	'! grep -a -q -e "$SA" -e "$SB" -e "$SC" "/proc/$gp/environ" &&
	 grep -qx BRAVE_API_KEY= "$TMP/genv" && grep -qx TELEGRAM_BOT_TOKEN= "$TMP/genv" &&
	 grep -qx "OXI_REDACT_ENV=ANTHROPIC_API_KEY,BRAVE_API_KEY,TELEGRAM_BOT_TOKEN" "$TMP/genv"'
exec 7>&-
wait $gp
rc=$?
check "and it ends cleanly (exit $rc), no value in its log" '[ $rc = 0 ] && ! grep -q -e "$SB" -e "$SC" "$TMP/gerr" && ! grep -q warning "$TMP/gerr"'
done_testing
