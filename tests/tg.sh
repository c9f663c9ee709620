# tg.sh - the fake Bot API (tests/fake/telegram.py) for the telegram tests
# of oxi-recv and oxi-send, sourced by tests/t11xx and t6xxx after lib.sh
#
# tg_start [ARGS]: starts the fake (its calls logged to $TMP/tglog) and
# points the channel at it; tg_feed FILE feeds it updates (one JSON a
# line, or {"update":...} lines as in ../shared/wire); tg_wait waits
# until the receiver has confirmed every update fed, which it does once
# it has written them (it drains before each getUpdates); tg_recv OUT
# ERR [ARGS] runs oxi-recv telegram in the background (RECV_PID) and
# waits for its readiness (RECV_WRAP, if set, is a command to run it
# under, such as valgrind); tg_stop ends it with SIGTERM and sets RC, and
# STOP_MS, the milliseconds it took to exit.

TOKEN=123456:TEST-token_0123456789abcdef
SECRET_PART=TEST-token_0123456789abcdef
export TELEGRAM_BOT_TOKEN="$TOKEN" OXI_DEADLETTER="$TMP/dead.ndjson"
# short long polls: a receiver asks again at most a second after an
# update is fed
export OXI_TELEGRAM_POLL=1

tg_start() {
	fake_server telegram.py --log "$TMP/tglog" --token "$TOKEN" "$@"
	export OXI_TELEGRAM_BASE_URL="http://127.0.0.1:$PORT"
}

# tg_ctl PATH [FILE]: a control request (a POST of FILE, else a GET)
tg_ctl() {
	fake_ctl "$@"
}

tg_feed() {
	tg_ctl updates "$1" >/dev/null
}

# tg_state KEY: a number or a JSON value of the fake's state
tg_state() {
	tg_ctl state | python3 -c 'import json, sys
v = json.load(sys.stdin)[sys.argv[1]]
print(v if isinstance(v, (int, str)) else json.dumps(v))' "$1"
}

# tg_wait [SECS]: every update fed is confirmed (default 10 s): 0 or 1
tg_wait() {
	_w=0
	while [ "$_w" -lt "$((${1:-10} * 20))" ]; do
		[ "$(tg_state confirmed)" -ge "$(tg_state next_id)" ] 2>/dev/null &&
			return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}

# tg_recv OUT ERR [ARGS]: oxi-recv ARGS telegram in the background
tg_recv() {
	chan_recv telegram "$@"
}

tg_stop() {
	_t0=$(date +%s%N)
	kill -TERM "$RECV_PID" 2>/dev/null
	wait "$RECV_PID"
	RC=$?
	STOP_MS=$((($(date +%s%N) - _t0) / 1000000))
}

# tg_run OUT ERR [ARGS]: tg_recv, tg_wait, tg_stop
tg_run() {
	tg_recv "$@"
	tg_wait
	tg_stop
}

# tg_calls METHOD: the parameters of each call of METHOD, one JSON a line
tg_calls() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == sys.argv[2]:
        print(json.dumps(r["params"], sort_keys=True))' "$TMP/tglog" "$1"
}
