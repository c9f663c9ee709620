#!/bin/sh
# oxi-guard out: the pattern rules of share/oxi/secrets find secrets no
# one configured, plain and encoded; placeholders and prose pass; -r and
# OXI_SECRET_RULES name another rules file, a bad one is fatal
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 12

export OXI_DEADLETTER="$TMP/dead.ndjson" OXI_AUDIT_LOG="$TMP/audit.log"
out() {	# out ID TEXT
	python3 -c 'import json, sys
print(json.dumps({"v": 1, "type": "msg.out", "id": sys.argv[1],
    "channel": "cli", "chat": "c1", "text": sys.argv[2]}))' "$1" "$2"
}
text() { jget '["text"]' /dev/stdin; }

GH=ghp_Zq7vW2kLm9Xc4Rt8Yb1Nh6Jd3Fs5Pg0AeUoI
check 'a GitHub token is redacted' \
	'[ "$(out r1 "token $GH here" | oxi-guard out 2>/dev/null | text)" = "token [REDACTED] here" ]'
check 'in base64 too' \
	'[ "$(out r2 "it is $(printf %s "$GH" | base64 -w0) ok" | oxi-guard out 2>/dev/null | text)" = "it is [REDACTED] ok" ]'
check 'an AWS key pair in a config' \
	'[ "$(out r3 "aws_access_key_id = AKIA4QWZ7XN2K5R7T3PL
aws_secret_access_key = qT7/zK2mX9vB4nW8cR1yL6pJ3hF5dS0gA+eUoIiY" | oxi-guard out 2>/dev/null | text)" = "aws_access_key_id = [REDACTED]
aws_secret_access_key = [REDACTED]" ]'
check 'the password of a URL, the rest kept' \
	'[ "$(out r4 "db at postgres://app:s3cr3tPassw0rd@db.local/x" | oxi-guard out 2>/dev/null | text)" = "db at postgres://app:[REDACTED]@db.local/x" ]'
check 'a private key block' \
	'out r5 "$(printf -- "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----")" |
	 oxi-guard out 2>/dev/null | text | grep -qx "\[REDACTED\]"'
check 'placeholders and examples pass' \
	'for t in "api_key = \"your_api_key_here\"" "token: \${GITHUB_TOKEN}" \
	    "password: <password>" "AKIAIOSFODNN7EXAMPLE"; do
		[ "$(out p "$t" | oxi-guard out 2>/dev/null | text)" = "$t" ] || exit 1
	 done'
check 'prose about keys and tokens passes byte for byte' \
	'out p2 "Rotate the API key monthly; the token expires in 3600 seconds. See the key_vault_name setting." >"$TMP/p2" &&
	 oxi-guard out <"$TMP/p2" 2>/dev/null | cmp -s - "$TMP/p2"'

printf 'rule mine\n\tkeywords acme_\n\tregex acme_(?<s>[0-9]{8})\n' >"$TMP/rules"
check '-r names another rules file' \
	'[ "$(out r6 "id acme_12345678 and $GH" | oxi-guard out -r "$TMP/rules" 2>/dev/null | text)" = "id acme_[REDACTED] and $GH" ]'
check 'OXI_SECRET_RULES too' \
	'[ "$(out r7 "acme_87654321" | OXI_SECRET_RULES="$TMP/rules" oxi-guard out 2>/dev/null | text)" = "acme_[REDACTED]" ]'
check '"none": no rules' \
	'[ "$(out r8 "$GH" | oxi-guard out -r none 2>/dev/null | text)" = "$GH" ]'
printf 'rule bad\n\tkeywords x\n\tregex (unclosed\n' >"$TMP/bad"
check_exit 'a rules file with a bad regex: exit 100' 100 \
	'out r9 x | oxi-guard out -r "$TMP/bad" >/dev/null 2>"$TMP/err"'
check_grep 'naming its line' "secret rules '.*/bad', line 3: a regex does not compile" \
	"$TMP/err"
done_testing
