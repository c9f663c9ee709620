# memlib.sh - what the oxi-mem tests (t74xx) share: the fake embedding
# server in its bag-of-words mode behind a real oxi-llm -j, and helpers
# to write requests and read answers.  Sourced after lib.sh.

fake_server embed.py --words "$TESTS/mem/set.json" --log "$TMP/embed.log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OXI_MEM_LLM="oxi-llm -j"
export OXI_MEM_EMBED_MODEL=openai/text-embedding-3-small
export OXI_DEADLETTER="$TMP/dead.ndjson"
DB="$TMP/mem.db"

# remember ID SCOPE TEXT [KEY]: a mem.remember record
remember() {
	python3 -c 'import json, sys
r = {"v": 1, "type": "mem.remember", "id": sys.argv[1],
     "scope": sys.argv[2], "text": sys.argv[3], "source": "t:" + sys.argv[1]}
if len(sys.argv) > 4:
    r["key"] = sys.argv[4]
print(json.dumps(r))' "$@"
}

# recall ID SCOPE QUERY [MODE [CONV]]: a mem.recall record
recall() {
	python3 -c 'import json, sys
r = {"v": 1, "type": "mem.recall", "id": sys.argv[1], "scope": sys.argv[2],
     "query": sys.argv[3], "k": 10}
if len(sys.argv) > 4 and sys.argv[4]:
    r["mode"] = sys.argv[4]
if len(sys.argv) > 5:
    r["conv"] = sys.argv[5]
print(json.dumps(r))' "$@"
}

# mem [ARGS]: oxi-mem on $DB, records from stdin to $TMP/out
mem() {
	oxi-mem -f "$DB" "$@" >"$TMP/out" 2>"$TMP/err"
}

# answer REF FILTER: FILTER (a jget expression) of the answer to REF
answer() {
	python3 -c 'import json, sys
for line in open(sys.argv[3]):
    r = json.loads(line)
    if r.get("ref") == sys.argv[1]:
        v = eval("r" + sys.argv[2])
        print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2" \
		"${3:-$TMP/out}"
}

# texts REF: the texts of the facts and episodes an answer recalled, one a
# line
texts() {
	python3 -c 'import json, sys
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("ref") == sys.argv[1]:
        for x in r.get("facts", []) + r.get("episodes", []):
            print(x["text"])' "$1" "${2:-$TMP/out}"
}
