# cron.sh - what the oxi-cron tests share, sourced after lib.sh
#
# cron_start [ARGS]: oxi-cron reading the FIFO $TMP/in (held open by this
# shell on fd 7, so it never sees an end of input), stdout to $TMP/out,
# fires to $TMP/fire, stderr to $TMP/err; its pid in $CRON.  cron_stop:
# SIGTERM and wait, its status in $CRON_RC.  req LINE: a record into its input.  M: a maker.
mkfifo "$TMP/in"
exec 7<>"$TMP/in"
export OXI_CRON_MIN_INTERVAL=1
M='"maker":{"channel":"telegram","account":"main","chat":"42","from":"42","from_name":"Ann","trust":"owner"}'
cron_start() {
	oxi-cron -v -o "$TMP/fire" "$@" <&7 >>"$TMP/out" 2>>"$TMP/err" &
	CRON=$!
	_bgpids="$_bgpids $CRON"
}
cron_stop() {
	kill "$CRON" 2>/dev/null
	wait "$CRON" 2>/dev/null
	CRON_RC=$?
}
req() {
	printf '%s\n' "$1" >&7
}
# nlines FILE: lines in FILE (0 if it is not there)
nlines() {
	[ -f "$1" ] && wc -l <"$1" | tr -d ' ' || echo 0
}
