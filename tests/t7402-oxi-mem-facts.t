#!/bin/sh
# oxi-mem facts on a planted set: duplicates by meaning confirm, decay at
# read time (0.95 a week), contradictions replace and keep the history,
# forget takes a fact out of the table, FTS5 and the vectors alike
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 17
. ./memlib.sh

P=telegram:bot:42
T0=1795000000			# a fixed clock: OXI_MEM_NOW
export OXI_MEM_NOW=$T0
{
	remember d1 $P "The user has a dog named Rex"
	remember d2 $P "The user has a puppy called Rex"	# same, other words
	remember d3 $P "the user has a dog named rex."		# same, other case
	remember d4 $P "The user likes coffee"
	remember d5 $P "The user lives in Lisbon" home.city
} | mem
check 'a paraphrase (cosine >= 0.85) confirms the fact it repeats' \
	'[ "$(answer d2 "[\"action\"]")" = confirmed ] &&
	 [ "$(answer d2 "[\"fact\"]")" = "$(answer d1 "[\"fact\"]")" ] &&
	 [ "$(answer d3 "[\"action\"]")" = confirmed ]'
check 'a different fact is new' \
	'[ "$(answer d4 "[\"action\"]")" = new ] && [ "$(answer d5 "[\"action\"]")" = new ]'
echo '{"type":"mem.list","id":"l1","scope":"'$P'"}' | mem
check 'three facts, not five' \
	'[ "$(answer l1 "[\"facts\"].__len__()")" = 3 ]'
check 'without vectors the words decide: a new wording is a new fact' \
	'remember w1 $P "The user has a puppy called Rex" |
	 OXI_MEM_LLM=none oxi-mem -f "$TMP/words.db" >/dev/null &&
	 remember w2 $P "The user has a puppy called Rex" |
	 OXI_MEM_LLM=none oxi-mem -f "$TMP/words.db" >"$TMP/w" &&
	 [ "$(answer w2 "[\"action\"]" "$TMP/w")" = confirmed ] &&
	 remember w3 $P "The user has a dog named Rex" |
	 OXI_MEM_LLM=none oxi-mem -f "$TMP/words.db" >"$TMP/w" &&
	 [ "$(answer w3 "[\"action\"]" "$TMP/w")" = new ]'

# decay: 0.9 at T0; a week later 0.9 * 0.95; ten weeks later 0.9 * 0.95^10
conf() {	# conf DAYS TEXT: the confidence of TEXT in mem.list DAYS later
	echo '{"type":"mem.list","id":"l","scope":"'$P'"}' |
		OXI_MEM_NOW=$((T0 + $1 * 86400)) mem &&
	python3 -c 'import json, sys
for f in json.loads(open(sys.argv[1]).readline())["facts"]:
    if f["text"] == sys.argv[2]:
        print(f["confidence"])' "$TMP/out" "$2"
}
check 'decay: 0.9 today, 0.855 a week on, 0.539 ten weeks on' \
	'[ "$(conf 0 "The user likes coffee")" = 0.9 ] &&
	 [ "$(conf 7 "The user likes coffee")" = 0.855 ] &&
	 [ "$(conf 70 "The user likes coffee")" = 0.539 ]'
check 'a confirmation makes it fresh again' \
	'remember c1 $P "The user likes coffee" |
	 OXI_MEM_NOW=$((T0 + 70 * 86400)) mem &&
	 [ "$(conf 70 "The user likes coffee")" = 0.9 ] &&
	 [ "$(conf 70 "The user lives in Lisbon")" = 0.539 ]'
check 'ranking weighs decay: of two facts found alike, the fresher comes first' \
	'recall r1 $P "coffee Lisbon" words | OXI_MEM_NOW=$((T0 + 70 * 86400)) mem &&
	 [ "$(texts r1 | head -n 1)" = "The user likes coffee" ]'
check 'a fact decayed below the floor is not recalled, and prune deletes it' \
	'recall r2 $P "Lisbon" words | OXI_MEM_NOW=$((T0 + 600 * 86400)) mem &&
	 [ -z "$(texts r2)" ] &&
	 OXI_MEM_NOW=$((T0 + 600 * 86400)) oxi-mem -f "$DB" prune 2>"$TMP/e" &&
	 grep -q "pruned 3 facts" "$TMP/e"'

# contradiction: the same key, a new value
rm -f "$DB"*
{
	remember k1 $P "The user lives in Lisbon" home.city
	remember k2 $P "The user moved to Porto" home.city
	recall k3 $P "where does the user live Lisbon Porto" words
} | mem
check 'a fact with the key of an older one replaces it' \
	'[ "$(answer k2 "[\"action\"]")" = replaced ] &&
	 [ "$(answer k2 "[\"replaced\"]")" = "$(answer k1 "[\"fact\"]")" ]'
check 'recall shows the new one only' \
	'[ "$(texts k3)" = "The user moved to Porto" ]'
check 'the history stays: the old row, superseded by the new' \
	'oxi-mem -f "$DB" export >"$TMP/x" &&
	 [ "$(jget "[\"superseded_by\"]" "$TMP/x" 2>/dev/null | head -n 1)" = "$(answer k2 "[\"fact\"]")" ]'

# forget
fts() { sqlite3 "$DB" "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH '$1'"; }
vecs() { sqlite3 "$DB" "SELECT count(*) FROM facts WHERE vec IS NOT NULL"; }
{
	remember f1 $P "The user plays the cello"
	remember f2 $P "The user supports Benfica"
} | mem
check 'before: the words are in FTS5, four vectors stored' \
	'[ "$(fts cello) $(fts Lisbon) $(vecs)" = "1 1 4" ]'
echo '{"type":"mem.forget","id":"g1","scope":"'$P'","key":"home.city"}' | mem
check 'forget by key: the fact and what it superseded, from FTS5 and the vectors' \
	'[ "$(answer g1 "[\"n\"]")" = 2 ] && [ "$(fts Lisbon) $(fts Porto) $(vecs)" = "0 0 2" ]'
n=$(echo '{"type":"mem.list","id":"l","scope":"'$P'"}' | oxi-mem -f "$DB" |
	jget '["facts"][0]["n"]' /dev/stdin)
printf '{"type":"mem.forget","id":"g2","scope":"%s","fact":"%s"}\n' $P "$n" | mem
check 'forget by number: gone from both indexes' \
	'[ "$(answer g2 "[\"n\"]")" = 1 ] && [ "$(fts cello)$(fts Benfica) $(vecs)" = "01 1" ] ||
	 [ "$(fts cello)$(fts Benfica) $(vecs)" = "10 1" ]'
check 'another person cannot forget them' \
	'echo "{\"type\":\"mem.forget\",\"id\":\"g3\",\"scope\":\"x:y:z\",\"all\":true}" | mem &&
	 [ "$(answer g3 "[\"n\"]")" = 0 ] && [ "$(vecs)" = 1 ]'
check 'forget all: nothing left of the person' \
	'echo "{\"type\":\"mem.forget\",\"id\":\"g4\",\"scope\":\"'$P'\",\"all\":true}" | mem &&
	 [ "$(answer g4 "[\"n\"]")" = 1 ] && [ "$(vecs)" = 0 ] &&
	 [ "$(sqlite3 "$DB" "SELECT count(*) FROM facts_fts")" = 0 ]'
# with a key, near in meaning is not the same (the fake embedder ignores
# numbers: the two texts have one vector)
rm -f "$DB"*
{
	remember k3 $P "The user's locker is number 17" locker
	remember k4 $P "The user's locker is number 42" locker
	remember k5 $P "the user's locker is number 42" locker
} | mem
check 'with a key, a close text is no repeat: locker 42 replaces 17; the same words again confirm' \
	'[ "$(answer k4 "[\"action\"]")" = replaced ] &&
	 [ "$(answer k5 "[\"action\"]")" = confirmed ] &&
	 [ "$(answer k5 "[\"fact\"]")" = "$(answer k4 "[\"fact\"]")" ]'
done_testing
