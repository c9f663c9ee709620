#!/bin/sh
# oxi-llm -a: images and PDFs, files or URLs, become content parts of the
# llm.request, and each dialect sends them in its own shape (the fakes'
# logged request bodies); the log keeps the path and -c reads it again
cd "$(dirname "$0")" && . ./lib.sh && . ./llmprov.sh || exit 1
plan 32

prov_all
b64() { python3 -c 'import base64, sys
print(base64.b64encode(open(sys.argv[1], "rb").read()).decode())' "$1"; }
posts() { cat "$TMP"/*.log | wc -l | tr -d ' '; }

printf '\211PNG\r\n\032\nfake png' >"$TMP/a.png"
printf '\377\330\377\340fake jpeg' >"$TMP/b.jpg"
printf 'GIF89afake gif' >"$TMP/c.gif"
printf 'RIFF\020\000\000\000WEBPVP8 fake' >"$TMP/d.webp"
printf '%%PDF-1.4 fake pdf' >"$TMP/doc.pdf"
PNG=$(b64 "$TMP/a.png") PDF=$(b64 "$TMP/doc.pdf")
ask() {	# ask MODEL ARGS...: a prompt with attachments, stdin empty
	_m=$1
	shift
	oxi-llm -m "$_m" "$@" </dev/null >"$TMP/out"
}

check 'Chat Completions: a text part, then image_url and file parts with data URLs' \
	'ask openai/gpt-x -a "$TMP/a.png" --attachment "$TMP/doc.pdf" describe &&
	 [ "$(cat "$TMP/out")" = "echo: describe" ] &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"][0]")" = "{\"text\": \"describe\", \"type\": \"text\"}" ] &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"][1]")" = "{\"image_url\": {\"url\": \"data:image/png;base64,$PNG\"}, \"type\": \"image_url\"}" ] &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"][2]")" = "{\"file\": {\"file_data\": \"data:application/pdf;base64,$PDF\", \"filename\": \"doc.pdf\"}, \"type\": \"file\"}" ]'
check 'Chat Completions: an image URL as it is' \
	'ask openai/gpt-x -a https://example.org/cat.JPG?s=1 what &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"][1]")" = "{\"image_url\": {\"url\": \"https://example.org/cat.JPG?s=1\"}, \"type\": \"image_url\"}" ]'
n=$(posts)
check_exit 'Chat Completions: a PDF URL is refused, 100' 100 \
	'ask openai/gpt-x -a https://example.org/paper.pdf read'
check_grep 'saying why' 'takes a file as data, not as a URL' "$TMP/.err"
check 'and nothing was sent' '[ "$(posts)" = "$n" ]'

check 'Responses: input_text, input_image and input_file' \
	'ask openai-responses/o-x -a "$TMP/a.png" -a "$TMP/doc.pdf" describe &&
	 [ "$(dbody responses "[\"input\"][0][\"content\"]")" = "[{\"text\": \"describe\", \"type\": \"input_text\"}, {\"image_url\": \"data:image/png;base64,$PNG\", \"type\": \"input_image\"}, {\"file_data\": \"data:application/pdf;base64,$PDF\", \"filename\": \"doc.pdf\", \"type\": \"input_file\"}]" ]'
check 'Responses: URLs as image_url and file_url' \
	'ask openai-responses/o-x -a https://example.org/a.png -a https://example.org/p.pdf see &&
	 [ "$(dbody responses "[\"input\"][0][\"content\"][1:]")" = "[{\"image_url\": \"https://example.org/a.png\", \"type\": \"input_image\"}, {\"file_url\": \"https://example.org/p.pdf\", \"type\": \"input_file\"}]" ]'

check 'Anthropic: image and document blocks with base64 sources' \
	'ask anthropic/claude-x -a "$TMP/a.png" -a "$TMP/doc.pdf" describe &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"]")" = "[{\"text\": \"describe\", \"type\": \"text\"}, {\"source\": {\"data\": \"$PNG\", \"media_type\": \"image/png\", \"type\": \"base64\"}, \"type\": \"image\"}, {\"source\": {\"data\": \"$PDF\", \"media_type\": \"application/pdf\", \"type\": \"base64\"}, \"type\": \"document\"}]" ]'
check 'Anthropic: URL sources' \
	'ask anthropic/claude-x -a https://example.org/a.gif -a https://example.org/p.pdf see &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"][1:]")" = "[{\"source\": {\"type\": \"url\", \"url\": \"https://example.org/a.gif\"}, \"type\": \"image\"}, {\"source\": {\"type\": \"url\", \"url\": \"https://example.org/p.pdf\"}, \"type\": \"document\"}]" ]'
check 'the type is told by the first bytes: jpeg, gif, webp' \
	'ask anthropic/claude-x -a "$TMP/b.jpg" -a "$TMP/c.gif" -a "$TMP/d.webp" x &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"][1][\"source\"][\"media_type\"]")" = image/jpeg ] &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"][2][\"source\"][\"media_type\"]")" = image/gif ] &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"][3][\"source\"][\"media_type\"]")" = image/webp ]'

check 'Gemini: inlineData parts after the text' \
	'ask gemini/gemini-x -a "$TMP/a.png" -a "$TMP/doc.pdf" describe &&
	 [ "$(dbody gemini "[\"contents\"][0][\"parts\"]")" = "[{\"text\": \"describe\"}, {\"inlineData\": {\"data\": \"$PNG\", \"mimeType\": \"image/png\"}}, {\"inlineData\": {\"data\": \"$PDF\", \"mimeType\": \"application/pdf\"}}]" ]'
check 'Gemini: a URL as fileData' \
	'ask gemini/gemini-x -a https://example.org/a.webp see &&
	 [ "$(dbody gemini "[\"contents\"][0][\"parts\"][1]")" = "{\"fileData\": {\"fileUri\": \"https://example.org/a.webp\", \"mimeType\": \"image/webp\"}}" ]'

check 'Ollama: images as base64 beside the text' \
	'ask ollama/llava -a "$TMP/a.png" describe &&
	 [ "$(dbody ollama "[\"messages\"][0][\"content\"]")" = describe ] &&
	 [ "$(dbody ollama "[\"messages\"][0][\"images\"]")" = "[\"$PNG\"]" ]'
n=$(posts)
check_exit 'Ollama: a PDF is refused, 100' 100 'ask ollama/llava -a "$TMP/doc.pdf" x'
check_grep 'saying why' 'Ollama takes images as data, not files' "$TMP/.err"
check_exit 'Ollama: an image URL is refused, 100' 100 \
	'ask ollama/llava -a https://example.org/a.png x'
check 'nothing was sent' '[ "$(posts)" = "$n" ]'

# types and sources
check '--at URL TYPE for a URL whose name says nothing' \
	'ask openai/gpt-x --at https://example.org/img?id=3 image/png see &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"][1][\"image_url\"][\"url\"]")" = "https://example.org/img?id=3" ] &&
	 ask anthropic/claude-x --attachment-type https://example.org/img?id=3 image/jpg see &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"][1][\"type\"]")" = image ]'
n=$(posts)
check_exit 'such a URL without --at: 100' 100 'ask openai/gpt-x -a https://example.org/img?id=3 x'
check_grep 'asking for --at' "no type in its name: give it with --at" "$TMP/.err"
check_exit '--at with a type that is not ours: 100' 100 \
	'ask openai/gpt-x --at "$TMP/a.png" audio/wav x'
check_exit 'a file that is not an image or a PDF: 100' 100 \
	'ask openai/gpt-x -a "$TMP/openai.log" x'
check_grep 'naming it' "openai.log' is not an image or a PDF" "$TMP/.err"
check_exit 'a file that does not exist: 100' 100 'ask openai/gpt-x -a "$TMP/none.png" x'
dd if=/dev/zero of="$TMP/big.png" bs=1048576 count=21 2>/dev/null
check_exit 'a file over 20 MiB: 100' 100 'ask openai/gpt-x -a "$TMP/big.png" x'
check_grep 'with one clear error' "big.png' is over 20 MiB, too big to attach" "$TMP/.err"
rm -f "$TMP/big.png"
check 'none of these was sent' '[ "$(posts)" = "$n" ]'
check '-a - reads the attachment from stdin; the prompt is the arguments' \
	'oxi-llm -m openai/gpt-x -a - what is this <"$TMP/a.png" >/dev/null &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"]")" = "[{\"text\": \"what is this\", \"type\": \"text\"}, {\"image_url\": {\"url\": \"data:image/png;base64,$PNG\"}, \"type\": \"image_url\"}]" ]'
check 'an attachment needs no prompt' \
	'ask openai/gpt-x -a "$TMP/a.png" &&
	 [ "$(dbody openai "[\"messages\"][0][\"content\"][0][\"type\"]")" = image_url ]'

# the log, and continuing
check 'the log keeps the absolute path, not the data' \
	'(cd "$TMP" && oxi-llm -m anthropic/claude-x -a a.png describe </dev/null >/dev/null) &&
	 oxi-llm logs -n 1 --json >"$TMP/entry" &&
	 [ "$(jget "[\"attachments\"]" "$TMP/entry")" = "[{\"type\": \"image\", \"media_type\": \"image/png\", \"name\": \"a.png\", \"path\": \"$TMP/a.png\"}]" ]'
check '-c reads it again and sends it with the earlier turn' \
	'oxi-llm -c and now </dev/null >/dev/null &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"][1][\"source\"][\"data\"]")" = "$PNG" ] &&
	 [ "$(dbody anthropic "[\"messages\"][2][\"content\"]")" = "[{\"text\": \"and now\", \"type\": \"text\"}]" ]'
rm "$TMP/a.png"
check 'a file gone since: a warning, and the turn without it' \
	'oxi-llm -c again </dev/null >/dev/null 2>"$TMP/err" &&
	 grep -q "warning: an attachment of an earlier prompt is left out" "$TMP/err" &&
	 [ "$(dbody anthropic "[\"messages\"][0][\"content\"]")" = "[{\"text\": \"describe\", \"type\": \"text\"}]" ]'
done_testing
