#!/bin/sh
# oxi-send discord: drafts edited in place and throttled, the final text
# in the draft's message; rate limits: a route's bucket used up waits for
# its reset (no 429 met), a 429 holds its route for retry_after, a global
# 429 holds every channel
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 11

rec() {
	printf '{"v":1,"type":"%s","id":"%s","channel":"discord","chat":"%s","text":"%s"}\n' \
	    "$1" "$2" "$3" "$4"
}

# drafts: five drafts over a second, then the reply
dc_start
{
	for i in 1 2 3 4 5; do
		rec msg.draft d1 500 "draft $i"
		sleep 0.25
	done
	rec msg.out d1 500 'the final answer'
} | OXI_DISCORD_EDIT_INTERVAL=0.5 with_timeout 30 oxi-send discord \
	>"$TMP/rcpt" 2>"$TMP/err"
check 'drafts, then the reply: one message in the end' \
	'[ "$(dc_msgs 500)" = "\"the final answer\"" ]'
n=$(dc_sent PATCH | wc -l)
check '...created once, then edited in place' \
	'[ "$(dc_sent POST /channels/500/messages | wc -l)" = 1 ] && [ "$n" -ge 2 ]'
check '...throttled: fewer edits than drafts' '[ "$n" -le 4 ]'
check '...the receipt names that message' \
	'grep -q "\"ref\":\"d1\",.*\"platform_id\":\"500:[0-9]*\",\"ok\":true" "$TMP/rcpt"'

# a bucket of 2 a second: 6 replies to one channel meet no 429
dc_start --bucket 2 --window 1
for i in 1 2 3 4 5 6; do rec msg.out b$i 600 "reply $i"; done >"$TMP/in"
t0=$(date +%s%N)
with_timeout 30 oxi-send discord <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/err"
ms=$((($(date +%s%N) - t0) / 1000000))
check 'a bucket used up: the sender waits for its reset, no 429 met' \
	'[ "$(dc_msgs 600 | wc -l)" = 6 ] && [ "$(dc_state limited)" = 0 ]'
check '...which takes its time (6 in windows of 2 a second: 2 s or more)' \
	'[ "$ms" -ge 1800 ]'
check '...in order' \
	'[ "$(dc_msgs 600 | tr -d "\"" | tr "\n" " ")" = "reply 1 reply 2 reply 3 reply 4 reply 5 reply 6 " ]'

# a 429 on one route: that channel waits retry_after, another does not
dc_start
dc_ctl fail '{"method":"POST","path":"/channels/700","status":429,"retry_after":1.5}' >/dev/null
{ rec msg.out l1 700 'held'; rec msg.out l2 701 'free'; } >"$TMP/in"
with_timeout 30 oxi-send -v discord <"$TMP/in" >"$TMP/rcpt" 2>"$TMP/err"
python3 -c 'import json, sys
t = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("method") == "POST" and r["path"].startswith("/channels/70"):
        t.setdefault(r["path"], []).append(r["ts"])
a, b = t["/channels/700/messages"], t["/channels/701/messages"]
print("ok" if len(a) == 2 and a[1] - a[0] >= 1.4 and b[0] - a[0] < 1 else
      "no %r" % t)' "$TMP/dclog" >"$TMP/gap"
check 'a 429: its route waits retry_after, another channel does not' \
	'[ "$(cat "$TMP/gap")" = ok ]'
check '...both delivered' \
	'[ "$(dc_msgs 700)" = "\"held\"" ] && [ "$(dc_msgs 701)" = "\"free\"" ]'

# a global 429 holds every channel
dc_start
dc_ctl fail '{"method":"POST","path":"/channels/800","status":429,"retry_after":1.5,"global":true}' >/dev/null
{ rec msg.out g1 800 'first'; sleep 0.3; rec msg.out g2 801 'second'; } |
	with_timeout 30 oxi-send discord >"$TMP/rcpt" 2>"$TMP/err"
python3 -c 'import json, sys
t = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("method") == "POST" and r["path"].startswith("/channels/80"):
        t.setdefault(r["path"], []).append(r["ts"])
a, b = t["/channels/800/messages"], t["/channels/801/messages"]
print("ok" if b[0] - a[0] >= 1.4 else "no %r" % t)' "$TMP/dclog" >"$TMP/gap"
check 'a global 429: every channel waits' '[ "$(cat "$TMP/gap")" = ok ]'
check '...then all is delivered' \
	'[ "$(dc_msgs 800)" = "\"first\"" ] && [ "$(dc_msgs 801)" = "\"second\"" ]'
