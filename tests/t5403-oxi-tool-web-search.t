#!/bin/sh
# oxi-tool: web_search against the fake's imitations of Brave, SearXNG
# and Tavily; listed only when a backend is configured; keys never shown.
# OXI_SSRF_ALLOW is unset throughout: the configured endpoint is the
# user's choice, outside the address policy.
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 17

unset BRAVE_API_KEY TAVILY_API_KEY OXI_SEARXNG_URL OXI_WEB_SEARCH \
	OXI_BRAVE_BASE_URL OXI_TAVILY_BASE_URL OXI_TOOLS_ON OXI_TOOL_TIMEOUT \
	OXI_TOOL_CACHE_TTL OXI_TOOL_CACHE_MAX OXI_SSRF_ALLOW http_proxy \
	https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
KEY=test-search-key
fake_server web.py --key "$KEY"
U="http://127.0.0.1:$PORT"
WS="$TMP/ws"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {		# stdin to $TMP/out; contents to $TMP/r1, $TMP/r2, ...
	with_timeout 60 oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
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
listed() {	# listed: web_search is in --list
	oxi-tool --list | grep -q '"name":"web_search"'
}
Q='{"query":"cats & dogs","count":2}'

check 'no backend: web_search is not listed' '! listed'
call n1 web_search "$Q" | run
check 'and a call says why' \
	'is 1 "web_search: no search backend is configured (BRAVE_API_KEY, OXI_SEARXNG_URL or TAVILY_API_KEY)"'

# Brave
export BRAVE_API_KEY="$KEY" OXI_BRAVE_BASE_URL="$U/brave/res/v1/web/search"
check 'with BRAVE_API_KEY it is listed' 'listed'
call b1 web_search "$Q" | run
check 'Brave: a numbered list of title, URL and snippet, tags and entities gone' \
	'is 1 "1. Result 1 for cats & dogs
   https://example.org/1
   Snippet 1 & more about cats & dogs

2. Result 2 for cats & dogs
   https://example.org/2
   Snippet 2 & more about cats & dogs"'
check 'tainted web:search, not an error' \
	'[ "$(jget "[\"taint\"]" "$TMP/out")" = "[\"web:search\"]" ] &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out")" = false ]'
check 'the query and count went in the URL, the key in its header' \
	'grep -qx "GET /brave/res/v1/web/search?q=cats%20%26%20dogs&count=2" "$TMP/fake.log"'
call b2 web_search "$Q" | BRAVE_API_KEY=wrong-key-1234567 run
check 'a wrong key: an error that says to check it' \
	'is 1 "web_search: brave answered HTTP 401 (check the API key)" &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out")" = true ]'
check 'and the key is not shown, though the server repeated it' \
	'! grep -q "wrong-key" "$TMP/out" "$TMP/err"'

# SearXNG, chosen by OXI_WEB_SEARCH though a Brave key is set
: >"$TMP/fake.log"
call s1 web_search '{"query":"x y","count":3}' |
	OXI_WEB_SEARCH=searxng OXI_SEARXNG_URL="$U/searxng/" run
check 'SearXNG: /search with format=json, results cut to count' \
	'grep -qx "GET /searxng/search?q=x%20y&format=json" "$TMP/fake.log" &&
	 [ "$(grep -c "^[0-9]\. Result" "$TMP/r1")" = 3 ] &&
	 grep -q "^   Snippet 3 & more about x y$" "$TMP/r1"'
check 'an instance URL given with /search is used as it is' '
	call s2 web_search "{\"query\":\"q\"}" |
	OXI_WEB_SEARCH=searxng OXI_SEARXNG_URL="$U/searxng/search" run &&
	[ "$(grep -c "^[0-9]*\. Result" "$TMP/r1")" = 5 ]'

# Tavily
: >"$TMP/fake.log"
unset BRAVE_API_KEY OXI_BRAVE_BASE_URL
export TAVILY_API_KEY="$KEY" OXI_TAVILY_BASE_URL="$U/tavily/search"
check 'with TAVILY_API_KEY alone it is listed' 'listed'
call t1 web_search "$Q" | run
check 'Tavily: a POST, the same list' \
	'grep -qx "POST /tavily/search" "$TMP/fake.log" &&
	 is 1 "1. Result 1 for cats & dogs
   https://example.org/1
   Snippet 1 & more about cats & dogs

2. Result 2 for cats & dogs
   https://example.org/2
   Snippet 2 & more about cats & dogs"'
call t2 web_search "$Q" | TAVILY_API_KEY=nope-nope-nope run
check 'Tavily with a wrong key' \
	'is 1 "web_search: tavily answered HTTP 401 (check the API key)" &&
	 ! grep -q "nope-nope" "$TMP/out" "$TMP/err"'
unset TAVILY_API_KEY OXI_TAVILY_BASE_URL

check 'OXI_WEB_SEARCH naming an unknown backend: not listed' \
	'! OXI_WEB_SEARCH=google BRAVE_API_KEY=k listed'

# endpoints: never user info, https unless set by hand
export BRAVE_API_KEY="$KEY"
{
	call e1 web_search '{"query":"x"}'
	call e2 web_search '{"query":""}'
	call e3 web_search '{"query":"x","count":21}'
	call e4 web_search '{"query":"x","count":0}'
	call e5 web_search '{"q":"x"}'
} >"$TMP/in"
OXI_BRAVE_BASE_URL="http://user:pw@127.0.0.1:$PORT/brave/" run <"$TMP/in"
check 'bad endpoints and arguments are errors naming the problem' \
	'is 1 "web_search: OXI_BRAVE_BASE_URL: user info in a URL (user@host) is not allowed" &&
	 is 2 "web_search: argument '"'query'"' must be a non-empty text" &&
	 is 3 "web_search: argument '"'count'"' must be at most 20" &&
	 is 4 "web_search: argument '"'count'"' must be an integer >= 1" &&
	 is 5 "web_search: unknown argument '"'q'"'"'
call e6 web_search '{"query":"x"}' |
	OXI_WEB_SEARCH=searxng OXI_SEARXNG_URL="ftp://127.0.0.1/" run
check 'a SearXNG URL that is not http(s)' \
	'is 1 "web_search: OXI_SEARXNG_URL: only absolute http:// and https:// URLs are fetched"'
: >"$TMP/fake.log"
call e7 web_search '{"query":"x"}' |
	OXI_WEB_SEARCH=searxng OXI_SEARXNG_URL="$U/redirect?to=/searxng" run
check 'the search endpoint'"'"'s redirects are not followed' \
	'grep -q "^web_search: searxng answered HTTP 302" "$TMP/r1" &&
	 [ "$(wc -l <"$TMP/fake.log")" = 1 ]'
done_testing
