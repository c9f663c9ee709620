#!/bin/sh
# oxi-recv telegram under valgrind: a long stream of every kind of update,
# by the long poll and by the webhook, with files, callbacks and errors:
# no memory error, nothing lost per update
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
command -v valgrind >/dev/null || skip_all "no valgrind"
nm "$TOP/bin/oxi-recv" 2>/dev/null | grep -q __asan_init && skip_all "an ASan build"
plan 4

VG="valgrind -q --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
mkdir -p "$TMP/files"
head -c 5000 /dev/urandom >"$TMP/files/p.jpg"
python3 - "$TMP/ups" "$SHARED/wire/telegram/teloxide_update_samples.jsonl" <<'EOF'
import json, os, sys
out = open(sys.argv[1], "w")
samples = []
if os.path.exists(sys.argv[2]):
    samples = [json.loads(l)["update"] for l in open(sys.argv[2])]
    # all but the private texts: those would count as ours
    samples = [u for u in samples if u.get("message", {}).get("chat", {})
               .get("type") != "private"]
P = {"chat": {"id": 5, "type": "private", "first_name": "Bo"},
     "from": {"id": 5, "is_bot": False, "first_name": "Bo", "last_name": "R"}}
G = {"chat": {"id": -100, "type": "supergroup", "title": "T"},
     "from": {"id": 6, "is_bot": False, "first_name": "Cy"}}
for i in range(600):
    k = i % 6
    if k == 0:
        u = {"message": dict(P, message_id=i, date=1700000000, text="m%d" % i)}
    elif k == 1:
        u = {"message": dict(G, message_id=i, date=1700000000,
             text="@oxi_test_bot /x@oxi_test_bot %d" % i,
             entities=[{"type": "mention", "offset": 0, "length": 13},
                       {"type": "bot_command", "offset": 14, "length": 15}])}
    elif k == 2:
        u = {"message": dict(P, message_id=i, date=1700000000, caption="c",
             photo=[{"file_id": "p.jpg", "file_unique_id": "u%d" % (i % 7),
                     "width": 9, "height": 9}])}
    elif k == 3:
        u = {"callback_query": {"id": "cb%d" % i, "from": P["from"],
             "message": dict(P, message_id=1, date=1), "data":
             "a:ASK%d:once" % i}}
    elif k == 4:
        u = {"edited_message": dict(P, message_id=i, date=1, edit_date=2,
             text="e")}
    else:
        u = samples[i % len(samples)] if samples else {"poll": {}}
    out.write(json.dumps(u) + "\n")
EOF
tg_start --all-kinds --files "$TMP/files" --updates "$TMP/ups"
RECV_WRAP=$VG
OXI_TELEGRAM_EDITS=new tg_recv "$TMP/out" "$TMP/err"
tg_wait 120
tg_stop
check 'the long poll: 600 updates, exit 0, no error, no leak' \
	'[ "$RC" = 0 ] && ! grep -q "==[0-9]*==" "$TMP/err"'
check '...every update of ours written' \
	'[ "$(grep -c "\"type\":\"msg.in\"" "$TMP/out")" = 400 ] &&
	 [ "$(grep -c "\"type\":\"approval.answer\"" "$TMP/out")" = 100 ]'

export OXI_HOME="$TMP/home2" OXI_TELEGRAM_WEBHOOK_SECRET=hook
tg_recv "$TMP/out2" "$TMP/err2" -w 0
HP=$(sed -n 's/^oxi-recv: info: telegram: webhook on \(.*\)$/\1/p' "$TMP/err2")
n=0
head -n 300 "$TMP/ups" | while IFS= read -r u; do
	n=$((n + 1))
	printf '{"update_id":%d,%s\n' "$n" "${u#\{}" >"$TMP/u"
	curl -s -o /dev/null -H "X-Telegram-Bot-Api-Secret-Token: hook" \
		--data-binary "@$TMP/u" "http://$HP/"
	[ $((n % 50)) = 0 ] && curl -s -o /dev/null --data-binary "{bad" \
		-H "X-Telegram-Bot-Api-Secret-Token: hook" "http://$HP/"
	[ $((n % 50)) = 1 ] && curl -s -o /dev/null --data-binary "{}" "http://$HP/"
done
sleep 2
tg_stop
check 'the webhook: 300 updates and refusals, exit 0, no error, no leak' \
	'[ "$RC" = 0 ] && ! grep -q "==[0-9]*==" "$TMP/err2"'
check '...every update of ours written' \
	'[ "$(grep -c "\"type\":\"msg.in\"" "$TMP/out2")" = 150 ] &&
	 [ "$(grep -c "\"type\":\"approval.answer\"" "$TMP/out2")" = 50 ]'
done_testing
