#!/bin/sh
# oxi-llm's human mode with the manners of llm: long options, options
# after the prompt, -o KEY VALUE into the request, -u, -x, the default
# model kept in the configuration, and the prompt and models commands
cd "$(dirname "$0")" && . ./lib.sh || exit 1
export OXI_LLM_RETRIES=0
plan 44

M=openai/fake-model
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
posts() { wc -l <"$TMP/log" | tr -d ' '; }
last() {	# last FILTER: a field of the last request the server saw
	tail -n 1 "$TMP/log" >"$TMP/last"
	jget "$1" "$TMP/last"
}

check '--model and --system are -m and -s' \
	'oxi-llm --model openai/long-model --system "Be brief." hi </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = long-model ] &&
	 [ "$(last "[\"messages\"][0]")" = "{\"role\": \"system\", \"content\": \"Be brief.\"}" ]'
check 'options after the prompt, as llm takes them' \
	'oxi-llm what is up -m openai/after-model -s Short. </dev/null >"$TMP/out" &&
	 [ "$(last "[\"model\"]")" = after-model ] &&
	 [ "$(last "[\"messages\"][1][\"content\"]")" = "what is up" ] &&
	 [ "$(cat "$TMP/out")" = "echo: what is up" ]'
check '--model=NAME and --system=TEXT' \
	'oxi-llm hi --model=openai/eq-model --system=Terse. </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = eq-model ] &&
	 [ "$(last "[\"messages\"][0][\"content\"]")" = Terse. ]'
check '--verbose is -v' \
	'oxi-llm --verbose -m $M hi </dev/null >/dev/null 2>"$TMP/err" &&
	 grep -q "debug: " "$TMP/err"'

# -o KEY VALUE
check '-o temperature, top_p, max_tokens, seed, stop reach the body' \
	'oxi-llm -m $M -o temperature 0.2 -o top_p 0.9 -o max_tokens 50 \
	    -o seed 7 -o stop END hi </dev/null >/dev/null &&
	 [ "$(last "[\"temperature\"]")" = 0.2 ] &&
	 [ "$(last "[\"top_p\"]")" = 0.9 ] &&
	 [ "$(last "[\"max_tokens\"]")" = 50 ] &&
	 [ "$(last "[\"seed\"]")" = 7 ] &&
	 [ "$(last "[\"stop\"]")" = END ]'
check '--option is -o; stop given twice is an array' \
	'oxi-llm -m $M --option stop A hi --option stop B </dev/null >/dev/null &&
	 [ "$(last "[\"stop\"]")" = "[\"A\", \"B\"]" ]'
check '-o reasoning_effort becomes reasoning_effort of Chat Completions' \
	'oxi-llm -m $M -o reasoning_effort low hi </dev/null >/dev/null &&
	 [ "$(last "[\"reasoning_effort\"]")" = low ]'
check 'without -o, none of them is sent' \
	'oxi-llm -m $M hi </dev/null >/dev/null &&
	 ! tail -n 1 "$TMP/log" |
	 grep -Eq "\"(temperature|top_p|seed|stop|max_tokens|reasoning_effort)\""'
n=$(posts)
check_exit '-o temperature 3: 100' 100 'oxi-llm -m $M -o temperature 3 hi </dev/null'
check_grep 'naming the key, the value and the range' \
	"bad temperature '3': a number from 0 to 2 expected" "$TMP/.err"
check_exit '-o top_p -0.1: 100' 100 'oxi-llm -m $M -o top_p -0.1 hi </dev/null'
check_exit '-o max_tokens 0: 100' 100 'oxi-llm -m $M -o max_tokens 0 hi </dev/null'
check_exit '-o seed 1.5: 100' 100 'oxi-llm -m $M -o seed 1.5 hi </dev/null'
check_exit '-o temperature x: 100' 100 'oxi-llm -m $M -o temperature x hi </dev/null'
check_exit '-o reasoning_effort max: 100' 100 \
	'oxi-llm -m $M -o reasoning_effort max hi </dev/null'
check_grep 'listing the efforts' 'none, minimal, low, medium or high' "$TMP/.err"
check_exit 'an unknown key: 100' 100 'oxi-llm -m $M -o colour red hi </dev/null'
check_grep 'listing the keys' "unknown option 'colour': temperature, top_p" "$TMP/.err"
check_exit '-o with a key and no value: 100' 100 'oxi-llm -m $M hi -o seed'
check 'none of them reached the server' '[ "$(posts)" = "$n" ]'

# -u, -x
check '-u: usage and cost on stderr after the reply, stdout unchanged' \
	'oxi-llm -m $M -u hi </dev/null >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(cat "$TMP/out")" = "echo: hi" ] &&
	 grep -Eqx "Token usage: [0-9]+ input, [0-9]+ output, cost unknown" "$TMP/err"'
printf '{"openai/fake-model": {"input": 1, "output": 2}}\n' >"$TMP/prices.json"
check '--usage, with a price' \
	'OXI_PRICES="$TMP/prices.json" oxi-llm -m $M --usage hi </dev/null \
	    >/dev/null 2>"$TMP/err" &&
	 grep -Eqx "Token usage: [0-9]+ input, [0-9]+ output, cost \\\$0\.0000[0-9]{2}" "$TMP/err"'
printf 'two blocks:\n```sh\nls -l\n```\nand\n```python\nprint(1)\n```\nend\n' \
	>"$TMP/blocks"
check '-x prints only the first fenced code block' \
	'oxi-llm -m $M -x <"$TMP/blocks" >"$TMP/out" &&
	 [ "$(cat "$TMP/out")" = "ls -l" ]'
check '--xl the last one, --extract is -x, --extract-last is --xl' \
	'[ "$(oxi-llm -m $M --xl <"$TMP/blocks")" = "print(1)" ] &&
	 [ "$(oxi-llm -m $M --extract <"$TMP/blocks")" = "ls -l" ] &&
	 [ "$(oxi-llm -m $M --extract-last <"$TMP/blocks")" = "print(1)" ]'
check '-x without a code block prints the whole reply' \
	'[ "$(oxi-llm -m $M -x no code here </dev/null)" = "echo: no code here" ]'
printf 'text\n````\nnot ```closed here\n````\n' >"$TMP/blocks2"
check '-x: a fence closes only with its own length' \
	'[ "$(oxi-llm -m $M -x <"$TMP/blocks2")" = "not \`\`\`closed here" ]'

# the default model
check_exit 'no default model yet: models default exits 1' 1 \
	'oxi-llm models default'
check_grep 'saying how to set one' 'oxi-llm models default' "$TMP/.err"
check 'models default NAME keeps it in the configuration directory' \
	'oxi-llm models default openai/default-model &&
	 [ "$(cat "$OXI_CONFIG_DIR/default-model")" = openai/default-model ] &&
	 [ "$(oxi-llm models default)" = openai/default-model ]'
check 'the default model is used without -m or OXI_MODEL' \
	'oxi-llm hi </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = default-model ]'
check 'OXI_MODEL wins over the default model' \
	'OXI_MODEL=openai/env-model oxi-llm hi </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = env-model ]'
check '-m wins over both' \
	'OXI_MODEL=openai/env-model oxi-llm -m openai/flag-model hi </dev/null >/dev/null &&
	 [ "$(last "[\"model\"]")" = flag-model ]'
check 'record mode takes the default model too' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"r1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" |
	 oxi-llm -j >/dev/null && [ "$(last "[\"model\"]")" = default-model ]'
check 'a model whose key is missing may still be the default' \
	'env -u OXI_OPENAI_BASE_URL oxi-llm models default anthropic/claude-x,openai/y &&
	 [ "$(oxi-llm models default)" = anthropic/claude-x,openai/y ]'
check_exit 'an unknown provider cannot: 100' 100 'oxi-llm models default acme/x'
check_exit 'nor a name without a provider: 100' 100 'oxi-llm models default gpt-4o'
check 'and the default stays as it was' \
	'[ "$(oxi-llm models default)" = anthropic/claude-x,openai/y ]'
rm -f "$OXI_CONFIG_DIR/default-model"

# commands
check 'oxi-llm models lists what -M lists' \
	'oxi-llm models >"$TMP/m1" && oxi-llm -M >"$TMP/m2" &&
	 oxi-llm --models >"$TMP/m3" && [ -s "$TMP/m1" ] &&
	 cmp -s "$TMP/m1" "$TMP/m2" && cmp -s "$TMP/m1" "$TMP/m3"'
check 'oxi-llm prompt WORDS asks, even a word that names a command' \
	'oxi-llm prompt -m $M logs </dev/null >"$TMP/out" &&
	 [ "$(cat "$TMP/out")" = "echo: logs" ]'
check_exit 'models with too many words: 100' 100 'oxi-llm models default a/b c'
check_exit 'human-mode options in record mode: 100' 100 \
	'oxi-llm -j -m $M -o temperature 1 </dev/null'
check_exit '-j with -x: 100' 100 'oxi-llm -j -m $M -x </dev/null'
check_exit '-M with -u: 100' 100 'oxi-llm -M -u'
check '--records is -j, --warm is -W, --max-line is -l, --notify-fd is -d' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"r2\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" |
	 oxi-llm --records --warm --max-line 2k --notify-fd 3 -m $M 3>"$TMP/ready" >"$TMP/out" &&
	 grep -q "\"llm.response\"" "$TMP/out" && [ "$(cat "$TMP/ready")" = "" ] &&
	 [ "$(wc -c <"$TMP/ready")" = 1 ]'
done_testing
