#!/bin/sh
# oxi-doctor -s DIR: the stages of a service tree up and ready under s6
# (s6-svstat) or runit (sv status); a tree not running, a stage down and
# a directory that is no tree each give their line and exit 100
cd "$(dirname "$0")" && . ./lib.sh || exit 1
command -v s6-svscan >/dev/null || skip_all "no s6"
plan 10

export OXI_MODEL=ollama/x OXI_DOCTOR_MIN_FREE_MB=1
stages="fifos recv guard-in loop guard-out send llm tool"
# tree DIR [s6]: a tree of stages that sleep, ready at once under s6
tree() {
	for s in $stages; do
		mkdir -p "$1/$s"
		printf '#!/bin/sh\n{ echo >&3; } 2>/dev/null\nexec 3>&- sleep 600\n' \
			>"$1/$s/run"
		chmod 700 "$1/$s/run"
		[ -z "$2" ] || echo 3 >"$1/$s/notification-fd"
	done
}
doc() { oxi-doctor "$@" >"$TMP/o"; }
line() { grep -E "^[a-z]+ +services: " "$TMP/o"; }

tree "$TMP/s6" s6
check_exit 'a tree not running: 100' 100 'doc -s "$TMP/s6"'
check 'its line: not supervised, how to start it' \
	'line | grep -q "^error services: the stage fifos is not supervised (the tree is not running) (fix: start the tree (s6-svscan .*/s6)"'
s6-svscan "$TMP/s6" >/dev/null 2>&1 &
SCAN=$!
_bgpids="$_bgpids $SCAN"
ready() {
	for s in $stages; do
		[ "$(s6-svstat -o ready "$TMP/s6/$s" 2>/dev/null)" = true ] || return 1
	done
}
wait_until 20 ready
check_exit 's6: every stage up and ready: exit 0' 0 'doc -s "$TMP/s6"'
check 'its line' 'line | grep -q "^ok    services: every stage of .* is up and ready$"'
s6-svc -d "$TMP/s6/llm"
wait_until 10 '[ "$(s6-svstat -o up "$TMP/s6/llm")" = false ]'
check_exit 's6: a stage down: 100' 100 'doc -s "$TMP/s6"'
check 'its line names it and its log' \
	'line | grep -q "^error services: the stage llm is down (fix: start the tree (s6-svscan .*), else read .*/llm/log/main/current)"'
s6-svscanctl -t "$TMP/s6"
wait "$SCAN"

mkdir "$TMP/plain"
check_exit 'a directory that is no tree: 100' 100 'doc -s "$TMP/plain"'
check 'its line' 'line | grep -q "^error services: .*plain/fifos. is not a stage of a service tree (fix: write the tree with oxi-svc)"'

if command -v runsvdir >/dev/null && command -v sv >/dev/null; then
	tree "$TMP/runit"
	runsvdir "$TMP/runit" >/dev/null 2>&1 &
	RUNSV=$!
	_bgpids="$_bgpids $RUNSV"
	wait_until 20 '[ "$(sv status "$TMP"/runit/* 2>/dev/null | grep -c "^run:")" = 8 ]'
	check_exit 'runit: every stage up: exit 0' 0 'doc -s "$TMP/runit"'
	check 'its line' 'line | grep -q "^ok    services: every stage of .* is up$"'
	# runsvdir on HUP stops its runsv, each its stage: wait for all of
	# them (their current directory is in the tree) before the clean-up
	kill -HUP "$RUNSV"
	wait "$RUNSV" 2>/dev/null
	inrunit() {
		for p in /proc/[0-9]*; do
			case $(readlink "$p/cwd" 2>/dev/null) in
			"$TMP/runit"/*) echo "${p#/proc/}" ;;
			esac
		done
	}
	wait_until 10 '[ -z "$(inrunit)" ]' || kill -9 $(inrunit) 2>/dev/null
else
	skip_all "no runit"
fi
done_testing
