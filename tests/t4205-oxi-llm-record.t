#!/bin/sh
# oxi-llm --record appends each request and the records that answered
# it; --replay answers matching requests from such a file (matched on
# model, messages and tools, never on the id) without the network
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 18

export OXI_LLM_RETRIES=0 OXI_LLM_PARALLEL=1 OXI_MODEL=openai/fake-model
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
posts() { wc -l <"$TMP/log" | tr -d ' '; }

req() {	# req ID TEXT [EXTRA]
	printf '{"v":1,"type":"llm.request","id":"%s",%s"messages":[{"role":"user","content":"%s"}]}\n' \
		"$1" "$3" "$2"
}
session() {	# session PREFIX: a conversation of five requests
	req "${1}1" "hello there"
	req "${1}2" "read notes.txt" '"tools":[{"name":"read_file","description":"reads","parameters":{"type":"object"}}],'
	req "${1}3" "two tools please"
	req "${1}4" "no stream" '"stream":false,'
	printf '{"type":"note","text":"passes through"}\n'
	req "${1}5" "hello there"
}
session r >"$TMP/in"
check 'a session recorded against the server' \
	'oxi-llm -j --record "$TMP/rec.ndjson" <"$TMP/in" >"$TMP/out1" 2>"$TMP/err"'
check 'five requests went out' '[ "$(posts)" = 5 ]'
check 'the recording: each request, then its records' \
	'[ "$(jget "[\"type\"]" "$TMP/rec.ndjson" | uniq -c | awk "{print \$2}" | tr "\n" " ")" = "llm.request llm.delta llm.response llm.request llm.response llm.request llm.response llm.request llm.response llm.request llm.delta llm.response " ]'
check 'requests are recorded with the model they were sent with' \
	'[ "$(grep llm.request "$TMP/rec.ndjson" | jget "[\"model\"]" /dev/stdin | sort -u)" = openai/fake-model ]'
check 'a record of another type is not recorded' \
	'! grep -q "\"note\"" "$TMP/rec.ndjson"'

kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
session x >"$TMP/in2"
check 'the server stopped, the same session replayed, new ids' \
	'oxi-llm -j --replay "$TMP/rec.ndjson" <"$TMP/in2" >"$TMP/out2" 2>"$TMP/err"'
sed 's/"\(id\|ref\)":"x/"\1":"r/' "$TMP/out2" >"$TMP/out2.r"
check_same 'the same records, ids re-stamped' "$TMP/out2.r" "$TMP/out1"
check 'the ids are the new ones' \
	'[ "$(grep -c "\"id\":\"x" "$TMP/out2")" = "$(grep -c "\"id\":\"r" "$TMP/out1")" ]'
check 'and nothing was sent' '[ "$(posts)" = 5 ]'

req m1 "something else" >"$TMP/in3"
req m2 "hello there" '"tools":[{"name":"x","description":"","parameters":{}}],' >>"$TMP/in3"
printf '{"v":1,"type":"llm.request","id":"m3","model":"openai/other","messages":[{"role":"user","content":"hello there"}]}\n' >>"$TMP/in3"
oxi-llm -j --replay "$TMP/rec.ndjson" <"$TMP/in3" >"$TMP/out3" 2>"$TMP/err3"
check 'a request with other messages, tools or model: replay_miss' \
	'[ "$(grep -c "\"code\":\"replay_miss\",\"message\":\"no recorded answer for this request\",\"retryable\":false" "$TMP/out3")" = 3 ]'
check 'one warning each' \
	'[ "$(grep -c "warning: request m[123]: replay_miss" "$TMP/err3")" = 3 ]'

check 'the same request asked again: the recorded answers in turn, then the last' \
	'{ req y1 "hello there"; req y2 "hello there"; req y3 "hello there"; } |
	 oxi-llm -j --replay "$TMP/rec.ndjson" >"$TMP/out4" 2>/dev/null &&
	 [ "$(grep -c "\"type\":\"llm.response\"" "$TMP/out4")" = 3 ]'

# human mode, and errors recorded like answers
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
check 'human mode records too (appending)' \
	'oxi-llm --record "$TMP/rec.ndjson" -s "Be brief." what now </dev/null >"$TMP/h1" &&
	 [ "$(grep -c llm.request "$TMP/rec.ndjson")" = 6 ]'
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
check 'and replays without a server or a key' \
	'env -u OXI_OPENAI_BASE_URL oxi-llm --replay "$TMP/rec.ndjson" -m openai/fake-model -s "Be brief." what now </dev/null >"$TMP/h2" &&
	 cmp -s "$TMP/h1" "$TMP/h2" && [ "$(cat "$TMP/h2")" = "echo: what now" ]'
check_exit 'human mode, no recorded answer: 100' 100 \
	'oxi-llm --replay "$TMP/rec.ndjson" -m openai/fake-model what else </dev/null'

fake_server openai.py --status 400 --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
req e1 "bad" | oxi-llm -j --record "$TMP/err.ndjson" >"$TMP/e1" 2>/dev/null
check 'an error answer is recorded and replayed, ref re-stamped' \
	'req e2 "bad" | oxi-llm -j --replay "$TMP/err.ndjson" >"$TMP/e2" 2>/dev/null &&
	 [ "$(sed "s/\"ref\":\"e1\"/\"ref\":\"e2\"/" "$TMP/e1")" = "$(cat "$TMP/e2")" ] &&
	 grep -q "\"code\":\"bad_request\"" "$TMP/e2"'

check_exit '--record and --replay together: 100' 100 \
	'oxi-llm -j --record "$TMP/a" --replay "$TMP/b" </dev/null'
check_exit 'a recording that cannot be read: 100' 100 \
	'oxi-llm -j --replay "$TMP/nonesuch" </dev/null'
done_testing
