#!/bin/sh
# The durable hand-off (oxi(7), "Nothing lost, nothing doubled"): oxi-loop
# reads a FIFO that outlives it and is killed with SIGKILL again and again
# while 200 messages from 20 chats arrive; restarted each time, it
# answers every message once (a repeat carries the same id, which the
# sender drops), and its own output survives a kill between commit and
# write (the outbox).
cd "${0%/*}" && . ./lib.sh
plan 6

mkfifo "$TMP/in"
exec 7<>"$TMP/in"	# the holder: the FIFO keeps its bytes
export OXI_LLM="python3 $TESTS/fake/llm-stage.py" OXI_TOOL=none
export FAKE_LLM_DELAY=0.02
# few turns at once: what waits is read but not taken (back-pressure), the
# case a plain read(2) loses to a kill
export OXI_QUEUE_MAX=4

cat >"$TMP/feed.py" <<'EOT'
import json, os, random, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY)
random.seed(7)
for i in range(200):
    r = {"v": 1, "type": "msg.in", "id": "h:%d" % i, "channel": "cli",
         "chat": "c%d" % (i % 20), "from": "u", "text": "m%d" % i}
    os.write(fd, (json.dumps(r) + "\n").encode())
    if i % 10 == 9:
        time.sleep(random.uniform(0.02, 0.12))
EOT
cat >"$TMP/count.py" <<'EOT'
import json, sys
ids, raw, bad = {}, 0, 0
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        bad += 1
        continue
    if r.get("type") != "msg.out":
        continue
    raw += 1
    ids.setdefault(r["in_reply_to"], set()).add(r["id"])
wrong = [k for k, v in ids.items() if v != {"reply:" + k}]
print(len(ids), raw, len(wrong), bad)
EOT

python3 "$TMP/feed.py" "$TMP/in" &
feeder=$!
kills=0
while kill -0 "$feeder" 2>/dev/null || [ "$kills" -lt 4 ]; do
	oxi-loop -f "$TMP/db" <&7 >>"$TMP/out" 2>>"$TMP/err" &
	p=$!
	sleep "0.$(( (kills * 37) % 25 + 8 ))"
	kill -9 "$p" 2>/dev/null && kills=$((kills + 1))
	wait "$p" 2>/dev/null
done
wait "$feeder"
oxi-loop -f "$TMP/db" <&7 >>"$TMP/out" 2>>"$TMP/err" &
last=$!
i=0
while [ "$i" -lt 600 ]; do
	set -- $(python3 "$TMP/count.py" "$TMP/out")
	[ "$1" = 200 ] && break
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$last"
wait "$last"
set -- $(python3 "$TMP/count.py" "$TMP/out")
answered=$1 lines=$2 wrong=$3 torn=$4
diag "killed $kills times; $lines msg.out lines for $answered messages"

check 'killed at least four times while the messages came' '[ "$kills" -ge 4 ]'
check 'every one of the 200 messages answered (none lost)' '[ "$answered" = 200 ]'
check 'each answer has one id, derived from its message (none doubled)' \
	'[ "$wrong" = 0 ]'
check 'no torn line on the output' '[ "$torn" = 0 ]'
check 'the restarts took up messages in work again' \
	'grep -q "messages were in work" "$TMP/err"'
check 'nothing dead-lettered' '[ ! -s "$OXI_HOME/deadletter.ndjson" ]'
done_testing
