#!/bin/sh
# oxi-recv telegram: in groups only what is addressed to the bot
# (mentions, /command@bot, replies, OXI_TELEGRAM_GROUPS=all), forum
# topics as threads, replies, edits (OXI_TELEGRAM_EDITS)
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 19

G='"chat":{"id":-100777,"type":"supergroup","title":"Team"},"from":{"id":5,"is_bot":false,"first_name":"Bo"}'
P='"chat":{"id":5,"type":"private","first_name":"Bo"},"from":{"id":5,"is_bot":false,"first_name":"Bo"}'
cat >"$TMP/ups" <<EOF
{"message":{"message_id":1,"date":1700000000,$G,"text":"hello all"}}
{"message":{"message_id":2,"date":1700000000,$G,"text":"@oxi_test_bot what time is it","entities":[{"type":"mention","offset":0,"length":13}]}}
{"message":{"message_id":3,"date":1700000000,$G,"text":"😀 hi @oxi_test_bot","entities":[{"type":"mention","offset":6,"length":13}]}}
{"message":{"message_id":4,"date":1700000000,$G,"text":"@other_bot hi","entities":[{"type":"mention","offset":0,"length":10}]}}
{"message":{"message_id":5,"date":1700000000,$G,"text":"hey @OXI_Test_Bot","entities":[{"type":"mention","offset":4,"length":13}]}}
{"message":{"message_id":6,"date":1700000000,$G,"text":"/new@oxi_test_bot","entities":[{"type":"bot_command","offset":0,"length":17}]}}
{"message":{"message_id":7,"date":1700000000,$G,"text":"/report","entities":[{"type":"bot_command","offset":0,"length":7}]}}
{"message":{"message_id":8,"date":1700000000,$G,"text":"and then?","reply_to_message":{"message_id":99,"date":1699999999,"chat":{"id":-100777,"type":"supergroup"},"from":{"id":123456,"is_bot":true,"first_name":"Oxi Test","username":"oxi_test_bot"},"text":"an answer"}}}
{"message":{"message_id":9,"date":1700000000,$G,"text":"Oxi, look","entities":[{"type":"text_mention","offset":0,"length":3,"user":{"id":123456,"is_bot":true,"first_name":"Oxi"}}]}}
{"message":{"message_id":10,"date":1700000000,"chat":{"id":-100888,"type":"supergroup","title":"Forum","is_forum":true},"from":{"id":5,"is_bot":false,"first_name":"Bo"},"message_thread_id":77,"is_topic_message":true,"reply_to_message":{"message_id":77,"date":1699990000,"chat":{"id":-100888,"type":"supergroup"},"from":{"id":5,"first_name":"Bo"},"forum_topic_created":{"name":"Ideas","icon_color":7322096}},"text":"@oxi_test_bot in a topic","entities":[{"type":"mention","offset":0,"length":13}]}}
{"message":{"message_id":11,"date":1700000000,$P,"text":"as I said","reply_to_message":{"message_id":3,"date":1699999999,"chat":{"id":5,"type":"private"},"from":{"id":5,"first_name":"Bo"},"text":"x"}}}
{"message":{"message_id":12,"date":1700000000,"chat":{"id":-100777,"type":"group","title":"Old"},"from":{"id":6,"is_bot":true,"first_name":"Other"},"text":"@oxi_test_bot I am a bot","entities":[{"type":"mention","offset":0,"length":13}]}}
{"edited_message":{"message_id":13,"date":1700000000,"edit_date":1700000060,$P,"text":"fixed typo"}}
EOF
tg_start --updates "$TMP/ups"
tg_run "$TMP/out" "$TMP/err"
check 'exit 0' '[ "$RC" = 0 ]'
jget '["id"]' "$TMP/out" | sed 's/^telegram:main://' >"$TMP/ids"
printf '%s\n' -100777:2 -100777:3 -100777:5 -100777:6 -100777:8 -100777:9 \
	-100888:10 5:11 >"$TMP/exp"
check_same 'group messages pass only when addressed; private ones always; no bot, no edit' \
	"$TMP/ids" "$TMP/exp"
check 'a mention after an emoji: offsets count UTF-16 units' \
	'grep -q "\"id\":\"telegram:main:-100777:3\"" "$TMP/out"'
check 'the mention stays in the text' \
	'grep -q "\"text\":\"@oxi_test_bot what time is it\"" "$TMP/out"'
