#!/bin/sh
# oxi-recv discord -w: the HTTP interactions endpoint beside the Gateway:
# every vector of ../shared/wire/discord/discord_ed25519_vectors.json
# posted as Discord would (the valid ones answered, the others 401), a
# button's interaction signed here answered with the update of its
# message and written as an approval.answer, once
cd "$(dirname "$0")" && . ./lib.sh && . ./dc.sh || exit 1
command -v curl >/dev/null || skip_all "no curl"
command -v openssl >/dev/null || skip_all "no openssl"
V="$SHARED/wire/discord/discord_ed25519_vectors.json"
[ -n "$SHARED" ] && [ -f "$V" ] || skip_all "no ../shared/wire samples"
plan 9

# the key of RFC 8032 TEST 1, the vectors' signer, for our own requests
SEED=9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60
printf '302e020100300506032b657004220420%s' "$SEED" | xxd -r -p >"$TMP/k.der"
openssl pkey -inform DER -in "$TMP/k.der" -out "$TMP/k.pem" 2>/dev/null ||
	skip_all "openssl without Ed25519"
export DISCORD_PUBLIC_KEY=d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a

check_exit 'no public key: exit 100' 100 \
	'env -u DISCORD_PUBLIC_KEY oxi-recv -w 1 discord </dev/null'
check_grep '...saying which' '^oxi-recv: fatal: DISCORD_PUBLIC_KEY must be' \
	"$TMP/.err"

dc_start
HP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dc_recv "$TMP/out" "$TMP/err" -w "$HP"
# post TS SIG BODY-FILE: the endpoint's status and answer in $TMP/ans
post() {
	curl -sS -o "$TMP/ans" -w '%{http_code}' -H "X-Signature-Ed25519: $2" \
	    -H "X-Signature-Timestamp: $1" -H 'Content-Type: application/json' \
	    --data-binary "@$3" "http://127.0.0.1:$HP/interactions"
}
# the vectors of our key (the one of another key is t-discord's: an
# endpoint has one key)
python3 -c 'import json, sys
for v in json.load(open(sys.argv[1]))["discord_interaction_vectors"]["vectors"]:
    if v["public_key"] != sys.argv[3]:
        continue
    print(v["name"], v["x_signature_timestamp"], v["x_signature_ed25519"],
          1 if v["valid"] else 0)
    open(sys.argv[2] + "/" + v["name"], "w").write(v["body"])' "$V" "$TMP" \
	"$DISCORD_PUBLIC_KEY" >"$TMP/vectors"
: >"$TMP/got"
while read -r name ts sig valid; do
	st=$(post "$ts" "$sig" "$TMP/$name")
	echo "$name $valid $st $(cat "$TMP/ans")" >>"$TMP/got"
done <"$TMP/vectors"
check 'every valid vector is answered 200' \
	'[ "$(awk "\$2 == 1 && \$3 == 200" "$TMP/got" | wc -l)" = 2 ]'
check '...the PING with {"type":1}' \
	'grep -q "^ping 1 200 {\"type\":1}$" "$TMP/got"'
check 'every invalid vector (body, timestamp, signature changed, not hex, cut) is 401' \
	'[ "$(awk "\$2 == 0 && \$3 == 401" "$TMP/got" | wc -l)" = 5 ] &&
	 [ "$(wc -l <"$TMP/got")" = 7 ]'

# a button's interaction, signed here
printf '%s' '{"id":"990","type":3,"token":"t","application_id":"1","channel_id":"500","user":{"id":"2001","username":"ann"},"data":{"custom_id":"a:01ASK:deny","component_type":2},"message":{"id":"41","content":"Run `ls`?"}}' >"$TMP/click"
printf '1700000123' | cat - "$TMP/click" >"$TMP/signed"
sig=$(openssl pkeyutl -sign -inkey "$TMP/k.pem" -rawin -in "$TMP/signed" | xxd -p | tr -d '\n')
st=$(post 1700000123 "$sig" "$TMP/click")
check 'a click: answered at once, its message updated, buttons gone' \
	'[ "$st" = 200 ] && grep -q "\"type\":7" "$TMP/ans" &&
	 grep -q "\"components\":\[\]" "$TMP/ans" && grep -q "Denied" "$TMP/ans"'
wait_until 5 'grep -q approval.answer "$TMP/out"'
check '...written as an approval.answer' \
	'grep -q "\"id\":\"discord:main:cb:990\",\"ref\":\"01ASK\",\"choice\":\"deny\"" "$TMP/out"'
post 1700000123 "$sig" "$TMP/click" >/dev/null
sleep 0.3
dc_stop
check '...once, though posted twice; and no REST callback for it' \
	'[ "$(grep -c approval.answer "$TMP/out")" = 1 ] &&
	 [ "$(dc_state callbacks)" = "[]" ]'
check 'the Gateway ran beside it; SIGTERM: exit 0' \
	'[ "$RC" = 0 ] && [ "$(dc_state identifies)" = 1 ]'
