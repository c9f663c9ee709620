#!/bin/sh
# oxi-send telegram: drafts, by sendMessageDraft in a private chat and by
# one message edited in place in a group (or where drafts are refused),
# throttled (the gaps measured in the fake's log, never as an upper
# bound on wall time), the reply replacing its draft, drafts across a
# restart, stale drafts, and typing at most every four seconds
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh && . ./tgsend.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 18

export OXI_TELEGRAM_EDIT_INTERVAL=0.5
tg_start

# feed CHAT ID N GAP: N drafts of a growing reply GAP seconds apart,
# then the reply
feed() {
	_n=1
	while [ "$_n" -le "$3" ]; do
		out msg.draft "$2" "$1" "Step $_n of **the** answer"
		sleep "$4"
		_n=$((_n + 1))
	done
	out msg.out "$2" "$1" "The **whole** answer"
}

# gaps LAST METHOD...: the least time between two calls of these
# methods, the last LAST calls left out (the reply, which waits for no
# draft)
gaps() {
	python3 -c 'import json, sys
ts = [json.loads(l)["ts"] for l in open(sys.argv[1])
      if json.loads(l)["method"] in sys.argv[3:]]
ts = ts[:len(ts) - int(sys.argv[2])]
print(min(b - a for a, b in zip(ts, ts[1:])) if len(ts) > 1 else 99)' \
	    "$TMP/tglog" "$@"
}

# at_least A B: the number A >= B
at_least() {
	python3 -c 'import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]))' "$1" "$2"
}

# a private chat: sendMessageDraft, then the reply.  The first draft shown
# is the newest when oxi-send is ready (under load, not always step 1)
feed 42 d1 12 0.1 | with_timeout 30 oxi-send telegram >"$TMP/rcpt" 2>"$TMP/err"
tg_calls sendMessageDraft >"$TMP/d"
check 'a private chat: drafts by sendMessageDraft, more than one' \
	'[ "$(wc -l <"$TMP/d")" -ge 2 ]'
check '...at most one every 0.5 s (OXI_TELEGRAM_EDIT_INTERVAL)' \
	'at_least "$(gaps 0 sendMessageDraft)" 0.45'
check '...fewer than the drafts fed: the newest text goes, the rest are dropped' \
	'[ "$(wc -l <"$TMP/d")" -lt 12 ]'
check '...one draft_id, not 0, the text as HTML' \
	'[ "$(sed "s/.*\"draft_id\": \([0-9]*\).*/\1/" "$TMP/d" | sort -u | wc -l)" = 1 ] &&
	 ! grep -q "\"draft_id\": 0," "$TMP/d" &&
	 head -n 1 "$TMP/d" | grep -q "\"parse_mode\": \"HTML\", \"text\": \"Step [0-9]* of <b>the</b> answer\""'
check '...then the reply is sent as a message, nothing edited' \
	'[ "$(texts sendMessage)" = "\"The <b>whole</b> answer\"" ] &&
	 [ -z "$(tg_calls editMessageText)" ] &&
	 [ "$(sent | tail -n 1 | grep -c "\"method\": \"sendMessage\"")" = 1 ]'
check '...and its receipt' 'grep -q "\"ref\":\"d1\".*\"ok\":true" "$TMP/rcpt"'

# a group: one message, edited in place, thrice as seldom
tg_clear
feed -100 d2 16 0.2 | with_timeout 30 oxi-send telegram >"$TMP/rcpt" 2>"$TMP/err"
check 'a group: the first draft is a message, answering the question' \
	'[ "$(tg_calls sendMessage | wc -l)" = 1 ] &&
	 tg_calls sendMessage | grep -q "\"reply_parameters\": {\"allow_sending_without_reply\": true, \"message_id\": 7}" &&
	 [ -z "$(tg_calls sendMessageDraft)" ]'
