#!/bin/sh
# oxi-llm -j: llm.cancel of a request in flight ends it at once without
# another record (a silent server is not waited for), while the others
# are answered; an llm.cancel of a request not ours passes through
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 6

fake_server openai.py --hang --access-log "$TMP/access"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OXI_LLM_IDLE_TIMEOUT=30

# r1 goes to the silent server; once it is there, the cancel
(
	printf '{"v":1,"type":"llm.request","id":"r1","model":"openai/m","messages":[{"role":"user","content":"hi"}]}\n'
	i=0
	while [ ! -s "$TMP/access" ] && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
	printf '{"v":1,"type":"llm.cancel","id":"c1","ref":"r1"}\n'
	printf '{"v":1,"type":"llm.cancel","id":"c2","ref":"elsewhere"}\n'
) | oxi-llm -j >"$TMP/out" 2>"$TMP/err" &
pid=$!
# it ends with its input: nothing is left to wait 30 s for
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
check 'with r1 cancelled, oxi-llm ends with its input, long before the idle timeout' \
	'! kill -0 $pid 2>/dev/null'
kill $pid 2>/dev/null
wait $pid
check_lines 'the request reached the server' 1 "$TMP/access"
check 'no llm.response, llm.delta nor error for r1' \
	'! grep -q "\"id\":\"r1\"" "$TMP/out"'
check 'the cancel of r1 is taken, not passed on' \
	'! grep -q "\"id\":\"c1\"" "$TMP/out"'
check 'a cancel of a request not ours passes through unchanged' \
	'[ "$(grep -c "\"ref\":\"elsewhere\"" "$TMP/out")" = 1 ]'
check 'no warning about r1' '! grep -q "r1" "$TMP/err"'
