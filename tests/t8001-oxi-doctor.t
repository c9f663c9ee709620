#!/bin/sh
# oxi-doctor: a healthy set-up exits 0 (offline and --online against the
# fakes); each check made to fail on purpose gives its one line with a
# fix and the exit code of its level; --json for scripts
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 47

TOKEN=123456:TEST-token_0123456789abcdef
fake_server telegram.py --token "$TOKEN"
TGPORT=$PORT
fake_server chat.py --status 401
BADPORT=$PORT
fake_server chat.py --log "$TMP/chatlog"
cat >"$TMP/prices.json" <<'EOF'
{"openai/fake-model": {"input": 1, "output": 2}}
EOF
mkdir -m 700 "$TMP/v"
export OXI_MODEL=openai/fake-model OPENAI_API_KEY=sk-doctor-test-key-0001 \
	OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
	OXI_TELEGRAM_BASE_URL="http://127.0.0.1:$TGPORT" \
	OXI_PRICES="$TMP/prices.json" OXI_VAULT="$TMP/v/vault" \
	OXI_VAULT_KEY_FILE="$TMP/v/key" OXI_DOCTOR_MIN_FREE_MB=1 \
	OXI_TOOL_PATH="$TMP/tools"
mkdir -p "$TMP/tools"
oxi-vault keygen "$OXI_VAULT_KEY_FILE" &&
	printf '%s' "$TOKEN" | oxi-vault set TELEGRAM_BOT_TOKEN || exit 1

# doc ARGS: oxi-doctor, its output kept in $TMP/o; line CHECK: its line
doc() { oxi-doctor "$@" >"$TMP/o"; }
line() { grep -E "^[a-z]+ +$1: " "$TMP/o"; }

check_exit 'healthy: exit 0' 0 'doc'
check 'one line a check, in order' \
	'[ "$(sed "s/^[a-z]* *\([a-z]*\):.*/\1/" "$TMP/o" | tr "\n" " ")" = "model prices telegram slack discord sandbox perms vault workspace plugins services deadletters disk libraries " ]'
check 'each ok or skipped, no secret shown' \
	'! grep -Ev "^(ok|skip) " "$TMP/o" &&
	 ! grep -q -e sk-doctor-test-key -e "$TOKEN" "$TMP/o"'
check 'the model and where its key is' \
	'line model | grep -qx "ok    model: openai/fake-model, key OPENAI_API_KEY in the environment"'
check 'the token found in the vault, offline' \
	'line telegram | grep -q "TELEGRAM_BOT_TOKEN is in the vault and well formed"'
check_exit 'healthy --online: exit 0' 0 'doc --online'
check 'the model answered one short call' \
	'line model | grep -qx "ok    model: openai/fake-model answers (key OPENAI_API_KEY from the environment)" &&
	 grep -q "Bearer sk-doctor-test-key-0001" "$TMP/chatlog"'
check 'the token is the bot getMe names' \
	'line telegram | grep -q "the token (from the vault) is the bot @oxi_test_bot"'
