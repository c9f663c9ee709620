#!/bin/sh
# oxi-llm in human mode: the prompt from arguments and stdin, the reply
# streamed to stdout, and an exit code for every kind of failure
cd "$(dirname "$0")" && . ./lib.sh || exit 1
# one attempt per request: retries are t42xx's business
export OXI_LLM_RETRIES=0
plan 34

M=openai/fake-model
KEY=sk-test-HUMAN0123456789secret
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"

last() {	# last FILTER: a field of the last request the server saw
	tail -n 1 "$TMP/log" >"$TMP/last"
	jget "$1" "$TMP/last"
}

check 'the arguments are the prompt' \
	'oxi-llm -m $M hello world </dev/null >"$TMP/out"'
printf 'echo: hello world\n' >"$TMP/exp"
check_same 'the reply is printed with a final newline' "$TMP/out" "$TMP/exp"
check 'the request streams, with usage, for the model without its prefix' \
	'[ "$(last "[\"model\"]")" = fake-model ] &&
	 [ "$(last "[\"stream\"]")" = true ] &&
	 [ "$(last "[\"stream_options\"][\"include_usage\"]")" = true ] &&
	 [ "$(last "[\"messages\"]")" = "[{\"role\": \"user\", \"content\": \"hello world\"}]" ]'

printf 'line one\nline two\n' >"$TMP/stdin"
check 'stdin and arguments together' \
	'oxi-llm -m $M summarize <"$TMP/stdin" >"$TMP/out"'
check 'the prompt is stdin, a blank line, then the arguments' \
	'[ "$(last "[\"messages\"][0][\"content\"]")" = "line one
line two

summarize" ]'
printf 'echo: line one\nline two\n\nsummarize\n' >"$TMP/exp"
check_same 'and the reply streams back' "$TMP/out" "$TMP/exp"
check 'stdin alone is the prompt' \
	'echo "just stdin" | oxi-llm -m $M >"$TMP/out" &&
	 [ "$(cat "$TMP/out")" = "echo: just stdin" ] &&
	 [ "$(last "[\"messages\"][0][\"content\"]")" = "just stdin" ]'

check '-s puts a system message first' \
	'oxi-llm -m $M -s "Be brief." hi </dev/null >/dev/null &&
	 [ "$(last "[\"messages\"][0]")" = "{\"role\": \"system\", \"content\": \"Be brief.\"}" ] &&
	 [ "$(last "[\"messages\"][1][\"content\"]")" = hi ]'
check 'OXI_MODEL is the default model' \
	'OXI_MODEL=openai/env-model oxi-llm hi </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = env-model ]'
check '-m wins over OXI_MODEL' \
	'OXI_MODEL=openai/env-model oxi-llm -m openai/flag-model hi </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = flag-model ]'
check '--no-stream asks for one JSON reply and prints it' \
	'oxi-llm --no-stream -m $M hi there </dev/null >"$TMP/out" &&
	 [ "$(last "[\"stream\"]")" = false ] &&
	 [ "$(cat "$TMP/out")" = "echo: hi there" ]'
check '-n is --no-log (as in llm), not --no-stream' \
	'oxi-llm -n -m $M hi </dev/null >/dev/null &&
	 [ "$(last "[\"stream\"]")" = true ]'
check 'a prompt may start with a dash after --' \
	'oxi-llm -m $M -- -1 is negative </dev/null >"$TMP/out" &&
	 [ "$(cat "$TMP/out")" = "echo: -1 is negative" ]'

# usage and configuration errors: 100, nothing sent
n=$(wc -l <"$TMP/log")
check_exit 'no prompt at all: 100' 100 'oxi-llm -m $M </dev/null'
check_grep 'with the usage' '^usage: oxi-llm ' "$TMP/.err"
check_exit 'no model: 100' 100 'oxi-llm hi </dev/null'
check_grep 'saying what to set' 'OXI_MODEL' "$TMP/.err"
check_exit 'a model without a provider: 100' 100 'oxi-llm -m gpt-4o hi </dev/null'
check_exit 'an unknown provider: 100' 100 'oxi-llm -m acme/x hi </dev/null'
check_exit 'no key for the default OpenAI base: 100' 100 \
	'env -u OXI_OPENAI_BASE_URL oxi-llm -m openai/gpt-4o-mini hi </dev/null'
check_grep 'naming OPENAI_API_KEY' 'set OPENAI_API_KEY' "$TMP/.err"
check_exit 'record-mode options in human mode: 100' 100 'oxi-llm -d 3 -m $M hi'
check_exit 'an unknown option: 100' 100 'oxi-llm -Z'
check 'nothing reached the server' '[ "$(wc -l <"$TMP/log")" = "$n" ]'
check_exit '--help: 0' 0 'oxi-llm --help'
check_exit '--version: 0' 0 'oxi-llm --version'

# server failures: 100 when permanent, 111 when retrying may help
fake_server openai.py --status 401
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
check_exit 'HTTP 401: 100' 100 \
	'OPENAI_API_KEY=$KEY oxi-llm -v -m $M hi </dev/null >"$TMP/out" 2>"$TMP/err"'
check 'one fatal line with the provider message, key masked' \
	'[ "$(grep -c -v debug: "$TMP/err")" = 1 ] &&
	 grep -q "fatal: auth: openai: HTTP 401: Incorrect API key provided: \[REDACTED\]" "$TMP/err"'
cat "$TMP/out" "$TMP/err" >"$TMP/all"
check_nogrep 'the key is printed nowhere' 'HUMAN0123456789' "$TMP/all"

fake_server openai.py --status 500
check_exit 'HTTP 500: 111' 111 \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" oxi-llm -m $M hi </dev/null'
fake_server openai.py --status 429
check_exit 'HTTP 429: 111' 111 \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" oxi-llm -m $M hi </dev/null'
fake_server openai.py --truncate
check_exit 'a truncated stream: 111' 111 \
	'OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" oxi-llm -m $M hi </dev/null'
check_grep 'reported as truncated' 'fatal: truncated: ' "$TMP/.err"
fake_server openai.py --hang
check_exit 'a server gone silent: 111 after the idle timeout' 111 \
	'OXI_LLM_IDLE_TIMEOUT=0.5 OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
	 with_timeout 20 oxi-llm -m $M hi </dev/null'
done_testing
