#!/bin/sh
# oxi-loop: turns, drafts, tools, history, failures, pass-through
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 30

export OXI_LLM="python3 $TESTS/fake/llm-stage.py"
export OXI_TOOL="python3 $TESTS/fake/tool-stage.py"
export FAKE_LLM_LOG="$TMP/llm.log"
export OXI_DEADLETTER="$TMP/dead.ndjson"

msg() {	# msg ID CHAT TEXT
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"cli","account":"local","chat":"%s","from":"u","text":"%s"}\n' "$1" "$2" "$3"
}

# a plain answer, with drafts
msg m1 me hello >"$TMP/in1"
check 'answers a message' 'oxi-loop -t 0 <"$TMP/in1" >"$TMP/out1"'
grep '"msg.out"' "$TMP/out1" >"$TMP/final1"
check_lines 'one msg.out' 1 "$TMP/final1"
check 'msg.out text, in_reply_to and routing' \
	'[ "$(jget "[\"text\"]" "$TMP/final1")" = "echo: hello" ] &&
	 [ "$(jget "[\"in_reply_to\"]" "$TMP/final1")" = m1 ] &&
	 [ "$(jget "[\"channel\"]+\":\"+r[\"chat\"]" "$TMP/final1")" = cli:me ]'
grep '"msg.draft"' "$TMP/out1" >"$TMP/drafts1"
check 'drafts grow to the final text with the reply id' \
	'[ "$(jget "[\"text\"]" "$TMP/drafts1" | tail -n 1)" = "echo: hello" ] &&
	 [ "$(jget "[\"text\"]" "$TMP/drafts1" | head -n 1)" = "echo:" ] &&
	 [ "$(jget "[\"id\"]" "$TMP/drafts1" | sort -u)" = "$(jget "[\"id\"]" "$TMP/final1")" ]'
check_grep 'typing before the answer' '^\{"v":1,"type":"typing","channel":"cli","chat":"me"\}$' "$TMP/out1"
check 'the request carries the system prompt and the tools' \
	'jget "[\"messages\"][0][\"role\"]" "$TMP/llm.log" | grep -qx system &&
	 jget "[\"tools\"][0][\"name\"]" "$TMP/llm.log" | grep -qx read_file'

# the same id again, in a new run: answered once only
check 'a repeated message id is not answered again' \
	'oxi-loop <"$TMP/in1" >"$TMP/out1b" 2>"$TMP/err1b" && [ ! -s "$TMP/out1b" ]'
check_grep 'and says so on stderr' 'm1: already done' "$TMP/err1b"

# history: the next message of the session sees the earlier turn
rm -f "$TMP/llm.log"
msg m2 me again | oxi-loop >/dev/null
check 'history reaches the model in order' \
	'[ "$(jget "[\"messages\"]" "$TMP/llm.log" | python3 -c "import json,sys
m=json.loads(sys.stdin.read()); print(\" \".join(x[\"role\"]+\"=\"+str(x[\"content\"]) for x in m[1:]))")" = "user=hello assistant=echo: hello user=again" ]'

# a system prompt from -s and from @file
rm -f "$TMP/llm.log"
msg s1 sys hi | oxi-loop -s 'Be brief.' >/dev/null
check '-s sets the system prompt' \
	'jget "[\"messages\"][0][\"content\"]" "$TMP/llm.log" | grep -qx "Be brief."'
echo 'From a file.' >"$TMP/sys.md"
rm -f "$TMP/llm.log"
msg s2 sys hi | oxi-loop -s "@$TMP/sys.md" -m openai/test-model >/dev/null
check '-s @file reads it and -m names the model' \
	'jget "[\"messages\"][0][\"content\"]" "$TMP/llm.log" | grep -qx "From a file." &&
	 jget "[\"model\"]" "$TMP/llm.log" | grep -qx openai/test-model'

# a tool round
msg t1 tools 'read notes.txt' | oxi-loop >"$TMP/out2"
grep '"msg.out"' "$TMP/out2" >"$TMP/final2"
check 'a tool call runs and its result reaches the model' \
	'[ "$(jget "[\"text\"]" "$TMP/final2")" = "The tool said: FILE:notes.txt" ]'
check 'the history keeps the call and the result' \
	'python3 -c "import sqlite3,sys
db=sqlite3.connect(sys.argv[1])
rows=db.execute(\"select role,tool_call_id from messages where msg_id=\x27t1\x27 order by seq\").fetchall()
assert [r[0] for r in rows]==[\"user\",\"assistant\",\"tool\",\"assistant\"], rows
assert rows[2][1]==\"call_1\", rows" "$OXI_HOME/loop.db"'

# sessions: two chats at once, order kept within each
{ msg o1 a 'first'; msg o2 b 'other'; msg o3 a 'second'; } >"$TMP/in3"
oxi-loop <"$TMP/in3" >"$TMP/out3"
check 'every message of several sessions answered once' \
	'[ "$(grep -c "\"msg.out\"" "$TMP/out3")" = 3 ]'
check 'in order within a session' \
	'grep "\"msg.out\"" "$TMP/out3" | grep "\"chat\":\"a\"" >"$TMP/a" &&
	 [ "$(jget "[\"in_reply_to\"]" "$TMP/a" | tr "\n" " ")" = "o1 o3 " ]'

# pass-through and bad input
{ echo '{"type":"x.custom","k":[1, 2]}'; echo 'not json'; msg b1 me ok
  echo '{"v":1,"type":"msg.in","id":"b2","channel":"cli","text":"no chat"}'; } >"$TMP/in4"
check_exit 'bad records make exit 1' 1 'oxi-loop <"$TMP/in4" >"$TMP/out4" 2>"$TMP/err4"'
check_grep 'unknown records pass through byte for byte' '^\{"type":"x.custom","k":\[1, 2\]\}$' "$TMP/out4"
check 'the good message after them is answered' \
	'grep "\"msg.out\"" "$TMP/out4" | grep -q "echo: ok"'
check_lines 'one stderr line per bad record' 2 "$TMP/err4"
check 'two dead letters with reasons' \
	'[ "$(wc -l <"$OXI_DEADLETTER")" = 2 ] &&
	 grep -q "invalid JSON" "$OXI_DEADLETTER" && grep -q "needs \\\\\"chat\\\\\"" "$OXI_DEADLETTER"'

# model failures
msg f1 me fail | oxi-loop >"$TMP/out5" 2>"$TMP/err5"
check 'a model error becomes an error record for the chat' \
	'grep "\"type\":\"error\"" "$TMP/out5" >"$TMP/e5" &&
	 [ "$(jget "[\"ref\"]+r[\"chat\"]+r[\"code\"]" "$TMP/e5")" = f1mehttp_500 ]'
check_nogrep 'and no msg.out' '"msg.out"' "$TMP/out5"
mkfifo "$TMP/fifo6"
oxi-loop <"$TMP/fifo6" >"$TMP/out6" 2>"$TMP/err6" &
pid=$!
exec 4>"$TMP/fifo6"
msg c1 me crash >&4
i=0; while ! grep -q llm_exited "$TMP/out6" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
msg c2 other hello >&4
exec 4>&-
wait $pid
check 'a dying model stage fails its turn and is restarted' \
	'grep -q "\"code\":\"llm_exited\"" "$TMP/out6" &&
	 grep "\"msg.out\"" "$TMP/out6" | grep -q "echo: hello"'
check_grep 'the exit is logged with its code' 'llm stage exited with code 3' "$TMP/err6"

# readiness, SIGTERM drains
mkfifo "$TMP/fifo"
FAKE_LLM_DELAY=0.5 oxi-loop -d 3 <"$TMP/fifo" >"$TMP/out7" 2>"$TMP/err7" 3>"$TMP/ready" &
pid=$!
exec 4>"$TMP/fifo"
i=0; while [ ! -s "$TMP/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
check 'readiness newline on -d fd' '[ "$(od -An -c "$TMP/ready" | tr -d " ")" = "\\n" ]'
msg d1 me slow >&4
i=0; while ! grep -q typing "$TMP/out7" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
kill -TERM $pid
wait $pid
rc=$?
exec 4>&-
check 'SIGTERM exits 0' '[ $rc = 0 ]'
check 'after finishing the message in flight' 'grep "\"msg.out\"" "$TMP/out7" | grep -q "echo: slow"'

# usage and configuration
check_exit 'bad option exits 100' 100 'oxi-loop -x </dev/null'
check_exit 'a tool stage that does not exist exits 100' 100 \
	'OXI_TOOL=/nonexistent/tool oxi-loop </dev/null'
check_exit '--help exits 0' 0 'oxi-loop --help | grep -q "^usage: oxi-loop"'

done_testing