check_exit '--json: exit 0' 0 'doc --json'
check '--json: one doctor.check record a check, then the status' \
	'python3 -c "
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert [r[\"type\"] for r in rs] == [\"doctor.check\"] * 14 + [\"doctor.status\"], rs
assert rs[0][\"check\"] == \"model\" and rs[0][\"status\"] == \"ok\"
assert rs[-1][\"exit\"] == 0
" "$TMP/o"'

# each check failed on purpose
check_exit 'model: none configured: 100' 100 \
	'OXI_MODEL= doc'
check 'its line and fix' \
	'line model | grep -qx "error model: no model is configured (fix: set OXI_MODEL (e.g. openai/gpt-4o-mini) or run .oxi-llm models default provider/model.)"'
check_exit 'model: its key nowhere: 100' 100 \
	'OPENAI_API_KEY= OXI_OPENAI_BASE_URL= doc'
check 'naming the key and where it was looked for' \
	'line model | grep -q "^error model: openai/fake-model: OPENAI_API_KEY is in none of the environment, a helper, the vault (fix: put it in the vault"'
check_exit 'model --online: the provider refuses the key: 100' 100 \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$BADPORT/v1" doc --online'
check 'with the reason oxi-llm gave' \
	'line model | grep -q "^error model: openai/fake-model does not answer (exit 100): .*401.*(fix: check the key and the model name"'
check_exit 'prices: a budget and no price: 100' 100 \
	'OXI_MODEL=openai/other OXI_BUDGET_DAY_USD=5 doc'
check 'its line' \
	'line prices | grep -q "^error prices: a budget is set but .openai/other. has no price: oxi-llm refuses to start (fix: add a price"'
check_exit 'prices: no price and no budget: a warning, 1' 1 \
	'OXI_MODEL=openai/other doc'
check_exit 'telegram: a token of the wrong shape: 100' 100 \
	'TELEGRAM_BOT_TOKEN=not-a-token doc'
check 'its line says so, not the token' \
	'line telegram | grep -qx "error telegram: TELEGRAM_BOT_TOKEN (from the environment) is not a bot token (fix: .*)" &&
	 ! grep -q not-a-token "$TMP/o"'
check_exit 'telegram --online: a revoked token: 100' 100 \
	'TELEGRAM_BOT_TOKEN=99:REVOKEDtoken_abcdefghijklmnopqrstuvwxyz doc --online'
check 'its line' \
	'line telegram | grep -q "^error telegram: the Bot API answered HTTP 401: the token is revoked or wrong (fix: make a new token"'
check_exit 'sandbox: no mechanism works: 100' 100 \
	'OXI_SANDBOX=none-available doc'
check 'its line' \
	'line sandbox | grep -q "^error sandbox: no sandbox mechanism works here: oxi-tool runs no command (fix: install bubblewrap"'
check_exit 'perms: a configuration directory others may write: 100' 100 \
	'chmod 777 "$OXI_CONFIG_DIR"; doc'
check 'its line and the chmod that fixes it' \
	'line perms | grep -q "^error perms: others may write the configuration directory .* (mode 0777) (fix: chmod 700 "'
check_exit 'perms: one others may read: a warning, 1' 1 \
	'chmod 755 "$OXI_CONFIG_DIR"; doc'
chmod 700 "$OXI_CONFIG_DIR"
check_exit 'vault: readable by others: 100' 100 \
	'chmod 644 "$OXI_VAULT"; doc'
check 'its line' \
	'line vault | grep -q "^error vault: the vault .* is open to others (mode 0644): chmod 600"'
chmod 600 "$OXI_VAULT"
check_exit 'workspace: over the configuration: 100' 100 \
	'OXI_WORKSPACE="$TMP" doc'
check 'its line' \
	'line workspace | grep -q "^error workspace: the workspace .* holds the configuration directory .*: the tools could read or change it (fix: set OXI_WORKSPACE"'
cp "$TESTS/plugins/upper" "$TMP/tools/upper"
check_exit 'plugins: one not trusted: 100' 100 'doc'
check 'its line says how to trust it' \
	'line plugins | grep -q "^error plugins: plugin .upper. is not trusted (or changed since): run .* (fix: check it, then oxi-tool trust NAME)"'
rm -f "$TMP/tools/upper"
echo '{"type":"deadletter","reason":"test"}' >"$OXI_HOME/deadletter.ndjson"
check_exit 'deadletters: one waiting: a warning, 1' 1 'doc'
check 'its line, with how to read them' \
	'line deadletters | grep -q "^warn  deadletters: 1 dead letter waiting in 1 file, first .*/deadletter.ndjson. (fix: read them (jq . "'
rm -f "$OXI_HOME/deadletter.ndjson"
check_exit 'disk: less free than the minimum: 100' 100 \
	'OXI_DOCTOR_MIN_FREE_MB=999999999 doc'
check 'its line' \
	'line disk | grep -q "^error disk: [0-9]* MiB free for the databases in .* (under 999999999 MiB): writes will fail (fix: free some space, or move OXI_HOME)"'
# a library older at run time than at build time, by LD_PRELOAD
printf '%s\n' 'int sqlite3_libversion_number(void) { return 3007000; }' \
	'const char *sqlite3_libversion(void) { return "3.7.0"; }' >"$TMP/old.c"
check_exit 'libraries: an older SQLite at run time: 100' 100 \
	'cc -shared -fPIC -o "$TMP/old.so" "$TMP/old.c" &&
	 LD_PRELOAD="$TMP/old.so" doc'
check 'its line' \
	'line libraries | grep -q "^error libraries: older at run time than built against: SQLite (SQLite 3.7.0,"'

# Slack and Discord: the shape offline, the harmless call online
fake_server slack.py --bot-token xoxb-1-doctor-test
SKPORT=$PORT
fake_server discord.py --token doctor.discord.token-0123456789 --bot-name docbot
DCPORT=$PORT
export OXI_SLACK_API="http://127.0.0.1:$SKPORT/api" \
	OXI_DISCORD_API="http://127.0.0.1:$DCPORT/api/v10"
check_exit 'slack and discord tokens in the environment, online: exit 0' 0 \
	'SLACK_BOT_TOKEN=xoxb-1-doctor-test \
	 DISCORD_BOT_TOKEN=doctor.discord.token-0123456789 doc --online'
check 'the Slack token is the bot auth.test names' \
	'line slack | grep -qx "ok    slack: the token (from the environment) is the bot @oxi"'
check 'the Discord token is the bot /users/@me names, no token shown' \
	'line discord | grep -qx "ok    discord: the token (from the environment) is the bot @docbot" &&
	 ! grep -q -e xoxb-1-doctor -e doctor.discord "$TMP/o"'
check_exit 'slack: a token of the wrong shape: 100' 100 \
	'SLACK_BOT_TOKEN=xapp-1-wrong doc'
check 'its line' \
	'line slack | grep -q "^error slack: SLACK_BOT_TOKEN (from the environment) is not a bot token (fix: copy the Bot User OAuth Token again"'
check_exit 'discord --online: a revoked token: 100' 100 \
	'DISCORD_BOT_TOKEN=revoked.discord.token-0123456789 doc --online'
check 'its line, with how to make a new one' \
	'line discord | grep -q "^error discord: the Discord API answered HTTP 401: the token is revoked or wrong (fix: reset the bot.s token"'
done_testing
