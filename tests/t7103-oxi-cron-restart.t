#!/bin/sh
# oxi-cron after downtime and after a kill: a simulated three days off
# (the clock of OXI_CRON_NOW) fires a missed one-shot once and each
# missed recurring schedule once, for its latest slot (OXI_CRON_CATCHUP=
# skip: not at all); a kill -9 between the record of a fire and its write,
# or after the write, never makes it fire twice: the restart writes the
# same message (the same id), which oxi-loop answers once
cd "$(dirname "$0")" && . ./lib.sh && . ./cron.sh || exit 1
plan 10

# 1. three days off
for mode in once skip; do
	export OXI_HOME="$TMP/h-$mode" OXI_CRON_CATCHUP=$mode
	rm -f "$TMP/fire"
	OXI_CRON_NOW=2026-11-23T08:00:00Z cron_start
	req '{"v":1,"type":"cron.add","id":"a1","when":"in 1h","text":"one-shot",'"$M"'}'
	req '{"v":1,"type":"cron.add","id":"a2","when":"every 1h","text":"hourly",'"$M"'}'
	req '{"v":1,"type":"cron.add","id":"a3","when":"0 9 * * *","text":"daily",'"$M"'}'
	req '{"v":1,"type":"cron.add","id":"a4","when":"every 30m","text":"half-hourly",'"$M"'}'
	wait_until 5 '[ "$(nlines "$TMP/fire")" -ge 4 ]'
	cron_stop
	OXI_CRON_NOW=2026-11-26T08:10:00Z cron_start
	wait_until 5 'grep -q one-shot "$TMP/fire"'
	sleep 1
	cron_stop
	grep '"type":"msg.in"' "$TMP/fire" >"$TMP/fired-$mode"
	oxi-cron -L >"$TMP/list-$mode"
done
check_lines 'catch-up once: four missed schedules, four fires' 4 "$TMP/fired-once"
check 'each for its latest missed slot (the one-shot for its own)' \
	'[ "$(jget "[\"id\"]" "$TMP/fired-once" | sed "s/cron:[a-z0-9]*://" | sort | tr "\n" " ")" = "2026-11-23T09:00:00Z 2026-11-25T09:00:00Z 2026-11-26T08:00:00Z 2026-11-26T08:00:00Z " ]'
check 'then the next slots after the downtime' \
	'[ "$(jget "[\"next\"]" "$TMP/list-once" | sort | tr "\n" " ")" = "2026-11-26T08:30:00Z 2026-11-26T09:00:00Z 2026-11-26T09:00:00Z " ]'
check 'catch-up skip: only the one-shot fires' \
	'[ "$(wc -l <"$TMP/fired-skip")" = 1 ] && grep -q one-shot "$TMP/fired-skip" &&
	 [ "$(wc -l <"$TMP/list-skip")" = 3 ]'
unset OXI_CRON_CATCHUP

# 2. killed between the commit of a fire and its write
export OXI_HOME="$TMP/h-kill"
rm -f "$TMP/fire"
OXI_CRON_TEST_KILL=commit cron_start
req '{"v":1,"type":"cron.add","id":"k1","when":"in 1s","text":"once only",'"$M"'}'
wait_until 6 '! kill -0 $CRON 2>/dev/null'
wait "$CRON"
rc=$?
check 'killed after recording the fire, before writing it' \
	'[ $rc = 137 ] && ! grep -q "once only" "$TMP/fire"'
cron_start
wait_until 5 'grep -q "once only" "$TMP/fire"'
sleep 0.5
cron_stop
cron_start
sleep 1
cron_stop
check 'the restart writes it, once; the next start not again' \
	'[ "$(grep -c "once only" "$TMP/fire")" = 1 ] &&
	 grep -q "1 fires recorded but perhaps not written: written again" "$TMP/err"'

# 3. killed after the write, before it was marked written
rm -f "$TMP/fire"
OXI_CRON_TEST_KILL=write cron_start
req '{"v":1,"type":"cron.add","id":"k2","when":"in 1s","text":"twice written",'"$M"'}'
wait_until 6 '! kill -0 $CRON 2>/dev/null'
cron_start
wait_until 5 '[ "$(grep -c "twice written" "$TMP/fire")" = 2 ]'
cron_stop
grep "twice written" "$TMP/fire" >"$TMP/twice"
check 'written again after the restart: the same record, the same id' \
	'[ "$(sort -u "$TMP/twice" | wc -l)" = 1 ] && [ "$(wc -l <"$TMP/twice")" = 2 ]'
OXI_LLM="python3 $TESTS/fake/llm-stage.py" OXI_TOOL=none \
	with_timeout 20 oxi-loop -f "$TMP/loop.db" <"$TMP/twice" >"$TMP/loopout" \
	2>"$TMP/looperr"
grep '"type":"msg.out"' "$TMP/loopout" >"$TMP/replies"
check 'oxi-loop answers it once' \
	'[ "$(wc -l <"$TMP/replies")" = 1 ] && grep -q "echo: twice written" "$TMP/replies"'

# 4. kill -9 at random moments of an interval every second
export OXI_HOME="$TMP/h-rand"
rm -f "$TMP/fire"
cron_start
req '{"v":1,"type":"cron.add","id":"r1","when":"every 1s","text":"tick",'"$M"'}'
i=0
while [ $i -lt 6 ]; do
	sleep "0.$(( (i * 37) % 9 + 1 ))"
	kill -9 "$CRON" 2>/dev/null
	wait "$CRON" 2>/dev/null
	cron_start
	i=$((i + 1))
done
sleep 1.5
cron_stop
grep '"type":"msg.in"' "$TMP/fire" >"$TMP/ticks"
check 'six kills: every fire id names one record, and no due time two ids' \
	'[ "$(jget "[\"id\"]" "$TMP/ticks" | sort -u | wc -l)" = "$(sort -u "$TMP/ticks" | wc -l)" ] &&
	 [ "$(jget "[\"cron\"][\"due\"]" "$TMP/ticks" | sort -u | wc -l)" = "$(jget "[\"id\"]" "$TMP/ticks" | sort -u | wc -l)" ]'
check 'and it went on ticking' '[ "$(jget "[\"id\"]" "$TMP/ticks" | sort -u | wc -l)" -ge 3 ]'
