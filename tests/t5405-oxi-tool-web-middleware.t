#!/bin/sh
# oxi-tool: the middleware every call goes through: the cache of
# cacheable tools (web_fetch, web_search), the call log line, the output
# cap on every result, and the per-tool time limit
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 19

unset BRAVE_API_KEY TAVILY_API_KEY OXI_SEARXNG_URL OXI_WEB_SEARCH \
	OXI_BRAVE_BASE_URL OXI_TAVILY_BASE_URL OXI_TOOLS_ON OXI_TOOL_TIMEOUT \
	OXI_TOOL_CACHE_TTL OXI_TOOL_CACHE_MAX http_proxy https_proxy \
	HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
fake_server web.py
export OXI_SSRF_ALLOW="127.0.0.1:$PORT"
U="http://127.0.0.1:$PORT"
WS="$TMP/ws"
mkdir -p "$WS"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
fetch() {	# fetch ID URL [MORE]: a web_fetch call
	call "$1" web_fetch "{\"url\":\"$2\"$3}"
}
run() {		# stdin to $TMP/out, stderr to $TMP/err
	: >"$TMP/fake.log"
	with_timeout 60 oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
}
hits() {	# hits PATH: requests for PATH the fake saw
	grep -c "^[A-Z]* $1\$" "$TMP/fake.log"
}

# the cache
{
	fetch c1 "$U/page.html"
	fetch c2 "$U/page.html"
	call c3 web_fetch "{\"max_bytes\":5000,\"url\":\"$U/text.txt\"}"
	call c4 web_fetch "{\"url\":\"$U/text.txt\",\"max_bytes\":5000}"
	fetch c5 "$U/text.txt" ',"max_bytes":5001'
	fetch c6 "$U/notfound"
	fetch c7 "$U/notfound"
	printf '{"v":1,"type":"tool.call","id":"c8","name":"web_fetch","args":{"url":"%s"},"taint":["user:x"]}\n' "$U/page.html"
} >"$TMP/in"
check_exit 'calls exit 0' 0 'run -v <"$TMP/in"'
check 'a second identical call is answered from the cache' \
	'[ "$(hits /page.html)" = 1 ] &&
	 [ "$(jget "[\"content\"]" "$TMP/out" | sed -n 1p)" = "URL: $U/page.html" ] &&
	 python3 - "$TMP/out" <<"PY"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert r[0]["content"] == r[1]["content"] and r[0]["taint"] == r[1]["taint"]
assert r[1]["id"] == "c2" and r[1]["is_error"] is False
PY'
check 'arguments are keyed as canonical JSON: key order does not matter' \
	'[ "$(hits /text.txt)" = 2 ]'
check 'error results are not cached' '[ "$(hits /notfound)" = 2 ]'
check 'a cached result still carries the call'"'"'s own taint' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sed -n 8p)" = "[\"user:x\", \"web:$U\"]" ]'

# the log line: one per call, info level, no arguments or content
grep -v ": debug: " "$TMP/err" >"$TMP/log"
check 'one log line per call' '[ "$(wc -l <"$TMP/log")" = 8 ]'
check 'id, tool, ok or error, ms, bytes, and cached' '
	python3 - "$TMP/out" "$TMP/log" <<"PY"
import json, re, sys
res = [json.loads(l) for l in open(sys.argv[1])]
log = open(sys.argv[2]).read().splitlines()
cached = [False, True, False, True, False, False, False, True]
for r, l, c in zip(res, log, cached):
    m = re.fullmatch(r"oxi-tool: info: call \x27(\S+)\x27 (\S+) (ok|error) "
                     r"(\d+) ms (\d+) bytes( cached)?", l)
    assert m, l
    assert m.group(1) == r["id"] and m.group(2) == "web_fetch", l
    assert m.group(3) == ("error" if r["is_error"] else "ok"), l
    assert int(m.group(5)) == len(r["content"].encode()), l
    assert bool(m.group(6)) == c, l
PY'
check_nogrep 'the log holds no URL or content' 'page|127\.0\.0\.1|Main heading' \
	"$TMP/err"
fetch 'a'"'"'b\nc' "$U/text.txt" | run -v
check 'an id is cleaned for the log' \
	'grep -qx "oxi-tool: info: call '"'a?b?c'"' web_fetch ok [0-9]* ms [0-9]* bytes" "$TMP/err"'
fetch q1 "$U/text.txt" | run
check 'without -v too, one line per call and nothing else' \
	'grep -c "^oxi-tool: info: call .q1. web_fetch ok" "$TMP/err" | grep -qx 1 &&
	 [ "$(wc -l <"$TMP/err")" = 1 ]'

