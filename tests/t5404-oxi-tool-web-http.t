#!/bin/sh
# oxi-tool: http_request, off unless OXI_TOOLS_ON names it
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 12

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
listed() {
	oxi-tool --list | grep -q '"name":"http_request"'
}
GET="{\"method\":\"GET\",\"url\":\"$U/echo\"}"

check 'off by default: not listed' '! listed'
call h0 http_request "$GET" | run
check 'and a call is an unknown tool, that reached nothing' \
	'grep -q "^unknown tool '"'http_request'"'; the tools are" "$TMP/r1" &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out")" = true ] &&
	 [ ! -s "$TMP/fake.log" ]'

export OXI_TOOLS_ON="read_file, http_request"
check 'OXI_TOOLS_ON=http_request lists it' 'listed'
{
	call h1 http_request "{\"method\":\"post\",\"url\":\"$U/echo?status=201\",\"headers\":{\"X-Test\":\"one\",\"Content-Type\":\"text/plain\"},\"body\":\"hello body\"}"
	call h2 http_request "{\"method\":\"GET\",\"url\":\"$U/redirect?to=/text.txt\"}"
	call h3 http_request "{\"method\":\"GET\",\"url\":\"$U/notfound\"}"
	call h4 http_request "{\"method\":\"HEAD\",\"url\":\"$U/text.txt\"}"
	call h5 http_request "{\"method\":\"GET\",\"url\":\"$U/image.png\"}"
	call h6 http_request "{\"method\":\"DELETE\",\"url\":\"$U/echo\"}"
} >"$TMP/in"
check_exit 'requests exit 0' 0 'run <"$TMP/in"'
check 'status, headers and body; method, headers and body sent' '
	head -n 1 "$TMP/r1" | grep -qx "HTTP 201" &&
	grep -qx "X-Fake: yes" "$TMP/r1" &&
	sed -n "/^{/p" "$TMP/r1" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d[\"method\"] == \"POST\", d
assert d[\"body\"] == \"hello body\", d
assert d[\"headers\"][\"x-test\"] == \"one\", d
assert d[\"headers\"][\"content-type\"] == \"text/plain\", d
"'
check 'a redirect is returned, not followed' \
	'head -n 1 "$TMP/r2" | grep -qx "HTTP 302" &&
	 grep -qx "Location: /text.txt" "$TMP/r2" &&
	 ! grep -q "^GET /text.txt" "$TMP/fake.log"'
check 'an error status is a result like any other' \
	'head -n 1 "$TMP/r3" | grep -qx "HTTP 404" && grep -qx "not found" "$TMP/r3" &&
	 [ "$(jget "[\"is_error\"]" "$TMP/out" | sort -u)" = false ]'
check 'HEAD has no body; binary bodies are not shown' \
	'head -n 1 "$TMP/r4" | grep -qx "HTTP 200" && ! grep -q "plain text" "$TMP/r4" &&
	 grep -qx "\[16 bytes of binary data not shown\]" "$TMP/r5"'
check 'DELETE, and the results are tainted with their origin' \
	'grep -q "\"method\": \"DELETE\"" "$TMP/r6" &&
	 [ "$(jget "[\"taint\"]" "$TMP/out" | sort -u)" = "[\"web:$U\"]" ]'

{
	call x1 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\",\"headers\":{\"Host\":\"other.example\"}}"
	call x2 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\",\"headers\":{\"X-A\":\"a\\r\\nX-Injected: 1\"}}"
	call x3 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\",\"headers\":{\"Bad Name\":\"x\"}}"
	call x4 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\",\"headers\":[\"X-A: b\"]}"
	call x5 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\",\"headers\":{\"X-A\":1}}"
	call x6 http_request "{\"method\":\"TRACE\",\"url\":\"$U/echo\"}"
	call x7 http_request "{\"url\":\"$U/echo\"}"
	call x8 http_request "{\"method\":\"GET\",\"url\":\"$U/echo\",\"body\":3}"
} >"$TMP/in"
: >"$TMP/fake.log"
check_exit 'bad requests exit 0' 0 'run <"$TMP/in"'
check 'each is refused, naming the problem' \
	'[ "$(cat "$TMP"/r[1-8] | tr "\n" "|")" = "http_request: header '"'Host'"' is set by oxi-tool, not by the caller|http_request: header '"'X-A'"' is not a valid header|http_request: header '"'Bad Name'"' is not a valid header|http_request: argument '"'headers'"' must be an object of strings|http_request: header '"'X-A'"' is not a valid header|http_request: argument '"'method'"' must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS|http_request: missing argument '"'method'"'|http_request: argument '"'body'"' must be a string|" ]'
check 'and nothing was sent' '[ ! -s "$TMP/fake.log" ]'
done_testing
