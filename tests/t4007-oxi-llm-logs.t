#!/bin/sh
# oxi-llm logs its prompts and replies in SQLite as llm does: oxi-llm
# logs lists them (-n, --json, -c, --cid), -n skips one, logs off/on and
# OXI_LLM_LOG turn logging off, and -c / --cid send the logged
# conversation back as the messages before the prompt
cd "$(dirname "$0")" && . ./lib.sh || exit 1
export OXI_LLM_RETRIES=0
plan 40

M=openai/fake-model
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
DB="$OXI_HOME/llm-logs.db"
last() {	# last FILTER: a field of the last request the server saw
	tail -n 1 "$TMP/log" >"$TMP/last"
	jget "$1" "$TMP/last"
}
entries() { oxi-llm logs -n 0 --json | wc -l | tr -d ' '; }
lastlog() {	# lastlog FILTER: a field of the last logged entry
	oxi-llm logs -n 1 --json >"$TMP/entry"
	jget "$1" "$TMP/entry"
}

check 'nothing logged yet: logs prints nothing' \
	'oxi-llm logs >"$TMP/out" && [ ! -s "$TMP/out" ] && [ ! -e "$DB" ]'
check_exit '-c with nothing logged: 100' 100 'oxi-llm -m $M -c hi </dev/null'
check_grep 'saying there is no conversation' 'no conversation to continue' "$TMP/.err"

check 'a prompt is answered and logged in llm-logs.db of the state directory' \
	'oxi-llm -m $M -s "Be brief." -o temperature 0.5 first question </dev/null >/dev/null &&
	 [ -s "$DB" ] && [ "$(entries)" = 1 ]'
