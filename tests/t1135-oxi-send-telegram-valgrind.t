#!/bin/sh
# oxi-send telegram under valgrind: a stream of replies, drafts, typing,
# questions, errors and bad lines over ten chats, with a 429, a 5xx, a
# refused markup and a reply split in parts on the way: no memory error,
# no leak, every reply delivered once
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh && . ./tgsend.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
command -v valgrind >/dev/null || skip_all "no valgrind"
nm "$TOP/bin/oxi-send" 2>/dev/null | grep -q __asan_init &&
	skip_all "an ASan build"
plan 3

VG="valgrind -q --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
export OXI_TELEGRAM_EDIT_INTERVAL=0.05
tg_start
tg_fail '{"method":"sendMessage","chat":"3","code":429,"description":"Too Many Requests: retry after 1","retry_after":1}'
tg_fail '{"method":"sendMessage","chat":"4","code":502,"description":"Bad Gateway"}'
tg_fail '{"method":"sendMessage","chat":"5","code":400,"description":"Bad Request: can'"'"'t parse entities: x"}'
python3 - "$TMP/in" <<'EOF2'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(300):
        chat = str(i % 10 if i % 20 < 10 else -(i % 10) - 1)
        base = {"v": 1, "channel": "telegram", "chat": chat,
                "in_reply_to": "telegram:main:%s:%d" % (chat, i)}
        for k in range(3):
            f.write(json.dumps(dict(base, type="msg.draft", id="r%d" % i,
                text="**draft** %d" % k * (k + 1))) + "\n")
        if i % 7 == 0:
            f.write(json.dumps({"type": "typing", "channel": "telegram",
                                "chat": chat}) + "\n")
        if i % 50 == 0:
            f.write("{not json\n")
        if i % 30 == 0:
            f.write(json.dumps(dict(base, type="approval.ask", id="a%d" % i,
                ref="c%d" % i, text="Run it?", choices=["once", "deny"],
                expires="2026-11-26T10:00:00.000Z")) + "\n")
            f.write(json.dumps(dict(base, type="error", ref="e%d" % i,
                code="server", message="down")) + "\n")
        text = "# Reply %d\n\n**bold _it_** `code` [link](https://e.org/?a&b)\n\n- a\n- b\n\n| x | y |\n|--|--|\n| 1 | 2 |" % i
        if i == 42:
            text = "long word " * 1000
        f.write(json.dumps(dict(base, type="msg.out", id="r%d" % i,
                                text=text)) + "\n")
        if i % 40 == 0:
            f.write(json.dumps(dict(base, type="msg.out", id="r%d" % i,
                                    text="again")) + "\n")
EOF2
check 'valgrind: no memory error, no leak; exit 1 for the bad lines' \
	'$VG oxi-send telegram <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/err"; [ $? = 1 ]'
check 'a receipt for each of the 300 replies and 10 errors, each once, all ok' \
	'[ "$(grep -c "\"ok\":true" "$TMP/rcpt")" = 310 ] &&
	 [ "$(sed "s/.*\"ref\":\"\([^\"]*\)\".*/\1/" "$TMP/rcpt" | sort -u | wc -l)" = 310 ]'
check 'no warning but the bad lines and the retries' \
	'[ "$(grep -v -e "invalid JSON" -e "Bad Gateway" -e "plain text" "$TMP/err" | grep -vc "info:")" = 0 ]'
done_testing
