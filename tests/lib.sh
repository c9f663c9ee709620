# lib.sh - TAP helpers for oxi's shell tests, sourced by tests/t*.t
#
# Each test file: cd "$(dirname "$0")" && . ./lib.sh || exit 1; plan N; check ...; done_testing
# Commands under test come from ../bin (put first on PATH).  Every test
# gets its own scratch directory $TMP, removed at exit, and its own
# OXI_HOME so that dead letters and databases never touch the user's.

TESTS=$(pwd)	# each test cd-s to its own directory first
TOP=$(cd "$TESTS/.." && pwd)
PATH="$TOP/bin:$TESTS:$PATH"
export PATH TESTS TOP
mkdir -p "$TESTS/tmp"
TMP=$(mktemp -d "$TESTS/tmp/${0##*/}.XXXXXX")
export TMP
# nothing from the caller's configuration reaches a test
for _v in $(env | sed -n 's/^\(OXI_[A-Za-z0-9_]*\)=.*/\1/p;s/^\([A-Z0-9_]*_API_KEY\)=.*/\1/p'); do
	unset "$_v"
done
unset BRAVE_API_KEY TAVILY_API_KEY XDG_STATE_HOME XDG_CONFIG_HOME
export OXI_HOME="$TMP/home" OXI_CONFIG_DIR="$TMP/config"
export HOME="$TMP/userhome"
mkdir -p "$HOME"
SHARED="$TOP/../shared"
[ -d "$SHARED" ] || SHARED=
export SHARED
JNORM="$TESTS/jnorm"
UTOP=$TOP	# the tree as the user of $RUN sees it (see unpriv)
RUN=

_n=0
_fail=0
_cleanup() {
	for p in $_bgpids; do kill "$p" 2>/dev/null; done
	[ -n "$KEEP_TMP" ] || rm -rf "$TMP"
}
trap _cleanup EXIT
trap 'exit 1' INT TERM

plan() {
	_planned=$1
	echo "1..$1"
}

# skip_all WHY: the file is skipped, with one plan: "1..0 # SKIP WHY"
# before the plan, or once it is out, each test left as "ok N # SKIP"
skip_all() {
	if [ -z "${_planned:-}" ]; then
		echo "1..0 # SKIP $*"
		exit 0
	fi
	while [ "$_n" -lt "$_planned" ]; do
		_n=$((_n + 1))
		echo "ok $_n # SKIP $*"
	done
	[ "$_fail" = 0 ]
	exit
}
diag() { printf '# %s\n' "$@"; }

_result() {	# _result OK DESC
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_fail=$((_fail + 1))
	fi
}

# check DESC CMD: CMD exits 0
check() {
	if (eval "$2") >"$TMP/.out" 2>"$TMP/.err"; then
		_result 0 "$1"
	else
		_result 1 "$1"
		sed 's/^/#   out: /' "$TMP/.out" | head -20
		sed 's/^/#   err: /' "$TMP/.err" | head -20
	fi
}

# check_exit DESC CODE CMD: CMD exits with CODE exactly
check_exit() {
	(eval "$3") >"$TMP/.out" 2>"$TMP/.err"
	_rc=$?
	if [ "$_rc" = "$2" ]; then
		_result 0 "$1"
	else
		_result 1 "$1"
		diag "exit $_rc, expected $2"
		sed 's/^/#   err: /' "$TMP/.err" | head -20
	fi
}

# check_same DESC GOT EXPECTED: two files are byte-identical
check_same() {
	if cmp -s "$2" "$3"; then
		_result 0 "$1"
	else
		_result 1 "$1"
		diff -u "$3" "$2" | head -40 | sed 's/^/# /'
	fi
}

# check_json DESC GOT EXPECTED: the same records, keys sorted
check_json() {
	"$JNORM" "$2" >"$TMP/.got.n" 2>&1
	"$JNORM" "$3" >"$TMP/.exp.n" 2>&1
	check_same "$1" "$TMP/.got.n" "$TMP/.exp.n"
}

# check_grep DESC PATTERN FILE: an extended regex matches a line of FILE
check_grep() {
	if grep -Eq -- "$2" "$3"; then
		_result 0 "$1"
	else
		_result 1 "$1"
		diag "no line matches /$2/ in $3:"
		head -20 "$3" | sed 's/^/#   /'
	fi
}

