#!/bin/sh
# oxi-send telegram delivers each reply once: the same msg.out fed twice,
# fed again to a later run, fed again after a kill -9 between two
# deliveries and inside a split reply; a receipt owed at a kill written
# at the next start; the input read through the hand-off, so that a
# record whose bytes were consumed is in the ledger
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh && . ./tgsend.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 16

tg_start
DB=$OXI_HOME/telegram-send-main.db

# waitlog PATTERN: the fake's log has a line matching PATTERN (10 s)
waitlog() {
	_w=0
	while ! grep -q -- "$1" "$TMP/tglog" 2>/dev/null; do
		[ "$_w" -lt 200 ] || return 1
		sleep 0.05
		_w=$((_w + 1))
	done
}

# sql QUERY: its one value from the sent-ledger
sql() {
	python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
	    "$DB" "$1"
}

# the same reply twice in one input
{
	out msg.out o1 42 'once'
	out msg.out o1 42 'once'
	out msg.out o1 42 'the same id, another text'
} >"$TMP/in"
tx_run "$TMP/in" -v
check 'the same msg.out three times in one input: sent once' \
	'[ "$(texts sendMessage)" = "\"once\"" ]'
check '...one receipt' '[ "$(wc -l <"$TMP/rcpt")" = 1 ]'
check '...the repeats dropped, a debug line each' \
	'[ "$(grep -c "msg.out o1 is known: not sent again" "$TMP/err")" = 2 ]'

# fed again to a later run
tg_clear
out msg.out o1 42 'once' >"$TMP/in"
tx_run "$TMP/in"
check 'fed again to a later run: not sent, no receipt, exit 0' \
	'[ "$RC" = 0 ] && [ ! -s "$TMP/tglog" ] && [ ! -s "$TMP/rcpt" ]'

# kill -9 between two deliveries: the second held by a 429
tg_clear
tg_fail '{"method":"sendMessage","chat":"43","code":429,"description":"Too Many Requests: retry after 30","retry_after":30}'
{
	out msg.out k1 42 'first'
	out msg.out k2 43 'second'
} >"$TMP/in"
mkfifo "$TMP/fifo"
oxi-send telegram <"$TMP/fifo" >"$TMP/rcpt" 2>"$TMP/err" &
pid=$!
exec 3<>"$TMP/fifo"
cat "$TMP/in" >&3
waitlog '"chat_id": "43"'
waitlog '"text": "first"'
sleep 0.3
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check 'killed (-9) with the second reply waiting: the first delivered, with its receipt' \
	'[ "$(texts sendMessage | grep -c first)" = 1 ] &&
	 grep -q "\"ref\":\"k1\".*\"ok\":true" "$TMP/rcpt" && ! grep -q k2 "$TMP/rcpt"'
check '...both were taken off the input: it is empty' \
	'python3 -c "import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
try:
    sys.exit(1 if os.read(fd, 4096) else 0)
except BlockingIOError:
    sys.exit(0)" "$TMP/fifo"'
check '...both are in the sent-ledger, the second undelivered' \
	'[ "$(sql "SELECT group_concat(key || \"=\" || state) FROM outbox WHERE key IN (\"k1\", \"k2\")")" = "k1=1,k2=0" ]'
# the upstream sends both again, as a restarted peer would
oxi-send telegram <"$TMP/fifo" >"$TMP/rcpt" 2>"$TMP/err" &
pid=$!
cat "$TMP/in" >&3
waitlog '"text": "second"'
sleep 0.3
kill -TERM "$pid"
wait "$pid"
rc=$?
exec 3>&-
check 'restarted and fed both again: the second delivered, once' \
	'[ "$rc" = 0 ] && [ "$(texts sendMessage | grep -c second)" = 2 ] &&
	 [ "$(grep -c "\"ref\":\"k2\".*\"ok\":true" "$TMP/rcpt")" = 1 ]'
