#!/bin/sh
# oxi-loop with attachments, through the real oxi-llm -j and a fake
# OpenAI: a photo reaches the model as an image part (once), a voice
# message as its transcription, a model without vision is asked again
# without the image
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 13

fake_server openai.py --log "$TMP/log"
export OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1"
export OPENAI_API_KEY=sk-test-MEDIA0123456789secret
export OXI_LLM="oxi-llm -j" OXI_TOOL=none OXI_MODEL=openai/gpt-4o-mini
export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_LLM_BACKOFF=0.01
files="$OXI_HOME/files/telegram"
mkdir -p "$files"
python3 -c 'import sys; sys.stdout.buffer.write(b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)) * 8)' >"$files/AgADphoto.jpg"
printf 'SAY: what is in the picture\n' >"$files/AgADvoice.oga"

amsg() {	# amsg ID CHAT TEXT ATTACHMENTS
	printf '{"v":1,"type":"msg.in","id":"%s","channel":"telegram","account":"bot","chat":"%s","from":"7","text":"%s","attachments":%s}\n' \
		"$1" "$2" "$3" "$4"
}
photo="{\"kind\":\"image\",\"mime\":\"image/jpeg\",\"size\":2060,\"file_id\":\"F1\",\"path\":\"$files/AgADphoto.jpg\"}"
voice="{\"kind\":\"voice\",\"mime\":\"audio/ogg\",\"size\":28,\"duration\":2,\"file_id\":\"F2\",\"path\":\"$files/AgADvoice.oga\"}"
reply() { grep '"msg.out"' "$TMP/out" | jget '["text"]' /dev/stdin; }
chats() { grep -c '"messages"' "$TMP/log"; }
lastchat() {	# lastchat EXPR: of the last chat request's last message
	grep '"messages"' "$TMP/log" | tail -n 1 |
		jget "[\"messages\"][-1]$1" /dev/stdin
}
run() { oxi-loop -t 0 "$@" >"$TMP/out" 2>"$TMP/err"; }

amsg p1 c1 'what is this?' "[$photo]" | run
check 'a photo with a caption is answered' \
	'[ "$(reply)" = "echo: what is this?
[image: image/jpeg, 2 KB]" ]'
check 'the model got the caption and a line as the text part' \
	'[ "$(lastchat "[\"content\"][0]")" = "{\"type\": \"text\", \"text\": \"what is this?\\n[image: image/jpeg, 2 KB]\"}" ]'
check 'and the photo as an image_url part, its bytes in base64' \
	'[ "$(lastchat "[\"content\"][1][\"type\"]")" = image_url ] &&
	 [ "$(lastchat "[\"content\"][1][\"image_url\"][\"url\"]")" = "data:image/jpeg;base64,$(base64 -w0 "$files/AgADphoto.jpg")" ]'
check 'the history holds the path, never the bytes' \
	'grep -q AgADphoto.jpg "$OXI_HOME"/loop.db* &&
	 ! grep -q "$(base64 -w0 "$files/AgADphoto.jpg" | cut -c1-40)" "$OXI_HOME"/loop.db*'

amsg p2 c1 'and the colour?' '[]' | run
check 'the next message: the photo is its line, not sent again' \
	'[ "$(reply)" = "echo: and the colour?" ] &&
	 ! grep "\"messages\"" "$TMP/log" | tail -n 1 | grep -q image_url &&
	 grep "\"messages\"" "$TMP/log" | tail -n 1 | grep -q "\[image: image/jpeg, 2 KB\]"'

amsg v1 c2 '' "[$voice]" | run
check 'a voice message: transcribed by oxi-llm, answered as its text' \
	'[ "$(reply)" = "echo: [voice] what is in the picture" ]'
check 'the file went to /audio/transcriptions whole, with the model' \
	'grep "audio/transcriptions" "$TMP/log" | tail -n 1 >"$TMP/tr" &&
	 [ "$(jget "[\"model\"] + \" \" + r[\"filename\"] + \" \" + r[\"sha256\"]" "$TMP/tr")" = "whisper-1 audio.ogg $(sha256sum "$files/AgADvoice.oga" | cut -d" " -f1)" ]'
check 'the key reached the fake, no output of ours' \
	'[ "$(jget "[\"authorization\"]" "$TMP/tr")" = "Bearer $OPENAI_API_KEY" ] &&
	 ! grep -q MEDIA0123456789 "$TMP/out" "$TMP/err"'
amsg v2 c2 'and then?' '[]' | run
check 'the history keeps what was said as text' \
	'[ "$(grep "\"messages\"" "$TMP/log" | tail -n 1 | jget "[\"messages\"][1][\"content\"]" /dev/stdin)" = "[voice] what is in the picture" ]'

n=$(grep -c audio/transcriptions "$TMP/log")
amsg v3 c3 '' "[$voice]" | OXI_TRANSCRIBE_MODEL=none run
check 'no transcription configured: an answer all the same, saying why' \
	'[ "$(reply)" = "echo: [voice message: could not transcribe: no transcription: the model is \"none\"]" ] &&
	 [ "$(grep -c audio/transcriptions "$TMP/log")" = "$n" ]'

n=$(chats)
amsg n1 c4 'look' "[$photo]" | run -m openai/novision-1
check 'a model without vision refuses the photo: asked once more without it' \
	'[ "$(chats)" = $((n + 2)) ] &&
	 ! grep "\"messages\"" "$TMP/log" | tail -n 1 | grep -q image_url'
check 'and the answer says the model did not take it' \
	'[ "$(reply)" = "echo: look
[image: image/jpeg, 2 KB]
[image: not shown: the model did not take it]" ]'
check 'no error went to the chat, no dead letter' \
	'! grep -q "\"type\":\"error\"" "$TMP/out" && [ ! -s "$OXI_DEADLETTER" ]'

done_testing