# what is cached, and for how long
export BRAVE_API_KEY=test-search-key OXI_BRAVE_BASE_URL="$U/brave/s"
export OXI_TOOLS_ON=http_request
{
	call s1 web_search '{"query":"a"}'
	call s2 web_search '{"query":"a"}'
	call h1 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\"}"
	call h2 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\"}"
} >"$TMP/in"
run <"$TMP/in"
check 'web_search is cached; http_request is not' \
	'[ "$(hits "/brave/s?q=a&count=5")" = 1 ] && [ "$(hits /echo)" = 2 ]'
unset BRAVE_API_KEY OXI_BRAVE_BASE_URL OXI_TOOLS_ON
{ fetch t1 "$U/text.txt"; fetch t2 "$U/text.txt"; } >"$TMP/in"
OXI_TOOL_CACHE_TTL=0 run <"$TMP/in"
check 'OXI_TOOL_CACHE_TTL=0 turns the cache off' '[ "$(hits /text.txt)" = 2 ]'
OXI_TOOL_CACHE_MAX=100 run <"$TMP/in"
check 'a result bigger than OXI_TOOL_CACHE_MAX is not kept' \
	'[ "$(hits /text.txt)" = 2 ]'
# room for two results of about 250 bytes: A B A C (B goes, not A) A B
{
	fetch l1 "$U/text.txt"; fetch l2 "$U/data.json"; fetch l3 "$U/text.txt"
	fetch l4 "$U/chain/0"; fetch l5 "$U/text.txt"; fetch l6 "$U/data.json"
} >"$TMP/in"
OXI_TOOL_CACHE_MAX=600 run <"$TMP/in"
check 'the cache is bounded in bytes, least recently used out first' \
	'[ "$(hits /text.txt)" = 1 ] && [ "$(hits /data.json)" = 2 ] &&
	 [ "$(hits /chain/0)" = 1 ]'
run <"$TMP/in"
check 'with room for all, each is fetched once' \
	'[ "$(hits /text.txt)" = 1 ] && [ "$(hits /data.json)" = 1 ]'
{ fetch x1 "$U/text.txt"; sleep 1.2; fetch x2 "$U/text.txt"; } |
	OXI_TOOL_CACHE_TTL=1 run
check 'an entry expires after OXI_TOOL_CACHE_TTL seconds' \
	'[ "$(hits /text.txt)" = 2 ]'

# the cap applies to every result, error or not, of every tool
mkdir -p "$WS/d"
(cd "$WS/d" && for f in a b c d e f g h i j k l m n o p; do : >"file-$f.txt"; done)
{
	fetch o1 "$U/page.html"
	fetch o2 "$U/notfound/$(printf '%0150d' 0)"
	call o3 glob '{"pattern":"d/*"}'
} >"$TMP/in"
run -o 60 <"$TMP/in"
check 'content, error and a tool that does not cap itself: all cut, with the marker' '
	python3 - "$TMP/out" <<"PY"
import json, re, sys
for l in open(sys.argv[1]):
    c = json.loads(l)["content"]
    m = re.search(r"\n\[output truncated: (\d+) of (\d+) bytes shown\]$", c)
    assert m, c
    assert int(m.group(1)) <= 60 and len(c[:m.start()].encode()) <= 60, c
    assert int(m.group(2)) > 60, c
PY'

# the time limit of a call, per tool
(mkdir -p "$WS/many" && cd "$WS/many" && i=0 &&
 while [ $i -lt 3000 ]; do echo x >"f$i"; i=$((i+1)); done)
{
	call g1 grep '{"pattern":"y"}'
	call g2 glob '{"pattern":"**/*.none"}'
	call g3 list_dir '{"path":"d"}'
} >"$TMP/in"
OXI_TOOL_TIMEOUT="grep=0.001 glob=0.001" run <"$TMP/in"
check 'OXI_TOOL_TIMEOUT=NAME=SECONDS limits that tool only' \
	'[ "$(jget "[\"content\"]" "$TMP/out" | sed -n 1p)" = "grep: timed out after 1 ms; narrow the path or the glob" ] &&
	 [ "$(jget "[\"content\"]" "$TMP/out" | sed -n 2p)" = "glob: timed out after 1 ms; narrow the pattern or the path" ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | tr "\n" " ")" = "true true false " ]'
OXI_TOOL_TIMEOUT="grep=nonsense, glob=-1" run <"$TMP/in"
check 'entries that do not parse are ignored' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = false ]'
rm -rf "$WS/many"
done_testing
