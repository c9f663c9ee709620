#!/bin/sh
# oxi-mem under valgrind: a long stream of every request, words and
# vectors, no leak per record and no memory error
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 3

if ! command -v valgrind >/dev/null 2>&1 || nm "$TOP/bin/oxi-mem" 2>/dev/null | grep -q __asan_init; then
	skip_all "valgrind missing or an ASan build"
fi
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_MEM_LLM=none

python3 - "$TMP" <<'EOF2'
import json, random, sys
d = sys.argv[1]
rnd = random.Random(3)
vec = lambda: [rnd.uniform(-1, 1) for _ in range(16)]
with open(d + "/facts", "w") as f:
    for i in range(500):
        f.write(json.dumps({"v": 1, "type": "mem.fact", "fact": "F%025d" % i,
            "person": "p:x:%d" % (i % 3), "text": "fact %d about w%d" % (i, i % 17),
            "confidence": 0.8, "created": "2026-11-01T00:00:00.000Z",
            "confirmed": "2026-11-20T00:00:00.000Z", "vector": vec()}) + "\n")
    f.write(json.dumps({"v": 1, "type": "mem.episode", "conv": "p:x:1",
        "session": "S", "text": "an episode about w3"}) + "\n")
with open(d + "/reqs", "w") as f:
    for i in range(1500):
        s = "p:x:%d" % (i % 4)
        k = i % 7
        if k == 0:
            r = {"type": "mem.remember", "text": "note %d w%d" % (i, i % 11), "key": "k%d" % (i % 5)}
        elif k == 1:
            r = {"type": "mem.recall", "query": "w%d fact" % (i % 17), "vector": vec(), "conv": "p:x:1"}
        elif k == 2:
            r = {"type": "mem.recall", "query": "about w%d" % (i % 17), "mode": "words"}
        elif k == 3:
            r = {"type": "mem.list"}
        elif k == 4:
            r = {"type": "mem.forget", "key": "k%d" % (i % 5)}
        elif k == 5:
            r = {"type": "mem.extract", "text": "hi", "trust": "owner"}
        else:
            r = {"type": "mem.episode", "conv": s, "session": "s%d" % (i % 9), "text": "talk %d" % i}
        r.update({"v": 1, "id": "r%d" % i, "scope": s})
        f.write(json.dumps(r) + "\n")
        if i % 500 == 0:
            f.write("{bad line\n")
EOF2

check 'import with vectors: clean' \
	'$VG oxi-mem -f "$TMP/m.db" import <"$TMP/facts" 2>"$TMP/e1"; [ $? -eq 0 ] || { cat "$TMP/e1"; exit 1; }'
check '1500 requests of every kind, bad lines among them: clean, each answered' \
	'$VG oxi-mem -f "$TMP/m.db" <"$TMP/reqs" >"$TMP/out" 2>"$TMP/e2"; [ $? -eq 1 ] &&
	 [ "$(wc -l <"$TMP/out")" = 1500 ] && ! grep -q "==[0-9]*==" "$TMP/e2" ||
	 { grep "==" "$TMP/e2" | head -20; exit 1; }'
check 'export: clean' \
	'$VG oxi-mem -f "$TMP/m.db" export >/dev/null 2>"$TMP/e3"; [ $? -eq 0 ] || { cat "$TMP/e3"; exit 1; }'
done_testing
