#!/bin/sh
# oxi-tool shell, sandbox-first (the default OXI_SHELL_POLICY=sandbox): the
# line runs with /bin/sh -c in the sandbox with no approval, everything a
# developer types works, and the sandbox suite still holds for sh -c:
# secrets, writes outside, network, fork bomb, survivors, environment.
# "network": true is held and, once approved, reaches a loopback listener.
# SBX_MECH=bwrap|landlock picks the mechanism (t5204 runs landlock) and
# SBX_AS=nobody runs oxi-tool as nobody through setpriv (t5205, t5206).
cd "$(dirname "$0")" && . ./lib.sh || exit 1

MECH=${SBX_MECH:-bwrap}
[ "$MECH" != bwrap ] || command -v bwrap >/dev/null ||
	skip_all "bubblewrap is not installed"
if [ "${SBX_AS:-}" = nobody ]; then
	unpriv
	unpriv_copy bin/oxi-tool
fi

WS=$TMP/ws
mkdir -p "$WS/sub" "$HOME/.ssh" "$OXI_HOME" "$OXI_CONFIG_DIR"
echo 'FIXTURE-SSH-PRIVATE-KEY-3e1d' >"$HOME/.ssh/id_ed25519"
echo '# bashrc' >"$HOME/.bashrc"
echo 'text of a' >"$WS/a"
echo 'text of b' >"$WS/b"
echo 'to remove' >"$WS/gone"
printf '#include <stdio.h>\nint main(void) { puts("hello from cc"); return 0; }\n' \
	>"$WS/hello.c"
cat >"$TMP/srv.py" <<'PY'
import socket, sys
log = open(sys.argv[1], "a", buffering=1)
t = socket.socket()
t.bind(("127.0.0.1", 0))
t.listen(8)
open(sys.argv[2], "w").write(str(t.getsockname()[1]))
while True:
    c, _ = t.accept()
    log.write("accepted\n")
    c.close()
PY
bg python3 "$TMP/srv.py" "$TMP/accepted" "$TMP/port"
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$TMP/port")
: >"$TMP/accepted"
chmod -R a+rX "$HOME" "$TMP"
if [ -n "$RUN" ]; then
	chown -R "$UOWNER" "$WS" "$OXI_HOME" "$OXI_CONFIG_DIR"
fi
export FIXTURE_API_KEY=fixture-api-key-77aa OPENAI_API_KEY=fixture-openai-5c5c
export OXI_SANDBOX=$MECH

# calls: lines "ID<TAB>COMMAND[<TAB>TIMEOUT[<TAB>net]]" on stdin ->
# $TMP/r/ID (content), $TMP/r/ID.err when is_error
calls() {
	rm -rf "$TMP/r"
	mkdir -p "$TMP/r"
	python3 -c '
import json, sys
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    f = line.split("\t")
    a = {"command": f[1]}
    if len(f) > 2 and f[2]:
        a["timeout"] = int(f[2])
    if len(f) > 3:
        a["network"] = True
    print(json.dumps({"type": "tool.call", "id": f[0], "name": "shell",
                      "args": a}))
' >"$TMP/calls"
	$RUN oxi-tool "$@" -w "$WS" <"$TMP/calls" >"$TMP/results" \
		2>"$TMP/tool.err"
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    open(sys.argv[2] + "/" + r["id"], "w").write(r["content"] + "\n")
    open(sys.argv[2] + "/" + r["id"] + ".taint", "w").write(
        " ".join(r.get("taint", [])) + "\n")
    if r["is_error"]:
        open(sys.argv[2] + "/" + r["id"] + ".err", "w").close()
' "$TMP/results" "$TMP/r"
}
ok_() { [ -e "$TMP/r/$1" ] && [ ! -e "$TMP/r/$1.err" ]; }
err_() { [ -e "$TMP/r/$1.err" ]; }

printf 'probe\ttrue\n' | calls
if grep -q 'no sandbox works' "$TMP/r/probe" 2>/dev/null; then
	skip_all "no $MECH sandbox here: $(cat "$TMP/r/probe")"