check '/command@bot loses its @bot' \
	'grep -q "\"id\":\"telegram:main:-100777:6\".*\"text\":\"/new\"" "$TMP/out"'
check 'a reply to the bot names the message it answers' \
	'grep -q "\"id\":\"telegram:main:-100777:8\".*\"reply_to\":\"99\"" "$TMP/out"'
check 'a reply in a private chat too' \
	'grep -q "\"id\":\"telegram:main:5:11\".*\"reply_to\":\"3\"" "$TMP/out"'
grep '"id":"telegram:main:-100888:10"' "$TMP/out" >"$TMP/topic"
cat >"$TMP/exp" <<'EOF'
{"v":1,"type":"msg.in","id":"telegram:main:-100888:10","channel":"telegram","account":"main","chat":"-100888","thread":"77","from":"5","from_name":"Bo","text":"@oxi_test_bot in a topic","ts":"2023-11-14T22:13:20.000Z","reply_to":null,"attachments":[],"trust":"user","message_id":"10","chat_type":"supergroup"}
EOF
check_json 'a forum topic is the thread; the topic opener is not a reply' \
	"$TMP/topic" "$TMP/exp"
check 'other groups thread nothing' \
	'[ "$(grep -c "\"thread\":null" "$TMP/out")" = 7 ]'
check 'skipped messages are debug lines only' '[ ! -s "$TMP/err" ]'

# OXI_TELEGRAM_GROUPS=all, OXI_TELEGRAM_EDITS=new, on a fresh ledger
export OXI_HOME="$TMP/home2"
tg_start --updates "$TMP/ups"
OXI_TELEGRAM_GROUPS=all OXI_TELEGRAM_EDITS=new tg_run "$TMP/out2" "$TMP/err2"
check 'OXI_TELEGRAM_GROUPS=all: every group message of a person' \
	'[ "$(grep -c "\"chat\":\"-100777\"" "$TMP/out2")" = 9 ]'
check '...but not those of bots' \
	'! grep -q "I am a bot" "$TMP/out2"'
check 'OXI_TELEGRAM_EDITS=new: an edit is a message of its own' \
	'grep -q "\"id\":\"telegram:main:5:13:e1700000060\".*\"text\":\"fixed typo\"" "$TMP/out2"'
check '...marked as an edit, dated by its edit' \
	'grep "fixed typo" "$TMP/out2" | grep -q "\"edited\":true" &&
	 grep "fixed typo" "$TMP/out2" | grep -q "\"ts\":\"2023-11-14T22:14:20.000Z\""'
check 'every id is unique' \
	'[ "$(jget "[\"id\"]" "$TMP/out2" | sort | uniq -d)" = "" ]'

# an edit of the same message twice: two ids
cat >"$TMP/edits" <<EOF
{"edited_message":{"message_id":20,"date":1700000000,"edit_date":1700000100,$P,"text":"one"}}
{"edited_message":{"message_id":20,"date":1700000000,"edit_date":1700000200,$P,"text":"two"}}
EOF
tg_feed "$TMP/edits"
OXI_TELEGRAM_EDITS=new tg_run "$TMP/out3" "$TMP/err3"
check 'two edits of one message: two records, two ids' \
	'[ "$(jget "[\"id\"]" "$TMP/out3" | sort -u | wc -l)" = 2 ]'
tg_feed "$TMP/edits"
OXI_TELEGRAM_EDITS=ignore tg_run "$TMP/out4" "$TMP/err4"
check 'OXI_TELEGRAM_EDITS=ignore: edits give nothing' '[ ! -s "$TMP/out4" ]'
check 'a bad OXI_TELEGRAM_EDITS: exit 100' \
	'OXI_TELEGRAM_EDITS=maybe oxi-recv telegram </dev/null 2>"$TMP/e";
	 [ $? = 100 ] && grep -q "OXI_TELEGRAM_EDITS must be ignore or new" "$TMP/e"'

# no name known: only replies count
export OXI_HOME="$TMP/home3"
tg_start --username "" --updates "$TMP/ups"
tg_run "$TMP/out5" "$TMP/err5"
check 'a bot without a username: replies and text mentions still count' \
	'[ "$(jget "[\"id\"]" "$TMP/out5" | tr "\n" " ")" = "telegram:main:-100777:8 telegram:main:-100777:9 telegram:main:5:11 " ]'
done_testing
