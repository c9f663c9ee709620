#!/bin/sh
# oxi-recv telegram: nothing lost across kill -9.  Every update is in the
# ledger before Telegram may forget it; what the ledger holds unwritten is
# written at the next start, and what was written is not written again
# (but for a kill between the write and its mark: the same id again)
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 12

mkdir -p "$TMP/files"
head -c 2000 /dev/urandom >"$TMP/files/p.jpg"
P='"chat":{"id":5,"type":"private","first_name":"Bo"},"from":{"id":5,"is_bot":false,"first_name":"Bo"}'
text() { printf '{"message":{"message_id":%d,"date":1700000000,%s,"text":"m%d"}}\n' "$1" "$P" "$1"; }
photo() { printf '{"message":{"message_id":%d,"date":1700000000,%s,"photo":[{"file_id":"p.jpg","file_unique_id":"u%d","width":9,"height":9}]}}\n' "$1" "$P" "$1"; }
# lines N FILE: wait until FILE has N lines (10 s at most)
lines() {
	_i=0
	while [ "$(wc -l <"$2" 2>/dev/null || echo 0)" -lt "$1" ] && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}
ledger() {	# SQL on the ledger
	python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print(*r)' "$OXI_HOME/telegram-main.db" "$1"
}

# killed during a file: three written, three recorded only
{ text 1; text 2; text 3; photo 4; text 5; text 6; } >"$TMP/ups"
tg_start --files "$TMP/files" --slow-files 3 --updates "$TMP/ups"
tg_recv "$TMP/out1" "$TMP/err1"
lines 3 "$TMP/out1"
sleep 0.2
kill -KILL "$RECV_PID"
wait "$RECV_PID" 2>/dev/null
check 'killed while fetching a file: the three before it written' \
	'[ "$(jget "[\"text\"]" "$TMP/out1" | tr "\n" " ")" = "m1 m2 m3 " ]'
check '...all six in the ledger, three marked written' \
	'[ "$(ledger "SELECT count(*), sum(done) FROM updates")" = "6 3" ]'
check '...and Telegram was not told to forget any' \
	'[ "$(tg_state confirmed)" -lt 100 ] && [ "$(tg_state pending)" = 6 ]'
tg_run "$TMP/out2" "$TMP/err2"
check 'the next start writes the other three, not the first three' \
	'[ "$(jget "[\"message_id\"]" "$TMP/out2" | tr "\n" " ")" = "4 5 6 " ]'
check '...the photo with its file' \
	'head -n 1 "$TMP/out2" | grep -q "\"path\":\"$OXI_HOME/files/telegram/u4.jpg\"" &&
	 cmp -s "$OXI_HOME/files/telegram/u4.jpg" "$TMP/files/p.jpg"'
check '...and then confirms them' \
	'[ "$(tg_state confirmed)" = 106 ] && [ "$(tg_state pending)" = 0 ]'
check 'no temporary file left by the kill survives the fetch' \
	'[ -z "$(ls "$OXI_HOME/files/telegram" | grep -v "^u4.jpg$")" ]'

# SIGTERM during a file: exit 0 at once, the update left for the next start
photo 7 >"$TMP/one"
tg_feed "$TMP/one"
tg_recv "$TMP/out3" "$TMP/err3"
sleep 1
tg_stop
check 'SIGTERM during a download: exit 0 within a second, nothing written' \
	'[ "$RC" = 0 ] && [ "$STOP_MS" -lt 1000 ] && [ ! -s "$TMP/out3" ]'
check '...the update still unwritten in the ledger' \
	'[ "$(ledger "SELECT done FROM updates WHERE id = 106")" = 0 ]'
tg_run "$TMP/out4" "$TMP/err4"
check '...and written at the next start' \
	'[ "$(jget "[\"message_id\"]" "$TMP/out4")" = 7 ] && grep -q "\"path\"" "$TMP/out4"'

# 200 updates, some with files, while the receiver is killed again and
# again at random moments: every one written at least once, and again
# only when a kill fell between its write and its mark
export OXI_HOME="$TMP/home2"
tg_start --files "$TMP/files" --slow-files 0.02 --first-id 1000
i=1
while [ $i -le 200 ]; do
	if [ $((i % 3)) = 0 ]; then photo $i; else text $i; fi
	i=$((i + 1))
done >"$TMP/many"
: >"$TMP/all"
kills=0
split -l 25 "$TMP/many" "$TMP/batch."
for b in "$TMP"/batch.*; do
	tg_feed "$b"
	tg_recv "$TMP/o" "$TMP/e"
	sleep "0.$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')"
	kill -KILL "$RECV_PID"
	wait "$RECV_PID" 2>/dev/null
	kills=$((kills + 1))
	cat "$TMP/o" >>"$TMP/all"
done
tg_run "$TMP/o" "$TMP/e"
cat "$TMP/o" >>"$TMP/all"
jget '["message_id"]' "$TMP/all" | sort -n >"$TMP/ids"
seq 1 200 >"$TMP/exp"
check "$kills kills -9: none of 200 lost" \
	'[ "$(sort -nu "$TMP/ids")" = "$(cat "$TMP/exp")" ]'
dups=$(($(wc -l <"$TMP/ids") - 200))
check "...at most one written twice per kill ($dups)" '[ "$dups" -le "$kills" ]'
done_testing
