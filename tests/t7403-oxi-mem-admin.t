#!/bin/sh
# oxi-mem: the owner's commands (export, import, links, prune), usage
# and exit codes, records it does not own passing through, and the
# extraction pass: the owner's by default, within a budget
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 14
. ./memlib.sh

P=cli::owner Q=telegram:bot:7
{
	remember a1 $P "The user lives in Lisbon" home.city
	remember a2 $P "The user moved to Porto" home.city
	remember a3 $Q "The user supports Benfica"
	printf '{"v":1,"type":"mem.episode","conv":"%s","session":"S1","text":"We talked about moving house"}\n' $P
	printf '{"v":1,"type":"msg.in","id":"cli:1","channel":"cli","chat":"c","text":"hi"}\n'
} | mem
check 'an episode without an id is an error; other records pass through unchanged' \
	'[ "$(sed -n 4p "$TMP/out" | jget "[\"type\"]" /dev/stdin)" = error ] &&
	 sed -n 5p "$TMP/out" | grep -qx "{\"v\":1,\"type\":\"msg.in\",\"id\":\"cli:1\",\"channel\":\"cli\",\"chat\":\"c\",\"text\":\"hi\"}"'
printf '{"v":1,"type":"mem.episode","id":"e","conv":"%s","session":"S1","text":"We talked about moving house"}\n' $P | mem

check 'export: every fact, superseded ones too, with vectors, and the episodes' \
	'oxi-mem -f "$DB" export >"$TMP/all" &&
	 [ "$(grep -c "\"type\":\"mem.fact\"" "$TMP/all")" = 3 ] &&
	 [ "$(grep -c "\"vector\":\[" "$TMP/all")" = 3 ] &&
	 [ "$(grep -c "\"type\":\"mem.episode\"" "$TMP/all")" = 1 ]'
check 'export of one person: theirs alone' \
	'oxi-mem -f "$DB" export $P >"$TMP/p" &&
	 [ "$(grep -c "\"type\":\"mem.fact\"" "$TMP/p")" = 2 ] &&
	 ! grep -q Benfica "$TMP/p" && grep -q "moving house" "$TMP/p"'
check 'import into a new database, then export: the same records' \
	'oxi-mem -f "$TMP/new.db" import <"$TMP/all" 2>"$TMP/e" &&
	 grep -q "imported 4 records, 0 were there" "$TMP/e" &&
	 oxi-mem -f "$TMP/new.db" export >"$TMP/again" &&
	 cmp -s "$TMP/all" "$TMP/again"'
check 'importing twice adds nothing' \
	'oxi-mem -f "$TMP/new.db" import <"$TMP/all" 2>"$TMP/e" &&
	 grep -q "imported 1 records, 3 were there" "$TMP/e" &&
	 oxi-mem -f "$TMP/new.db" export | cmp -s "$TMP/all" -'
check 'the imported memory answers as the old: Porto, not Lisbon' \
	'recall r $P "where does the user live" | oxi-mem -f "$TMP/new.db" >"$TMP/o" &&
	 [ "$(texts r "$TMP/o")" = "The user moved to Porto" ]'
check_exit 'a bad record on import: exit 1, the rest imported' 1 \
	'printf "{\"type\":\"mem.fact\",\"text\":\"x\"}\n" | oxi-mem -f "$TMP/n2.db" import'
check_exit 'usage: exit 100' 100 'oxi-mem -f "$DB" link onlyone'
check_exit 'an unknown command: exit 100' 100 'oxi-mem -f "$DB" frobnicate'
check_exit 'a bad setting: exit 100' 100 'OXI_MEM_DUP=2 oxi-mem -f "$DB" links'
check_exit 'a database it cannot open: exit 111 or 100, never 0' 100 \
	'oxi-mem -f /nonexistent/dir/mem.db links'

# extraction, through a scripted model stage
export OXI_MEM_LLM="python3 $TESTS/fake/mem-model.py" OXI_MEM_EMBED_MODEL=none
export OXI_MEM_EXTRACT_MODEL=openai/gpt-4o-mini FAKE_LLM_LOG="$TMP/llm.log"
xreq() {	# xreq ID TRUST TEXT
	python3 -c 'import json, sys
print(json.dumps({"v": 1, "type": "mem.extract", "id": sys.argv[1],
    "scope": "cli::x", "trust": sys.argv[2], "source": "cli:" + sys.argv[1],
    "text": sys.argv[3], "reply": "Noted."}))' "$@"
}
F='facts=[{"text": "The user has a cat named Miso", "key": "pet.name", "confidence": 0.8}]'
{
	xreq x1 owner "I have a cat called Miso $F"
	xreq x2 external "I have a cat called Miso $F"
} | mem
check 'the owner'"'"'s exchange: the cheap model proposes, the fact is kept' \
	'[ "$(answer x1 "[\"facts\"][0][\"action\"]")" = new ] &&
	 grep -q "\"model\":\"openai/gpt-4o-mini\"" "$TMP/llm.log" &&
	 echo "{\"type\":\"mem.list\",\"id\":\"l\",\"scope\":\"cli::x\"}" | oxi-mem -f "$DB" |
	 grep -q "The user has a cat named Miso"'
check 'another sender: no model asked, by default' \
	'[ "$(answer x2 "[\"skipped\"]")" = "not the owner" ] &&
	 [ "$(wc -l <"$TMP/llm.log")" = 1 ]'
check 'the budget: 120 tokens a call, 200 a day: once past it, no call is made' \
	'{ xreq y1 owner "a $F"; xreq y2 owner "b $F"; xreq y3 owner "c $F"; } |
	 OXI_MEM_EXTRACT_TOKENS=200 OXI_MEM_EXTRACT=everyone mem &&
	 [ "$(answer y3 "[\"skipped\"]")" = budget ] &&
	 [ "$(wc -l <"$TMP/llm.log")" = 2 ]'
done_testing
