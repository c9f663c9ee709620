#!/bin/sh
# oxi-recv slack and oxi-send slack under valgrind: a long stream of
# envelopes of every kind (DMs, mentions, clicks, files, the wire
# samples, dropped ones) over Socket Mode with the socket dropped, and
# over the Events API; a long stream of replies, drafts, asks and errors
# with failures: no memory error, no leak
cd "$(dirname "$0")" && . ./lib.sh && . ./sk.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
command -v valgrind >/dev/null || skip_all "no valgrind"
nm "$TOP/bin/oxi-recv" 2>/dev/null | grep -q __asan_init && skip_all "an ASan build"
plan 5

VG="valgrind -q --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
sk_start
printf '{"id":"F1","name":"a.txt","data_b64":"%s"}' "$(printf 'hello\n' | base64 -w0)" >"$TMP/f1"
sk_ctl file "$TMP/f1" >/dev/null
python3 - "$TMP/ev" "$SHARED/wire/slack/socket_mode_envelopes.jsonl" "$PORT" <<'PY'
import json, os, sys
out = open(sys.argv[1], "w")
samples = []
if os.path.exists(sys.argv[2]):
    samples = [json.loads(l)["frame"] for l in open(sys.argv[2])]
    samples = [f for f in samples if "envelope_id" in f]
for i in range(300):
    k = i % 6
    ts = "1700000000.%06d" % i
    if k == 0:
        e = {"event": {"type": "message", "channel": "D1", "channel_type": "im",
             "user": "U1", "ts": ts, "text": "<@U0BOT> m%d &amp; <https://x|y>" % i}}
    elif k == 1:
        e = {"event": {"type": "app_mention", "channel": "C1", "user": "U2",
             "ts": ts, "thread_ts": "1.2", "text": "<@U0BOT> hi %d" % i}}
    elif k == 2:
        e = {"click": {"type": "block_actions", "user": {"id": "U1"},
             "channel": {"id": "C1"}, "actions": [{"value": "a:A%d:once" % i,
             "action_ts": ts}]}}
    elif k == 3:
        e = {"event": {"type": "message", "subtype": "file_share",
             "channel": "D1", "channel_type": "im", "user": "U1", "ts": ts,
             "text": "f", "files": [{"id": "F1", "name": "a.txt",
             "mimetype": "text/plain", "size": 6, "url_private_download":
             "http://127.0.0.1:%s/files/F1" % sys.argv[3]}]}}
    elif k == 4:
        e = {"event": {"type": "message", "channel": "D1", "channel_type": "im",
             "user": "U1", "bot_id": "B1", "ts": ts, "text": "a bot"}}
    else:
        f = dict(samples[i % len(samples)]) if samples else \
            {"envelope_id": "x", "type": "hello"}
        f["envelope_id"] = "s%d" % i
        if isinstance(f.get("payload"), dict) and "event_id" in f["payload"]:
            f["payload"] = dict(f["payload"], event_id="EvS%d" % i)
        e = {"frame": f}
    out.write(json.dumps(e) + "\n")
PY
sk_feed "$TMP/ev"
RECV_WRAP=$VG sk_recv "$TMP/out" "$TMP/err"
wait_until 30 '[ "$(sk_state connections)" = 1 ]'
sleep 1
sk_post drop '{}' >/dev/null
sk_wait 60
sk_stop
check 'oxi-recv slack, Socket Mode, 300 envelopes and a drop: no memory error or leak' \
	'[ "$RC" = 0 ] && ! grep -q "==[0-9]*==" "$TMP/err"'
# (the samples' mention, fed again and again under new event ids, is
# the same message each time)
check '...every message taken written, each once' \
	'[ "$(grep -c "\"type\":\"msg.in\"" "$TMP/out")" -ge 150 ] &&
	 [ "$(jget "[\"id\"]" "$TMP/out" | grep -v C111 | sort | uniq -d |
	     wc -l)" = 0 ]'

export SLACK_SIGNING_SECRET="$SIGNING_SECRET"
RECV_WRAP=$VG sk_recv "$TMP/out2" "$TMP/err2" -w 0
HP=$(sed -n 's/^oxi-recv: info: slack: webhook on \(.*\)$/\1/p' "$TMP/err2")
for i in 1 2 3 4 5 6 7 8 9 10; do
	sk_post deliver "{\"url\":\"http://$HP/\",\"body\":{\"type\":\"event_callback\",\"event_id\":\"EvW$i\",\"event\":{\"type\":\"message\",\"channel\":\"D1\",\"channel_type\":\"im\",\"user\":\"U1\",\"ts\":\"1.$i\",\"text\":\"w$i\"}}}" >/dev/null
	sk_post deliver "{\"url\":\"http://$HP/\",\"body\":{\"type\":\"event_callback\"},\"sig\":\"bad\"}" >/dev/null
	sk_post deliver "{\"url\":\"http://$HP/\",\"body\":{\"type\":\"block_actions\",\"user\":{\"id\":\"U1\"},\"channel\":{\"id\":\"C1\"},\"actions\":[{\"value\":\"a:B$i:deny\",\"action_ts\":\"2.$i\"}]},\"form\":true}" >/dev/null
done
sk_post deliver "{\"url\":\"http://$HP/\",\"body\":{\"type\":\"url_verification\",\"challenge\":\"c\"}}" >/dev/null
wait_until 30 '[ "$(grep -c . "$TMP/out2")" = 20 ]'
sk_stop
check 'oxi-recv slack, the Events API, signed, forged and form posts: no memory error or leak' \
	'[ "$RC" = 0 ] && ! grep -q "==[0-9]*==" "$TMP/err2" &&
	 [ "$(grep -c . "$TMP/out2")" = 20 ]'

python3 - "$TMP/in" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
def rec(t, i, chat, text, **kw):
    r = {"v": 1, "type": t, "id": "r%d" % i, "channel": "slack", "chat": chat,
         "in_reply_to": "slack:main:%s:1700000000.%06d" % (chat, i),
         "text": text}
    r.update(kw)
    out.write(json.dumps(r) + "\n")
for i in range(200):
    k = i % 5
    if k == 0:
        rec("msg.draft", i, "D1", "Draft **%d**" % i)
        rec("msg.out", i, "D1", "Final **%d** " % i + "word " * 50)
    elif k == 1:
        rec("msg.out", i, "C1", ("Long %d. " % i + "x " * 900 + "\n\n") * 3)
    elif k == 2:
        rec("approval.ask", i, "D1", "Run `ls`?", ref="t%d" % i,
            choices=["once", "always", "deny"],
            expires="2030-01-01T00:00:00Z")
    elif k == 3:
        out.write(json.dumps({"v": 1, "type": "error", "ref": "e%d" % i,
                              "channel": "slack", "chat": "D1", "code": "x",
                              "message": "oops %d" % i}) + "\n")
    else:
        rec("msg.out", i, "X404", "to nowhere")
PY
sk_post fail '{"method":"chat.postMessage","status":429,"error":"ratelimited","retry_after":1,"count":2}' >/dev/null
with_timeout 600 $VG oxi-send slack <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/serr"
RC=$?
check 'oxi-send slack, 200 records with drafts, splits, asks, errors, 429s and refusals: no memory error or leak' \
	'[ "$RC" = 0 ] && ! grep -q "==[0-9]*==" "$TMP/serr"'
check '...a receipt for each reply and error' \
	'[ "$(grep -c "\"type\":\"receipt\"" "$TMP/rcpt")" = 160 ]'
done_testing