# check_nogrep DESC PATTERN FILE: no line of FILE matches
check_nogrep() {
	if grep -Eq -- "$2" "$3"; then
		_result 1 "$1"
		grep -E -- "$2" "$3" | head -5 | sed 's/^/#   /'
	else
		_result 0 "$1"
	fi
}

# check_lines DESC N FILE: FILE has exactly N lines
check_lines() {
	_l=$(wc -l <"$3" | tr -d ' ')
	if [ "$_l" = "$2" ]; then
		_result 0 "$1"
	else
		_result 1 "$1"
		diag "$_l lines, expected $2"
		head -10 "$3" | sed 's/^/#   /'
	fi
}

# jget FILTER FILE: print a field with python3 (tests only); e.g.
# jget '["text"]' f prints r["text"] of each record
jget() {
	python3 -c '
import json, sys
for line in open(sys.argv[2]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    v = eval("r" + sys.argv[1])
    print(v if isinstance(v, str) else json.dumps(v))
' "$1" "$2"
}

# bg CMD...: run in the background, killed at exit; pid in $!
bg() {
	"$@" &
	_bgpids="$_bgpids $!"
}

# fake_server SCRIPT ARGS...: start a fake server from tests/fake that
# prints its port on its first line to $TMP/port; sets $PORT
fake_server() {
	_s=$1
	shift
	rm -f "$TMP/port"
	python3 "$TESTS/fake/$_s" --port-file "$TMP/port" "$@" \
		>"$TMP/fake.log" 2>&1 &
	_bgpids="$_bgpids $!"
	FAKE_PID=$!
	_i=0
	while [ ! -s "$TMP/port" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	PORT=$(cat "$TMP/port" 2>/dev/null)
	[ -n "$PORT" ] || { echo "Bail out! fake server $_s did not start"; exit 1; }
}

# fake_ctl PATH [FILE]: a control request to the fake on $PORT: a POST
# of FILE, else a GET
fake_ctl() {
	if [ $# -gt 1 ]; then
		curl -sS --data-binary "@$2" "http://127.0.0.1:$PORT/control/$1"
	else
		curl -sS "http://127.0.0.1:$PORT/control/$1"
	fi
}

# chan_recv CHANNEL OUT ERR [ARGS]: oxi-recv ARGS CHANNEL in the
# background (RECV_PID), its stdout to OUT and stderr to ERR, once it
# says it is ready (RECV_WRAP, if set, is a command to run it under)
chan_recv() {
	_ch=$1 _out=$2 _err=$3
	shift 3
	rm -f "$TMP/ready"
	mkfifo "$TMP/ready"
	$RECV_WRAP oxi-recv -d 3 "$@" "$_ch" >"$_out" 2>"$_err" \
		3>"$TMP/ready" &
	RECV_PID=$!
	_bgpids="$_bgpids $RECV_PID"
	timeout 20 sh -c 'read -r _ <"$0"' "$TMP/ready"
	rm -f "$TMP/ready"
}

# wait_until SECS COND: polls the shell condition COND ten times a second
# until it holds or SECS seconds have passed; its status is COND's last
wait_until() {
	_wn=$(($1 * 10))
	while ! eval "$2" && [ "$_wn" -gt 0 ]; do
		sleep 0.1
		_wn=$((_wn - 1))
	done
	eval "$2"
}

# with_timeout SECS CMD...: run CMD, kill it after SECS
with_timeout() {
	timeout -k 2 "$@"
}

# nocalls FILE: take oxi-tool's one log line per call out of FILE (kept in
# FILE.calls), for tests about what else reaches stderr
nocalls() {
	grep '^oxi-tool: info: call ' "$1" >"$1.calls"
	grep -v '^oxi-tool: info: call ' "$1" >"$1.rest"
	mv "$1.rest" "$1"
}

# unpriv: what follows runs as nobody through $RUN, from wherever this
# tree lies (a clone under a 0700 directory such as /root): $TMP moves to
# a fresh directory under /tmp that others can enter (a short name: the
# warnings of oxi-tool cut paths at 64 bytes), HOME, OXI_HOME and
# OXI_CONFIG_DIR with it; UOWNER is nobody's user:group.  Call it before
# the plan and before anything is made in $TMP; it skips the file when
# not root, without setpriv or without the user nobody.
unpriv() {
	[ "$(id -u)" = 0 ] || skip_all "switching to nobody needs root"
	command -v setpriv >/dev/null || skip_all "no setpriv"
	id nobody >/dev/null 2>&1 || skip_all "no user nobody"
	UOWNER=nobody:$(id -g nobody)
	RUN="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
	rm -rf "$TMP"
	TMP=$(mktemp -d /tmp/oxi-nobody.XXXXXX) || exit 1
	chmod 755 "$TMP"
	OXI_HOME=$TMP/home OXI_CONFIG_DIR=$TMP/config HOME=$TMP/userhome
	UTOP=$TMP/top
	# only the PATH entries nobody may search: a shim under /root (pyenv)
	# found first would fail with "Permission denied"
	_up=$(printf '%s\n' "$PATH" | tr : '\n' | while read -r _d; do
		$RUN test -x "$_d" 2>/dev/null && printf '%s:' "$_d"
	done)
	_up=${_up%:}
	PATH="$UTOP/bin:$UTOP/tests:$_up"
	export TMP OXI_HOME OXI_CONFIG_DIR HOME PATH UOWNER
	mkdir -p "$HOME" "$UTOP"
	$RUN sh -c 'cd "$1"' - "$TMP" 2>/dev/null ||
		skip_all "nobody cannot enter $TMP"
}

# unpriv_copy PATH...: copies each PATH of the tree (bin/oxi-tool,
# tests/plugins) to $UTOP, readable by all, for the user of $RUN; after
# unpriv only (else $UTOP is the tree itself)
unpriv_copy() {
	[ "$UTOP" != "$TOP" ] || return 0
	for _p in "$@"; do
		mkdir -p "$UTOP/$(dirname "$_p")"
		cp -R "$TOP/$_p" "$UTOP/$_p" || exit 1
	done
	chmod -R a+rX "$UTOP"
}

# trust_plugins DIR...: pins every plugin of each DIR (oxi-tool trust, run
# as $RUN); trust_mcp FILE: every server of the MCP configuration FILE
_trust_dir() {	# the configuration directory, the user of $RUN's
	_c=${OXI_CONFIG_DIR:-$HOME/.config/oxi}
	mkdir -p "$_c"
	[ -z "$RUN" ] || chown "$UOWNER" "$_c"
}
trust_plugins() {
	_trust_dir
	for _d in "$@"; do
		for _f in "$_d"/*; do
			[ -f "$_f" ] && [ -x "$_f" ] || continue
			$RUN oxi-tool -P "$_d" trust "${_f##*/}" 2>/dev/null
		done
	done
	return 0
}
trust_mcp() {
	_trust_dir
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
s = c.get("servers") or c.get("mcpServers") or {}
print("\n".join(k for k in s if k.isprintable()))' "$1" 2>/dev/null |
	while IFS= read -r _s; do
		$RUN oxi-tool -M "$1" trust "$_s" 2>/dev/null
	done
	return 0
}

done_testing() {
	[ "$_fail" = 0 ]
}

# stage_pids NAME: the pids of this test's processes (its OXI_HOME)
# running the program NAME; env_keys PID: the *_API_KEY variables that
# hold a value in the environment of PID, sorted, on one line
stage_pids() {
	for _p in /proc/[0-9]*; do
		{ tr '\0' '\n' <"$_p/environ"; } 2>/dev/null |
		    grep -qx "OXI_HOME=$OXI_HOME" || continue
		_a=$({ tr '\0' '\n' <"$_p/cmdline"; } 2>/dev/null | head -n 1)
		[ "${_a##*/}" = "$1" ] && echo "${_p#/proc/}"
	done
}
env_keys() {
	tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^\([A-Z_]*_API_KEY\)=..*/\1/p' |
	    sort | tr '\n' ' '
}
# keyless NAME...: no process of the programs NAME holds a key (env_keys)
keyless() {
	for _s in "$@"; do
		for _p in $(stage_pids "$_s"); do
			[ -z "$(env_keys "$_p")" ] ||
				{ echo "$_s $_p: $(env_keys "$_p")"; return 1; }
		done
	done
}
