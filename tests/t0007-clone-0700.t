#!/bin/sh
# the tests that run as an unprivileged user (tests/t*-nobody*.t) pass from
# a clone that user cannot enter: the committed HEAD of this tree is cloned
# under a 0700 directory (as /root is), built, and they run there; none
# may skip for want of a way in (skipped when not root, without setpriv
# or nobody, or when this tree is not a git checkout)
cd "$(dirname "$0")" && . ./lib.sh || exit 1

[ "$(id -u)" = 0 ] || skip_all "cloning for nobody needs root"
command -v setpriv >/dev/null || skip_all "no setpriv"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
command -v git >/dev/null || skip_all "no git"
[ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = \
    "$(cd "$TOP" && pwd -P)" ] || skip_all "$TOP is not a git checkout"
plan 6

# the outer make's jobserver and flags are not the clone's
unset MAKEFLAGS MFLAGS MAKELEVEL
chmod 700 "$TMP"
C=$TMP/oxi
H=$(git -C "$TOP" rev-parse HEAD)
check 'git clone --no-hardlinks of HEAD into a 0700 directory' \
	'git clone -q --no-hardlinks "$TOP" "$C" &&
	 git -C "$C" checkout -q "$H"'
[ ! -d "$TESTS/npm" ] || ln -s "$(cd "$TESTS/npm" && pwd -P)" "$C/tests/npm"
check 'nobody cannot enter it' \
	'! setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	    sh -c "cd \"\$1\"" - "$C" 2>/dev/null'
check 'it builds' 'make -s -C "$C" -j2 all'
(cd "$C" && ls tests/t*-nobody*.t) >"$TMP/files" 2>/dev/null
check 'it has tests run as nobody' '[ -s "$TMP/files" ]'
check 'they pass there' \
	'cd "$C" && prove -j2 $(cat "$TMP/files") >"$TMP/prove.log" 2>&1'
sed 's/^/# /' "$TMP/prove.log"
# a file may skip only where the machine lacks that kind of sandbox
grep 'skipped: ' "$TMP/prove.log" | grep -Ev \
    'skipped: (bubblewrap is not installed|no [a-z]+ sandbox here)' \
    >"$TMP/skips"
check_lines 'none skipped for another reason' 0 "$TMP/skips"
done_testing
