#!/bin/sh
# oxi-tool plugins run in the sandbox (T-SBX SBX-8), under bubblewrap and
# under Landlock: no secret read, nothing written outside the workspace,
# no network unless granted, and nothing runs when no sandbox works
cd "$(dirname "$0")" && . ./lib.sh || exit 1

# SBX_AS=nobody runs oxi-tool as nobody through setpriv (t5503, t5605)
if [ "${SBX_AS:-}" = nobody ]; then
	unpriv
	unpriv_copy bin/oxi-tool tests/plugins
fi

plan 21

P=$UTOP/tests/plugins
trust_plugins "$P"
WS=$TMP/ws
mkdir -p "$WS" "$HOME/.ssh"
echo 'FIXTURE-SSH-PRIVATE-KEY-2b7e' >"$HOME/.ssh/id_ed25519"
echo '# bashrc' >"$HOME/.bashrc"
fake_server tcp-sink.py --log "$TMP/sink.log"
chmod -R a+rX "$HOME" "$TMP"
[ -z "$RUN" ] || chown -R "$UOWNER" "$WS"
call() {
	printf '{"v":1,"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
content() {	# content N FILE: "error: " or "ok: ", then the content
	python3 -c 'import json, sys
r = json.loads(open(sys.argv[2]).readlines()[int(sys.argv[1]) - 1])
sys.stdout.write(("error: " if r["is_error"] else "ok: ") + r["content"])' \
	    "$1" "$2"
}

for mech in bwrap landlock; do
	export OXI_SANDBOX=$mech
	rm -f "$WS/w.txt" "$TMP/sink.log"
	{
		call r1 peek "{\"read\":\"$HOME/.ssh/id_ed25519\"}"
		call r2 peek '{"read":"/etc/shadow"}'
		call r3 peek '{"read":"/proc/1/environ"}'
		call w1 peek "{\"write\":\"$HOME/.bashrc\"}"
		call w2 peek "{\"write\":\"$TMP/outside.txt\"}"
		call w3 peek "{\"write\":\"$WS/w.txt\"}"
		call n1 net "{\"port\":$PORT}"
	} >"$TMP/in"
	check_exit "$mech: exit 0" 0 \
		'$RUN oxi-tool -P "$P" -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
	check "$mech: the ssh key fixture cannot be read" \
		'content 1 "$TMP/out" | grep -q "^error: " &&
		 ! grep -q FIXTURE "$TMP/out"'
	check "$mech: nor /etc/shadow" \
		'content 2 "$TMP/out" | grep -q "^error: "'
	check "$mech: nor the environment of pid 1" \
		'content 3 "$TMP/out" | grep -q "^error: "'
	check "$mech: ~/.bashrc cannot be written" \
		'content 4 "$TMP/out" | grep -q "^error: " &&
		 [ "$(cat "$HOME/.bashrc")" = "# bashrc" ]'
	# refused, or written into the sandbox's private /tmp when the test
	# tree lies under /tmp: either way nothing reaches the host
	check "$mech: nor a file outside the workspace" \
		'[ ! -e "$TMP/outside.txt" ]'
	check "$mech: the workspace can" \
		'content 6 "$TMP/out" | grep -q "^ok: wrote" &&
		 [ "$(cat "$WS/w.txt")" = "written by peek" ]'
	check "$mech: no connection to a loopback server" \
		'content 7 "$TMP/out" | grep -q "^error: " &&
		 [ ! -s "$TMP/sink.log" ]'
	call n2 net "{\"port\":$PORT}" >"$TMP/in"
	check "$mech: but one when the plugin is granted the network" \
		'OXI_PLUGINS_NET="upper, net" $RUN oxi-tool -P "$P" -w "$WS" \
		    <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
		 [ "$(content 1 "$TMP/out")" = "ok: connected" ] &&
		 grep -q "connection: hello" "$TMP/sink.log" &&
		 ! grep -q "asks for the network" "$TMP/err"'
done

# fail closed
export OXI_SANDBOX=none-available
call u1 upper '{"text":"x"}' >"$TMP/in"
check_exit 'no sandbox: still exit 0' 0 \
	'$RUN oxi-tool -P "$P" -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check 'no plugin runs: each is skipped with a warning' \
	'[ "$(grep -c "refusing to run" "$TMP/err")" = 7 ] &&
	 content 1 "$TMP/out" | grep -q "^error: unknown tool '\''upper'\''"'
check 'unsafe mode (-U) runs them unconfined, with a warning per run' \
	'$RUN oxi-tool -U -P "$P" -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &&
	 [ "$(content 1 "$TMP/out")" = "ok: X" ] &&
	 grep -q "warning: sandbox: unsafe mode: running .*upper" "$TMP/err"'
unset OXI_SANDBOX
done_testing
