# sk.sh - the fake Slack (tests/fake/slack.py) for the slack tests of
# oxi-recv and oxi-send, sourced by tests/t114x, t115x and t6xxx after
# lib.sh
#
# sk_start [ARGS]: starts the fake (its calls logged to $TMP/sklog) and
# points the channel at it; sk_feed FILE feeds it envelopes or events
# (see slack.py /control/events); sk_wait waits until every envelope fed
# is acknowledged; sk_recv OUT ERR [ARGS] runs oxi-recv slack in the
# background (RECV_PID) and waits for its readiness (RECV_WRAP, if set,
# runs it under a command such as valgrind); sk_stop ends it with
# SIGTERM and sets RC.  sk_calls METHOD: the parameters of each call of
# METHOD, one JSON a line.  sk_state KEY: a value of the fake's state.

BOT_TOKEN=xoxb-0000-test-bot-token
APP_TOKEN=xapp-1-A0APP-test-app-token
SECRET_PART=test-bot-token
APP_PART=test-app-token
SIGNING_SECRET=8f742231b10e8888abcd99yyyzzz85a5
export SLACK_BOT_TOKEN="$BOT_TOKEN" SLACK_APP_TOKEN="$APP_TOKEN"
export OXI_DEADLETTER="$TMP/dead.ndjson"

sk_start() {
	fake_server slack.py --log "$TMP/sklog" --bot-token "$BOT_TOKEN" \
	    --app-token "$APP_TOKEN" --signing-secret "$SIGNING_SECRET" "$@"
	export OXI_SLACK_API="http://127.0.0.1:$PORT/api"
}

# sk_ctl PATH [FILE]: a control request (a POST of FILE, else a GET)
sk_ctl() {
	fake_ctl "$@"
}

# sk_post PATH JSON: a control request with JSON given
sk_post() {
	printf '%s' "$2" >"$TMP/.ctl"
	sk_ctl "$1" "$TMP/.ctl"
}

sk_feed() {
	sk_ctl events "$1" >/dev/null
}

sk_state() {
	sk_ctl state | python3 -c 'import json, sys
v = json.load(sys.stdin)[sys.argv[1]]
print(v if isinstance(v, (int, str)) else json.dumps(v))' "$1"
}

# sk_wait [SECS]: every envelope fed is acknowledged: 0 or 1
sk_wait() {
	wait_until "${1:-10}" '[ "$(sk_state pending)" = 0 ]'
}

sk_recv() {
	chan_recv slack "$@"
}

sk_stop() {
	kill -TERM "$RECV_PID" 2>/dev/null
	wait "$RECV_PID"
	RC=$?
}

# ev CHAT USER TS TEXT [MEMBER...]: an {"event":...} line, a message;
# each MEMBER one more of its keys, as JSON: '"channel_type":"im"'
ev() {
	_c=$1 _u=$2 _ts=$3 _x=$4
	shift 4
	_more=
	for _kv in "$@"; do
		_more="$_more,$_kv"
	done
	printf '{"event":{"type":"message","channel":"%s","user":"%s","ts":"%s","text":"%s"%s}}\n' \
	    "$_c" "$_u" "$_ts" "$_x" "$_more"
}

sk_calls() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == sys.argv[2]:
        print(json.dumps(r["params"], sort_keys=True))' "$TMP/sklog" "$1"
}
