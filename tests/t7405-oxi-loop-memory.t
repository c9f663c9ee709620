#!/bin/sh
# oxi-loop with a memory stage (OXI_MEM=oxi-mem): the model's remember
# tool, the memory slot of the next turn's system prompt, never another
# sender's facts (another chat, a group), /memory and /forget, a stage
# that does not answer or dies, episodes from summaries, extraction
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 15

export OXI_LLM="python3 $TESTS/fake/llm-stage.py" OXI_TOOL=none
export FAKE_LLM_LOG="$TMP/llm.log" OXI_DEADLETTER="$TMP/dead.ndjson"
export OXI_MEM="oxi-mem -f $TMP/mem.db"

msg() {	# msg ID CHAT FROM TEXT
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"telegram","account":"bot","chat":"%s","from":"%s","trust":"owner","text":"%s"}\n' \
		"$1" "$2" "$3" "$4"
}
loop() { oxi-loop -t 0 "$@" >"$TMP/out" 2>"$TMP/err"; }
reply() {	# reply ID: the text of the msg.out answering ID
	python3 -c 'import json, sys
for l in open(sys.argv[2]):
    r = json.loads(l)
    if r["type"] == "msg.out" and r.get("in_reply_to") == sys.argv[1]:
        print(r["text"])' "$1" "$TMP/out"
}
system() {	# system: the system prompt of the last request
	tail -n 1 "$TMP/llm.log" | jget '["messages"][0]["content"]' /dev/stdin
}

msg m1 111 111 "remember: The user has a dog named Rex" | loop
check 'the model remembers through its tool' \
	'reply m1 | grep -q "mem.remembered.*\"action\":\"new\""'
check 'the request offered remember, recall and forget' \
	'head -n 1 "$TMP/llm.log" | jget "[\"tools\"]" /dev/stdin >"$TMP/tools" &&
	 grep -q "\"remember\"" "$TMP/tools" && grep -q "\"recall\"" "$TMP/tools" &&
	 grep -q "\"forget\"" "$TMP/tools"'
msg m2 111 111 "what is my dog called" | loop
check 'the next turn: the fact is in the memory slot of the system prompt' \
	'system | grep -q "What you remember of the person" &&
	 system | grep -q "The user has a dog named Rex"'
msg m3 222 222 "what is my dog called" | loop
check 'another sender in another chat: nothing of it' \
	'! system | grep -q -e "named Rex" -e "What you remember"'
msg m4 -100 222 "what is my dog called Rex" | loop
check 'in a group, another member: nothing of it' \
	'! system | grep -q "named Rex"'
msg m5 -100 111 "what is my dog called Rex" | loop
check 'in the group, the one who said it: the fact' \
	'system | grep -q "named Rex"'

msg m6 111 111 "/memory" | loop
check '/memory: what it remembers of the sender, numbered' \
	'[ "$(reply m6 | tail -n 1)" = "1. The user has a dog named Rex" ] &&
	 [ "$(wc -l <"$TMP/llm.log")" = 6 ]'
{ msg m7 111 111 "/forget 1"; sleep 1; msg m8 111 111 "/memory"; } | loop
check '/forget N forgets it' \
	'[ "$(reply m7)" = "Forgotten: 1." ] &&
	 [ "$(reply m8)" = "I remember nothing about you." ]'

check 'without OXI_MEM: no memory tools, no slot' \
	'msg n1 111 111 "what is my dog called" | OXI_MEM= loop &&
	 ! tail -n 1 "$TMP/llm.log" | jget "[\"tools\"]" /dev/stdin | grep -q remember &&
	 ! system | grep -q "What you remember" &&
	 [ "$(reply n1)" = "echo: what is my dog called" ]'
check 'a memory stage that never answers: the turn goes on after OXI_MEM_WAIT' \
	'msg n2 111 111 "hello" | OXI_MEM="python3 -c \"import sys; sys.stdin.read()\"" OXI_MEM_WAIT=1 with_timeout 20 oxi-loop -t 0 >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(reply n2)" = "echo: hello" ] && grep -q "memory did not answer in time" "$TMP/err"'
check 'a memory stage that dies: the turn goes on without it' \
	'msg n3 111 111 "hello" | OXI_MEM="exit 3" with_timeout 20 oxi-loop -t 0 >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(reply n3)" = "echo: hello" ]'

# summaries of older turns: each is its session's episode
{ for i in 1 2 3 4 5; do msg s$i 333 333 "note $i"; sleep 0.3; done; } | loop -H 2
check 'the summary of a session is stored as its episode in that chat' \
	'[ "$(sqlite3 "$TMP/mem.db" "SELECT count(*) FROM episodes WHERE conv = '"'"'telegram:bot:333'"'"'")" = 1 ]'

# a session ended by /new without a summary: its ends are its episode
{ msg w1 555 555 "planning a trip to Lisbon in May"; sleep 0.3
  msg w2 555 555 "and the hotel near Alfama"; sleep 0.3
  msg w3 555 555 "/new"; sleep 0.5; } | loop
check '/new: the session'"'"'s first message and last answer are its episode' \
	'sqlite3 "$TMP/mem.db" "SELECT text FROM episodes WHERE conv = '"'"'telegram:bot:555'"'"'" >"$TMP/ep" &&
	 [ "$(wc -l <"$TMP/ep")" = 2 ] && grep -q "began: planning a trip to Lisbon" "$TMP/ep" &&
	 grep -q "last answer: echo: and the hotel near Alfama" "$TMP/ep"'
printf '{"v":1,"type":"mem.recall","id":"r1","scope":"telegram:bot:555","conv":"telegram:bot:555","query":"Lisbon trip"}\n' |
	oxi-mem -f "$TMP/mem.db" >"$TMP/rec"
check 'a recall in that chat finds the episode; a second /new adds none' \
	'grep -q "trip to Lisbon" "$TMP/rec" &&
	 msg w4 555 555 "/new" | loop &&
	 [ "$(sqlite3 "$TMP/mem.db" "SELECT count(*) FROM episodes WHERE conv = '"'"'telegram:bot:555'"'"'")" = 1 ]'

# extraction: a cheap model proposes facts from the owner's exchange
F='facts=[{\"text\": \"The user likes jazz\", \"key\": \"music\"}]'
msg x1 444 444 "I love jazz $F" |
	OXI_MEM_LLM="python3 $TESTS/fake/mem-model.py" OXI_MEM_EXTRACT_MODEL=m loop
check 'after the turn, the extraction pass keeps what the model proposed' \
	'oxi-mem -f "$TMP/mem.db" export telegram:bot:444 | grep -q "The user likes jazz"'
done_testing
