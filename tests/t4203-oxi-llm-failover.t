#!/bin/sh
# oxi-llm failover chains: "-m a/x,b/y" (or the same list in a request's
# "model", or OXI_MODEL) moves to the next model once retries are spent,
# at once on a 429 or an open breaker, never on auth or bad requests;
# the answer says which model gave it
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 16

export OXI_LLM_BACKOFF=0.01 OXI_LLM_BACKOFF_MAX=0.02 OXI_LLM_RETRIES=1
msgs='"messages":[{"role":"user","content":"hi"}]'

# two fakes: A behind the openai provider, B behind vllm
fakes() {	# fakes "A ARGS" "B ARGS"
	fake_server openai.py --log "$TMP/a.log" $1
	A=$PORT
	fake_server openai.py --log "$TMP/b.log" $2
	B=$PORT
	export OXI_OPENAI_BASE_URL="http://127.0.0.1:$A/v1"
	export OXI_VLLM_BASE_URL="http://127.0.0.1:$B/v1"
}
n() { [ -f "$TMP/$1.log" ] && wc -l <"$TMP/$1.log" | tr -d ' ' || echo 0; }
run() {	# run MODEL-FIELD ARGS...: one request e1 through oxi-llm -j
	rm -f "$TMP/a.log" "$TMP/b.log"
	_f=$1
	shift
	printf '{"v":1,"type":"llm.request","id":"e1",%s%s}\n' "$_f" "$msgs" |
		with_timeout 30 oxi-llm -j "$@" >"$TMP/out" 2>"$TMP/err"
}
final() {	# "model content|code attempts" of the final record
	python3 -c '
import json, sys
fin = [r for r in map(json.loads, open(sys.argv[1]))
       if r["type"] != "llm.delta"]
r = fin[0]
print(len(fin), r.get("model"),
      r["message"]["content"] if r["type"] == "llm.response" else r["code"],
      r.get("attempts", 1))
' "$TMP/out"
}

fakes "--status 500" ""
check 'A fails with 500: retried, then B answers' \
	'run "" -m openai/a,vllm/b && [ "$(final)" = "1 vllm/b echo: hi 3" ]'
check 'A got two attempts, B one' '[ "$(n a)" = 2 ] && [ "$(n b)" = 1 ]'
check_grep 'moving on is one info line' \
	'info: request e1: server from openai/a, trying vllm/b' "$TMP/err"
check 'the chain may be the request'\''s "model"' \
	'run "\"model\":\"openai/a, vllm/b\"," &&
	 [ "$(final)" = "1 vllm/b echo: hi 3" ]'
check 'or OXI_MODEL' \
	'OXI_MODEL=openai/a,vllm/b run "" && [ "$(final)" = "1 vllm/b echo: hi 3" ]'
check 'human mode too: the answer of B' \
	'rm -f "$TMP/a.log" "$TMP/b.log"
	 [ "$(oxi-llm -m openai/a,vllm/b hello </dev/null 2>/dev/null)" = "echo: hello" ] &&
	 [ "$(n a)" = 2 ]'
check 'the model asked for is sent to each provider' \
	'[ "$(jget "[\"model\"]" "$TMP/a.log" | sort -u)" = a ] &&
	 [ "$(jget "[\"model\"]" "$TMP/b.log")" = b ]'

fakes "--status 429 --retry-after 30" ""
check 'a 429 moves on at once, without waiting for Retry-After' \
	'run "" -m openai/a,vllm/b && [ "$(final)" = "1 vllm/b echo: hi 2" ] &&
	 [ "$(n a)" = 1 ] && [ "$(n b)" = 1 ]'

fakes "--status 401" ""
check 'a 401 does not move on: the auth error of A' \
	'OPENAI_API_KEY=sk-test-FAILOVER0123456789 run "" -m openai/a,vllm/b &&
	 [ "$(final)" = "1 openai/a auth 1" ] && [ "$(n b)" = 0 ]'
fakes "--status 400" ""
check 'neither does a 400' \
	'run "" -m openai/a,vllm/b && [ "$(final)" = "1 openai/a bad_request 1" ] &&
	 [ "$(n b)" = 0 ]'

fakes "--status 500" "--status 503"
check 'every model fails: the last error, after every attempt' \
	'run "" -m openai/a,vllm/b && [ "$(final)" = "1 vllm/b server 4" ] &&
	 [ "$(n a)" = 2 ] && [ "$(n b)" = 2 ]'
check 'human mode: 111' \
	'oxi-llm -m openai/a,vllm/b hello </dev/null >/dev/null 2>"$TMP/herr"
	 [ $? = 111 ] && grep -q "fatal: server: vllm: HTTP 503" "$TMP/herr"'

fakes "--status 500" ""
check 'an open breaker skips its models: A is not called again' \
	'rm -f "$TMP/a.log" "$TMP/b.log"
	 printf "%s\n" "{\"type\":\"llm.request\",\"id\":\"r1\",$msgs}" \
		"{\"type\":\"llm.request\",\"id\":\"r2\",$msgs}" |
	 OXI_LLM_RETRIES=0 OXI_LLM_BREAKER=1 OXI_LLM_PARALLEL=1 \
		oxi-llm -j -m openai/a,vllm/b >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(grep -c "\"model\":\"vllm/b\"" "$TMP/out")" = 2 ] &&
	 [ "$(n a)" = 1 ] && [ "$(n b)" = 2 ]'

check 'a model that cannot be used (no key) is skipped' \
	'run "\"model\":\"groq/x,vllm/b\"," && [ "$(final)" = "1 vllm/b echo: hi 1" ]'
check 'a bad model in -m: 100 at start' \
	'oxi-llm -j -m openai/a,acme/b </dev/null 2>"$TMP/herr"; [ $? = 100 ] &&
	 grep -q "unknown provider .acme." "$TMP/herr"'
check 'an empty chain: 100' \
	'oxi-llm -j -m " , " </dev/null 2>/dev/null; [ $? = 100 ]'
done_testing
