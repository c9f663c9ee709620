#!/bin/sh
# oxi-tool: the disk a call may take.  A command past disk= of
# OXI_SHELL_LIMITS is killed with its whole group (its files stay, the
# stage answers on), a write over it is refused before anything is
# written; a workspace over OXI_WORKSPACE_MAX refuses the calls that write
# and keeps the ones that read, until files go; no call takes the
# OXI_DISK_RESERVE kept free.  Measured on the filesystem of the test tree,
# with limits small enough that other writers there do not matter, and
# the reserve filled on a tmpfs of its own where one can be mounted.
# SBX_MECH=bwrap|landlock picks the mechanism (t5309 runs landlock).
cd "$(dirname "$0")" && . ./lib.sh || exit 1

MECH=${SBX_MECH:-bwrap}
[ "$MECH" != bwrap ] || command -v bwrap >/dev/null ||
	skip_all "bubblewrap is not installed"
export OXI_SANDBOX=$MECH
WS=$TMP/ws
mkdir -p "$WS" "$OXI_CONFIG_DIR"

# call ID NAME ARGS: one tool.call record
call() {
	printf '{"type":"tool.call","id":"%s","name":"%s","args":%s}\n' \
		"$1" "$2" "$3"
}
# shcall ID COMMAND: a shell call, COMMAND as a JSON string
shcall() {
	python3 -c 'import json, sys
print(json.dumps({"type": "tool.call", "id": sys.argv[1], "name": "shell",
                  "args": {"command": sys.argv[2]}}))' "$1" "$2"
}
# drive ARGS...: one oxi-tool ARGS for the lines of stdin: a record is
# sent and its result awaited ($TMP/r/ID, and ID.err for an error result);
# a line "!CMD" runs CMD with sh in between, the same oxi-tool still up;
# all of it under $ON, if set
ON=
drive() {
	rm -rf "$TMP/r"
	mkdir -p "$TMP/r"
	$ON python3 -c '
import json, subprocess, sys
d = sys.argv[1]
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=open(d + "/tool.err", "w"))
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("!"):
        subprocess.call(["sh", "-c", line[1:]])
        continue
    if not line:
        continue
    p.stdin.write(line.encode() + b"\n")
    p.stdin.flush()
    r = json.loads(p.stdout.readline())
    open(d + "/r/" + r["id"], "w").write(r["content"] + "\n")
    if r["is_error"]:
        open(d + "/r/" + r["id"] + ".err", "w").close()
p.stdin.close()
sys.exit(p.wait())
' "$TMP" oxi-tool -w "$WS" "$@"
}
ok_() { [ -e "$TMP/r/$1" ] && [ ! -e "$TMP/r/$1.err" ]; }
err_() { [ -e "$TMP/r/$1.err" ]; }
# $TMP/ontmpfs DIR CMD...: CMD in a mount namespace of its own where DIR
# is a new tmpfs of 64 MiB, which nothing else writes
cat >"$TMP/ontmpfs" <<'EOF'
#!/bin/sh
exec unshare -m sh -c 'mount -t tmpfs -o size=64m oxi-disk "$1" &&
	shift && exec "$@"' - "$@"
EOF
chmod +x "$TMP/ontmpfs"
mkdir -p "$TMP/probe"
"$TMP/ontmpfs" "$TMP/probe" true 2>/dev/null && TMPFS=1 || TMPFS=
# a writer of N files of 1 MiB in the current directory
writer() {
	echo "i=0; while [ \$i -lt $1 ]; do head -c 1048576 /dev/zero >f\$i ||
		exit 1; i=\$((i + 1)); done; echo wrote $1"
}
# the same at about 50 MiB/s: on a small tmpfs the sampler (every 50 ms)
# must see it go under the reserve before the tmpfs is full, even with
# the machine busy
pwriter() {
	echo "i=0; while [ \$i -lt $1 ]; do head -c 1048576 /dev/zero >f\$i ||
		exit 1; sleep 0.02; i=\$((i + 1)); done; echo wrote $1"
}

shcall probe true | drive
if grep -q 'no sandbox works' "$TMP/r/probe" 2>/dev/null; then
	skip_all "no $MECH sandbox here: $(cat "$TMP/r/probe")"
fi

plan 22

# one call: killed past disk=, with everything it started
export OXI_SHELL_LIMITS=disk=20
mkdir -p "$WS/one" "$WS/bg"
{
	shcall big "cd one && $(writer 400)"
	shcall bg "cd bg || exit 1; (mkdir a && cd a && $(writer 400)) &
		setsid sh -c 'mkdir b && cd b && $(writer 400)'; wait"
	echo "!sleep 0.3; find '$WS/bg' -type f | wc -l >'$TMP/bg1'"
	echo "!sleep 1; find '$WS/bg' -type f | wc -l >'$TMP/bg2'"
	shcall next 'echo next'
} | drive
check 'a command past disk=20 is killed: an error result' 'err_ big'
check_grep 'saying so in its last line' \
	'^\[killed: wrote over the disk limit of 20 MiB for one call\]$' \
	"$TMP/r/big"
