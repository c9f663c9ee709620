#!/bin/sh
# oxi-mem recall quality on the labelled set tests/mem/set.json
# (bench/memeval.py): recall@5 by words, by vectors and hybrid; hybrid
# finds what words alone miss (paraphrases) and what the vectors miss
# (numbers, codes)
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 3

python3 "$TOP/bench/memeval.py" >"$TMP/eval" 2>&1
diag "$(cat "$TMP/eval")"
fig() {	# fig words|vectors|hybrid: its recall@5
	case $1 in
	words) sed -n 's/.*words (FTS5) \([0-9.]*\),.*/\1/p' "$TMP/eval" ;;
	vectors) sed -n 's/.*vectors \([0-9.]*\),.*/\1/p' "$TMP/eval" ;;
	hybrid) sed -n 's/.*hybrid (RRF) \([0-9.]*\).*/\1/p' "$TMP/eval" ;;
	esac
}
check 'the figures are out' \
	'[ -n "$(fig words)" ] && [ -n "$(fig vectors)" ] && [ -n "$(fig hybrid)" ]'
check 'hybrid recall@5 is at least 0.9' \
	'python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= 0.9)" "$(fig hybrid)"'
check 'hybrid beats words alone and vectors alone' \
	'python3 -c "import sys; h, w, v = map(float, sys.argv[1:]); sys.exit(not (h > w and h > v))" \
		"$(fig hybrid)" "$(fig words)" "$(fig vectors)"'
done_testing