check '...the first not again, and no second receipt for it' \
	'[ "$(texts sendMessage | grep -c first)" = 1 ] && ! grep -q k1 "$TMP/rcpt"'
check '...the fake holds one message of each' \
	'[ "$(tg_ctl state | python3 -c "import json, sys
m = json.load(sys.stdin)[\"messages\"]
print(sum(x[\"text\"] in (\"first\", \"second\") for c in m.values() for x in c))")" = 2 ]'

# kill -9 inside a split reply: the parts out are not sent again
tg_clear
tg_fail '{"method":"sendMessage","chat":"44","code":429,"description":"Too Many Requests: retry after 30","retry_after":30,"skip":1}'
python3 -c 'import json
print(json.dumps({"v": 1, "type": "msg.out", "id": "s1", "channel": "telegram",
    "chat": "44", "text": "\n\n".join("Part %d: " % i + "word " * 800
    for i in range(3))}))' >"$TMP/in"
oxi-send telegram <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/err" &
pid=$!
waitlog '429'
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check 'killed (-9) after the first of three parts' \
	'[ "$(texts sendMessage | wc -l)" = 2 ] && [ ! -s "$TMP/rcpt" ] &&
	 [ "$(sql "SELECT count(*) FROM parts WHERE key = \"s1\"")" = 1 ]'
first=$(tg_ctl state | python3 -c 'import json, sys
print(json.load(sys.stdin)["messages"]["44"][0]["id"])')
tx_run "$TMP/in"
check '...restarted: the second and third sent, the first not again' \
	'texts sendMessage | python3 -c "import json, sys
ts = [json.loads(l)[:7] for l in sys.stdin]
assert ts == [\"Part 0:\", \"Part 1:\", \"Part 1:\", \"Part 2:\"], ts"'
check '...one receipt, naming the first part' \
	'[ "$(wc -l <"$TMP/rcpt")" = 1 ] &&
	 grep -q "\"ref\":\"s1\".*\"platform_id\":\"44:$first\",\"ok\":true" "$TMP/rcpt"'

# a receipt owed: delivered, the stage killed before its receipt
tg_clear
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO outbox(key, rec, state, rcpt, ref, inreply, pid, at) "
           "VALUES (?, ?, 1, 0, ?, ?, ?, 0)", ("r1", "{}", "r1", "in1", "42:5"))
db.commit()' "$DB"
tx_run /dev/null
check 'a receipt owed at a kill is written at the next start, and only then' \
	'[ "$(cat "$TMP/rcpt")" = "{\"v\":1,\"type\":\"receipt\",\"ref\":\"r1\",\"channel\":\"telegram\",\"in_reply_to\":\"in1\",\"platform_id\":\"42:5\",\"ok\":true}" ] &&
	 [ ! -s "$TMP/tglog" ] && tx_run /dev/null && [ ! -s "$TMP/rcpt" ]'

# approval questions and errors are delivered once too
tg_clear
{
	printf '%s\n' '{"v":1,"type":"approval.ask","id":"q1","ref":"c1","channel":"telegram","chat":"42","text":"Go?","choices":["once","deny"],"expires":"2026-11-26T10:00:00.000Z"}'
	printf '%s\n' '{"v":1,"type":"error","ref":"telegram:main:42:9","code":"server","message":"down","channel":"telegram","chat":"42"}'
} >"$TMP/in"
tx_run "$TMP/in"
tx_run "$TMP/in"
check 'an approval question and an error fed to two runs: each shown once' \
	'[ "$(tg_calls sendMessage | wc -l)" = 2 ]'
check 'a reply without an id has nothing to be known by: it is sent each time' \
	'printf "%s\n" "{\"v\":1,\"type\":\"msg.out\",\"channel\":\"telegram\",\"chat\":\"42\",\"text\":\"no id\"}" >"$TMP/in" &&
	 tx_run "$TMP/in" && tx_run "$TMP/in" && [ "$(texts sendMessage | grep -c "no id")" = 2 ]'
done_testing