fi

plan 37

# the everyday cases: all run, none is held
calls <<EOF
pipe	ls | wc -l
redir	echo x > f && cat f
and	cat a && cat b
loop	for f in a b; do echo "<\$f>"; done; for f in *; do echo "\$f"; done
arith	echo \$((2+3))
subst	echo \$(pwd)
git	git init -q && git status --short
cc	cc -o hello hello.c && ./hello
py	python3 -c 'print(6*7)'
rm	rm gone && ls
EOF
check 'no call is held for approval' \
	'! grep -l "needs approval" "$TMP/r/"* >/dev/null 2>&1'
check 'ls | wc -l: a pipe' 'ok_ pipe && grep -qx " *[0-9][0-9]*" "$TMP/r/pipe"'
check 'echo x > f && cat f: redirection and &&' \
	'ok_ redir && grep -qx x "$TMP/r/redir" && [ "$(cat "$WS/f")" = x ]'
check 'cat a && cat b' \
	'ok_ and && [ "$(head -n 2 "$TMP/r/and")" = "text of a
text of b" ]'
check 'for loops and a glob' \
	'ok_ loop && grep -qx "<a>" "$TMP/r/loop" && grep -qx "<b>" "$TMP/r/loop" &&
	 grep -qx hello.c "$TMP/r/loop"'
check 'echo $((2+3))' 'ok_ arith && grep -qx 5 "$TMP/r/arith"'
check 'echo $(pwd): the workspace' 'ok_ subst && grep -qx "$WS" "$TMP/r/subst"'
if command -v git >/dev/null; then
	check 'git init -q && git status --short' 'ok_ git && [ -d "$WS/.git" ]'
else
	check 'git: not installed, so it fails' 'err_ git'
fi
if command -v cc >/dev/null; then
	check 'cc: compile and run' 'ok_ cc && grep -qx "hello from cc" "$TMP/r/cc"'
else
	check 'cc: not installed, so it fails' 'err_ cc'
fi
check "python3 -c 'print(6*7)'" 'ok_ py && grep -qx 42 "$TMP/r/py"'
check 'rm inside the workspace' 'ok_ rm && [ ! -e "$WS/gone" ] && [ -e "$WS/a" ]'
printf '{"type":"tool.call","id":"sub","name":"shell","args":{"command":"pwd; echo in sub > here","cwd":"sub"}}\n' |
	$RUN oxi-tool -w "$WS" >"$TMP/cwd.out" 2>/dev/null
check 'cwd: sh runs there' \
	'grep -q "\"is_error\":false" "$TMP/cwd.out" && [ -e "$WS/sub/here" ]'

# the sandbox suite, through sh -c
G=$$
calls <<EOF
shadow	cat /etc/shadow
ssh	cat $HOME/.ssh/id_ed25519
lshome	ls -a $HOME
etc	echo pwned > /etc/oxi-t5203-$G
bashrc	echo pwned >> $HOME/.bashrc
up	echo pwned > ../escape-$G
usr	touch /usr/oxi-t5203-$G && echo made
tcp	python3 -c 'import socket; socket.create_connection(("127.0.0.1", $PORT), 2)'
env	env
keys	env | grep _API_KEY
proc	cat /proc/self/environ | tr '\0' '\n' | grep -c API_KEY
bomb	b() { b | b & }; b; sleep 60 # bomb$G	2
tree	sleep 1${G}1 & (setsid sleep 1${G}2 &); sleep 1${G}3	1
EOF
check 'reading /etc/shadow fails' 'err_ shadow'
check 'reading ~/.ssh fails' 'err_ ssh'
check_nogrep 'no fixture secret in any result' 'FIXTURE-' "$TMP/results"
check_nogrep 'the home directory shows nothing' 'ssh|bashrc' "$TMP/r/lshome"
check 'writing /etc fails' "err_ etc && [ ! -e /etc/oxi-t5203-$G ]"
check 'writing ~/.bashrc fails' \
	'err_ bashrc && [ "$(cat "$HOME/.bashrc")" = "# bashrc" ]'
