#!/bin/sh
# oxi-cron under valgrind: thousands of requests (made, listed, cancelled,
# refused, asked again), replies passing with their tokens, bad lines,
# and fires (one-shots, an interval, the heartbeat): no leak, no error
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 3

if ! command -v valgrind >/dev/null 2>&1 ||
    nm "$TOP/bin/oxi-cron" 2>/dev/null | grep -q __asan_init; then
	skip_all "valgrind missing or an ASan build"
fi
python3 - "$TMP/recs" <<'EOF2'
import json, sys
m = {"channel": "telegram", "account": "main", "chat": "42", "from": "42",
     "trust": "owner"}
with open(sys.argv[1], "w") as f:
    def w(r):
        f.write(json.dumps(r) + "\n")
    for i in range(1500):
        k = i % 6
        if k == 0:
            w({"v": 1, "type": "cron.add", "id": "a%d" % i,
               "when": "every %dh" % (i % 5 + 1), "text": "t%d" % i,
               "maker": m, "taint": ["owner:telegram", "web:x"]})
        elif k == 1:
            w({"v": 1, "type": "cron.add", "id": "b%d" % i,
               "in_reply_to": "telegram:main:%d" % i,
               "line": "0 %d * * 1-5 standup %d" % (i % 24, i),
               "prefix": "Reminder: ", "maker": m})
        elif k == 2:
            w({"v": 1, "type": "cron.list", "id": "l%d" % i, "maker": m})
        elif k == 3:
            w({"v": 1, "type": "cron.cancel", "id": "c%d" % i, "ref": "nope",
               "maker": m})
        elif k == 4:
            w({"v": 1, "type": "cron.add", "id": "a%d" % (i - 4),
               "when": "at 99", "text": "again", "maker": m})
        else:
            w({"v": 1, "type": "msg.out", "id": "r%d" % i,
               "in_reply_to": "cron:heartbeat:%d" % i, "channel": "telegram",
               "chat": "42", "text": "ok", "tokens": 5})
        if i % 100 == 7:
            f.write("{bad\n")
    for i in range(20):
        w({"v": 1, "type": "cron.add", "id": "f%d" % i, "when": "in 1s",
           "text": "soon %d" % i, "maker": m})
    w({"v": 1, "type": "cron.add", "id": "e1", "when": "every 1s",
       "text": "tick", "maker": m})
EOF2
export OXI_CRON_MIN_INTERVAL=1 OXI_CRON_MAX=100000 OXI_HEARTBEAT=1s \
	OXI_HEARTBEAT_TO=telegram:main:42 OXI_HEARTBEAT_TOKENS=1000000
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
mkfifo "$TMP/in"
exec 7<>"$TMP/in"
$VG oxi-cron -o "$TMP/fire" <&7 >"$TMP/out" 2>"$TMP/err" &
pid=$!
cat "$TMP/recs" >&7
wait_until 240 '[ "$(grep -c "\"text\":\"tick\"" "$TMP/fire")" -ge 2 ] &&
	grep -q "cron:heartbeat:" "$TMP/fire"'
kill "$pid"
wait "$pid"
rc=$?
check 'no leak, no memory error (exit 1: the bad lines)' '[ $rc = 1 ]' ||
	grep -v 'dead-lettered\|info:' "$TMP/err" | head -20 | sed 's/^/# /'
check 'the requests were answered and the replies passed' \
	'[ "$(grep -c "\"type\":\"tool.result\"" "$TMP/fire")" -ge 1000 ] &&
	 [ "$(grep -c "msg.out" "$TMP/out")" = 500 ]'
check 'it fired: the one-shots, the interval, the heartbeat' \
	'[ "$(grep -c "\"text\":\"soon" "$TMP/fire")" = 20 ] &&
	 grep -q "\"text\":\"tick\"" "$TMP/fire" &&
	 grep -q "cron:heartbeat:" "$TMP/fire"'
