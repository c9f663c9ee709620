#!/bin/sh
# oxi-cron -n: the next due times of cron expressions, one-shot times and
# intervals, against a table worked out by hand (the zones' rules from
# tzdata), DST in Europe/Berlin and America/New_York included: a time
# the clocks skip runs once at the gap's end, a time they repeat once
cd "$(dirname "$0")" && . ./lib.sh || exit 1

[ -f /usr/share/zoneinfo/Europe/Berlin ] &&
	[ -f /usr/share/zoneinfo/America/New_York ] ||
	skip_all "tzdata is not installed (make deps)"

# zone|clock|spec|the expected times, UTC
cat >"$TMP/table" <<'TAB'
UTC|2026-11-26T09:00:00Z|*/15 * * * *|2026-11-26T09:15:00Z 2026-11-26T09:30:00Z 2026-11-26T09:45:00Z
UTC|2026-11-26T09:00:00Z|0 9 * * 1-5|2026-11-27T09:00:00Z 2026-11-30T09:00:00Z 2026-12-01T09:00:00Z
UTC|2026-03-28T12:00:00Z|0 12 13 * fri|2026-04-03T12:00:00Z 2026-04-10T12:00:00Z 2026-04-13T12:00:00Z
UTC|2026-11-26T09:00:00Z|0 0 1-7 * mon|2026-11-30T00:00:00Z 2026-12-01T00:00:00Z 2026-12-02T00:00:00Z
UTC|2026-11-26T09:00:00Z|5 0 * 8 sun|2027-08-01T00:05:00Z 2027-08-08T00:05:00Z 2027-08-15T00:05:00Z
UTC|2026-11-26T09:00:00Z|0 12 */10 * *|2026-12-01T12:00:00Z 2026-12-11T12:00:00Z 2026-12-21T12:00:00Z
UTC|2026-11-26T09:00:00Z|0 0 29 2 *|2028-02-29T00:00:00Z 2032-02-29T00:00:00Z
UTC|2026-11-26T09:00:00Z|30 4 1 jan,jul *|2027-01-01T04:30:00Z 2027-07-01T04:30:00Z
UTC|2026-11-26T09:00:00Z|@weekly|2026-11-29T00:00:00Z 2026-12-06T00:00:00Z
UTC|2026-11-26T09:00:00Z|cron 0 22 * * 7|2026-11-29T22:00:00Z 2026-12-06T22:00:00Z
UTC|2026-11-26T09:00:00Z|in 90 minutes|2026-11-26T10:30:00Z
UTC|2026-11-26T09:00:00Z|every 2h|2026-11-26T11:00:00Z 2026-11-26T13:00:00Z
UTC|2026-11-26T09:00:00Z|friday 7pm|2026-11-27T19:00:00Z
UTC|2026-11-26T09:00:00Z|at 8:00|2026-11-27T08:00:00Z
UTC|2026-11-26T09:00:00Z|2026-12-01T08:00:00+02:00|2026-12-01T06:00:00Z
Europe/Berlin|2026-03-28T12:00:00Z|30 2 * * *|2026-03-29T01:00:00Z 2026-03-30T00:30:00Z
Europe/Berlin|2026-03-28T12:00:00Z|*/30 1-3 29 3 *|2026-03-29T00:00:00Z 2026-03-29T00:30:00Z 2026-03-29T01:00:00Z 2026-03-29T01:30:00Z 2027-03-28T23:00:00Z
Europe/Berlin|2026-10-24T12:00:00Z|*/30 1-3 * * *|2026-10-24T23:00:00Z 2026-10-24T23:30:00Z 2026-10-25T00:00:00Z 2026-10-25T00:30:00Z 2026-10-25T02:00:00Z 2026-10-25T02:30:00Z
Europe/Berlin|2026-10-24T12:00:00Z|30 2 25 10 *|2026-10-25T00:30:00Z 2027-10-25T00:30:00Z
Europe/Berlin|2026-03-28T12:00:00Z|at 9:00 tomorrow|2026-03-29T07:00:00Z
Europe/Berlin|2026-03-28T12:00:00Z|every weekday at 8:30|2026-03-30T06:30:00Z 2026-03-31T06:30:00Z
America/New_York|2026-03-07T12:00:00Z|30 2 * * *|2026-03-08T07:00:00Z 2026-03-09T06:30:00Z
America/New_York|2026-10-31T12:00:00Z|30 1 * * *|2026-11-01T05:30:00Z 2026-11-02T06:30:00Z
America/New_York|2026-11-01T04:30:00Z|0 * * * *|2026-11-01T05:00:00Z 2026-11-01T07:00:00Z 2026-11-01T08:00:00Z
America/New_York|2026-03-07T12:00:00Z|every day at 9|2026-03-07T14:00:00Z 2026-03-08T13:00:00Z 2026-03-09T13:00:00Z
America/New_York|2026-03-07T12:00:00Z|2026-12-01 09:00|2026-12-01T14:00:00Z
TAB

plan $(($(wc -l <"$TMP/table") + 3))

while IFS='|' read -r zone now spec want; do
	n=$(echo "$want" | wc -w)
	OXI_CRON_NOW=$now oxi-cron -n "$n" -z "$zone" "$spec" \
		>"$TMP/out" 2>"$TMP/err"
	got=$(cut -d' ' -f1 "$TMP/out" | tr '\n' ' ' | sed 's/ $//')
	check "$zone $now '$spec': $want" '[ "$got" = "$want" ]' ||
		diag "got: $got" "$(cat "$TMP/err")"
done <"$TMP/table"

# what cannot be read is refused, with the reason
bad=0
for s in '61 * * * *' '* * 32 * *' '0 9 * * 8' 'at 25:00' 'every monday' \
    'yesterday' 'in forever' '0 9 * *' '2026-02-30 10:00' 'today at 8'; do
	OXI_CRON_NOW=2026-11-26T09:00:00Z oxi-cron -n 1 "$s" >"$TMP/out" \
		2>"$TMP/err"
	[ $? -eq 100 ] && [ ! -s "$TMP/out" ] &&
		grep -q "^oxi-cron: fatal: cannot read" "$TMP/err" ||
		{ bad=1; diag "accepted: $s"; }
done
check 'bad specs are refused with exit 100 and one line' '[ $bad = 0 ]'
check_exit 'an unknown zone is refused' 100 \
	'oxi-cron -n 1 -z Mars/Olympus "@daily" 2>/dev/null'
check 'the local wall time is printed beside UTC' \
	'OXI_CRON_NOW=2026-03-28T12:00:00Z oxi-cron -n 1 -z Europe/Berlin \
		"30 2 * * *" | grep -qx "2026-03-29T01:00:00Z 2026-03-29 03:00:00"'
