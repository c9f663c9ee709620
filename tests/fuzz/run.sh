#!/bin/sh
# run.sh - runs one fuzz harness (tests/fuzz/README)
# usage: run.sh seeds HARNESS         each seed once (the check)
#        run.sh fuzz SECONDS HARNESS  fuzz for SECONDS, new inputs kept in
#                                     corpus/HARNESS, crashes in crashes/
# Run from the top of the tree.  The recorded streams of $SHARED/wire
# (default ../shared) are read as extra seeds when they are there.
mode=$1
case $mode in
seeds) h=$2 ;;
fuzz) secs=$2 h=$3 ;;
*) echo "usage: run.sh seeds|fuzz [SECONDS] HARNESS" >&2; exit 100 ;;
esac
d=tests/fuzz
bin=$d/fz-$h
[ -x "$bin" ] || { echo "run.sh: no $bin (make fuzz-build)" >&2; exit 100; }
wire=${SHARED:-../shared}/wire

# longest input, and the wire samples that fit the parser
case $h in
nd) max=16384 w="telegram slack" ;;
sse) max=16384 w="anthropic openai-chat openai-responses gemini" ;;
json) max=8192 w="discord slack telegram twilio openai-responses" ;;
html) max=65536 w= ;;
tgmd) max=16384 w= ;;
url) max=2048 w= ;;
shpolicy) max=1024 w= ;;
cron) max=256 w= ;;
tgupdate) max=16384 w=telegram ;;
discord) max=16384 w=discord ;;
slack) max=16384 w=slack ;;
leak) max=16384 w= ;;
ws) max=16384 w= ;;
openai) max=16384 w=openai-chat ;;
anthropic) max=16384 w=anthropic ;;
gemini) max=16384 w=gemini ;;
responses) max=16384 w=openai-responses ;;
ollama) max=16384 w= ;;
*) echo "run.sh: unknown harness '$h'" >&2; exit 100 ;;
esac
dirs=$d/seeds/$h
for x in $w; do
	[ -d "$wire/$x" ] && dirs="$dirs $wire/$x"
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
case $mode in
seeds)
	exec "$bin" -runs=0 -max_len=$max -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix="${FZ_ARTIFACTS:-./}" $dirs
	;;
fuzz)
	mkdir -p $d/corpus/$h $d/crashes
	exec "$bin" -max_total_time="$secs" -max_len=$max -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$d/crashes/$h- $d/corpus/$h $dirs
	;;
esac