n=$(ls "$WS/one" | wc -l)
check "its files stay, fewer than it meant to write ($n of 400)" \
	'[ "$n" -ge 1 ] && [ "$n" -lt 400 ]'
check 'a writer in the background and one in its own session end with it' \
	'err_ bg && grep -q "disk limit of 20 MiB" "$TMP/r/bg" &&
	 [ "$(cat "$TMP/bg1")" = "$(cat "$TMP/bg2")" ] &&
	 [ "$(cat "$TMP/bg1")" -lt 800 ]'
check 'the stage answers the next call' \
	'ok_ next && [ "$(head -n 1 "$TMP/r/next")" = next ]'
rm -rf "$WS/one" "$WS/bg"

# a write of known size: refused before anything is written
export OXI_SHELL_LIMITS=disk=1
python3 -c 'import json
def call(i, name, args):
    print(json.dumps({"type": "tool.call", "id": i, "name": name,
                      "args": args}))
call("w", "write_file", {"path": "big", "content": "x" * (2 << 20)})
call("w2", "write_file", {"path": "small", "content": "x" * (512 << 10)})
call("e", "edit_file", {"path": "small", "old_string": "x",
                        "new_string": "yyy", "replace_all": True})' |
	drive -l 8m
check_grep 'write_file over the limit of one call is refused' \
	'refused: 2\.0 MiB to write, over the disk limit of 1 MiB for one call \(disk= in OXI_SHELL_LIMITS\)\. Nothing was written\.$' \
	"$TMP/r/w"
check 'nothing of it is written' \
	'err_ w && [ ! -e "$WS/big" ] && ! ls -a "$WS" | grep -q "^\.oxi-tool"'
check 'a write within the limit works' \
	'ok_ w2 && [ "$(wc -c <"$WS/small")" = 524288 ]'
check 'edit_file whose result is over it is refused, the file unchanged' \
	'err_ e && grep -q "1.5 MiB to write, over the disk limit of 1 MiB" \
	 "$TMP/r/e" && [ "$(tr -d x <"$WS/small" | wc -c)" = 0 ]'
rm -f "$WS/small"

# the workspace: over its bound, what writes is refused, what reads works
# (no limit per call here: it is measured on the shared disk, where other
# tests running beside this one write too, and 60 MiB must go through)
export OXI_SHELL_LIMITS=disk=0 OXI_WORKSPACE_MAX=30
mkdir -p "$WS/fill"
echo 'needle' >"$WS/keep.txt"
{
	shcall fill "cd fill && $(writer 60)"
	shcall s2 'echo more >more2'
	call w2 write_file '{"path":"w2.txt","content":"x"}'
	call e2 edit_file \
		'{"path":"keep.txt","old_string":"needle","new_string":"pin"}'
	call r2 read_file '{"path":"keep.txt"}'
	call l2 list_dir '{}'
	call g2 grep '{"pattern":"needle"}'
	echo "!rm -r '$WS/fill'"
	shcall s3 'echo more >more && cat more'
	call w3 write_file '{"path":"w3.txt","content":"x"}'
} | drive
check 'a command that takes the workspace over its bound ends' \
	'ok_ fill && grep -qx "wrote 60" "$TMP/r/fill"'
check_grep 'with a note' \
	'^\[note: the workspace now holds [0-9]+\.[0-9] MiB, over its bound of 30 MiB \(OXI_WORKSPACE_MAX\): calls that write are refused until files in it are deleted\]$' \
	"$TMP/r/fill"
check_grep 'then shell is refused: the size, the bound, what to do' \
	'^shell: refused: the workspace holds [0-9]+\.[0-9] MiB, over its bound of 30 MiB \(OXI_WORKSPACE_MAX\)\. Nothing was run\. Until files in it are deleted or OXI_WORKSPACE_MAX is raised, calls that write are refused; tools that read still work\.$' \
	"$TMP/r/s2"
check 'shell, write_file and edit_file write nothing' \
	'err_ s2 && err_ w2 && err_ e2 && [ ! -e "$WS/more2" ] &&
	 [ ! -e "$WS/w2.txt" ] && [ "$(cat "$WS/keep.txt")" = needle ] &&
	 grep -q "over its bound of 30 MiB.*Nothing was written" "$TMP/r/w2" &&
	 grep -q "over its bound of 30 MiB.*Nothing was written" "$TMP/r/e2"'
check 'read_file, list_dir and grep work' \
	'ok_ r2 && ok_ l2 && ok_ g2 && grep -qx needle "$TMP/r/r2" &&
	 grep -qx fill/ "$TMP/r/l2" && grep -q "keep.txt:1:needle" "$TMP/r/g2"'
check 'once files are deleted, calls that write work again' \
	'ok_ s3 && ok_ w3 && grep -qx more "$TMP/r/s3" && [ -e "$WS/w3.txt" ]'

