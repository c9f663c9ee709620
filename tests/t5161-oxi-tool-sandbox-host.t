#!/bin/sh
# oxi-tool sandbox, issue 8: nothing inside writes host-global state
# (/proc/sys, /proc/sysrq-trigger, /sys, the hostname, the clock), as root
# or not; memory, /tmp and files are bounded per call; no UNIX socket of
# the host is reached, no SysV IPC is shared.  SBX_MECH=bwrap|landlock
# picks the mechanism, SBX_AS=nobody runs oxi-tool as nobody (t5162-4).
# Every probe that could change the host writes back what it read.
cd "${0%/*}" && . ./lib.sh

MECH=${SBX_MECH:-bwrap}
[ "$MECH" != bwrap ] || command -v bwrap >/dev/null ||
	skip_all "bubblewrap is not installed"
if [ "${SBX_AS:-}" = nobody ]; then
	unpriv
	unpriv_copy bin/oxi-tool
fi

WS=$TMP/ws
mkdir -p "$WS" "$OXI_HOME" "$OXI_CONFIG_DIR"
cat >"$WS/h.py" <<'PY'
import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
def chk(r):
    if r == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r
def run(op, a):
    if op == "wopen":	# opens for writing, writes nothing
        return os.close(os.open(a[0], os.O_WRONLY))
    if op == "wsame":	# writes back what it reads
        v = open(a[0], "rb").read()
        with open(a[0], "wb") as f:
            f.write(v)
        return "wrote"
    if op == "mkdir":
        return os.mkdir(a[0])
    if op == "hostname":
        return socket.sethostname(socket.gethostname())
    if op == "domainname":
        return chk(libc.setdomainname(b"", 0))
    if op == "settime":	# settimeofday(NULL, NULL) changes nothing
        nr = {"x86_64": 164, "aarch64": 170}[os.uname().machine]
        return chk(libc.syscall(nr, None, None))
    if op == "adjtimex":	# modes 0 reads the state only
        return chk(libc.adjtimex(ctypes.create_string_buffer(512)))
try:
    r = run(sys.argv[1], sys.argv[2:])
    print("allowed", sys.argv[1], r)
except (OSError, MemoryError, ValueError) as e:
    print("denied", sys.argv[1], type(e).__name__, getattr(e, "errno", ""))
PY
# a file under /sys that root may write, if any
SYSF=$(for f in /sys/kernel/uevent_helper /sys/kernel/mm/ksm/run \
	/sys/kernel/profiling /sys/power/state; do
	[ -f "$f" ] && { echo "$f"; break; }; done)
SYSF=${SYSF:-/sys/kernel/uevent_helper}
chmod -R a+rX "$TMP"
[ -z "$RUN" ] || chown -R "$UOWNER" "$WS" "$OXI_HOME" "$OXI_CONFIG_DIR"
export OXI_SANDBOX=$MECH OXI_SHELL_ALLOW='python3 sh'

# calls: ID COMMAND per line on stdin -> $TMP/r/ID
calls() {
	rm -rf "$TMP/r"
	mkdir -p "$TMP/r"
	python3 -c '
import json, sys
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) > 1:
        print(json.dumps({"type": "tool.call", "id": f[0], "name": "shell",
                          "args": {"command": f[1]}}))
' >"$TMP/calls"
	$RUN oxi-tool "$@" -w "$WS" <"$TMP/calls" >"$TMP/results" \
		2>"$TMP/tool.err"
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    open(sys.argv[2] + "/" + r["id"], "w").write(r["content"] + "\n")
    if r["is_error"]:
        open(sys.argv[2] + "/" + r["id"] + ".err", "w").close()
' "$TMP/results" "$TMP/r"
}
denied() {
	[ -e "$TMP/r/$2" ] || sed 's/^/# oxi-tool: /' "$TMP/tool.err"
	check_grep "$1" '^denied ' "$TMP/r/$2"
}

printf 'probe\ttrue\n' | calls
if grep -q 'no sandbox works' "$TMP/r/probe" 2>/dev/null; then
	skip_all "no $MECH sandbox here: $(cat "$TMP/r/probe")"
fi

plan 12

CORE=$(cat /proc/sys/kernel/core_pattern)
HOST=$(hostname)
calls <<EOF
core	python3 h.py wsame /proc/sys/kernel/core_pattern
corew	python3 h.py wopen /proc/sys/kernel/core_pattern
hostf	python3 h.py wsame /proc/sys/kernel/hostname
sysrq	python3 h.py wopen /proc/sysrq-trigger
sysrqc	python3 h.py wopen /proc/sys/kernel/sysrq
sysf	python3 h.py wopen $SYSF
sysd	python3 h.py mkdir /sys/kernel/oxi-sandbox-test
host	python3 h.py hostname
dom	python3 h.py domainname
time	python3 h.py settime
adj	python3 h.py adjtimex
EOF
denied "host: /proc/sys/kernel/core_pattern is not written ($MECH)" core
denied 'host: nor opened for writing' corew
denied 'host: /proc/sys/kernel/hostname is not written' hostf
denied 'host: /proc/sysrq-trigger is not opened for writing' sysrq
denied 'host: /proc/sys/kernel/sysrq is not opened for writing' sysrqc
denied "host: $SYSF is not opened for writing" sysf
denied 'host: nothing is made under /sys' sysd
denied 'host: sethostname fails' host
denied 'host: setdomainname fails' dom
denied 'host: settimeofday fails' time
denied 'host: adjtimex fails' adj
check 'host: core_pattern and the hostname are unchanged' \
	'[ "$(cat /proc/sys/kernel/core_pattern)" = "$CORE" ] &&
	 [ "$(hostname)" = "$HOST" ] && [ ! -e /sys/kernel/oxi-sandbox-test ]'
done_testing
