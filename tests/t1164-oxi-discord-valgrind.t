#!/bin/sh
# oxi-recv discord and oxi-send discord under valgrind: a long stream of
# messages of every kind, clicks, drops and reconnects on the Gateway;
# replies long and short, drafts, buttons, errors and 429s to the REST
# API: no memory error, nothing lost per record
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
command -v valgrind >/dev/null || skip_all "no valgrind"
nm "$TOP/bin/oxi-recv" 2>/dev/null | grep -q __asan_init && skip_all "an ASan build"
plan 4

VG="valgrind -q --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
mkdir -p "$TMP/files"
head -c 5000 /dev/urandom >"$TMP/files/p.png"
dc_start --heartbeat 300 --files "$TMP/files" \
	--threads '[{"id":"700","parent_id":"600"}]'
python3 - "$TMP/evs" "$PORT" <<'EOF2'
import json, sys
evs = []
for i in range(300):
    k = i % 5
    a = {"id": "20%02d" % (i % 7), "username": "u", "global_name": "U"}
    m = {"id": str(10000 + i), "channel_id": "500", "author": a,
         "content": "m%d **x** <@1000>" % i}
    if k == 1:
        m.update(channel_id="700", guild_id="900",
                 mentions=[{"id": "1000"}])
    elif k == 2:
        m["attachments"] = [{"id": str(i % 9), "filename": "p.png",
                             "content_type": "image/png", "size": 5000,
                             "url": "http://127.0.0.1:%s/cdn/p.png" %
                             sys.argv[2]}]
    elif k == 3:
        m.update(guild_id="900", content="not for us")
    elif k == 4:
        m.update(type=19, message_reference={"message_id": "1"},
                 referenced_message={"id": "1", "author": {"id": "1000"}})
    evs.append(m)
json.dump(evs, open(sys.argv[1], "w"))
EOF2
RECV_WRAP=$VG dc_recv "$TMP/out" "$TMP/err"
dc_feed "$(cat "$TMP/evs")"
sleep 2
dc_ctl drop '{}' >/dev/null
dc_ctl click '{"message_id":"1","channel_id":"500","custom_id":"a:ask:once"}' >/dev/null
dc_ctl click '{"message_id":"1","channel_id":"500","custom_id":"other"}' >/dev/null
dc_ctl op '{"op":7}' >/dev/null
dc_ctl noack '{"count":1}' >/dev/null
wait_until 60 '[ "$(wc -l <"$TMP/out")" -ge 241 ]'
dc_stop
check 'the receiver under valgrind: every message and the click written' \
	'[ "$(grep -c "\"type\":\"msg.in\"" "$TMP/out")" = 240 ] &&
	 [ "$(grep -c "\"type\":\"approval.answer\"" "$TMP/out")" = 1 ]'
check '...no memory error, no leak, exit 0' \
	'[ "$RC" = 0 ] && ! grep -q "==[0-9]*==" "$TMP/err"'

long=$(python3 -c "print('\\\\n\\\\n'.join(['Para %d. ' % i + 'Words _here_. ' * 60 for i in range(6)]))")
{
	for i in $(seq 1 60); do
		c=$((500 + i % 4))
		printf '{"v":1,"type":"msg.draft","id":"r%d","channel":"discord","chat":"%d","text":"partial **%d**"}\n' $i $c $i
		printf '{"type":"typing","channel":"discord","chat":"%d"}\n' $c
		if [ $((i % 10)) = 0 ]; then
			printf '{"v":1,"type":"msg.out","id":"r%d","channel":"discord","chat":"%d","text":"%s"}\n' $i $c "$long"
		else
			printf '{"v":1,"type":"msg.out","id":"r%d","in_reply_to":"discord:main:%d:9","channel":"discord","chat":"%d","text":"reply `%d` [l](http://x/%d)"}\n' $i $c $c $i $i
		fi
	done
	printf '%s\n' '{"v":1,"type":"approval.ask","id":"a1","ref":"c1","channel":"discord","chat":"500","text":"ok?","choices":["once","always","deny"],"expires":"2030-01-01T00:00:00Z"}'
	printf '%s\n' '{"v":1,"type":"error","ref":"r0","channel":"discord","chat":"500","code":"x","message":"oops"}'
	printf '%s\n' 'not json'
} >"$TMP/in"
dc_ctl fail '{"method":"POST","path":"/channels/501","status":429,"retry_after":0.3,"count":2}' >/dev/null
dc_ctl fail '{"method":"POST","path":"/channels/502","status":500,"count":1}' >/dev/null
$VG oxi-send discord <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/serr"
RC=$?
check 'the sender under valgrind: a receipt for every reply and the error' \
	'[ "$(grep -c "\"ok\":true" "$TMP/rcpt")" = 61 ]'
check '...no memory error, no leak, exit 1 (a line not JSON)' \
	'[ "$RC" = 1 ] && ! grep -q "==[0-9]*==" "$TMP/serr"'
