#!/bin/sh
# 100 bad lines of every kind among 1000 good ones: each bad line is one
# stderr line and one dead letter with its reason and line number, every
# good line goes through, and the stage ends with status 1
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 15

export OXI_DEADLETTER="$TMP/dead.ndjson"
python3 - "$TMP/mixed" <<'EOF2'
import json, sys
bad = [
    b'{"type":"x","t":"trunc',              # truncated JSON
    b'{"type":"x","t":"\xff\xfe"}',         # invalid UTF-8
    b'{"type":"x"}\x00',                    # a NUL byte
    b'\xef\xbb\xbf{"type":"x"}',            # a byte order mark
    b'[1,2,3]',                             # not an object
    b'{"notype":1}',                        # no type
    b'{"type":"x","type":"y"}',             # a duplicate key
    b'[' * 10000 + b']' * 10000,            # deep nesting
    b'{"type":"x","big":"' + b'a' * (10 << 20) + b'"}',  # 10 MB
    b'plain text',                          # not JSON at all
]
with open(sys.argv[1], "wb") as f:
    n = 0
    for i in range(1100):
        if i % 11 == 5:
            f.write(bad[n % len(bad)] + b"\n")
            n += 1
        else:
            f.write(json.dumps({"v": 1, "type": "msg.in", "id": "m%d" % i,
                "channel": "cli", "chat": "c", "from": "u",
                "text": "good %d" % i}).encode() + b"\n")
EOF2

export OXI_ALLOW="cli:*"
for stage in "oxi-guard in" 'oxi-guard out' 'oxi-tool' 'oxi-llm -j -m openai/x' \
    oxi-cron; do
	export OXI_OPENAI_BASE_URL=http://127.0.0.1:9/v1
	rm -f "$OXI_DEADLETTER"
	$stage <"$TMP/mixed" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check "$stage: 1000 good records through, exit 1" \
		'[ $rc = 1 ] && [ "$(grep -c "\"msg.in\"" "$TMP/out")" = 1000 ]'
	check "$stage: one stderr line per bad line" \
		'[ "$(grep -c "record dead-lettered" "$TMP/err")" = 100 ] &&
		 [ "$(grep -vc "record dead-lettered" "$TMP/err")" = 0 ]'
	check "$stage: 100 dead letters with reason and line number" \
		'[ "$(wc -l <"$OXI_DEADLETTER")" = 100 ] && python3 -c "
import json, sys
seen = set()
for l in open(sys.argv[1]):
    d = json.loads(l)
    assert d[\"reason\"] and d[\"line\"] % 11 == 6, d[\"line\"]
    seen.add(d[\"reason\"].split(\" (\")[0])
assert len(seen) >= 7, seen
" "$OXI_DEADLETTER"'
done
done_testing
