#!/bin/sh
# oxi-recv discord: the Gateway of a fake Discord fed with the wire
# samples and our own messages: which pass (DMs, guild messages for the
# bot, threads), attachments, the identify, readiness, restarts, SIGTERM,
# the settings refused
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 26

# settings
check_exit 'no token: exit 100' 100 \
	'env -u DISCORD_BOT_TOKEN oxi-recv discord </dev/null'
check_grep '...saying which variable' \
	'^oxi-recv: fatal: DISCORD_BOT_TOKEN is not set$' "$TMP/.err"
check_exit 'a token of the wrong shape: exit 100' 100 \
	'DISCORD_BOT_TOKEN="a b" oxi-recv discord </dev/null'
check_exit 'options of the cli channel: exit 100' 100 \
	'oxi-recv -c 42 discord </dev/null'
check_exit 'a bad OXI_DISCORD_GUILDS: exit 100' 100 \
	'OXI_DISCORD_GUILDS=some oxi-recv discord </dev/null'
check_exit 'a bad account: exit 100' 100 'oxi-recv -a ../x discord </dev/null'
check_exit 'an API base that is not http: exit 100' 100 \
	'OXI_DISCORD_API=ftp://x oxi-recv discord </dev/null'

mkdir -p "$TMP/files"
printf 'PNGDATA' >"$TMP/files/pic.png"
dc_start --heartbeat 400 --files "$TMP/files" \
	--threads '[{"id":"700","parent_id":"600"}]'
A='"author":{"id":"2001","username":"ann","global_name":"Ann"}'
G='"guild_id":"900"'
dc_feed '[{"id":"11","channel_id":"500","content":"hello there",'"$A"'},
{"id":"12","channel_id":"600",'"$G"',"content":"talking among us",'"$A"'},
{"id":"13","channel_id":"600",'"$G"',"content":"<@1000> are you there?","mentions":[{"id":"1000"}],'"$A"'},
{"id":"14","channel_id":"600",'"$G"',"type":19,"content":"yes please","message_reference":{"message_id":"555"},"referenced_message":{"id":"555","author":{"id":"1000"}},'"$A"'},
{"id":"15","channel_id":"500","content":"beep","author":{"id":"3000","username":"robo","bot":true}},
{"id":"16","channel_id":"500","content":"me","author":{"id":"1000","username":"oxibot"}},
{"id":"17","channel_id":"500","content":"hook","webhook_id":"4",'"$A"'},
{"id":"18","channel_id":"500","type":7,"content":"joined",'"$A"'},
{"id":"19","channel_id":"700",'"$G"',"content":"<@!1000> in a thread","mentions":[{"id":"1000"}],'"$A"'},
{"id":"20","channel_id":"500","content":"",'"$A"',"attachments":[{"id":"31","filename":"pic.png","content_type":"image/png","size":7,"url":"http://127.0.0.1:'"$PORT"'/cdn/pic.png"},{"id":"32","filename":"big.bin","size":999999999,"url":"http://127.0.0.1:'"$PORT"'/cdn/big.bin"},{"id":"33","filename":"x.txt","content_type":"text/plain","size":3,"url":"http://127.0.0.2:9/x.txt"}]}]'
# the wire samples: a DM (the composed dispatch) and a bot's message
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
print(json.dumps([{"t": d["t"], "d": d["d"]}, {"t": "MESSAGE_CREATE", "d": b}]))' \
	"$SHARED/wire/discord/gateway_dispatch_MESSAGE_CREATE_composed.json" \
	"$SHARED/wire/discord/serenity_message_create_3.json" >"$TMP/samples"
dc_feed "$(cat "$TMP/samples")"
dc_recv "$TMP/out" "$TMP/err"
wait_until 10 '[ "$(wc -l <"$TMP/out")" -ge 6 ]'
sleep 0.3
dc_stop
check 'SIGTERM: exit 0' '[ "$RC" = 0 ]'
cat >"$TMP/exp" <<EOF2
{"v":1,"type":"msg.in","id":"discord:main:500:11","channel":"discord","account":"main","chat":"500","thread":null,"from":"2001","from_name":"Ann","text":"hello there","ts":"2026-11-26T10:00:00.123Z","reply_to":null,"attachments":[],"trust":"user","message_id":"11","chat_type":"dm"}
{"v":1,"type":"msg.in","id":"discord:main:600:13","channel":"discord","account":"main","chat":"600","thread":null,"from":"2001","from_name":"Ann","text":"are you there?","ts":"2026-11-26T10:00:00.123Z","reply_to":null,"attachments":[],"trust":"user","message_id":"13","chat_type":"guild"}
{"v":1,"type":"msg.in","id":"discord:main:600:14","channel":"discord","account":"main","chat":"600","thread":null,"from":"2001","from_name":"Ann","text":"yes please","ts":"2026-11-26T10:00:00.123Z","reply_to":"555","attachments":[],"trust":"user","message_id":"14","chat_type":"guild"}
{"v":1,"type":"msg.in","id":"discord:main:700:19","channel":"discord","account":"main","chat":"600","thread":"700","from":"2001","from_name":"Ann","text":"in a thread","ts":"2026-11-26T10:00:00.123Z","reply_to":null,"attachments":[],"trust":"user","message_id":"19","chat_type":"guild"}
{"v":1,"type":"msg.in","id":"discord:main:500:20","channel":"discord","account":"main","chat":"500","thread":null,"from":"2001","from_name":"Ann","text":"","ts":"2026-11-26T10:00:00.123Z","reply_to":null,"attachments":[{"kind":"image","mime":"image/png","name":"pic.png","size":7,"file_id":"31","path":"$OXI_HOME/files/discord/31.png"},{"kind":"document","mime":"application/octet-stream","name":"big.bin","size":999999999,"file_id":"32","error":"file over 26214400 bytes"},{"kind":"document","mime":"text/plain","name":"x.txt","size":3,"file_id":"33","error":"a file not on Discord's file hosts"}],"trust":"user","message_id":"20","chat_type":"dm"}
{"v":1,"type":"msg.in","id":"discord:main:244567637332328449:302917639565475840","channel":"discord","account":"main","chat":"244567637332328449","thread":null,"from":"114941315417899012","from_name":"zeyla","text":"a","ts":"2017-04-15T21:26:33.210Z","reply_to":null,"attachments":[],"trust":"user","message_id":"302917639565475840","chat_type":"dm"}
EOF2
check_json 'DMs, mentions, replies to the bot, threads, files (none from another host) and the sample pass; the rest (other talk, bots, ourselves, webhooks, system messages, the bot sample) does not' \
	"$TMP/out" "$TMP/exp"
