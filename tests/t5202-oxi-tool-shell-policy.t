#!/bin/sh
# oxi-tool shell policy: every case of the T-SH regression set (OpenClaw,
# GoClaw, SafestClaw advisories) is refused or held for approval through
# the tool, and none of them runs: each would leave a file named pwned in
# the workspace (or read a secret) if it did
cd "$(dirname "$0")" && . ./lib.sh || exit 1
# the argv policy: the strict mode
export OXI_SHELL_POLICY=strict

WS=$TMP/ws
mkdir -p "$WS"
echo 'b
a' >"$WS/notes.txt"
echo 'touch pwned' >"$WS/cmds"
# one case a line; <NL> stands for a newline
cat >"$TMP/cases" <<'EOF2'
sort --compress-prog=sh notes.txt
sort --compress-p=sh notes.txt
sort --compress-program sh notes.txt
sort -S 1M --compress-prog sh notes.txt
sort notes.txt --compress-prog=sh
sort --random-source=/dev/urandom notes.txt
sort -T /tmp notes.txt
sort -o pwned notes.txt
sort -opwned notes.txt
sort -uo pwned notes.txt
sort notes.txt -o pwned
sort --output=pwned notes.txt
sort --out pwned notes.txt
sort --files0-from=cmds
wc --files0-from=cmds
wc --files0 cmds
grep -r pwned .
grep -R touch .
grep -rn touch .
grep --recursive touch .
grep --rec touch .
grep -f cmds notes.txt
grep --file=cmds notes.txt
jq -f cmds notes.txt
jq --from-file cmds notes.txt
jq --rawfile a /etc/passwd -n $a
ls && touch pwned
ls; touch pwned
ls | sh
ls || touch pwned
ls & touch pwned
ls $(touch pwned)
ls `touch pwned`
ls "$(touch pwned)"
ls ${IFS}
ls${IFS}-la
echo ${PATH:0:1}
./ls
/tmp/ls
/usr/bin/touch pwned
zsh -lc 'touch pwned'
bash -c 'touch pwned'
sh -c 'touch pwned'
env X=1 sh -c 'touch pwned'
env touch pwned
X=1 touch pwned
nice sh -c 'touch pwned'
nice touch pwned
timeout 1 sh -c 'touch pwned'
nohup touch pwned
stdbuf -o0 touch pwned
xargs sh
xargs touch pwned
python3 -c 'open("pwned", "w")'
perl -e 'open(F, ">pwned")'
ruby -e 'File.write("pwned", "")'
node -e 'require("fs").writeFileSync("pwned", "")'
awk 'BEGIN{system("touch pwned")}'
awk 'BEGIN { system("touch pwned") }'
awk 'BEGIN{print "x" > "pwned"}'
awk 'BEGIN{"touch pwned" | getline}'
mawk 'BEGIN{system("touch pwned")}'
gawk 'BEGIN{system("touch pwned")}'
find . -exec touch pwned \;
find . -execdir touch pwned {} +
find . -ok touch pwned \;
find . -fprint pwned
find . -delete
git -c core.sshCommand='touch pwned' fetch
git -c core.pager='touch pwned' log
git -c alias.x='!touch pwned' x
tar --checkpoint-action=exec='touch pwned' -cf x.tar notes.txt
tar --to-command='touch pwned' -xf x.tar
tar --use-compress-program='touch pwned' -cf x.tar notes.txt
tar -I 'touch pwned' -cf x.tar notes.txt
less notes.txt
less +!touch\ pwned notes.txt
more notes.txt
man ls
vim -c '!touch pwned'
ed notes.txt
cat <(touch pwned)
diff >(touch pwned) notes.txt
ls > /dev/sda
ls > pwned
echo x >> pwned
cat <<EOF<NL>x<NL>EOF
cat <<< pwned
dd if=notes.txt of=pwned
tee pwned
cp notes.txt pwned
touch pwned
diff3 --diff-program='touch pwned' notes.txt notes.txt notes.txt
diff3 --diff-p=touch notes.txt notes.txt pwned
sdiff --diff-program='touch pwned' notes.txt notes.txt
ⅼs
lѕ
ｌｓ
ls​
сat notes.txt
ls *
cat ~/.ssh/id_ed25519
EOF2
python3 - "$TMP/cases" >"$TMP/in" <<'PY'
import json, sys
for i, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    cmd = line.rstrip("\n").replace("<NL>", "\n")
    print(json.dumps({"type": "tool.call", "id": "c%d" % i, "name": "shell",
                      "args": {"command": cmd}}, ensure_ascii=False))
PY
N=$(wc -l <"$TMP/cases")

plan 9

check_exit 'oxi-tool answers every case and exits 0' 0 \
	'oxi-tool -w "$WS" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"'
check_lines 'one result per case' "$N" "$TMP/out"
check 'every case is refused or held' '
	python3 - "$TMP/out" "$TMP/cases" <<"PY"
import json, sys
cases = open(sys.argv[2], encoding="utf-8").read().splitlines()
bad = 0
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    c = r["content"]
    if not (r["is_error"] and (c.startswith("shell: refused: ") or
            c.startswith("shell: needs approval: "))):
        bad += 1
        print("RAN:", cases[int(r["id"][1:])], "->", c[:120])
sys.exit(bad)
PY'
check 'nothing ran: no file named pwned' '[ ! -e "$WS/pwned" ] && [ ! -e pwned ]'
check 'nothing ran: no archive made' '[ ! -e "$WS/x.tar" ]'
check_nogrep 'and no approval is offered for what no shell would do' \
	'refused: .*adding this line' "$TMP/out"

# sed's guard, whatever its operands: a script file and an operand named
# like the guard
printf '1e touch pwned\n' >"$WS/--sandbox"
python3 - >"$TMP/sed.in" <<'PY'
import json
for i, cmd in enumerate(["sed -f --sandbox notes.txt",
                         "sed '1e touch pwned' -- --sandbox",
                         "sed -n -f --sandbox -- --sandbox",
                         "sed -e '1e touch pwned' --expression --sandbox",
                         "sed -i s/a/pwned/ notes.txt",
                         "sed -n p notes.txt"]):
    print(json.dumps({"type": "tool.call", "id": "s%d" % i, "name": "shell",
                      "args": {"command": cmd}}))
PY
oxi-tool -w "$WS" <"$TMP/sed.in" >"$TMP/sed.out" 2>"$TMP/sed.err"
check 'sed: no e command, whatever is named --sandbox' \
	'[ ! -e "$WS/pwned" ] && [ ! -e pwned ]'
check 'sed -i is held, the file is unchanged' \
	'grep "\"s4\"" "$TMP/sed.out" | grep -q "needs approval" &&
	! grep -q pwned "$WS/notes.txt"'
check 'sed still runs' 'grep "\"s5\"" "$TMP/sed.out" | grep -q "b\\\\na"'
done_testing
