#!/bin/sh
# MCP servers run in the sandbox (T-SBX SBX-8), under bubblewrap and under
# Landlock: the stub server tests/fake/mcp-stdio.py cannot read secrets,
# write outside the workspace or reach the network unless granted, and
# sees a scrubbed environment; nothing runs when no sandbox works
cd "$(dirname "$0")" && . ./lib.sh || exit 1

# SBX_AS=nobody runs oxi-tool as nobody through setpriv (t5503, t5605)
if [ "${SBX_AS:-}" = nobody ]; then
	unpriv
	unpriv_copy bin/oxi-tool tests/fake/mcp-stdio.py
fi

plan 19

WS=$TMP/ws
mkdir -p "$WS" "$HOME/.ssh"
echo 'FIXTURE-SSH-PRIVATE-KEY-c41d' >"$HOME/.ssh/id_ed25519"
echo '# bashrc' >"$HOME/.bashrc"
fake_server tcp-sink.py --log "$TMP/sink.log"
chmod -R a+rX "$HOME" "$TMP"
[ -z "$RUN" ] || chown -R "$UOWNER" "$WS"
cfg() {	# cfg NETWORK: one server "fake" with sandbox.network NETWORK
	cat >"$TMP/mcp.json" <<EOF2
{"servers":{"fake":{"command":"python3",
 "args":["$UTOP/tests/fake/mcp-stdio.py"],"env":{"ANSWER":"42"},
 "sandbox":{"network":$1,"ro":["$UTOP/tests/fake"]}}}}
EOF2
	trust_mcp "$TMP/mcp.json"
}
call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"fake__%s","args":%s}\n' \
		"$1" "$2" "$3"
}
run() {	# run ARGS...: oxi-tool ARGS <in >out 2>err, then $TMP/c.N for
	# each result: "error: " or "ok: ", then its content
	$RUN oxi-tool "$@" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	python3 -c 'import json, sys
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    open("%s.%d" % (sys.argv[2], i + 1), "w").write(
        ("error: " if r["is_error"] else "ok: ") + r["content"])' \
	    "$TMP/out" "$TMP/c"
	return $_rc
}
content() {	# content N: that of the Nth result
	cat "$TMP/c.$1"
}

for mech in bwrap landlock; do
	export OXI_SANDBOX=$mech
	rm -f "$WS/w.txt" "$TMP/sink.log"
	cfg false
	{
		call r1 read "{\"path\":\"$HOME/.ssh/id_ed25519\"}"
		call r2 read '{"path":"/etc/shadow"}'
		call w1 write "{\"path\":\"$HOME/.bashrc\"}"
		call w2 write "{\"path\":\"$WS/w.txt\"}"
		call n1 connect "{\"port\":$PORT}"
		call e1 environ '{}'
	} >"$TMP/in"
	check_exit "$mech: exit 0" 0 \
		'FAKE_API_KEY=k1 GITHUB_TOKEN=t1 MY_SECRET=s1 DB_PASSWORD=p1 \
		 run -M "$TMP/mcp.json" -w "$WS"'
	check "$mech: the ssh key fixture cannot be read" \
		'content 1 | grep -q "^error: " && ! grep -q FIXTURE "$TMP/out"'
	check "$mech: nor /etc/shadow" 'content 2 | grep -q "^error: "'
	check "$mech: ~/.bashrc cannot be written" \
		'content 3 | grep -q "^error: " &&
		 [ "$(cat "$HOME/.bashrc")" = "# bashrc" ]'
	check "$mech: the workspace can" \
		'[ "$(content 4)" = "ok: wrote $WS/w.txt" ] &&
		 [ "$(cat "$WS/w.txt")" = "written by the fake" ]'
	check "$mech: no connection to a loopback server" \
		'content 5 | grep -q "^error: " && [ ! -s "$TMP/sink.log" ]'
	check "$mech: no KEY, TOKEN, SECRET or PASSWORD in its environment" \
		'content 6 | grep -q "^ok: .*PATH" && content 6 | grep -q ANSWER &&
		 ! content 6 | grep -Eqi "key|token|secret|password"'
	cfg true
	call n2 connect "{\"port\":$PORT}" >"$TMP/in"
	check "$mech: sandbox.network grants it" \
		'run -M "$TMP/mcp.json" -w "$WS" &&
		 [ "$(content 1)" = "ok: connected" ] &&
		 grep -q "connection: hello" "$TMP/sink.log"'
done

export OXI_SANDBOX=none-available
cfg false
call u1 echo '{"text":"x"}' >"$TMP/in"
check_exit 'no sandbox: still exit 0' 0 \
	'run -M "$TMP/mcp.json" -w "$WS"'
check 'the server is not started: a warning, no tools' \
	'grep -q "^oxi-tool: warning: mcp server '\''fake'\'': no sandbox works here" \
	    "$TMP/err" &&
	 content 1 | grep -q "^error: unknown tool '\''fake__echo'\''"'
check 'unsafe mode (-U) starts it, with a warning' \
	'run -U -M "$TMP/mcp.json" -w "$WS" && [ "$(content 1)" = "ok: x" ] &&
	 grep -q "warning: sandbox: unsafe mode: running .*python3" "$TMP/err"'
unset OXI_SANDBOX
done_testing
