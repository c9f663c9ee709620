#!/bin/sh
# oxi-tool: glob and grep over the workspace; PCRE2 limits fail closed
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 31

WS="$TMP/ws"
mkdir -p "$WS/src/deep/x" "$WS/.hidden" "$WS/docs"
printf 'hello world\nsecond line\nHello again\n' >"$WS/a.txt"
printf '# notes\nhello from markdown\n' >"$WS/b.md"
printf 'int main(void)\n{\n\treturn hello();\n}\n' >"$WS/src/main.c"
printf 'int hello(void) { return 0; }\r\n' >"$WS/src/util.c"
printf 'deep hello\n' >"$WS/src/deep/x/y.c"
printf 'hidden hello\n' >"$WS/.hidden/h.c"
printf 'dot hello\n' >"$WS/src/.h.c"
printf 'hello\000binary\n' >"$WS/bin.dat"
printf 'caf\303\251 hello\n' >"$WS/docs/u.txt"
ln -s src/main.c "$WS/link.c"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {		# stdin to $TMP/out; contents to $TMP/msgs, one file per result
	oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	python3 - "$TMP/out" "$TMP" <<'PY'
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    r = json.loads(line)
    open("%s/r%d" % (sys.argv[2], i + 1), "w").write(r["content"] + "\n")
PY
	return $_rc
}
is() {		# is N TEXT: result N is TEXT
	printf '%s\n' "$2" | cmp -s - "$TMP/r$1" || {
		diff -u "$TMP/r$1" - <<EOF | sed 's/^/# /'
$2
EOF
		return 1
	}
}

{
	call g1 glob '{"pattern":"*.txt"}'
	call g2 glob '{"pattern":"**/*.c"}'
	call g3 glob '{"pattern":"src/*.c"}'
	call g4 glob '{"pattern":"*.c","path":"src"}'
	call g5 glob '{"pattern":"**/.*.c"}'
	call g6 glob '{"pattern":"[ab].*"}'
	call g7 glob '{"pattern":"?.md"}'
	call g8 glob '{"pattern":"src/**"}'
	call g9 glob '{"pattern":"nope*"}'
	call g10 glob '{"pattern":".hidden/*"}'
	call g11 glob '{"pattern":"**/x/*.c","path":"./src/"}'
} >"$TMP/in"
check_exit 'glob calls exit 0' 0 'run <"$TMP/in"'
check '* matches within a name, hidden names and directories left out' \
	'is 1 "a.txt"'
check '** matches any depth and does not enter hidden directories; a link is listed' \
	'is 2 "link.c
src/deep/x/y.c
src/main.c
src/util.c"'
check 'a directory in the pattern, or as path: the same paths' \
	'is 3 "src/main.c
src/util.c" && is 4 "src/main.c
src/util.c"'
check 'a pattern starting with a dot finds hidden files' 'is 5 "src/.h.c"'
check '[..] and ?' 'is 6 "a.txt
b.md" && is 7 "b.md"'
check 'a final ** is every file below' 'is 8 "src/deep/x/y.c
src/main.c
src/util.c"'
check 'no match is not an error' \
	'is 9 "no files match '"'nope*'"'" &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = false ]'
check 'a hidden directory named in the pattern' 'is 10 ".hidden/h.c"'
check 'a path with ./ and / is shown clean' 'is 11 "src/deep/x/y.c"'
check 'glob results are tainted workspace' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sort -u)" = "[\"workspace\"]" ]'

mkdir "$WS/many"
(cd "$WS/many" && i=0 && while [ $i -lt 1100 ]; do : >"f$i"; i=$((i+1)); done)
call g12 glob '{"pattern":"many/*"}' | run
check 'at most 1000 paths, and a note of the rest' \
	'[ "$(wc -l <"$TMP/r1")" = 1001 ] &&
	 tail -n 1 "$TMP/r1" | grep -qx "\[100 more paths not shown; narrow the pattern\]"'
rm -rf "$WS/many"

{
	call r1 grep '{"pattern":"hello"}'
	call r2 grep '{"pattern":"^hello","ignore_case":true}'
	call r3 grep '{"pattern":"hello","glob":"*.c"}'
	call r4 grep '{"pattern":"hello","glob":"src/**/*.c"}'
	call r5 grep '{"pattern":"l+o","path":"a.txt"}'
	call r6 grep '{"pattern":"hello","path":"src","max_results":2}'
	call r7 grep '{"pattern":"absent"}'
	call r8 grep '{"pattern":"\\bcaf\\w\\b"}'
	call r9 grep '{"pattern":"return \\d;"}'
	call r10 grep '{"pattern":"hello","path":"link.c"}'
} >"$TMP/in"
check_exit 'grep calls exit 0' 0 'run <"$TMP/in"'
check 'path:line:text, sorted, binary, hidden and links skipped' \
	'is 1 "a.txt:1:hello world
b.md:2:hello from markdown
docs/u.txt:1:café hello
src/deep/x/y.c:1:deep hello
src/main.c:3:	return hello();
src/util.c:1:int hello(void) { return 0; }"'
check 'ignore_case' 'is 2 "a.txt:1:hello world
a.txt:3:Hello again
b.md:2:hello from markdown"'
check 'glob by name, and glob by path' \
	'is 3 "src/deep/x/y.c:1:deep hello
