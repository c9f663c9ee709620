#!/bin/sh
# oxi-tool: web_fetch from the fake web, through the test switch
# OXI_SSRF_ALLOW=127.0.0.1:PORT; HTML as text, redirects, size and time caps
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 21

unset BRAVE_API_KEY TAVILY_API_KEY OXI_SEARXNG_URL OXI_WEB_SEARCH \
	OXI_BRAVE_BASE_URL OXI_TAVILY_BASE_URL OXI_TOOLS_ON OXI_TOOL_TIMEOUT \
	OXI_TOOL_CACHE_TTL OXI_TOOL_CACHE_MAX http_proxy https_proxy \
	HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
fake_server web.py
export OXI_SSRF_ALLOW="127.0.0.1:$PORT"
U="http://127.0.0.1:$PORT"
WS="$TMP/ws"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
fetch() {	# fetch ID URL [MORE]: a web_fetch call
	call "$1" web_fetch "{\"url\":\"$2\"$3}"
}
run() {		# stdin to $TMP/out; contents to $TMP/r1, $TMP/r2, ...
	with_timeout 60 oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	nocalls "$TMP/err"
	rm -f "$TMP"/r[0-9]*
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
	fetch f1 "$U/page.html"
	fetch f2 "$U/text.txt"
	fetch f3 "$U/data.json"
	fetch f4 "$U/latin1.html"
	fetch f5 "$U/chain/3"
	printf '{"v":1,"type":"tool.call","id":"f6","name":"web_fetch","args":{"url":"%s"},"taint":["user:x"]}\n' "$U/text.txt"
} >"$TMP/in"
check_exit 'fetches exit 0' 0 'run <"$TMP/in"'
check 'an HTML page as readable text, links listed' 'is 1 "URL: $U/page.html
Title: Fake & Page

# Main heading

First paragraph with a text link [1] and an outside link [2].

## Items

- apple
- pear & plum

café – <ok>

Links:
[1] $U/text.txt
[2] https://example.org/x"'
check 'plain text and JSON as they are' 'is 2 "URL: $U/text.txt

plain text
second line
" && is 3 "URL: $U/data.json

