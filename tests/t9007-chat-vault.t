#!/bin/sh
# oxi-chat with a vault: the keys held only there reach the model stage
# alone (oxi-vault exec -s), oxi-guard out gets them to redact and keeps
# none in its environment, no other stage holds one; no vault, the
# environment's keys as before (t9006)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
[ -r /proc/self/environ ] || skip_all "no /proc/PID/environ"
plan 7

fake_server chat.py --log "$TMP/req.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OXI_MODEL=openai/fake
mkdir -m 700 "$TMP/v"
export OXI_VAULT="$TMP/v/vault" OXI_VAULT_KEY_FILE="$TMP/v/key"
oxi-vault keygen "$OXI_VAULT_KEY_FILE" || exit 1
printf 'sk-t9007-vault-model-key-0123456789' | oxi-vault set OPENAI_API_KEY
printf 'BSA-t9007-vault-search-key-987654' | oxi-vault set BRAVE_API_KEY
WS="$TMP/ws"
mkdir -p "$WS"

stage() { stage_pids "$@"; }
keys() { env_keys "$@"; }

mkfifo "$TMP/in"
oxi-chat -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
chat=$!
_bgpids="$_bgpids $chat"
exec 7>"$TMP/in"
echo 'one' >&7
wait_until 20 '[ -s "$TMP/out" ]'
check 'a reply, with the key from the vault' \
	'[ "$(cat "$TMP/out")" = "echo: one" ] &&
	 grep -q "Bearer sk-t9007-vault-model-key" "$TMP/req.log"'
check 'no key, nor the vault passphrase, on a command line or in OXI_TOOL' \
	'! cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n" | grep -q "t9007-vault-[m]odel" &&
	 ! grep -aq -e OXI_VAULT_PASSPHRASE -e "vault-[s]earch-key" /proc/$(stage oxi-loop)/environ'
check 'oxi-llm holds the model key alone' \
	'[ "$(keys $(stage oxi-llm))" = "OPENAI_API_KEY " ]'
check 'oxi-tool holds the search key alone' \
	'[ "$(keys $(stage oxi-tool))" = "BRAVE_API_KEY " ]'
check 'no other stage holds a key, or the vault key file' \
	'keyless oxi-recv oxi-loop oxi-send'
check 'oxi-guard out was told both, and holds neither value' \
	'for p in $(stage oxi-guard); do
		grep -aq "OXI_REDACT_ENV=" /proc/$p/environ || continue
		tr "\0" "\n" <"/proc/$p/environ" |
		    grep -qx "OXI_REDACT_ENV=OPENAI_API_KEY,BRAVE_API_KEY" &&
		[ -z "$(keys $p)" ] && ! grep -aq -e vault-model-key -e vault-search-key /proc/$p/environ || exit 1
		found=1
	 done; [ -n "$found" ]'
exec 7>&-
wait $chat
check 'end of input: oxi-chat exits 0' '[ $? = 0 ]'
done_testing
