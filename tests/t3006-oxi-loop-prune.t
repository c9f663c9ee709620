#!/bin/sh
# oxi-loop keeps its history within OXI_HISTORY_MB: past it, at start, the
# oldest of what may be forgotten (sessions no longer current) goes; the
# current sessions stay whole
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 4

export OXI_LLM="python3 $TESTS/fake/llm-stage.py"
export OXI_TOOL="python3 $TESTS/fake/tool-stage.py"
DB=$OXI_HOME/loop.db

# 200 chats: four long messages in a first session, /new, one in a second
python3 -c '
import json
pad = "x" * 2000
for c in range(200):
    for i in range(4):
        print(json.dumps({"v": 1, "type": "msg.in", "id": "m%d-%d" % (c, i),
                          "channel": "cli", "chat": "c%d" % c, "from": "u",
                          "text": "old %d %d %s" % (c, i, pad)}))
    print(json.dumps({"v": 1, "type": "msg.in", "id": "n%d" % c,
                      "channel": "cli", "chat": "c%d" % c, "from": "u",
                      "text": "/new"}))
    print(json.dumps({"v": 1, "type": "msg.in", "id": "k%d" % c,
                      "channel": "cli", "chat": "c%d" % c, "from": "u",
                      "text": "keep %d" % c}))
' >"$TMP/in"
oxi-loop <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
count() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$DB" "$1"; }
OLD=$(count "select count(*) from messages where content like '%old %'")
check "the first sessions are stored ($OLD messages)" '[ "$OLD" -ge 800 ]'
: | OXI_HISTORY_MB=1 oxi-loop >/dev/null 2>"$TMP/err2"
LEFT=$(count "select count(*) from messages where content like '%old %'")
check "past 1 MiB the oldest are pruned at start ($LEFT of $OLD left)" \
	'[ "$LEFT" -lt "$OLD" ]'
check 'the current sessions keep every message' \
	'[ "$(count "select count(*) from messages where content like '"'"'keep %'"'"'")" = 200 ]'
: | OXI_HISTORY_MB=1000 oxi-loop >/dev/null 2>&1
check 'under the bound nothing more goes' \
	'[ "$(count "select count(*) from messages where content like '"'"'%old %'"'"'")" = "$LEFT" ]'
