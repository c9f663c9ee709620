#!/bin/sh
# oxi-llm accounting: usage with five counts and cost_usd from the price
# table on every answer, the spend ledger, and budgets per day, month and
# session that refuse a request before anything is sent
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 32

export OXI_LLM_RETRIES=0 OXI_LLM_PARALLEL=1
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
# a dollar per input token, two per output token, fifty cents per cached
cat >"$TMP/prices.json" <<'EOF'
{"_note": "for tests",
 "openai/fake-model": {"input": 1000000, "output": 2000000,
                       "cache_read": 500000},
 "openai/*": {"input": 0, "output": 0},
 "openai/glob-*": {"input": 3000000, "output": 0},
 "openai/glob-long-*": {"input": 5000000, "output": 0}}
EOF
export OXI_PRICES="$TMP/prices.json"

req() {	# req ID [SESSION [MODEL]]
	printf '{"type":"llm.request","id":"%s",%s"model":"%s","messages":[{"role":"user","content":"hi"}]}\n' \
		"$1" "${2:+\"session\":\"$2\",}" "${3:-openai/fake-model}"
}
posts() { [ -f "$TMP/log" ] && wc -l <"$TMP/log" | tr -d ' ' || echo 0; }
field() {	# field ID EXPR: EXPR of the final record of request ID
	python3 -c '
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r["type"] != "llm.delta" and sys.argv[2] in (r.get("id"), r.get("ref")):
        print(json.dumps(eval(sys.argv[3])))
' "$TMP/out" "$1" "$2"
}

req r1 | oxi-llm -j >"$TMP/out" 2>"$TMP/err"
check 'usage has input, output, cache_read, cache_write and reasoning' \
	'[ "$(field r1 "sorted(r[\"usage\"])")" = "[\"cache_read\", \"cache_write\", \"input\", \"output\", \"reasoning\"]" ]'
