#!/bin/sh
# oxi-recv telegram: photos (the largest size), documents, voice notes
# fetched into $OXI_HOME/files/telegram for the messages that pass, with
# their path in "attachments"; caps, missing files, files kept
cd "$(dirname "$0")" && . ./lib.sh && . ./tg.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
plan 18

mkdir -p "$TMP/files"
head -c 300 /dev/urandom >"$TMP/files/ph-small.jpg"
head -c 3000 /dev/urandom >"$TMP/files/ph-mid.jpg"
head -c 30000 /dev/urandom >"$TMP/files/ph-big.jpg"
printf '%%PDF-1.4 a report\n' >"$TMP/files/report.pdf"
head -c 5000 /dev/urandom >"$TMP/files/voice1.oga"

P='"chat":{"id":5,"type":"private","first_name":"Bo"},"from":{"id":5,"is_bot":false,"first_name":"Bo"}'
G='"chat":{"id":-100777,"type":"supergroup","title":"Team"},"from":{"id":5,"is_bot":false,"first_name":"Bo"}'
PHOTO='"photo":[{"file_id":"ph-small.jpg","file_unique_id":"u-ph-small","file_size":300,"width":90,"height":60},{"file_id":"ph-big.jpg","file_unique_id":"u-ph-big","file_size":30000,"width":1280,"height":853},{"file_id":"ph-mid.jpg","file_unique_id":"u-ph-mid","file_size":3000,"width":320,"height":213}]'
cat >"$TMP/ups" <<EOF
{"message":{"message_id":1,"date":1700000000,$P,$PHOTO,"caption":"what is this?"}}
{"message":{"message_id":2,"date":1700000000,$P,"document":{"file_id":"report.pdf","file_unique_id":"u-report","file_name":"Q3 report.pdf","mime_type":"application/pdf","file_size":19}}}
{"message":{"message_id":3,"date":1700000000,$P,"voice":{"file_id":"voice1.oga","file_unique_id":"u-voice1","duration":7,"mime_type":"audio/ogg","file_size":5000}}}
{"message":{"message_id":4,"date":1700000000,$P,"document":{"file_id":"huge.bin","file_unique_id":"u-huge","file_name":"huge.bin","file_size":30000000}}}
{"message":{"message_id":5,"date":1700000000,$P,"document":{"file_id":"gone.txt","file_unique_id":"u-gone","file_name":"gone.txt","mime_type":"text/plain"}}}
{"message":{"message_id":6,"date":1700000000,$G,$PHOTO,"caption":"not for the bot"}}
{"message":{"message_id":7,"date":1700000000,$G,$PHOTO,"caption":"@oxi_test_bot and this?","caption_entities":[{"type":"mention","offset":0,"length":13}]}}
EOF
tg_start --files "$TMP/files" --updates "$TMP/ups"
tg_run "$TMP/out" "$TMP/err"
D="$OXI_HOME/files/telegram"
check 'exit 0, six messages (the group photo not for us is not)' \
	'[ "$RC" = 0 ] && [ "$(wc -l <"$TMP/out")" = 6 ] && ! grep -q "not for the bot" "$TMP/out"'
grep '"id":"telegram:main:5:1"' "$TMP/out" >"$TMP/r1"
python3 -c 'import json, sys
print(json.dumps(json.loads(open(sys.argv[1]).read())["attachments"]))' "$TMP/r1" >"$TMP/a1"
printf '[{"kind":"image","mime":"image/jpeg","name":"photo.jpg","size":30000,"file_id":"ph-big.jpg","path":"%s/u-ph-big.jpg"}]\n' "$D" >"$TMP/exp"
check_json 'a photo: its largest size, fetched, with its path' "$TMP/a1" "$TMP/exp"
check 'the caption is the text' 'grep -q "\"text\":\"what is this?\"" "$TMP/r1"'
check 'the file holds the bytes, mode 0600, in a 0700 directory' \
	'cmp -s "$D/u-ph-big.jpg" "$TMP/files/ph-big.jpg" &&
	 [ "$(stat -c %a "$D/u-ph-big.jpg")" = 600 ] && [ "$(stat -c %a "$D")" = 700 ]'
check 'only the largest size was fetched, once for the two messages that hold it' \
	'[ "$(tg_calls getFile | grep -c ph-)" = 1 ] && [ "$(tg_calls file | grep -c ph-big)" = 1 ] && ! tg_calls getFile | grep -q -e ph-small -e ph-mid'
check 'a document: its name and type, fetched' \
	'grep "\"id\":\"telegram:main:5:2\"" "$TMP/out" |
	 grep -q "\"kind\":\"document\",\"mime\":\"application/pdf\",\"name\":\"Q3 report.pdf\",\"size\":19,\"file_id\":\"report.pdf\",\"path\":\"$D/u-report.pdf\"" &&
	 cmp -s "$D/u-report.pdf" "$TMP/files/report.pdf"'