{\"a\": [1, 2]}"'
check 'ISO 8859-1 is made UTF-8' 'is 4 "URL: $U/latin1.html

café crème"'
check 'redirects are followed; the URL is the last one' 'is 5 "URL: $U/chain/0

end of chain
"'
check 'the results are tainted with their origin, after the call taint' \
	'[ "$(jget "[\"taint\"]" "$TMP/out" | sort -u | tr "\n" " ")" = \
	   "[\"user:x\", \"web:$U\"] [\"web:$U\"] " ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = false ]'
check 'the fake saw each request, and every hop of the chain' \
	'[ "$(grep -c "^GET /chain/" "$TMP/fake.log")" = 4 ]'
check 'nothing on stderr without -v' '[ ! -s "$TMP/err" ]'

: >"$TMP/fake.log"
{
	fetch b1 "$U/chain/6"
	fetch b2 "$U/image.png"
	fetch b3 "$U/notfound"
	fetch b4 "file:///etc/passwd"
	fetch b5 "ftp://127.0.0.1:$PORT/"
	fetch b6 "not a url"
	call b7 web_fetch '{}'
	call b8 web_fetch '{"url":7}'
	fetch b9 "$U/text.txt" ',"max_bytes":0'
	fetch b10 "$U/text.txt" ',"max_bytes":10485761'
	fetch b11 "$U/text.txt" ',"timeout":3'
	fetch b12 "http://127.0.0.1:$PORT/redirect?to=gopher://127.0.0.1:$PORT/"
} >"$TMP/in"
check_exit 'failures are error results, exit 0' 0 'run <"$TMP/in"'
check 'each names its problem' \
	'is 1 "web_fetch: stopped after 5 redirects" &&
	 is 2 "web_fetch: '"'$U/image.png'"' is not text (Content-Type image/png); web_fetch reads HTML and text only" &&
	 is 3 "web_fetch: '"'$U/notfound'"' answered HTTP 404" &&
	 is 4 "web_fetch: '"'file:///etc/passwd'"': only absolute http:// and https:// URLs are fetched" &&
	 is 5 "web_fetch: '"'ftp://127.0.0.1:$PORT/'"': only absolute http:// and https:// URLs are fetched" &&
	 is 6 "web_fetch: '"'not a url'"': only absolute http:// and https:// URLs are fetched" &&
	 is 7 "web_fetch: missing argument '"'url'"'" &&
	 is 8 "web_fetch: argument '"'url'"' must be a string" &&
	 is 9 "web_fetch: argument '"'max_bytes'"' must be an integer >= 1" &&
	 is 10 "web_fetch: argument '"'max_bytes'"' must be at most 10485760" &&
	 is 11 "web_fetch: unknown argument '"'timeout'"'" &&
	 is 12 "web_fetch: redirect to '"'gopher://127.0.0.1:$PORT/'"' refused: only absolute http:// and https:// URLs are fetched"'
check 'each is an error without taint' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = true ] &&
	 [ "$(jget "[\"taint\"]" "$TMP/out" | sort -u)" = "[]" ]'
check 'redirects stop at five: six requests' \
	'[ "$(grep -c "^GET /chain/" "$TMP/fake.log")" = 6 ]'

# the size cap: max_bytes, then the default of 2 MiB
: >"$TMP/fake.log"
fetch s1 "$U/huge" ',"max_bytes":1000' | run
check 'max_bytes cuts the body, and says so' \
	'[ "$(sed -n 2p "$TMP/r1")" = "[response cut at 1000 bytes]" ] &&
	 [ "$(sed 1,3d "$TMP/r1" | wc -c)" = 1001 ]'
check 'the transfer was stopped early (the fake saw us go)' \
	'grep -q "^huge: client went away" "$TMP/fake.log"'
fetch s2 "$U/huge" | run -o 100m
check 'the default cap is 2 MiB' \
	'[ "$(sed -n 2p "$TMP/r1")" = "[response cut at 2097152 bytes]" ] &&
	 [ "$(sed 1,3d "$TMP/r1" | wc -c)" = 2097153 ]'
fetch s3 "$U/huge" ',"max_bytes":10485760' | run -o 100m
check 'and the hard maximum 10 MiB' \
	'[ "$(sed -n 2p "$TMP/r1")" = "[response cut at 10485760 bytes]" ] &&
	 [ "$(sed 1,3d "$TMP/r1" | wc -c)" = 10485761 ]'
fetch s4 "$U/huge" | run
check 'the output cap of -o still applies, with its marker' \
	'tail -n 1 "$TMP/r1" | grep -qx "\[output truncated: 65536 of [0-9]* bytes shown\]"'

# the time cap, from the call's deadline
: >"$TMP/fake.log"
fetch t1 "$U/slow" | OXI_TOOL_TIMEOUT=web_fetch=1 run
check 'a server that stalls: the call times out' \
	'is 1 "web_fetch: '"'$U/slow'"': timed out after 1.0 s" &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out")" = true ]'
fetch t2 "$U/slow" | OXI_TOOL_TIMEOUT=0.5 run
check 'a bare number is every tool'"'"'s limit' \
	'is 1 "web_fetch: '"'$U/slow'"': timed out after 0.5 s"'
fetch t3 "$U/redirect?to=/slow" | OXI_TOOL_TIMEOUT=web_fetch=1 run
check 'the limit covers the redirects too' \
	'grep -q "^web_fetch: redirect to '"'$U/slow'"': timed out after 1.0 s" "$TMP/r1"'

check_exit 'valgrind: no leak or memory error over a page and failures' 0 '
	command -v valgrind >/dev/null &&
	    ! nm "$TOP/bin/oxi-tool" | grep -q __asan_init || exit 0
	{ fetch v1 "$U/page.html"; fetch v2 "$U/chain/6"
	  fetch v3 "$U/huge" ",\"max_bytes\":100000"; cat "$TMP/in"; } |
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --error-exitcode=99 \
		oxi-tool -w "$WS" >/dev/null'
done_testing