check 'the entry: model, system, prompt, reply, options, usage, cost, time' \
	'[ "$(lastlog "[\"model\"]")" = openai/fake-model ] &&
	 [ "$(lastlog "[\"system\"]")" = "Be brief." ] &&
	 [ "$(lastlog "[\"prompt\"]")" = "first question" ] &&
	 [ "$(lastlog "[\"reply\"]")" = "echo: first question" ] &&
	 [ "$(lastlog "[\"options\"]")" = "{\"temperature\": 0.5}" ] &&
	 [ "$(lastlog "[\"usage\"][\"output\"]")" -gt 0 ] &&
	 [ "$(lastlog "[\"cost_usd\"]")" = null ] &&
	 lastlog "[\"time\"]" | grep -Eq "^20[0-9-]+T[0-9:.]+Z$" &&
	 [ "$(lastlog "[\"ms\"]")" -ge 0 ]'
check 'a new conversation: its id is the id of its first prompt' \
	'[ "$(lastlog "[\"cid\"]")" = "$(lastlog "[\"id\"]")" ]'
cid1=$(lastlog '["cid"]')

check '-c sends the logged turns before the prompt' \
	'oxi-llm -c second question </dev/null >"$TMP/out" &&
	 [ "$(cat "$TMP/out")" = "echo: second question" ] &&
	 [ "$(last "[\"messages\"]")" = "[{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": \"first question\"}, {\"role\": \"assistant\", \"content\": \"echo: first question\"}, {\"role\": \"user\", \"content\": \"second question\"}]" ]'
check 'with the conversation'"'"'s model when there is no -m' \
	'[ "$(last "[\"model\"]")" = fake-model ]'
check 'and it is logged in the same conversation' \
	'[ "$(lastlog "[\"cid\"]")" = "$cid1" ] && [ "$(entries)" = 2 ]'
check '--continue again: three turns, a new system prompt replacing the old' \
	'oxi-llm --continue -s "Be long." third </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"][0][\"content\"]")" = "Be long." ] &&
	 [ "$(last "[\"messages\"][5][\"content\"]")" = third ] &&
	 [ "$(last "[\"messages\"].__len__()")" = 6 ]'
check '-m over the conversation'"'"'s model, OXI_MODEL too' \
	'oxi-llm -c -m openai/other-model more </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = other-model ] &&
	 OXI_MODEL=openai/env-model oxi-llm -c more </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = env-model ]'

check 'another conversation starts without -c' \
	'oxi-llm -m $M unrelated </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"].__len__()")" = 1 ] &&
	 [ "$(lastlog "[\"cid\"]")" != "$cid1" ]'
cid2=$(lastlog '["cid"]')
check '--cid ID continues an older one' \
	'oxi-llm --cid "$cid1" back again </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"][1][\"content\"]")" = "first question" ] &&
	 [ "$(last "[\"messages\"].__len__()")" = 12 ] &&
	 [ "$(lastlog "[\"cid\"]")" = "$cid1" ]'
check '--conversation is --cid; -c takes the last conversation logged' \
	'oxi-llm --conversation "$cid2" x </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"][0][\"content\"]")" = unrelated ] &&
	 oxi-llm -c y </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"][0][\"content\"]")" = unrelated ]'
check_exit 'an unknown --cid: 100' 100 'oxi-llm --cid nosuch hi </dev/null'
check_grep 'naming it' "no conversation 'nosuch' in the log" "$TMP/.err"

# listing
check 'logs: the last three, oldest first, as Markdown' \
	'oxi-llm logs >"$TMP/out" && [ "$(grep -c "^# " "$TMP/out")" = 3 ] &&
	 grep -q "^## Prompt$" "$TMP/out" && grep -q "^## Response$" "$TMP/out" &&
	 grep -q "^Model: \*\*openai/fake-model\*\*$" "$TMP/out" &&
	 [ "$(grep -A2 "^## Prompt" "$TMP/out" | tail -n 1)" = y ]'
check 'logs -n 1 --json: one entry a line, the latest' \
	'oxi-llm logs -n 1 --json >"$TMP/out" && [ "$(wc -l <"$TMP/out")" = 1 ] &&
	 [ "$(jget "[\"prompt\"]" "$TMP/out")" = y ]'
check 'logs -n 0: all of them' '[ "$(entries)" = 9 ]'
check 'logs --cid ID: that conversation only' \
	'oxi-llm logs -n 0 --json --cid "$cid1" >"$TMP/out" &&
	 [ "$(wc -l <"$TMP/out")" = 6 ] &&
	 [ "$(jget "[\"cid\"]" "$TMP/out" | sort -u)" = "$cid1" ]'
check 'logs -c: the last conversation' \
	'oxi-llm logs -c -n 0 --json >"$TMP/out" && [ "$(wc -l <"$TMP/out")" = 3 ] &&
	 [ "$(jget "[\"cid\"]" "$TMP/out" | sort -u)" = "$cid2" ]'
check 'logs --count is -n' \
	'[ "$(oxi-llm logs --count 2 --json | wc -l)" = 2 ]'
check_exit 'logs -c and --cid together: 100' 100 'oxi-llm logs -c --cid x'
check 'logs path' '[ "$(oxi-llm logs path)" = "$DB" ]'
check 'logs status: on, with the counts' \
	'oxi-llm logs status >"$TMP/out" &&
	 [ "$(sed -n 1p "$TMP/out")" = "logging is on" ] &&
	 [ "$(sed -n 2p "$TMP/out")" = "2 conversations, 9 responses in $DB" ]'

# not logging
check '-n skips logging one prompt, --no-log too' \
	'oxi-llm -m $M -n quiet </dev/null >/dev/null &&
	 oxi-llm -m $M --no-log quiet </dev/null >/dev/null &&
	 [ "$(entries)" = 9 ]'
check 'record mode is not logged' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"r1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" |
	 oxi-llm -j -m $M >/dev/null && [ "$(entries)" = 9 ]'
check 'logs off: llm-logs-off in the configuration directory' \
	'oxi-llm logs off && [ -e "$OXI_CONFIG_DIR/llm-logs-off" ] &&
	 [ "$(oxi-llm logs status | sed -n 1p)" = "logging is off" ]'
check 'then nothing is logged' \
	'oxi-llm -m $M off one </dev/null >/dev/null && [ "$(entries)" = 9 ]'
check 'but -c still reads the log' \
	'oxi-llm -c again </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"][0][\"content\"]")" = unrelated ]'
check '--log logs one prompt all the same' \
	'oxi-llm -m $M --log forced </dev/null >/dev/null && [ "$(entries)" = 10 ]'
check 'OXI_LLM_LOG=1 too' \
	'OXI_LLM_LOG=1 oxi-llm -m $M forced2 </dev/null >/dev/null &&
	 [ "$(entries)" = 11 ]'
check 'logs on: logged again' \
	'oxi-llm logs on && [ ! -e "$OXI_CONFIG_DIR/llm-logs-off" ] &&
	 oxi-llm -m $M back on </dev/null >/dev/null && [ "$(entries)" = 12 ]'
check 'OXI_LLM_LOG=0 turns it off for a call' \
	'OXI_LLM_LOG=0 oxi-llm -m $M env off </dev/null >/dev/null &&
	 [ "$(entries)" = 12 ]'
check 'logs on twice, off twice: fine' \
	'oxi-llm logs on && oxi-llm logs off && oxi-llm logs off && oxi-llm logs on'

# failures
fake_server openai.py --status 400
check_exit 'a failed prompt exits as before' 100 \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" oxi-llm -m $M bad </dev/null'
check 'and is not logged' '[ "$(entries)" = 12 ]'
mkdir -p "$TMP/home2/llm-logs.db"
check 'a log that cannot be opened: a warning, the reply all the same' \
	'OXI_HOME="$TMP/home2" oxi-llm -m $M still answered </dev/null \
	    >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(cat "$TMP/out")" = "echo: still answered" ] &&
	 grep -q "warning: unable to log the prompt" "$TMP/err"'
check_exit 'logs with an extra word: 100' 100 'oxi-llm logs on now'
check_exit 'logs with an unknown option: 100' 100 'oxi-llm logs -x'
done_testing