check 'a voice note: kind voice, its duration, fetched for transcription' \
	'grep "\"id\":\"telegram:main:5:3\"" "$TMP/out" |
	 grep -q "\"kind\":\"voice\",\"mime\":\"audio/ogg\",\"name\":\"voice.ogg\",\"size\":5000,\"file_id\":\"voice1.oga\",\"duration\":7,\"path\":\"$D/u-voice1.ogg\"" &&
	 cmp -s "$D/u-voice1.ogg" "$TMP/files/voice1.oga"'
check 'an empty caption is an empty text' \
	'grep "\"id\":\"telegram:main:5:3\"" "$TMP/out" | grep -q "\"text\":\"\""'
check 'a file over the cap: an error, and no getFile' \
	'grep "\"id\":\"telegram:main:5:4\"" "$TMP/out" |
	 grep -q "\"error\":\"file over 20971520 bytes\"" &&
	 ! grep "\"id\":\"telegram:main:5:4\"" "$TMP/out" | grep -q "\"path\"" &&
	 ! tg_calls getFile | grep -q huge'
check 'a file the API does not have: the message still goes, with the error' \
	'grep "\"id\":\"telegram:main:5:5\"" "$TMP/out" |
	 grep -q "\"error\":\"getFile: 400 Bad Request: invalid file_id\""'
check '...and one warning' \
	'[ "$(grep -c "a file of the message is missing: getFile: 400 Bad Request: invalid file_id" "$TMP/err")" = 1 ] &&
	 [ "$(wc -l <"$TMP/err")" = 1 ]'
check 'a group photo addressed by its caption is fetched like the rest' \
	'grep "\"id\":\"telegram:main:-100777:7\"" "$TMP/out" | grep -q "\"path\":\"$D/u-ph-big.jpg\""'
check 'no temporary file is left' '[ -z "$(ls "$D" | grep "\.tmp$")" ]'

# a file already there is not fetched again
: >"$TMP/tglog"
tg_feed "$TMP/ups"
tg_run "$TMP/out2" "$TMP/err2" -a second
check 'files already fetched are not fetched again' \
	'grep -q "\"path\":\"$D/u-ph-big.jpg\"" "$TMP/out2" &&
	 [ "$(tg_calls getFile | grep -c -e ph- -e report -e voice1)" = 0 ] &&
	 [ "$(tg_calls file | wc -l)" = 0 ]'

# OXI_TELEGRAM_FILE_MAX: the size getFile gives counts too
export OXI_HOME="$TMP/home2"
printf '%s\n' "{\"message\":{\"message_id\":8,\"date\":1700000000,$P,\"document\":{\"file_id\":\"report.pdf\",\"file_unique_id\":\"u-report\",\"file_name\":\"r.pdf\"}}}" >"$TMP/one"
tg_feed "$TMP/one"
: >"$TMP/tglog"
OXI_TELEGRAM_FILE_MAX=10 tg_run "$TMP/out3" "$TMP/err3"
check 'OXI_TELEGRAM_FILE_MAX below the size getFile gives: an error, no download' \
	'grep -q "\"error\":\"file over 10 bytes\"" "$TMP/out3" &&
	 [ "$(tg_calls file | wc -l)" = 0 ] && [ ! -e "$OXI_HOME/files/telegram/u-report.pdf" ]'
check 'a bad OXI_TELEGRAM_FILE_MAX: exit 100' \
	'OXI_TELEGRAM_FILE_MAX=big oxi-recv telegram </dev/null 2>/dev/null; [ $? = 100 ]'

# a body that goes past the cap while it comes (no size given anywhere)
export OXI_HOME="$TMP/home3"
printf '%s\n' "{\"message\":{\"message_id\":9,\"date\":1700000000,$P,\"voice\":{\"file_id\":\"voice1.oga\",\"file_unique_id\":\"u-v\",\"duration\":1}}}" >"$TMP/one"
tg_start --files "$TMP/files" --no-sizes
tg_feed "$TMP/one"
OXI_TELEGRAM_FILE_MAX=4k tg_run "$TMP/out4" "$TMP/err4"
check 'a download that outgrows the cap is cut: an error, no file left' \
	'grep -q "\"error\":\"download: file over 4096 bytes\"" "$TMP/out4" &&
	 [ -z "$(ls "$OXI_HOME/files/telegram" 2>/dev/null)" ]'
check 'the token is in no path, record or warning' \
	'! grep -h "$SECRET_PART" "$TMP"/out* "$TMP"/err*'
done_testing
