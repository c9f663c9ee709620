# svc.sh - a service tree of oxi-svc under s6 or runit, for tests/t69*.t
#
# Sourced after lib.sh.  SV is s6 or runit; svc_skip skips the file when
# that supervisor is not installed.  svc_start DIR runs the supervisor on
# DIR in the background (from an emptied environment, as the README of
# the tree says); at exit the tree is stopped and every process still
# working in DIR is killed.

SVDIR=
SVPID=

svc_skip() {
	case $SV in
	s6) command -v s6-svscan >/dev/null && command -v s6-log >/dev/null ||
		skip_all "s6 is not installed" ;;
	runit) command -v runsvdir >/dev/null && command -v svlogd >/dev/null ||
		skip_all "runit is not installed" ;;
	esac
	[ -r /proc/self/environ ] || skip_all "no /proc/PID/environ"
}

# svc_procs: the pids of the processes working in the tree (their current
# directory is in it: every run script, logger and stage)
svc_procs() {
	[ -n "$SVDIR" ] || return 0
	for _p in /proc/[0-9]*; do
		_c=$(readlink "$_p/cwd" 2>/dev/null) || continue
		case $_c in
		"$SVDIR"|"$SVDIR"/*) echo "${_p#/proc/}" ;;
		esac
	done
}

svc_start() {
	SVDIR=$1
	if [ "$SV" = s6 ]; then
		env -i PATH="$PATH" s6-svscan "$SVDIR" >"$TMP/svscan.log" 2>&1 &
	else
		env -i PATH="$PATH" runsvdir "$SVDIR" >"$TMP/svscan.log" 2>&1 &
	fi
	SVPID=$!
}

# svc_stop: the supervisor and every service down; whatever is left in
# the tree after 10 s is killed
svc_stop() {
	[ -n "$SVPID" ] || return 0
	if [ "$SV" = s6 ]; then
		s6-svscanctl -t "$SVDIR" 2>/dev/null || kill "$SVPID" 2>/dev/null
	else
		kill -HUP "$SVPID" 2>/dev/null
	fi
	wait_until 10 '[ -z "$(svc_procs)" ]' ||
		kill -9 $(svc_procs) 2>/dev/null
	wait "$SVPID" 2>/dev/null
	SVPID=
}
trap 'svc_stop; _cleanup' EXIT

# svc_pid STAGE: the pid of STAGE's process, or nothing while it is down
svc_pid() {
	if [ "$SV" = s6 ]; then
		_p=$(s6-svstat -o pid "$SVDIR/$1" 2>/dev/null)
		[ "${_p:--1}" -gt 0 ] 2>/dev/null && echo "$_p"
	else
		sv status "$SVDIR/$1" 2>/dev/null |
		    sed -n 's/^run: [^:]*: (pid \([0-9]*\)).*/\1/p'
	fi
}

# svc_ready STAGE: STAGE is up (and, under s6, has said it is ready)
svc_ready() {
	if [ "$SV" = s6 ]; then
		[ "$(s6-svstat -o up,ready "$SVDIR/$1" 2>/dev/null)" = "true true" ]
	else
		[ -n "$(svc_pid "$1")" ]
	fi
}

# svc_allready: every stage of $stages ready, and the FIFO holder up (it
# has no readiness of its own)
svc_allready() {
	for _s in $stages; do svc_ready "$_s" || return 1; done
	[ -n "$(svc_pid fifos)" ]
}

# svc_down STAGE: STAGE is down and wanted down (after exit 100)
svc_down() {
	if [ "$SV" = s6 ]; then
		[ "$(s6-svstat -o up,exitcode "$SVDIR/$1" 2>/dev/null)" = "false 100" ]
	else
		sv status "$SVDIR/$1" 2>/dev/null | grep -q "^down: "
	fi
}

