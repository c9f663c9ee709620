#!/bin/sh
# oxi-tool: SSRF.  Without the test switch, loopback (in every notation),
# private, link-local and metadata addresses and user info are refused
# before anything is sent; with OXI_SSRF_ALLOW=127.0.0.1:PORT exactly
# that host and port are reachable, and a redirect from there to any
# other non-public address is refused.  (The whole address list is in
# tests/unit/t-ssrf.c.)
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 14

unset BRAVE_API_KEY TAVILY_API_KEY OXI_SEARXNG_URL OXI_WEB_SEARCH \
	OXI_BRAVE_BASE_URL OXI_TAVILY_BASE_URL OXI_TOOL_TIMEOUT \
	OXI_TOOL_CACHE_TTL OXI_TOOL_CACHE_MAX OXI_SSRF_ALLOW http_proxy \
	https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export OXI_TOOLS_ON=http_request
fake_server web.py
P=$PORT
WS="$TMP/ws"
call() {	# call ID NAME ARGS: a tool.call line
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
fetch() {	# fetch ID URL: a web_fetch call
	call "$1" web_fetch "{\"url\":\"$2\"}"
}
run() {		# stdin to $TMP/out; contents to $TMP/msgs, a line each
	with_timeout 60 oxi-tool -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	jget '["content"].replace("\n", " | ")' "$TMP/out" >"$TMP/msgs"
	return $_rc
}

# the switch off: the fake itself is out of reach, however it is named
{
	fetch a1 "http://127.0.0.1:$P/page.html"
	fetch a2 "http://2130706433:$P/page.html"
	fetch a3 "http://0x7f.1:$P/page.html"
	fetch a4 "http://0177.0.0.1:$P/page.html"
	fetch a5 "http://127.1:$P/page.html"
	fetch a6 "http://0x7f000001:$P/page.html"
	fetch a7 "http://[::1]:$P/page.html"
	fetch a8 "http://[::ffff:127.0.0.1]:$P/page.html"
	fetch a9 "http://[::ffff:7f00:1]:$P/page.html"
	fetch a10 "http://[64:ff9b::7f00:1]:$P/page.html"
	fetch a11 "http://localhost:$P/page.html"
	fetch a12 "http://0.0.0.0:$P/page.html"
	fetch a13 "http://169.254.169.254/latest/meta-data/"
	fetch a14 "http://10.0.0.1/"
	fetch a15 "http://192.168.1.1/"
	fetch a16 "http://172.16.0.1/"
	fetch a17 "http://100.64.0.1/"
	fetch a18 "http://[fd00::1]/"
	fetch a19 "http://[fe80::1]/"
	fetch a20 "http://[2002:7f00:1::1]/"
	fetch a21 "http://[2001::1]/"
	fetch a22 "http://evil@127.0.0.1:$P/page.html"
	fetch a23 "http://example.com@127.0.0.1:$P/page.html"
	call a24 http_request "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:$P/echo\"}"
	call a25 http_request "{\"method\":\"POST\",\"url\":\"http://0x7f.1:$P/echo\",\"body\":\"x\"}"
} >"$TMP/in"
check_exit 'refusals exit 0' 0 'run <"$TMP/in"'
check 'every one is an error' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | grep -c true)" = 25 ]'
check 'none reached the fake' '[ ! -s "$TMP/fake.log" ]'
check 'loopback in any notation is named as loopback' \
	'[ "$(sed -n 1,6p "$TMP/msgs" | grep -c "refused: 127.0.0.1 is a loopback address (127/8)$")" = 6 ]'
check 'IPv6 forms are judged by what they hold' \
	'sed -n 7p "$TMP/msgs" | grep -q "refused: ::1 is the IPv6 loopback address" &&
	 sed -n 8,10p "$TMP/msgs" | grep -c "holding a loopback address (127/8)$" | grep -qx 3'
