# tgsend.sh - oxi-send telegram against the fake Bot API, sourced by
# tests/t113x after lib.sh and tg.sh
#
# out ID CHAT TEXT [KEY:JSON...]: a msg.out record on stdout (TEXT a JSON
# string's inside; each extra KEY:JSON a key of its own); draft the
# same for a msg.draft.  tx_run IN [ARGS]: oxi-send ARGS telegram < IN,
# receipts in $TMP/rcpt, stderr in $TMP/err, its status in RC.
# sent [METHOD]: what the fake took, one JSON a line ({"method",
# "params","ts"}), the token checks (getMe) only when asked; texts METHOD: the "text" of each call, one a line.
# tg_fail JSON: a failure injected into the fake.

out() {
	_t=$1 _i=$2 _c=$3 _x=$4
	shift 4
	_more=
	for _kv in "$@"; do
		_more="$_more,\"${_kv%%:*}\":${_kv#*:}"
	done
	printf '{"v":1,"type":"%s","id":"%s","in_reply_to":"telegram:main:%s:7","channel":"telegram","account":"main","chat":"%s","text":"%s"%s}\n' \
	    "$_t" "$_i" "$_c" "$_c" "$_x" "$_more"
}

tx_run() {
	_in=$1
	shift
	with_timeout 60 oxi-send "$@" telegram <"$_in" >"$TMP/rcpt" 2>"$TMP/err"
	RC=$?
	tg_nome
}

# tg_nome: the token checks at start (getMe) left out of the fake's log
tg_nome() {
	[ -f "$TMP/tglog" ] || return 0
	grep -v '"method": *"getMe"' "$TMP/tglog" >"$TMP/tglog.x"
	cat "$TMP/tglog.x" >"$TMP/tglog"
	rm -f "$TMP/tglog.x"
}

sent() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if (len(sys.argv) < 3 and r["method"] != "getMe") or \
            r["method"] in sys.argv[2:3]:
        print(json.dumps({"method": r["method"], "params": r["params"],
                          "ts": r["ts"]}, sort_keys=True))' "$TMP/tglog" "$@"
}

texts() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == sys.argv[2]:
        print(json.dumps(r["params"].get("text")))' "$TMP/tglog" "$1"
}

tg_fail() {
	printf '%s' "$1" >"$TMP/fail.json"
	tg_ctl fail "$TMP/fail.json" >/dev/null
}

# tg_clear: the fake's log emptied (the calls so far forgotten)
tg_clear() {
	: >"$TMP/tglog"
}