mid=$(tg_ctl state | python3 -c 'import json, sys
print(json.load(sys.stdin)["messages"]["-100"][0]["id"])')
check '...then edited in place, the reply last' \
	'[ "$(tg_calls editMessageText | wc -l)" -ge 2 ] &&
	 [ "$(tg_calls editMessageText | grep -vc "\"message_id\": $mid,")" = 0 ] &&
	 tg_calls editMessageText | tail -n 1 | grep -q "\"text\": \"The <b>whole</b> answer\""'
check '...at most one call every 1.5 s' \
	'at_least "$(gaps 1 sendMessage editMessageText)" 1.45'
check '...the receipt names the message that showed the drafts' \
	'grep -q "\"ref\":\"d2\".*\"platform_id\":\"-100:$mid\",\"ok\":true" "$TMP/rcpt"'

# drafts refused in a private chat: edits instead
tg_clear
tg_fail '{"method":"sendMessageDraft","chat":"43","code":400,"description":"Bad Request: TEXTDRAFT_PEER_INVALID"}'
feed 43 d3 8 0.1 | with_timeout 30 oxi-send telegram >"$TMP/rcpt" 2>"$TMP/err"
check 'sendMessageDraft refused: the chat gets a message edited in place' \
	'[ "$(tg_calls sendMessageDraft | wc -l)" = 1 ] &&
	 [ "$(tg_calls sendMessage | wc -l)" = 1 ] &&
	 tg_calls editMessageText | tail -n 1 | grep -q "The <b>whole</b> answer"'
check '...said once, as info' \
	'[ "$(grep -c "gets drafts by editing" "$TMP/err")" = 1 ]'

# a reply longer than a message after its drafts: the first part edits
# the draft, the rest are sent
tg_clear
{
	out msg.draft d4 -100 "Beginning"
	sleep 0.3
	python3 -c 'import json
print(json.dumps({"v": 1, "type": "msg.out", "id": "d4", "channel": "telegram",
    "chat": "-100", "text": "word " * 1000}))'
} | with_timeout 30 oxi-send telegram >"$TMP/rcpt" 2>"$TMP/err"
check 'a long reply: its first part edits the draft, the second is sent' \
	'[ "$(tg_calls sendMessage | wc -l)" = 2 ] &&
	 [ "$(tg_calls editMessageText | wc -l)" = 1 ] &&
	 [ "$(sent | sed -n 2p | grep -c editMessageText)" = 1 ]'

# across a restart: the draft message is known, the reply edits it
tg_clear
out msg.draft d5 -100 "Half an answer" >"$TMP/in"
tx_run "$TMP/in"
out msg.out d5 -100 "The full answer" >"$TMP/in"
tx_run "$TMP/in"
check 'a draft shown before a restart is edited into the reply after it' \
	'[ "$(tg_calls sendMessage | wc -l)" = 1 ] &&
	 tg_calls editMessageText | grep -q "The full answer"'

# a draft of a reply delivered already
tg_clear
{
	out msg.out d6 42 "Done"
	out msg.draft d6 42 "Late draft"
} >"$TMP/in"
tx_run "$TMP/in"
out msg.draft d6 42 "Later draft" >"$TMP/in"
tx_run "$TMP/in"
check 'a draft of a reply already here or delivered is dropped' \
	'[ -z "$(tg_calls sendMessageDraft)" ] && [ "$(tg_calls sendMessage | wc -l)" = 1 ]'

# the draft message gone: the reply is sent anew
tg_clear
tg_fail '{"method":"editMessageText","code":400,"description":"Bad Request: message to edit not found","count":9}'
{
	out msg.draft d7 -100 "Soon deleted"
	sleep 0.3
	out msg.out d7 -100 "Still delivered"
} | with_timeout 30 oxi-send telegram >"$TMP/rcpt" 2>"$TMP/err"
check 'the draft message deleted: the reply is a new message' \
	'[ "$(tg_calls editMessageText | wc -l)" = 1 ] &&
	 tg_calls sendMessage | tail -n 1 | grep -q "Still delivered" &&
	 grep -q "\"ref\":\"d7\".*\"ok\":true" "$TMP/rcpt"'

# typing
tg_clear
{
	_n=0
	while [ "$_n" -lt 10 ]; do
		printf '%s\n' '{"type":"typing","channel":"telegram","chat":"42"}'
		sleep 0.5
		_n=$((_n + 1))
	done
} | with_timeout 30 oxi-send telegram >"$TMP/rcpt" 2>"$TMP/err"
check 'typing fed every 0.5 s for 5 s: two calls' \
	'[ "$(tg_calls sendChatAction | wc -l)" = 2 ]'
check '...at least 4 s apart' 'at_least "$(gaps 0 sendChatAction)" 3.95'
done_testing