check 'writing above the workspace writes nothing outside' \
	"[ ! -e '$TMP/escape-$G' ]"
check 'writing /usr fails' "err_ usr && [ ! -e /usr/oxi-t5203-$G ]"
check 'a connection to a loopback listener fails' \
	'err_ tcp && [ ! -s "$TMP/accepted" ]'
check_nogrep 'the environment holds no *_API_KEY' 'API_KEY|fixture-' \
	"$TMP/r/env"
check 'env | grep _API_KEY finds none' \
	'err_ keys && grep -q "^\[exit code 1\]" "$TMP/r/keys"'
check '/proc/self/environ neither' 'grep -qx 0 "$TMP/r/proc"'
check 'a fork bomb is contained and killed' 'err_ bomb'
check 'and leaves no survivor' "! pgrep -f 'bom[b]$G'"
check_grep 'a timeout kills the group' 'killed: .*timeout of 1 s' \
	"$TMP/r/tree"
check 'and leaves no survivor, setsid or not' "! pgrep -f 'sleep 1$G[123]'"

# network: true leaves the sandbox, and only that is held
STORE=$OXI_CONFIG_DIR/shell-approved
NETCMD="python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $PORT), 2); print(\"connected\")'"
printf 'net\t%s\t\tnet\n' "$NETCMD" | calls
check 'network: true is held' \
	'err_ net && grep -q "^shell: needs approval: it asks for the network" "$TMP/r/net"'
check_grep 'saying nothing ran' 'Nothing was run' "$TMP/r/net"
check 'nothing reached the listener' '[ ! -s "$TMP/accepted" ]'
tail -n 1 "$TMP/r/net" >"$TMP/line"
check 'the approval line names /bin/sh -c LINE, cwd and the network' '
	python3 - "$TMP/line" "$NETCMD" <<"PY"
import json, sys
l = json.loads(open(sys.argv[1]).read())
assert l["argv"] == ["/bin/sh", "-c", sys.argv[2]], l
assert l["cwd"] == "." and l["network"] is True, l
assert sorted(l) == ["argv", "bin", "cwd", "env", "network"], l
PY'
cp "$TMP/line" "$STORE-once"
[ -z "$RUN" ] || chown "$UOWNER" "$STORE-once"
printf 'net\t%s\t\tnet\n' "$NETCMD" | calls
check 'approved once: it runs with the network' \
	'ok_ net && grep -qx connected "$TMP/r/net" && grep -q accepted "$TMP/accepted"'
: >"$TMP/accepted"
printf 'net\t%s\t\tnet\nnonet\t%s\n' "$NETCMD" "$NETCMD" | calls
check 'and only once' 'err_ net && grep -q "needs approval" "$TMP/r/net"'
check 'the same line without network: true runs without it' \
	'err_ nonet && ! grep -q "needs approval" "$TMP/r/nonet" &&
	 [ ! -s "$TMP/accepted" ]'
check 'a confined command that fails keeps its origin, shell' \
	'grep -qx shell "$TMP/r/nonet.taint"'

# a networked command that exits non-zero: what it printed may come from
# anywhere, so its error result keeps the label shell:network
FAILCMD="$NETCMD; exit 3"
printf 'nf\t%s\t\tnet\n' "$FAILCMD" | calls
tail -n 1 "$TMP/r/nf" >"$STORE-once"
[ -z "$RUN" ] || chown "$UOWNER" "$STORE-once"
: >"$TMP/accepted"
printf 'nf\t%s\t\tnet\n' "$FAILCMD" | calls
check 'a networked command that exits 3: an error, labelled shell:network' \
	'err_ nf && grep -q "^connected" "$TMP/r/nf" &&
	 grep -q "exit code 3" "$TMP/r/nf" && grep -q accepted "$TMP/accepted" &&
	 grep -qx "shell:network" "$TMP/r/nf.taint"'
done_testing
