#!/bin/sh
# oxi-send telegram: replies longer than a message split at paragraph,
# line, sentence, word and character, counted in UTF-16 code units as
# Telegram counts them (multibyte and emoji text at the exact limit),
# markup closed and opened again across a cut, parts in the ledger, and
# the plain-text fallback when Telegram cannot parse the markup
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh && . ./tgsend.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 20

tg_start

# rec ID CHAT PYTHON-EXPR [KEY:JSON...]: a msg.out whose text is the value
# of a Python expression
rec() {
	python3 -c 'import json, sys
r = {"v": 1, "type": "msg.out", "id": sys.argv[1], "channel": "telegram",
     "chat": sys.argv[2], "text": eval(sys.argv[3]),
     "in_reply_to": "telegram:main:%s:7" % sys.argv[2]}
for kv in sys.argv[4:]:
    k, v = kv.split(":", 1)
    r[k] = json.loads(v)
print(json.dumps(r))' "$@"
}

# units: the UTF-16 length of each sendMessage text as Telegram shows it
# (tags dropped, entities decoded), one a line
units() {
	python3 -c 'import html, json, re, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] != "sendMessage":
        continue
    t = r["params"]["text"]
    if r["params"].get("parse_mode") == "HTML":
        t = html.unescape(re.sub(r"<[^>]*>", "", t))
    print(len(t.encode("utf-16-le")) // 2)' "$TMP/tglog"
}

# ends N SUFFIX: N messages sent, each ending in SUFFIX
ends() {
	texts sendMessage | python3 -c "import json, sys
ts = [json.loads(l) for l in sys.stdin]
assert len(ts) == int(sys.argv[1]), len(ts)
assert all(t.endswith(sys.argv[2]) for t in ts)" "$@"
}

# the exact limit, with two-byte letters and emoji (two units each)
rec x1 42 '"\u00e9" * 2048 + "\U0001F600" * 1024' >"$TMP/in"
tx_run "$TMP/in"
check '2048 two-byte letters and 1024 emoji are 4096 units: one message' \
	'[ "$(units)" = 4096 ] && grep -q "\"ok\":true" "$TMP/rcpt"'
tg_clear
rec x2 42 '"\u00e9" * 2049 + "\U0001F600" * 1024' >"$TMP/in"
tx_run "$TMP/in"
check 'one letter more: two, the emoji that would straddle the limit in the second' \
	'[ "$(units | tr "\n" " ")" = "4095 2 " ]'
check '...every part accepted by the fake (which refuses over 4096 units)' \
	'[ "$(wc -l <"$TMP/rcpt")" = 1 ] && grep -q "\"ref\":\"x2\".*\"ok\":true" "$TMP/rcpt"'
check '...no emoji cut in half' \
	'texts sendMessage | python3 -c "import json, sys
for l in sys.stdin:
    t = json.loads(l)
    assert all(not 0xd800 <= ord(c) <= 0xdfff for c in t)
    assert t.strip(\"\\u00e9\\U0001F600\") == \"\""'

# where: paragraphs, else lines, sentences, words
tg_clear
rec p1 42 '"\n\n".join(("Paragraph %d. " % i) + "word " * 180 for i in range(8))' \
    >"$TMP/in"
tx_run "$TMP/in"
# 912 units a paragraph: four fit in a message
check 'paragraphs: each message ends where a paragraph does' \
	'[ "$(texts sendMessage | wc -l)" = 2 ] &&
	 texts sendMessage | python3 -c "import json, sys
for l in sys.stdin:
    t = json.loads(l)
    assert t.startswith(\"Paragraph \") and t.endswith(\"word\"), t[-20:]
    assert len(t) <= 4096"'
check '...and the text is all there' \
	'texts sendMessage | python3 -c "import json, sys
got = \"\".join(json.loads(l).replace(\" \", \"\").replace(\"\\n\", \"\") for l in sys.stdin)
want = \"\".join((\"Paragraph %d. \" % i) + \"word \" * 180 for i in range(8)).replace(\" \", \"\")
assert got == want"'
tg_clear
rec l1 42 '"A line of text, no end\n" * 400' >"$TMP/in"
tx_run "$TMP/in"
check 'lines: cut at a line break' 'ends 3 "no end"'
tg_clear
rec s1 42 '"This is a sentence, of words. " * 300' >"$TMP/in"
tx_run "$TMP/in"
check 'sentences: cut after a full stop' 'ends 3 "words."'
tg_clear
rec w1 42 '"word " * 1800' >"$TMP/in"
tx_run "$TMP/in"
# 8999 units: the last space that fits is at 4094, then 4095 + 4094
check 'words: cut at a space' \
	'[ "$(units | tr "\n" " ")" = "4094 4094 809 " ] &&
	 texts sendMessage | python3 -c "import json, sys
assert all(json.loads(l).endswith(\"word\") for l in sys.stdin)"'

# markup across a cut
tg_clear
rec b1 42 '"**bold _" + "x" * 5000 + "_ end**"' >"$TMP/in"
tx_run "$TMP/in"
texts sendMessage >"$TMP/t"
check 'tags open at a cut are closed, and opened again in the next part' \
	'[ "$(wc -l <"$TMP/t")" = 3 ] &&
	 sed -n 1p "$TMP/t" | grep -q "^\"<b>bold</b>\"$" &&
	 sed -n 2p "$TMP/t" | grep -q "^\"<b><i>x*</i></b>\"$" &&
	 sed -n 3p "$TMP/t" | grep -q "^\"<b><i>x*</i> end</b>\"$"'
check '...the fake parsed each' 'grep -q "\"ok\":true" "$TMP/rcpt"'
tg_clear
rec c1 -1001 '"```py\n" + "print(\"<&>\")  # a line of code\n" * 200 + "```"' \
    'thread:"5"' >"$TMP/in"
tx_run "$TMP/in"
tg_calls sendMessage >"$TMP/c"
check 'a code block cut is a code block in each part' \
	'[ "$(wc -l <"$TMP/c")" = 2 ] &&
	 [ "$(grep -c "\"text\": \"<pre><code class=\\\\\"language-py\\\\\">print(\\\\\"&lt;&amp;&gt;\\\\\")" "$TMP/c")" = 2 ]'
check '...every part in the thread, the first alone answering the message' \
	'[ "$(grep -c "\"message_thread_id\": 5" "$TMP/c")" = 2 ] &&
	 [ "$(grep -c reply_parameters "$TMP/c")" = 1 ] &&
	 sed -n 1p "$TMP/c" | grep -q reply_parameters'

# the ledger: a row a part, one receipt naming the first
check 'a row a part in the sent-ledger, numbered from 0' \
	'[ "$(python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(\"SELECT group_concat(n) FROM parts WHERE key = ?\", (\"c1\",)).fetchone()[0])" \
	    "$OXI_HOME/telegram-send-main.db")" = "0,1" ]'
check '...and one receipt, with the first part as its platform id' \
	'[ "$(wc -l <"$TMP/rcpt")" = 1 ] &&
	 first=$(tg_calls sendMessage >/dev/null; python3 -c "import json, sys
print(min(int(m[\"id\"]) for m in json.load(sys.stdin)[\"messages\"][\"-1001\"]))" <<EOF2
$(tg_ctl state)
EOF2
) && grep -q "\"platform_id\":\"-1001:$first\"" "$TMP/rcpt"'

# the plain-text fallback
tg_clear
tg_fail '{"method":"sendMessage","code":400,"description":"Bad Request: can'"'"'t parse entities: Unsupported start tag \"x\" at byte offset 3"}'
rec f1 42 '"**bold** and `code <x>` [link](https://e.org)"' >"$TMP/in"
tx_run "$TMP/in"
tg_calls sendMessage >"$TMP/c"
check 'markup Telegram cannot parse: sent again as plain text' \
	'[ "$(wc -l <"$TMP/c")" = 2 ] && sed -n 1p "$TMP/c" | grep -q parse_mode &&
	 [ "$(sed -n 2p "$TMP/c")" = "{\"chat_id\": \"42\", \"text\": \"bold and code <x> link\"}" ]'
check '...delivered, with a warning' \
	'grep -q "\"ref\":\"f1\".*\"ok\":true" "$TMP/rcpt" &&
	 grep -q "warning: telegram: .*can.t parse entities.*: f1 part 1 goes as plain text" "$TMP/err"'
tg_clear
tg_fail '{"method":"sendMessage","code":400,"description":"Bad Request: can'"'"'t parse entities: x","count":2}'
rec f2 42 '"**a**"' >"$TMP/in"
tx_run "$TMP/in"
check 'refused as plain text too: a failed receipt, not a loop' \
	'[ "$(tg_calls sendMessage | wc -l)" = 2 ] &&
	 grep -q "\"ref\":\"f2\".*\"ok\":false" "$TMP/rcpt"'

# a huge reply, in time
tg_clear
rec h1 42 '"Some **bold** and `code` with [a link](https://e.org/?a&b). " * 8000' \
    >"$TMP/in"
# 32 units a sentence, 256000 in all: 63 messages at the least
check 'a quarter of a million characters of markup: 63 messages, each accepted' \
	'with_timeout 60 oxi-send telegram <"$TMP/in" >"$TMP/rcpt" &&
	 [ "$(tg_calls sendMessage | wc -l)" = 63 ] &&
	 grep -q "\"ref\":\"h1\".*\"ok\":true" "$TMP/rcpt"'
check '...none over the limit' '[ "$(units | sort -n | tail -n 1)" -le 4096 ]'
done_testing
