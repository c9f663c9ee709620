#!/bin/sh
# SIGINT: a stage started with it ignored (as oxi-chat starts every stage
# but oxi-recv on a terminal) keeps ignoring it, and so do the
# coprocesses it starts; a stage started without stops on it as before
cd "$(dirname "$0")" && . ./lib.sh || exit 1
[ -r /proc/self/status ] || skip_all "no /proc/PID/status"
plan 6

# ignored PID: SIGINT is ignored by process PID
ignored() {
	_m=$(awk '/^SigIgn:/ { print $2 }' "/proc/$1/status") &&
	    [ $((0x$_m & 2)) = 2 ]
}
# children PID: the children of PID, running sleep
children() {
	for _p in /proc/[0-9]*; do
		awk -v p="$1" '/^PPid:/ && $2 == p { found = 1 }
		    END { exit !found }' "$_p/status" 2>/dev/null &&
		    grep -q sleep "$_p/cmdline" 2>/dev/null && echo "${_p#/proc/}"
	done
}

mkfifo "$TMP/in1"
(trap '' INT; OXI_LLM='sleep 30' OXI_TOOL='oxi-tool' \
    exec oxi-loop <"$TMP/in1" >/dev/null 2>"$TMP/err1") &
loop=$!
_bgpids="$_bgpids $loop"
exec 6>"$TMP/in1"
i=0
while [ -z "$(children $loop)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kid=$(children $loop)
kill -INT $loop
sleep 0.3
check 'oxi-loop started with SIGINT ignored: SIGINT does not stop it' \
	'kill -0 $loop && ignored $loop'
check '...and its coprocesses ignore SIGINT too' '[ -n "$kid" ] && ignored $kid'
kill -TERM $loop
exec 6>&-

mkfifo "$TMP/in2"
(trap '' INT; exec oxi-guard in <"$TMP/in2" >/dev/null 2>&1) &
guard=$!
_bgpids="$_bgpids $guard"
exec 6>"$TMP/in2"
sleep 0.3
kill -INT $guard
sleep 0.3
check 'oxi-guard started with SIGINT ignored goes on' 'kill -0 $guard'
exec 6>&-
wait $guard
check '...and ends at end of input: exit 0' '[ $? = 0 ]'

mkfifo "$TMP/in3"
# a background job of a script starts with SIGINT ignored: not this one
python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' oxi-send cli <"$TMP/in3" >/dev/null 2>&1 &
send=$!
exec 6>"$TMP/in3"
# caught PID: SIGINT is caught by PID (python has exec'd oxi-send, which
# installed its handler; before that the job ignores SIGINT, as the shell
# started it, and a signal sent then would be lost)
caught() {
	_m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status") &&
	    [ $((0x$_m & 2)) = 2 ]
}
i=0
while ! caught $send && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
check 'a stage started without SIGINT ignored catches it' 'caught $send'
if caught $send; then kill -INT $send; else kill -KILL $send; fi	# no hang
wait $send
check '...and stops on it: exit 0' '[ $? = 0 ]'
exec 6>&-
done_testing
