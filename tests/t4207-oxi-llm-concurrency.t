#!/bin/sh
# oxi-llm -j keeps many requests in flight in one process, reuses its
# connections, can open them before it says it is ready (-W), cuts a
# request at OXI_LLM_TIMEOUT, and lists the models it knows (-M)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 14

export OXI_MODEL=openai/fake-model OXI_LLM_RETRIES=0
fake_server openai.py --access-log "$TMP/acc"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"

python3 -c '
import json
for i in range(60):
    print(json.dumps({"type": "llm.request", "id": "c%d" % i,
        "messages": [{"role": "user", "content": "number %d" % i}]}))
' >"$TMP/in"
check '60 requests at once, 60 in flight' \
	'OXI_LLM_PARALLEL=60 with_timeout 30 oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'each answered once, with its own text' \
	'python3 -c "
import json, sys
text, fin = {}, {}
for r in map(json.loads, open(sys.argv[1])):
    if r[\"type\"] == \"llm.delta\":
        text[r[\"id\"]] = text.get(r[\"id\"], \"\") + r[\"text\"]
    else:
        fin.setdefault(r[\"id\"], []).append(r)
assert len(fin) == 60, len(fin)
for i in range(60):
    k = \"c%d\" % i
    assert len(fin[k]) == 1 and fin[k][0][\"type\"] == \"llm.response\"
    assert text[k] == fin[k][0][\"message\"][\"content\"] == \"echo: number %d\" % i
" "$TMP/out"'
check 'they overlapped: several connections were open' \
	'[ "$(awk "{print \$2}" "$TMP/acc" | sort -u | wc -l)" -gt 1 ]'

: >"$TMP/acc"
head -n 5 "$TMP/in" >"$TMP/in5"
check 'one after another: all over one connection' \
	'OXI_LLM_PARALLEL=1 oxi-llm -j <"$TMP/in5" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(grep -c POST "$TMP/acc")" = 5 ] &&
	 [ "$(awk "{print \$2}" "$TMP/acc" | sort -u | wc -l)" = 1 ]'

# warm-up before readiness
: >"$TMP/acc"
mkfifo "$TMP/fifo"
exec 4<>"$TMP/fifo"
OXI_LLM_PARALLEL=1 oxi-llm -j -W -d 3 <"$TMP/fifo" 4>&- >"$TMP/out" 2>"$TMP/err" 3>"$TMP/ready" &
pid=$!
_bgpids="$_bgpids $pid"
i=0
while [ ! -s "$TMP/ready" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
cp "$TMP/acc" "$TMP/acc.ready"
check '-W: a GET of the models list before readiness' \
	'[ -s "$TMP/ready" ] && [ "$(cut -d" " -f3- "$TMP/acc.ready")" = "GET /v1/models" ]'
head -n 2 "$TMP/in" >&4
exec 4>&-
wait $pid
rc=$?
check 'then the requests on that same connection' \
	'c=$(cut -d" " -f2 "$TMP/acc.ready") &&
	 [ $rc = 0 ] && [ "$(grep -c "^[0-9.]* $c POST" "$TMP/acc")" = 2 ] &&
	 [ "$(grep -c llm.response "$TMP/out")" = 2 ]'
: >"$TMP/acc"
check 'OXI_LLM_WARM=1 is -W' \
	'OXI_LLM_WARM=1 oxi-llm -j </dev/null && grep -q "GET /v1/models" "$TMP/acc"'
: >"$TMP/acc"
check 'one warm-up per base URL of the chain' \
	'oxi-llm -j -W -m openai/a,openai/b,vllm/c </dev/null 2>/dev/null &&
	 [ "$(grep -c "GET /v1/models" "$TMP/acc")" = 1 ]'
check 'a warm-up that fails does not stop it' \
	'OXI_OPENAI_BASE_URL=http://127.0.0.1:1/v1 oxi-llm -j -W </dev/null'

# the whole-request timeout
fake_server openai.py --hang
check 'OXI_LLM_TIMEOUT cuts a request that keeps the line open' \
	'printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"t1\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}" |
	 OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OXI_LLM_TIMEOUT=0.5 \
		with_timeout 20 oxi-llm -j >"$TMP/out" 2>/dev/null &&
	 grep -q "\"ref\":\"t1\",\"code\":\"timeout\"" "$TMP/out"'

# the known models
check '-M lists provider/model names' \
	'oxi-llm -M >"$TMP/models" && grep -qx openai/gpt-4o-mini "$TMP/models" &&
	 grep -qx anthropic/claude-sonnet-4-5 "$TMP/models" &&
	 ! grep -v "^[a-z0-9-]*/." "$TMP/models"'
check '--models is -M; providers without priced models as provider/*' \
	'oxi-llm --models | cmp -s - "$TMP/models" && grep -qx "llamacpp/\*" "$TMP/models"'
check 'the models of the configured price table' \
	'printf "{\"openai/my-model\":{\"input\":1,\"output\":1}}\n" >"$TMP/p.json" &&
	 OXI_PRICES="$TMP/p.json" oxi-llm -M | grep -qx openai/my-model'
check_exit '-M with other options: 100' 100 'oxi-llm -M -m openai/x'
done_testing
