#!/bin/sh
# oxi-loop as a mind, end to end: commands, a reply too large to read, a
# model down for 10 s then back, a burst held back by a bounded queue
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 14

export OXI_LLM="python3 $TESTS/fake/llm-stage.py"
export OXI_TOOL="python3 $TESTS/fake/tool-stage.py"
export FAKE_LLM_LOG="$TMP/llm.log"
export OXI_DEADLETTER="$TMP/dead.ndjson"

msg() {	# msg ID CHAT TEXT
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"cli","account":"local","chat":"%s","from":"u","text":"%s"}\n' "$1" "$2" "$3"
}
# the text of the msg.out answering ID in FILE
said() {
	grep '"msg.out"' "$2" | grep "\"in_reply_to\":\"$1\"" | jget '["text"]' /dev/stdin
}

# commands, without the model
{ msg a1 me hello; msg a2 me /status; msg a3 me /new; msg a4 me again
  msg a5 me /sessions; msg a6 me '/model nope'; msg a7 me /help; } >"$TMP/in1"
oxi-loop <"$TMP/in1" >"$TMP/out1"
check 'the model saw only the two messages' \
	'[ "$(wc -l <"$TMP/llm.log")" = 2 ]'
check '/status says the model and the context' \
	'said a2 "$TMP/out1" | grep -q "^Context: about [0-9,]* of 128,000 tokens"'
check '/new: the next message starts afresh' \
	'[ "$(sed -n 2p "$TMP/llm.log" | jget "[\"messages\"]" /dev/stdin | grep -c hello)" = 0 ]'
check '/sessions lists both' \
	'said a5 "$TMP/out1" | grep -q "^2\. started .*(current)"'
check '/model refuses a bad name; /help lists /stop' \
	'said a6 "$TMP/out1" | grep -q "Not a model name" &&
	 said a7 "$TMP/out1" | grep -q "^/stop"'

# a reply larger than the line limit: an error the user sees, the chat goes on
{ msg h1 big 'huge 2000000'; msg h2 big 'after'; } >"$TMP/in2"
check 'a 2 MB reply does not hang the loop: it exits at end of input' \
	'timeout 20 oxi-loop <"$TMP/in2" >"$TMP/out2" 2>"$TMP/err2"'
check 'the turn ends with an error for its chat' \
	'grep "\"type\":\"error\"" "$TMP/out2" | grep "\"ref\":\"h1\"" | grep -q "\"code\":\"reply_unreadable\""'
check 'and the next message of the chat is answered' \
	'[ "$(said h2 "$TMP/out2")" = "echo: after" ]'

# the model is down for 10 s, then back
rm -f "$TMP/llm.log"
mkfifo "$TMP/fifo3"
FAKE_LLM_DOWN_UNTIL=$(($(date +%s) + 10)) OXI_RETRY_MIN=1 OXI_RETRY_MAX=2 \
	oxi-loop <"$TMP/fifo3" >"$TMP/out3" 2>"$TMP/err3" &
pid=$!
exec 4>"$TMP/fifo3"
msg d1 down 'are you there' >&4
i=0; while ! grep -q '"in_reply_to":"d1".*echo' "$TMP/out3" && [ $i -lt 400 ]; do sleep 0.1; i=$((i+1)); done
exec 4>&-
wait $pid
check 'while the model is down the user is told once' \
	'[ "$(grep -c "The model is unreachable; I will answer when it is back" "$TMP/out3")" = 1 ]'
check 'and answered when it is back' \
	'[ "$(said d1 "$TMP/out3" | tail -n 1)" = "echo: are you there" ]'
check 'after several tries, spaced' \
	'[ "$(wc -l <"$TMP/llm.log")" -ge 5 ] && [ "$(wc -l <"$TMP/llm.log")" -le 12 ]'

# a burst: the queue holds at most OXI_QUEUE_MAX turns, nothing is dropped
i=0; while [ $i -lt 300 ]; do msg "q$i" "c$i" "m$i"; i=$((i+1)); done >"$TMP/in4"
OXI_QUEUE_MAX=4 oxi-loop -v <"$TMP/in4" >"$TMP/out4" 2>"$TMP/err4"
check 'every message of a burst of 300 is answered' \
	'[ "$(grep -c "\"msg.out\"" "$TMP/out4")" = 300 ]'
check_grep 'while stdin waited for the queue' '4 turns held: stdin waits' "$TMP/err4"
check 'each once' \
	'[ "$(grep "\"msg.out\"" "$TMP/out4" | jget "[\"in_reply_to\"]" /dev/stdin | sort -u | wc -l)" = 300 ]'
done_testing
