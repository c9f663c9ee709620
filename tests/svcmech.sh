# svcmech.sh - the body of t6902 (s6) and t6903 (runit): a tree of
# oxi-svc run by the supervisor SV with stand-in stages (sed, sleep), for
# what the tree itself does: every stage up and ready, each with only its
# own secret, records through the FIFOs, bytes waiting in a FIFO while
# its reader is down, restarts after kill -9, exit 100 kept down
. ./svc.sh
svc_skip
plan 12

TOK=123456:S3CR3T-bot-token
KEY=sk-S3CR3T-model-key-0123
export TELEGRAM_BOT_TOKEN=$TOK OPENAI_API_KEY=$KEY
stages="recv guard-in loop cron guard-out send llm tool"

# the stand-ins, beside a copy of oxi-svc so that the tree runs them: a
# stage says it is ready on -d, exits 100 while $TMP/fail/NAME exists,
# and passes each line on with its name added (oxi-recv sleeps)
mkdir -p "$TMP/bin" "$TMP/fail"
cp "$TOP/bin/oxi-svc" "$TMP/bin/"
cat >"$TMP/bin/stage" <<EOT
#!/bin/sh
name=\${0##*/}
fd=
while getopts a:d:jo: o; do [ "\$o" = d ] && fd=\$OPTARG; done
shift \$((OPTIND - 1))
[ \$# -gt 0 ] && name=\$name-\$1
[ -e "$TMP/fail/\$name" ] && { echo "\$name: fatal: told to fail" >&2; exit 100; }
[ -n "\$fd" ] && { echo >&"\$fd"; eval "exec \$fd>&-"; }
case \$name in oxi-recv-*) exec sleep 100000 ;; esac
exec sed -u "s/\\\$/ \$name/"
EOT
chmod +x "$TMP/bin/stage"
for s in oxi-recv oxi-guard oxi-loop oxi-cron oxi-send oxi-llm oxi-tool; do
	ln -s stage "$TMP/bin/$s"
done

T=$TMP/tree
"$TMP/bin/oxi-svc" -s "$SV" -m openai/x "$T" </dev/null >/dev/null 2>&1 ||
	{ echo "Bail out! oxi-svc failed"; exit 1; }
F=$T/fifos/data
svc_start "$T"
check "under $SV every stage and the fifos holder come up (and ready)" \
	'wait_until 30 svc_allready'

check 'each stage holds only its own secret, and nothing inherited' \
	'svc_secrets names'

LOG=$T/send/log/main/current
# sent N: the records that reached send's log, in order
sent() { sed -n 's/.* \(m[0-9]*\) oxi-guard-in oxi-loop oxi-cron oxi-guard-out oxi-send-telegram$/\1/p' "$LOG" 2>/dev/null | tr '\n' ' '; }
printf 'm1\n' 1<>"$F/guard-in.in"
check 'a record goes guard-in, loop, cron, guard-out, send through the FIFOs' \
	'wait_until 20 "[ \"\$(sent)\" = \"m1 \" ]"'

svc_ctl down loop
wait_until 20 '[ -z "$(svc_pid loop)" ]'
printf 'm2\nm3\n' 1<>"$F/guard-in.in"
printf 'm4\n' 1<>"$F/guard-in.in"
sleep 1
check 'with loop down, nothing passes it' '[ "$(sent)" = "m1 " ]'
svc_ctl up loop
check '...and once it is up, what waited in its FIFO arrives, in order' \
	'wait_until 20 "[ \"\$(sent)\" = \"m1 m2 m3 m4 \" ]"'

# kill -9 of each stage and of the holder: a new process each time
before=
for s in guard-in loop cron guard-out send fifos llm tool recv; do
	before="$before $s=$(svc_pid $s)"
	svc_ctl kill $s
done
restarted() {
	for b in $before; do
		_n=$(svc_pid "${b%%=*}")
		[ -n "$_n" ] && [ "$_n" != "${b#*=}" ] || return 1
	done
	svc_allready
}
check 'kill -9 of every stage and of the holder: each is started again' \
	'wait_until 30 restarted'
printf 'm5\n' 1<>"$F/guard-in.in"
check '...and records pass again' \
	'wait_until 20 "[ \"\$(sent)\" = \"m1 m2 m3 m4 m5 \" ]"'
check 'the FIFOs are still FIFOs, 0600' \
	'[ "$(find "$F" -type p -perm 0600 | wc -l)" = 9 ]'

: >"$TMP/fail/oxi-tool"
svc_ctl kill tool
check 'a stage that exits 100 is kept down' 'wait_until 20 "svc_down tool"'
sleep 2
check '...not restarted in a loop' \
	'svc_down tool && [ "$(grep -c "told to fail" "$T/tool/log/main/current")" = 1 ]'
check '...its log says so' 'grep -q "tool: exited 100: kept down" "$T/tool/log/main/current"'

svc_stop
check 'stopping the supervisor leaves no process in the tree' \
	'[ -z "$(svc_procs)" ]'
done_testing
