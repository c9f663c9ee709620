#!/bin/sh
# oxi-svc with a vault (s6, else runit): the secrets held only in the
# vault are in no file of the tree; each stage is started by oxi-vault
# exec with its own and so holds only those (/proc/PID/environ);
# oxi-guard out gets every one to redact and keeps none in its
# environment; the pipeline answers; a vault without a key file is
# refused
cd "$(dirname "$0")" && . ./lib.sh || exit 1
SV=s6
command -v s6-svscan >/dev/null || SV=runit
. ./svc.sh
svc_skip
plan 9

TOK=123456:S3CR3T-vault-token
KEY=sk-S3CR3T-vault-model-key-0123
fake_server telegram.py --token "$TOK" --log "$TMP/tg.log"
TGPORT=$PORT
fake_server openai.py
export OXI_TELEGRAM_BASE_URL="http://127.0.0.1:$TGPORT"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OXI_ALLOW='telegram:*'
mkdir -m 700 "$TMP/v"
export OXI_VAULT="$TMP/v/vault"
oxi-vault keygen "$TMP/v/key" || exit 1
printf '%s' "$TOK" | OXI_VAULT_KEY_FILE="$TMP/v/key" oxi-vault set TELEGRAM_BOT_TOKEN
printf '%s' "$KEY" | OXI_VAULT_KEY_FILE="$TMP/v/key" oxi-vault set OPENAI_API_KEY
stages="recv guard-in loop guard-out send llm tool"
T=$TMP/bot

check_exit 'a vault but no key file for it: 100' 100 \
	'oxi-svc -s $SV -m openai/fake "$TMP/nokey" </dev/null'
check_grep 'saying how to make one' \
	'needs a key file for a service tree: oxi-vault keygen FILE' "$TMP/.err"
export OXI_VAULT_KEY_FILE="$TMP/v/key"
check 'with the key file: the tree is written' \
	'oxi-svc -s $SV -m openai/fake "$T" </dev/null >/dev/null'
check 'no secret in any file of the tree' \
	'! grep -rq S3CR3T "$T"'
check 'the stages with secrets start through oxi-vault exec, each with its own' \
	'grep -q "oxi-vault exec -s TELEGRAM_BOT_TOKEN -- oxi-recv" "$T/recv/run" &&
	 grep -q "oxi-vault exec -s TELEGRAM_BOT_TOKEN -- oxi-send" "$T/send/run" &&
	 grep -q "oxi-vault exec -s OPENAI_API_KEY -- oxi-llm" "$T/llm/run" &&
	 grep -q "oxi-vault exec -a -r -- oxi-guard" "$T/guard-out/run" &&
	 ! grep -q oxi-vault "$T/loop/run" "$T/guard-in/run" "$T/tool/run"'
svc_start "$T"
wait_until 30 svc_allready || diag "the tree did not come up"
svc_say "$TGPORT" 'hello vault' 1
check 'the pipeline answers' \
	'wait_until 30 "grep -q \"echo: hello vault\" \"\$TMP/tg.log\""'
check 'each stage holds only its own secret (/proc/PID/environ)' 'svc_secrets'
check 'oxi-guard out was given both to redact, and holds neither in its environment' \
	'e=$(svc_env "$(svc_pid guard-out)") &&
	 printf "%s\n" "$e" | grep -qx "OXI_REDACT_ENV=OPENAI_API_KEY,TELEGRAM_BOT_TOKEN" &&
	 ! printf "%s\n" "$e" | grep -q S3CR3T'
check 'no secret in any log' '! grep -rq S3CR3T "$T"/*/log "$TMP/svscan.log"'
done_testing
