#!/bin/sh
# oxi-llm transcribe records: a multipart POST to an OpenAI-compatible
# /audio/transcriptions (the fake parses the form by its boundary), the
# key held by oxi-llm, "unconfigured" when there is none, files checked,
# errors and retries as for other requests
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 23

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_LLM_BACKOFF=0.01
fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OPENAI_API_KEY=sk-test-VOICE0123456789secret

treq() {	# treq ID PATH [EXTRA]
	printf '{"v":1,"type":"transcribe","id":"%s",%s"path":"%s"}\n' \
		"$1" "$3" "$2"
}
posts() { wc -l <"$TMP/log" | tr -d ' '; }
sent() {	# sent EXPR: of the last request the fake logged
	tail -n 1 "$TMP/log" | jget "$1" /dev/stdin
}
field() { jget "$1" "$TMP/out"; }
run() { oxi-llm -j "$@" >"$TMP/out" 2>"$TMP/err"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

printf 'SAY: remind me to buy bread\nand the rest of the audio\n' \
	>"$TMP/voice.oga"
# bytes that would trip a careless form: CR LF, dashes, NUL, high bytes
{ printf -- '--\r\n\r\n--oxi\0'; head -c 70000 /dev/urandom; } >"$TMP/noise.ogg"

treq t1 "$TMP/voice.oga" '"mime":"audio/ogg",' | run
check 'a transcription with the text, the id and the default model' \
	'[ "$(field "[\"type\"]") $(field "[\"id\"]") $(field "[\"model\"]")" = "transcription t1 openai/whisper-1" ] &&
	 [ "$(field "[\"text\"]")" = "remind me to buy bread" ]'
check 'POST /v1/audio/transcriptions: model whisper-1, response_format json' \
	'[ "$(sent "[\"path\"]") $(sent "[\"model\"]") $(sent "[\"response_format\"]")" = "/v1/audio/transcriptions whisper-1 json" ]'
check 'the file as audio.ogg (not .oga) of type audio/ogg, its bytes whole' \
	'[ "$(sent "[\"filename\"]") $(sent "[\"type\"]")" = "audio.ogg audio/ogg" ] &&
	 [ "$(sent "[\"sha256\"]")" = "$(sha "$TMP/voice.oga")" ]'
check 'the key as a bearer token, in no output' \
	'[ "$(sent "[\"authorization\"]")" = "Bearer $OPENAI_API_KEY" ] &&
	 ! grep -q VOICE0123456789 "$TMP/out" "$TMP/err"'
check 'whisper-1 counts seconds, not tokens: usage and cost_usd unknown' \
	'[ "$(field "[\"usage\"]") $(field "[\"cost_usd\"]")" = "{\"input\": null, \"seconds\": 3} null" ]'

treq t2 "$TMP/noise.ogg" | run
check 'a binary file arrives byte for byte (70 KB, CR LF, dashes, NUL)' \
	'[ "$(sent "[\"size\"]")" = "$(wc -c <"$TMP/noise.ogg" | tr -d " ")" ] &&
	 [ "$(sent "[\"sha256\"]")" = "$(sha "$TMP/noise.ogg")" ] &&
	 [ "$(field "[\"text\"]")" = "heard $(sent "[\"size\"]") bytes, sha256 $(sha "$TMP/noise.ogg" | cut -c1-12)" ]'
check 'without a mime, the file goes by its own name' \
	'[ "$(sent "[\"filename\"]")" = noise.ogg ]'

treq t3 "$TMP/voice.oga" | OXI_TRANSCRIBE_MODEL=openai/gpt-4o-mini-transcribe run
check 'OXI_TRANSCRIBE_MODEL chooses the model; .oga goes as .ogg' \
	'[ "$(field "[\"model\"]") $(sent "[\"model\"]") $(sent "[\"filename\"]")" = "openai/gpt-4o-mini-transcribe gpt-4o-mini-transcribe voice.ogg" ]'
check 'its token usage, priced from the table (3 and 5 USD per million)' \
	'[ "$(field "[\"usage\"]")" = "{\"input\": 1, \"output\": 6}" ] &&
	 python3 -c "import sys; sys.exit(abs($(field "[\"cost_usd\"]") - (1 * 3 + 6 * 5) / 1e6) > 1e-12)"'

fake_server openai.py --log "$TMP/glog"
check 'a compatible endpoint named by its provider (groq/whisper-large-v3)' \
	'treq t4 "$TMP/voice.oga" "\"model\":\"groq/whisper-large-v3\"," |
	 OXI_GROQ_BASE_URL="http://127.0.0.1:$PORT/openai/v1" GROQ_API_KEY=gsk-test run &&
	 [ "$(field "[\"text\"]")" = "remind me to buy bread" ] &&
	 [ "$(tail -n 1 "$TMP/glog" | jget "[\"path\"]" /dev/stdin) $(tail -n 1 "$TMP/glog" | jget "[\"model\"]" /dev/stdin)" = "/openai/v1/audio/transcriptions whisper-large-v3" ]'

n=$(posts)
check 'no key: an "unconfigured" error, not retryable, nothing sent' \
	'treq u1 "$TMP/voice.oga" | OPENAI_API_KEY= OXI_OPENAI_BASE_URL= run &&
	 grep -q "\"ref\":\"u1\",\"code\":\"unconfigured\",\"message\":\"no API key for openai: set OPENAI_API_KEY\",\"retryable\":false" "$TMP/out"'
check 'OXI_TRANSCRIBE_MODEL=none: "unconfigured"' \
	'treq u2 "$TMP/voice.oga" | OXI_TRANSCRIBE_MODEL=none run &&
	 grep -q "\"ref\":\"u2\",\"code\":\"unconfigured\"" "$TMP/out"'
check 'a provider without transcriptions (anthropic): "unconfigured"' \
	'treq u3 "$TMP/voice.oga" "\"model\":\"anthropic/claude-x\"," |
	 ANTHROPIC_API_KEY=k run &&
	 grep -q "\"ref\":\"u3\",\"code\":\"unconfigured\",\"message\":\"anthropic: no transcription: [^\"]*\",\"retryable\":false" "$TMP/out" &&
	 [ "$(posts)" = "$n" ]'

truncate -s 26M "$TMP/big.ogg"
: >"$TMP/empty.ogg"
{
	treq f1 "$TMP/missing.ogg"
	treq f2 "$TMP/big.ogg"
	treq f3 "$TMP/empty.ogg"
	treq f4 "$TMP"
} | run
check 'a missing file, a directory, an empty one: "file" errors' \
	'grep -q "\"ref\":\"f1\",\"code\":\"file\",\"message\":\"unable to read [^\"]*missing.ogg[^\"]*: No such file or directory\",\"retryable\":false" "$TMP/out" &&
	 grep -q "\"ref\":\"f3\",\"code\":\"file\",\"message\":\"[^\"]* is empty\"" "$TMP/out" &&
	 grep -q "\"ref\":\"f4\",\"code\":\"file\",\"message\":\"[^\"]* is not a file\"" "$TMP/out"'
check 'over 25 MiB: "too_large"; none of them sent' \
	'grep -q "\"ref\":\"f2\",\"code\":\"too_large\",\"message\":\"[^\"]* is over 25 MiB, more than the API takes\",\"retryable\":false" "$TMP/out" &&
	 [ "$(posts)" = "$n" ]'

{
	treq b1 relative.ogg
	printf '{"v":1,"type":"transcribe","path":"%s"}\n' "$TMP/voice.oga"
	treq b3 "$TMP/voice.oga" '"mime":3,'
	treq b4 "$TMP/voice.oga"
} >"$TMP/in"
check_exit 'malformed transcribe records: exit 1' 1 \
	'oxi-llm -j <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'each an invalid error, a warning and a dead letter; the good one answered' \
	'[ "$(grep -c "\"code\":\"invalid\"" "$TMP/out")" = 3 ] &&
	 [ "$(grep -c "warning: stdin:[123]: transcribe" "$TMP/err")" = 3 ] &&
	 [ "$(wc -l <"$OXI_DEADLETTER")" = 3 ] &&
	 grep -q "\"type\":\"transcription\",\"id\":\"b4\"" "$TMP/out" &&
	 [ "$(posts)" = $((n + 1)) ]'

cp "$TMP/voice.oga" "$TMP/voice.amr"
treq p1 "$TMP/voice.amr" '"mime":"audio/amr",' | run
check 'a file of a type the provider refuses: its 400 as bad_request' \
	'grep -q "\"ref\":\"p1\",\"code\":\"bad_request\",\"message\":\"openai: HTTP 400: Invalid file format[^\"]*\",\"retryable\":false" "$TMP/out"'

treq r1 "$TMP/voice.oga" '"mime":"audio/ogg",' | run --record "$TMP/rec"
check '--record keeps the transcribe and its transcription' \
	'[ "$(jget "[\"type\"]" "$TMP/rec" | tr "\n" " ")" = "transcribe transcription " ]'
{ treq r2 "$TMP/voice.oga" '"mime":"audio/ogg",'; treq r3 "$TMP/noise.ogg"; } |
	OPENAI_API_KEY= OXI_OPENAI_BASE_URL= run --replay "$TMP/rec"
check '--replay answers the same path without a key; another path misses' \
	'grep -q "\"type\":\"transcription\",\"id\":\"r2\",\"text\":\"remind me to buy bread\"" "$TMP/out" &&
	 grep -q "\"ref\":\"r3\",\"code\":\"replay_miss\"" "$TMP/out"'

fake_server openai.py --log "$TMP/log" --status 401
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
n=$(posts)
check 'HTTP 401: an auth error, no retry, the echoed key masked' \
	'treq e1 "$TMP/voice.oga" | run &&
	 grep -q "\"ref\":\"e1\",\"code\":\"auth\",\"message\":\"openai: HTTP 401: [^\"]*\",\"retryable\":false" "$TMP/out" &&
	 ! grep -q VOICE0123456789 "$TMP/out" "$TMP/err" && [ "$(posts)" = $((n + 1)) ]'
fake_server openai.py --log "$TMP/log" --fail-times 2
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
n=$(posts)
check 'HTTP 500 twice: retried with the whole file, then the text' \
	'treq e2 "$TMP/noise.ogg" | run &&
	 [ "$(field "[\"type\"]") $(field "[\"attempts\"]")" = "transcription 3" ] &&
	 [ "$(posts)" = $((n + 3)) ] &&
	 [ "$(sent "[\"sha256\"]")" = "$(sha "$TMP/noise.ogg")" ]'
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null
check 'no server: a network error, retryable' \
	'treq e3 "$TMP/voice.oga" | OXI_LLM_RETRIES=0 run;
	 grep -q "\"ref\":\"e3\",\"code\":\"network\",[^}]*\"retryable\":true" "$TMP/out"'

done_testing