check 'cost_usd is input and output tokens at their prices' \
	'[ "$(field r1 "r[\"cost_usd\"] == r[\"usage\"][\"input\"] + 2 * r[\"usage\"][\"output\"]")" = true ] &&
	 [ "$(field r1 "r[\"cost_usd\"] > 0")" = true ]'

# cached and reasoning tokens, from a recorded usage chunk
printf 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":40},"completion_tokens_details":{"reasoning_tokens":4}}}\n\ndata: [DONE]\n\n' >"$TMP/usage.sse"
fake_server openai.py --replay "$TMP/usage.sse" --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
req u1 | oxi-llm -j >"$TMP/out" 2>"$TMP/err"
check 'cached input at the cache price: 60 + 40 / 2 + 10 * 2 = 100' \
	'[ "$(field u1 "r[\"cost_usd\"]")" = 100 ] &&
	 [ "$(field u1 "r[\"usage\"][\"cache_read\"]")" = 40 ]'
check 'reasoning tokens are counted (and priced as output)' \
	'[ "$(field u1 "r[\"usage\"][\"reasoning\"]")" = 4 ]'
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"

{ req g1 "" openai/glob-x; req g2 "" openai/glob-long-x; req g3 "" openai/other
  req g4 "" vllm/x; } >"$TMP/in"
OXI_VLLM_BASE_URL=$OXI_OPENAI_BASE_URL oxi-llm -j <"$TMP/in" >"$TMP/out" \
	2>"$TMP/err"
check 'a glob entry prices the models it matches' \
	'[ "$(field g1 "r[\"cost_usd\"] == 3 * r[\"usage\"][\"input\"]")" = true ]'
check 'the longest matching pattern wins' \
	'[ "$(field g2 "r[\"cost_usd\"] == 5 * r[\"usage\"][\"input\"]")" = true ] &&
	 [ "$(field g3 "r[\"cost_usd\"]")" = 0 ]'
check 'a model without a price: cost_usd null' \
	'[ "$(field g4 "r[\"cost_usd\"]")" = null ]'

# the shipped table, and the configuration directory's entries over it
unset OXI_PRICES
req s1 "" openai/gpt-4o-mini | oxi-llm -j >"$TMP/out" 2>"$TMP/err"
check 'the shipped prices.json: gpt-4o-mini at 0.15 and 0.60 per million' \
	'[ "$(field s1 "abs(r[\"cost_usd\"] - (r[\"usage\"][\"input\"] * 0.15 + r[\"usage\"][\"output\"] * 0.6) / 1e6) < 1e-12")" = true ]'
mkdir -p "$OXI_CONFIG_DIR"
printf '{"openai/gpt-4o-mini": {"input": 1000000, "output": 0}}\n' \
	>"$OXI_CONFIG_DIR/prices.json"
{ req s2 "" openai/gpt-4o-mini; req s3 "" openai/gpt-4o; } |
	oxi-llm -j >"$TMP/out" 2>"$TMP/err"
check 'an entry in $OXI_CONFIG_DIR/prices.json replaces the shipped one' \
	'[ "$(field s2 "r[\"cost_usd\"] == r[\"usage\"][\"input\"]")" = true ]'
check 'the other shipped entries stay' \
	'[ "$(field s3 "abs(r[\"cost_usd\"] - (r[\"usage\"][\"input\"] * 2.5 + r[\"usage\"][\"output\"] * 10) / 1e6) < 1e-12")" = true ]'
rm "$OXI_CONFIG_DIR/prices.json"
mkdir -p "$TMP/share"
printf '{"openai/fake-model": {"input": 7000000, "output": 0}}\n' \
	>"$TMP/share/prices.json"
check 'OXI_SHARE_DIR: where the shipped table is looked for' \
	'req d1 | OXI_SHARE_DIR="$TMP/share" oxi-llm -j >"$TMP/out" 2>/dev/null &&
	 [ "$(field d1 "r[\"cost_usd\"] == 7 * r[\"usage\"][\"input\"]")" = true ]'
printf '{"openai/x": {"input": "cheap"}}\n' >"$TMP/bad.json"
check_exit 'a malformed price table: 100' 100 \
	'OXI_PRICES="$TMP/bad.json" oxi-llm -j </dev/null'
check_grep 'saying which entry' "entry 'openai/x': prices must be" "$TMP/.err"
check_exit 'a price table that is missing: 100' 100 \
	'OXI_PRICES="$TMP/nonesuch.json" oxi-llm -j </dev/null'
export OXI_PRICES="$TMP/prices.json"

# budgets
: >"$TMP/log"
req b1 | OXI_BUDGET_DAY_USD=0 oxi-llm -j >"$TMP/out" 2>"$TMP/err"
check 'a spent daily budget: an error record, code budget, not retryable' \
	'[ "$(field b1 "[r[\"type\"], r[\"code\"], r[\"retryable\"]]")" = "[\"error\", \"budget\", false]" ]'
check 'naming the cap' \
	'field b1 "r[\"message\"]" |
	 grep -Eq "^\"the daily cap of 0\.00 USD is spent \([0-9.]+ USD today, UTC\)\"\$"'
check 'and no HTTP request' '[ "$(posts)" = 0 ]'

export OXI_HOME="$TMP/h2"
cost=$(req c0 | oxi-llm -j 2>/dev/null | grep llm.response |
	jget '["cost_usd"]' /dev/stdin)
: >"$TMP/log"
{ req c1; req c2; req c3; } >"$TMP/in"
check 'the daily cap: requests go until the spend reaches it' \
	'OXI_BUDGET_DAY_USD=$((cost * 3 - 1)) oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(field c1 "r[\"type\"]")$(field c2 "r[\"type\"]")$(field c3 "r[\"code\"]")" = "\"llm.response\"\"llm.response\"\"budget\"" ] &&
	 [ "$(posts)" = 2 ]'
check 'one warning line for the refused request' \
	'[ "$(grep -c "warning: request c3: budget: the daily cap" "$TMP/err")" = 1 ]'
check 'the spend is in the ledger, one row per answer' \
	'[ "$(python3 -c "import sqlite3; print(sqlite3.connect(\"$OXI_HOME/llm.db\").execute(\"select count(*), min(day) = date(\x27now\x27) from spend\").fetchone())")" = "(3, 1)" ]'
check 'the ledger outlives the process: the next one is refused too' \
	'req c4 | OXI_BUDGET_DAY_USD=$((cost * 3 - 1)) oxi-llm -j >"$TMP/out" 2>/dev/null &&
	 [ "$(field c4 "r[\"code\"]")" = "\"budget\"" ] && [ "$(posts)" = 2 ]'
check '-b month=USD, over OXI_BUDGET_MONTH_USD' \
	'req c5 | OXI_BUDGET_MONTH_USD=1000 oxi-llm -j -b month=$((cost * 2)) >"$TMP/out" 2>/dev/null &&
	 [ "$(field c5 "r[\"message\"]")" = "\"the monthly cap of $((cost * 2)).00 USD is spent ($((cost * 3)).0000 USD this month, UTC)\"" ]'

export OXI_HOME="$TMP/h3"
: >"$TMP/log"
{ req s1 alice; req s2 alice; req s3 bob; req s4; } >"$TMP/in"
check 'a session cap: per "session", requests without one are not held' \
	'oxi-llm -j -b session=1 <"$TMP/in" >"$TMP/out" 2>/dev/null &&
	 [ "$(field s2 "r[\"code\"]")" = "\"budget\"" ] &&
	 [ "$(field s3 "r[\"type\"]")$(field s4 "r[\"type\"]")" = "\"llm.response\"\"llm.response\"" ] &&
	 [ "$(posts)" = 3 ]'
# budgets fail closed: a model without a price cannot be counted
: >"$TMP/log"
check 'a budget and a request for a model without a price: refused, not retryable' \
	'export OXI_HOME="$TMP/h4"
	 { req v1 "" vllm/x; req v2 "" openai/fake-model; } |
	 OXI_VLLM_BASE_URL=$OXI_OPENAI_BASE_URL OXI_BUDGET_DAY_USD=1000 \
		oxi-llm -j >"$TMP/out" 2>/dev/null &&
	 [ "$(field v1 "[r[\"code\"], r[\"retryable\"]]")" = "[\"budget\", false]" ] &&
	 field v1 "r[\"message\"]" | grep -q "a budget is set but .vllm/x. has no price" &&
	 [ "$(field v2 "r[\"type\"]")" = "\"llm.response\"" ] && [ "$(posts)" = 1 ]'
check_exit 'a budget and a default model without a price: 100 at start' 100 \
	'OXI_VLLM_BASE_URL=$OXI_OPENAI_BASE_URL oxi-llm -j -m openai/fake-model,vllm/x -b day=5 </dev/null'
cp "$TMP/.err" "$TMP/perr"
check 'with one clear line naming the model and the fix' \
	'[ "$(wc -l <"$TMP/perr")" = 1 ] &&
	 grep -q "fatal: a budget is set but .vllm/x. has no price, so its spend cannot be counted: add it to prices.json (OXI_PRICES) or unset the budget" "$TMP/perr"'
check 'without a budget the same model goes, cost_usd null' \
	'req v3 "" vllm/x | OXI_VLLM_BASE_URL=$OXI_OPENAI_BASE_URL oxi-llm -j >"$TMP/out" 2>/dev/null &&
	 [ "$(field v3 "r[\"cost_usd\"]")" = null ]'

: >"$TMP/log"
check_exit 'human mode over budget: 100, nothing sent' 100 \
	'oxi-llm -m openai/fake-model -b day=0 hello </dev/null'
cp "$TMP/.err" "$TMP/herr"
check 'with one fatal line' \
	'[ "$(posts)" = 0 ] && [ "$(wc -l <"$TMP/herr")" = 1 ] &&
	 grep -q "fatal: budget: the daily cap of 0.00 USD is spent" "$TMP/herr"'
check_exit 'a bad -b: 100' 100 'oxi-llm -j -b year=3 </dev/null'
check_exit 'a bad budget variable: 100' 100 \
	'OXI_BUDGET_DAY_USD=lots oxi-llm -j </dev/null'
check 'no ledger while a budget is set: refused, retryable, one warning' \
	'req l1 | OXI_HOME=/dev/null/x OXI_BUDGET_DAY_USD=5 oxi-llm -j >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(field l1 "[r[\"code\"], r[\"retryable\"]]")" = "[\"budget\", true]" ] &&
	 grep -Eq "warning: unable to (keep|open) the spend ledger" "$TMP/err" &&
	 [ "$(posts)" = 0 ]'
done_testing