check 'the file is fetched, 0600' \
	'[ "$(cat "$OXI_HOME/files/discord/31.png")" = PNGDATA ] &&
	 [ "$(stat -c %a "$OXI_HOME/files/discord/31.png")" = 600 ]'
check 'each record is one line' '[ "$(wc -l <"$TMP/out")" = 6 ]'
dc_gw 2 >"$TMP/ident"
check 'one identify, with the intents GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES and MESSAGE_CONTENT' \
	'[ "$(wc -l <"$TMP/ident")" = 1 ] && grep -q "\"intents\": 37377" "$TMP/ident"'
check '...its properties name oxi, its token is the one set' \
	'grep -q "\"browser\": \"oxi\"" "$TMP/ident" && grep -q "\"token\": \"<token>\"" "$TMP/ident"'
check 'heartbeats went and were acknowledged' \
	'[ "$(dc_state heartbeats)" -ge 1 ] && [ "$(dc_state acks)" = "$(dc_state heartbeats)" ]'
check 'a heartbeat carries the last sequence number' \
	'dc_gw 1 | grep -Eq "^[0-9]+$"'
check 'SIGTERM closes with 4000, which keeps the session' \
	'[ "$(dc_state closes)" = "[4000]" ]'
check 'the token is in no diagnostic' '! grep -q "$DCTOKEN" "$TMP/err"'
check 'nothing but debug lines on stderr' '[ ! -s "$TMP/err" ]'
check 'the ledger is in the state directory, in WAL mode' \
	'[ "$(python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(\"PRAGMA journal_mode\").fetchone()[0])" \
		"$OXI_HOME/discord-main.db")" = wal ]'

# a restart resumes the session and writes nothing again
dc_feed '[{"id":"21","channel_id":"500","content":"while away",'"$A"'}]'
dc_recv "$TMP/out2" "$TMP/err2"
wait_until 5 '[ -s "$TMP/out2" ]'
sleep 0.3
dc_stop
check 'a restart resumes the session, no identify' \
	'[ "$(dc_state resumes)" = 1 ] && [ "$(dc_state identifies)" = 1 ]'
check '...from the sequence number in the ledger' \
	'dc_gw 6 | grep -q "\"seq\": [0-9]"'
check '...and writes only what came since, once' \
	'[ "$(wc -l <"$TMP/out2")" = 1 ] && grep -q "\"id\":\"discord:main:500:21\"" "$TMP/out2"'

# OXI_DISCORD_GUILDS=all: every guild message; -a names the account
OXI_DISCORD_GUILDS=all dc_recv "$TMP/out3" "$TMP/err3" -a work
dc_feed '[{"id":"22","channel_id":"600",'"$G"',"content":"any talk",'"$A"'}]'
wait_until 5 '[ -s "$TMP/out3" ]'
dc_stop
check 'OXI_DISCORD_GUILDS=all takes every guild message; -a names the account' \
	'grep -q "\"id\":\"discord:work:600:22\".*\"account\":\"work\"" "$TMP/out3"'
check '...in a ledger of its own, which identified anew' \
	'[ -f "$OXI_HOME/discord-work.db" ] && [ "$(dc_state identifies)" = 2 ]'

# a refused token: GET /gateway/bot says 401, exit 100 at once
DISCORD_BOT_TOKEN=another.token-0123456789abcdef with_timeout 10 oxi-recv discord \
	>"$TMP/out4" 2>"$TMP/err4" </dev/null
check 'a token the API refuses: exit 100' '[ $? = 100 ]'
check_grep '...saying so, without the token' \
	'^oxi-recv: fatal: the bot token was refused \(GET /gateway/bot: 401 401: Unauthorized\): check DISCORD_BOT_TOKEN$' \
	"$TMP/err4"
