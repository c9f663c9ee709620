# dc.sh - the fake Discord (tests/fake/discord.py) for the discord tests
# of oxi-recv and oxi-send, sourced by tests/t116x, t117x and t69xx after
# lib.sh
#
# dc_start [ARGS]: starts the fake (its calls logged to $TMP/dclog) and
# points the channel at it; dc_ctl PATH [JSON]: a control request (a
# POST of JSON, else a GET); dc_feed JSON: events for the Gateway;
# dc_state KEY: a value of the fake's state; dc_recv OUT ERR [ARGS]:
# oxi-recv ARGS discord in the background (RECV_PID), its readiness
# waited for (the first READY or RESUMED); dc_stop: SIGTERM, RC set;
# dc_sent [METHOD]: the REST calls the fake took, one JSON a line.

DCTOKEN=fake.discord.token-0123456789abcdef
export DISCORD_BOT_TOKEN="$DCTOKEN" OXI_DEADLETTER="$TMP/dead.ndjson"

dc_start() {
	fake_server discord.py --log "$TMP/dclog" --token "$DCTOKEN" "$@"
	export OXI_DISCORD_API="http://127.0.0.1:$PORT/api/v10"
}

dc_ctl() {
	if [ $# -gt 1 ]; then
		printf '%s' "$2" >"$TMP/.ctl"
		fake_ctl "$1" "$TMP/.ctl"
	else
		fake_ctl "$1"
	fi
}

dc_feed() {
	dc_ctl events "$1" >/dev/null
}

dc_state() {
	dc_ctl state | python3 -c 'import json, sys
v = json.load(sys.stdin)[sys.argv[1]]
print(v if isinstance(v, (int, str)) else json.dumps(v))' "$1"
}

dc_recv() {
	chan_recv discord "$@"
}

dc_stop() {
	kill -TERM "$RECV_PID" 2>/dev/null
	wait "$RECV_PID"
	RC=$?
}

# dc_sent [METHOD [PATH-PREFIX]]: the REST calls, {"method","path","body"}
dc_sent() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "method" not in r or r["path"] in ("/users/@me", "/gateway/bot"):
        continue
    if len(sys.argv) > 2 and r["method"] != sys.argv[2]:
        continue
    if len(sys.argv) > 3 and not r["path"].startswith(sys.argv[3]):
        continue
    print(json.dumps({"method": r["method"], "path": r["path"],
                      "body": r["body"]}, sort_keys=True))' "$TMP/dclog" "$@"
}

# dc_gw OP: the Gateway payloads of that opcode the fake took
dc_gw() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("gw") == int(sys.argv[2]):
        print(json.dumps(r["d"], sort_keys=True))' "$TMP/dclog" "$1"
}

# dc_msgs CHANNEL: the contents of the messages the bot has there
dc_msgs() {
	dc_ctl state | python3 -c 'import json, sys
for m in json.load(sys.stdin)["messages"].get(sys.argv[1], []):
    print(json.dumps(m["content"]))' "$1"
}