# the size: st_blocks, no symbolic link followed, a file of several
# names once
rm -f "$WS/more" "$WS/w3.txt"
head -c $((20 << 20)) /dev/urandom >"$WS/twenty"
for i in 1 2 3 4; do ln "$WS/twenty" "$WS/twenty.$i"; done
mkdir -p "$TMP/outside"
head -c $((40 << 20)) /dev/urandom >"$TMP/outside/forty"
ln -s "$TMP/outside/forty" "$WS/link"
ln -s "$TMP/outside" "$WS/linkdir"
call w4 write_file '{"path":"w4.txt","content":"x"}' | drive
check 'hard links count once, symbolic links are not followed' \
	'ok_ w4 && [ -e "$WS/w4.txt" ]'
rm -rf "$WS/twenty"* "$WS/link" "$WS/linkdir" "$TMP/outside"
unset OXI_WORKSPACE_MAX

# the reserve kept free on the disk of the workspace
export OXI_DISK_RESERVE=1073741824
{
	shcall s5 'echo x >x'
	call w5 write_file '{"path":"w5.txt","content":"x"}'
	call r5 read_file '{"path":"keep.txt"}'
} | drive
check_grep 'under the reserve, shell is refused, saying so' \
	'^shell: refused: the disk of the workspace has [0-9.]+ MiB free, under the 1073741824 MiB kept free \(OXI_DISK_RESERVE\)\. Nothing was run\. Free space on that disk, or lower OXI_DISK_RESERVE\.$' \
	"$TMP/r/s5"
check 'and write_file; read_file works' \
	'err_ s5 && err_ w5 && [ ! -e "$WS/x" ] && [ ! -e "$WS/w5.txt" ] &&
	 grep -q "kept free (OXI_DISK_RESERVE). Nothing was written" \
	 "$TMP/r/w5" && ok_ r5'
unset OXI_DISK_RESERVE
# on a tmpfs of 64 MiB of its own, which no other writer shares
if [ -n "$TMPFS" ]; then
	ON="$TMP/ontmpfs $WS"
	python3 -c 'import json
def call(i, n):
    print(json.dumps({"type": "tool.call", "id": i, "name": "write_file",
                      "args": {"path": i, "content": "x" * (n << 20)}}))
call("w6", 4)
call("w7", 1)' >"$TMP/w6"
	export OXI_DISK_RESERVE=62
	drive -l 8m <"$TMP/w6"
	check 'a write that would go under the reserve is refused' \
		'err_ w6 && grep -q "refused: writing 4\.0 MiB would leave the disk of the workspace under the 62 MiB kept free (OXI_DISK_RESERVE)\. Nothing was written\." "$TMP/r/w6" &&
		 ok_ w7'
	export OXI_SHELL_LIMITS=disk=0
	{
		shcall low "mkdir low && cd low && $(pwriter 100)"
		shcall s8 'echo x >x'
		echo "!rm -r '$WS/low'"
		shcall s9 'echo x >x && cat x'
	} >"$TMP/low"
	export OXI_DISK_RESERVE=32
	drive <"$TMP/low"
	check_grep 'a command that goes under the reserve is killed, saying so' \
		'^\[killed: the disk of the workspace fell under the 32 MiB kept free \(OXI_DISK_RESERVE\)\]$' \
		"$TMP/r/low"
	check 'then calls that write are refused, until there is room again' \
		'err_ s8 && grep -q "has [0-9.]* MiB free, under the 32 MiB kept free" \
		 "$TMP/r/s8" && ok_ s9 && grep -qx x "$TMP/r/s9"'
	ON=
	unset OXI_DISK_RESERVE
else
	_result 0 '# SKIP no tmpfs of our own to fill (needs root)'
	_result 0 '# SKIP no tmpfs of our own to fill (needs root)'
	_result 0 '# SKIP no tmpfs of our own to fill (needs root)'
fi

# a plugin runs in a loop of its own (child.c), bounded the same way
mkdir -p "$TMP/plugins"
cat >"$TMP/plugins/filler" <<EOF
#!/bin/sh
if [ "\$1" = --describe ]; then
	echo '{"description":"Fill the disk","parameters":{"type":"object"}}'
	exit 0
fi
mkdir -p filler && cd filler && $(writer 400)
EOF
chmod +x "$TMP/plugins/filler"
trust_plugins "$TMP/plugins"
export OXI_SHELL_LIMITS=disk=20
call p1 filler '{}' | drive -P "$TMP/plugins"
n=$(ls "$WS/filler" 2>/dev/null | wc -l)
check "a plugin past the limit of one call is killed, saying so ($n files)" \
	'err_ p1 && grep -q "wrote over the disk limit of 20 MiB for one call, killed" \
	 "$TMP/r/p1" && [ "$n" -ge 1 ] && [ "$n" -lt 400 ]'
rm -rf "$WS/filler"

done_testing