# svc_env PID: the environment of PID, a variable a line
svc_env() {
	{ tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null
}

# svc_ctl up|down|kill STAGE: start or stop STAGE, or kill -9 it
svc_ctl() {
	case $1 in
	kill) _p=$(svc_pid "$2") && [ -n "$_p" ] && kill -9 "$_p" ;;
	*) if [ "$SV" = s6 ]; then
		s6-svc "-$(printf %.1s "$1")" "$SVDIR/$2"
	   else
		sv "$1" "$SVDIR/$2" >/dev/null
	   fi ;;
	esac
}

# svc_secrets [NAMES]: every stage of $stages holds in its environment its
# own secret alone ($TOK for recv and send, $KEY for llm and for mem's
# embeddings and extraction, none for the others); with NAMES, no
# variable but those the tree sets either
svc_secrets() {
	for _s in $stages; do
		_e=$(svc_env "$(svc_pid $_s)")
		_got=$(printf '%s\n' "$_e" | grep -q -- "$TOK" && printf 'token '
		    printf '%s\n' "$_e" | grep -q -- "$KEY" && printf 'key '
		    [ -z "${1:-}" ] || printf '%s\n' "$_e" | sed -n 's/=.*//p' |
		    grep -vx 'PATH\|PWD\|HOME\|OXI_HOME\|OXI_CONFIG_DIR\|OXI_LLM\|OXI_TOOL\|OXI_CRON\|OXI_MEM\|OXI_MODEL\|OXI_CANARY_KEY_FILE\|OXI_AUDIT_LOG\|OXI_MEM_[A-Z_]*\|TELEGRAM_BOT_TOKEN\|OPENAI_API_KEY' |
		    tr '\n' ' ')
		case $_s in
		recv|send) _want="token " ;;
		llm|mem) _want="key " ;;
		*) _want= ;;
		esac
		[ "$_got" = "$_want" ] ||
			{ echo "$_s: \"$_got\", want \"$_want\""; return 1; }
	done
}

# svc_killall SEED: every stage of $stages killed with kill -9 twice (and
# three more at random), each when it is up, after a pause of 0.1 to 0.9
# s, the order and pauses drawn from SEED; the kills go to $TMP/killed as
# "time stage pid".  svc_restarted: every stage is ready again, none
# under a pid that was killed.
svc_killall() {
	python3 -c '
import random, sys
random.seed(int(sys.argv[1]))
s = sys.argv[2:] * 2 + random.sample(sys.argv[2:], 3)
random.shuffle(s)
for x in s:
    print("%.2f %s" % (random.uniform(0.1, 0.9), x))
' "$1" $stages >"$TMP/kills"
	: >"$TMP/killed"
	while read -r _pause _s; do
		sleep "$_pause"
		wait_until 20 '[ -n "$(svc_pid $_s)" ]' || continue
		_p=$(svc_pid $_s)
		kill -9 "$_p" 2>/dev/null &&
			echo "$(date +%s.%N) $_s $_p" >>"$TMP/killed"
	done <"$TMP/kills"
}
svc_restarted() {
	svc_allready || return 1
	for _s in $stages; do
		grep -q " $_s $(svc_pid $_s)\$" "$TMP/killed" && return 1
	done
	return 0
}

# svc_say PORT TEXT N: user 4242 writes TEXT (message N) to the bot of the
# fake Bot API on PORT in a private chat
svc_say() {
	python3 -c '
import json, sys, urllib.request
u = {"message": {"message_id": int(sys.argv[3]), "date": 1790000000,
     "from": {"id": 4242, "is_bot": False, "first_name": "Ann"},
     "chat": {"id": 4242, "type": "private", "first_name": "Ann"},
     "text": sys.argv[2]}}
urllib.request.urlopen(urllib.request.Request(
    "http://127.0.0.1:%s/control/updates" % sys.argv[1],
    data=json.dumps([u]).encode(), method="POST"), timeout=30).read()
' "$1" "$2" "$3"
}