check 'a name of loopback, 0.0.0.0, the metadata and private addresses' \
	'sed -n 11p "$TMP/msgs" | grep -q "refused: '"'localhost'"' resolves to" &&
	 sed -n 12p "$TMP/msgs" | grep -q "this network" &&
	 sed -n 13p "$TMP/msgs" | grep -q "the cloud metadata address$" &&
	 [ "$(sed -n 14,17p "$TMP/msgs" | grep -c "private address\|shared (CGNAT)")" = 4 ] &&
	 [ "$(sed -n 18,21p "$TMP/msgs" | grep -c "unique local\|link-local\|6to4\|Teredo")" = 4 ]'
check 'user info is refused as such' \
	'[ "$(sed -n 22,23p "$TMP/msgs" | grep -c "user info in a URL (user@host) is not allowed$")" = 2 ]'
check 'http_request keeps the same policy' \
	'[ "$(sed -n 24,25p "$TMP/msgs" | grep -c "^http_request: .* refused: 127.0.0.1 is a loopback address")" = 2 ]'

# the switch on: this host and port only; redirects checked each time
export OXI_SSRF_ALLOW="127.0.0.1:$P"
R="http://127.0.0.1:$P/redirect?to="
{
	fetch b1 "http://127.0.0.1:$P/text.txt"
	fetch b2 "${R}http://127.0.0.1:$P/text.txt"
	fetch b3 "${R}http://127.0.0.2:$P/text.txt"
	fetch b4 "${R}http://127.0.0.1:$((P + 1))/text.txt"
	fetch b5 "${R}http://169.254.169.254/latest/meta-data/"
	fetch b6 "${R}http://10.1.2.3/&code=301"
	fetch b7 "${R}http://[::1]:$P/text.txt&code=307"
	fetch b8 "${R}http://[::ffff:127.0.0.1]:$P/&code=308"
	fetch b9 "${R}http://2130706433:$((P + 1))/&code=303"
	fetch b10 "${R}http://evil@127.0.0.1:$P/text.txt"
	fetch b11 "${R}file:///etc/passwd"
	fetch b12 "http://127.0.0.2:$P/text.txt"
	fetch b13 "http://127.0.0.1:$((P + 1))/text.txt"
} >"$TMP/in"
check_exit 'with the switch: exit 0' 0 'run <"$TMP/in"'
check 'the allowed host:port is reached, directly and by redirect' \
	'[ "$(jget "[\"is_error\"]" "$TMP/out" | sed -n 1,2p | sort -u)" = false ] &&
	 [ "$(grep -c "^URL: .* | plain text | second line" "$TMP/msgs")" = 2 ]'
check 'a redirect to any other non-public address is refused' \
	'[ "$(sed -n 3,11p "$TMP/msgs" | grep -c "^web_fetch: redirect to .* refused: ")" = 9 ] &&
	 sed -n 3p "$TMP/msgs" | grep -q "refused: 127.0.0.2 is a loopback address (127/8)$" &&
	 sed -n 4p "$TMP/msgs" | grep -q "refused: 127.0.0.1 is a loopback address (127/8)$" &&
	 sed -n 5p "$TMP/msgs" | grep -q "169.254.169.254 is the cloud metadata address$" &&
	 sed -n 10p "$TMP/msgs" | grep -q "user info in a URL"'
check 'another address or port directly: refused' \
	'[ "$(sed -n 12,13p "$TMP/msgs" | grep -c "refused: 127.0.0.1\{0,1\}.* is a loopback address")" = 2 ]'
check 'the fake saw the allowed requests and the redirects, nothing more' \
	'[ "$(grep -c "^GET /text.txt$" "$TMP/fake.log")" = 2 ] &&
	 [ "$(grep -c "^GET /redirect" "$TMP/fake.log")" = 10 ] &&
	 [ "$(wc -l <"$TMP/fake.log")" = 12 ]'

OXI_SSRF_ALLOW=10.0.0.1:80 fetch c1 "http://127.0.0.1:$P/text.txt" |
	OXI_SSRF_ALLOW=10.0.0.1:80 run
check 'a switch naming anything but 127.0.0.1:PORT opens nothing' \
	'grep -q "refused: OXI_SSRF_ALLOW may only list 127.0.0.1:PORT entries$" "$TMP/msgs"'
done_testing