src/main.c:3:	return hello();
src/util.c:1:int hello(void) { return 0; }" &&
	 is 4 "src/deep/x/y.c:1:deep hello
src/main.c:3:	return hello();
src/util.c:1:int hello(void) { return 0; }"'
check 'a file as path' 'is 5 "a.txt:1:hello world
a.txt:3:Hello again"'
check 'max_results stops it, with a note' \
	'is 6 "src/deep/x/y.c:1:deep hello
src/main.c:3:	return hello();
[stopped after 2 matches; narrow the search or raise max_results]"'
check 'no match is a result, not an error' \
	'is 7 "no matches (7 files searched)" &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = false ]'
check 'UTF-8 is matched by character' 'is 8 "docs/u.txt:1:café hello"'
check 'a CR before the newline is not shown' \
	'is 9 "src/util.c:1:int hello(void) { return 0; }"'
if oxi-tool -v -w "$WS" </dev/null 2>&1 | grep -q 'component walk'; then
	# no openat2 here: the stricter walk refuses every link
	check 'without openat2, a link named as path is refused' \
		'grep -q "leads through a symbolic link" "$TMP/r10"'
else
	check 'a link inside the workspace named as path is searched' \
		'is 10 "link.c:3:	return hello();"'
fi
check 'grep results are tainted workspace' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sort -u)" = "[\"workspace\"]" ]'

python3 -c 'print("k" * 1000 + " needle")' >"$WS/long.txt"
call l1 grep '{"pattern":"needle","path":"long.txt"}' | run
check 'a long line is cut, with ...' \
	'[ "$(wc -c <"$TMP/r1")" = 415 ] && grep -q "^long.txt:1:kkk*\.\.\.$" "$TMP/r1"'
rm -f "$WS/long.txt"

# catastrophic backtracking: an error, never a silent "no match"
python3 -c 'print("a" * 40 + "b")' >"$WS/evil.txt"
{
	call c1 grep '{"pattern":"(a+)+$","path":"evil.txt"}'
	call c2 grep '{"pattern":"(a|aa)+$"}'
	call c3 grep '{"pattern":"(?:a*)*b$","path":"evil.txt"}'
} >"$TMP/in"
check_exit 'catastrophic patterns: exit 0' 0 'run <"$TMP/in"'
check 'each hits the match limit and fails the call' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | tr "\n" " ")" = "true true false " ] &&
	 is 1 "grep: the pattern is too costly: it hit the match limit at '"'evil.txt'"' line 1; make it simpler (no nested repeats)" &&
	 grep -q "^grep: the pattern is too costly: it hit the match limit at '"'evil.txt'"' line 1" "$TMP/r2"'
check 'a pattern that is only slow where PCRE2 optimises it still matches' \
	'is 3 "evil.txt:1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"'
# under valgrind PCRE2 runs without JIT: the interpreter's limits hold too
check_exit 'valgrind: the limits without JIT, no leak or memory error' 0 '
	command -v valgrind >/dev/null &&
	    ! nm "$TOP/bin/oxi-tool" | grep -q __asan_init || exit 0
	{ head -n 1 "$TMP/in"; call v1 grep "{\"pattern\":\"hello\",\"glob\":\"src/**/*.c\"}"
	  call v2 glob "{\"pattern\":\"**/*.c\"}"
	  call v3 grep "{\"pattern\":\"(\"}"; } |
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --error-exitcode=99 \
		oxi-tool -w "$WS" >"$TMP/vg.out" 2>/dev/null &&
	[ "$(jget "[\"is_error\"]" "$TMP/vg.out" | tr "\n" " ")" = \
	  "true false false true " ]'
rm -f "$WS/evil.txt"

{
	call e1 grep '{"pattern":"(unclosed"}'
	call e2 grep '{"pattern":""}'
	call e3 grep '{"pattern":"x","max_results":0}'
	call e4 grep '{"pattern":"x","max_results":10001}'
	call e5 grep '{"pattern":"x","ignore_case":1}'
	call e6 grep '{"pattern":"x","path":"nowhere"}'
	call e7 glob '{}'
	call e8 glob '{"pattern":""}'
	call e9 glob '{"pattern":"x","path":"a.txt"}'
	call e10 grep '{"pattern":"\\C"}'
} >"$TMP/in"
check_exit 'bad arguments: exit 0' 0 'run <"$TMP/in"'
check 'each is an error naming the problem' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = true ] &&
	 is 1 "grep: bad pattern at offset 9: missing closing parenthesis" &&
	 is 2 "grep: argument '"'pattern'"' is empty" &&
	 is 3 "grep: argument '"'max_results'"' must be an integer >= 1" &&
	 is 4 "grep: argument '"'max_results'"' must be at most 10000" &&
	 is 5 "grep: argument '"'ignore_case'"' must be true or false" &&
	 is 6 "grep: '"'nowhere'"': no such file or directory" &&
	 is 7 "glob: missing argument '"'pattern'"'" &&
	 is 8 "glob: argument '"'pattern'"' is empty" &&
	 is 9 "glob: '"'a.txt'"': not a directory" &&
	 grep -q "^grep: bad pattern at offset 2: " "$TMP/r10"'
check 'no warnings for any of it' '[ ! -s "$TMP/err" ]'
done_testing
