#!/bin/sh
# make install and uninstall honour PREFIX, DESTDIR and MANDIR
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 10

D="$TMP/stage"
cmds="oxi-recv oxi-send oxi-guard oxi-loop oxi-llm oxi-tool oxi-vault oxi-doctor
	oxi-chat oxi-svc"
check 'make install into a staging directory' \
	'make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr MANDIR=/usr/man'
check 'every command is installed and runs' \
	'for c in $cmds; do [ -x "$D/usr/bin/$c" ] || exit 1
	 "$D/usr/bin/$c" --version >/dev/null || exit 1; done'
check 'man pages go to MANDIR' \
	'for c in $cmds; do [ -f "$D/usr/man/man1/$c.1" ] || exit 1; done &&
	 [ -f "$D/usr/man/man7/oxi.7" ] && [ -f "$D/usr/man/man8/oxi-chan.8" ]'
check 'bash, zsh and fish completions' \
	'for c in $cmds; do
		[ -f "$D/usr/share/bash-completion/completions/$c" ] &&
		[ -f "$D/usr/share/zsh/site-functions/_$c" ] &&
		[ -f "$D/usr/share/fish/vendor_completions.d/$c.fish" ] || exit 1
	 done'
# every channel but the terminal runs in oxi-chan, which oxi-recv and
# oxi-send exec: in LIBEXECDIR, or where OXI_CHAN_EXEC says
check 'oxi-chan goes to LIBEXECDIR and the installed commands run it' \
	'[ -x "$D/usr/libexec/oxi/oxi-chan" ] && [ ! -e "$D/usr/bin/oxi-chan" ] &&
	 { OXI_CHAN_EXEC="$D/usr/libexec/oxi/oxi-chan" "$D/usr/bin/oxi-send" \
		nosuch 2>"$TMP/e"; [ $? = 100 ]; } &&
	 grep -q "^oxi-send: fatal: unknown channel .nosuch. (known: cli, telegram" \
		"$TMP/e"'
# a wrapper between them (valgrind --trace-children is one) loses argv[0]:
# OXI_CHAN_AS says which command oxi-chan is
printf '#!/bin/sh\nexec "%s" "$@"\n' "$D/usr/libexec/oxi/oxi-chan" >"$TMP/wrap"
chmod +x "$TMP/wrap"
check 'oxi-chan speaks as the command that ran it, whatever its argv[0]' \
	'{ OXI_CHAN_EXEC="$TMP/wrap" "$D/usr/bin/oxi-recv" -l 5 nosuch \
		2>"$TMP/e"; [ $? = 100 ]; } &&
	 grep -q "^oxi-recv: fatal: unknown channel .nosuch." "$TMP/e" &&
	 { OXI_CHAN_EXEC="$TMP/wrap" "$D/usr/bin/oxi-send" -D nosuch \
		2>"$TMP/e"; [ $? = 100 ]; } &&
	 grep -q "^oxi-send: fatal: unknown channel .nosuch." "$TMP/e" &&
	 { "$D/usr/libexec/oxi/oxi-chan" nosuch 2>"$TMP/e"; [ $? = 100 ]; } &&
	 grep -q "^usage: oxi-chan is run by oxi-recv and oxi-send" "$TMP/e"'
check 'share/oxi is installed' '[ -f "$D/usr/share/oxi/deps.sh" ]'
check 'nothing is installed outside DESTDIR' \
	'[ -z "$(find "$D" -type f | grep -v "^$D/usr/")" ]'
check 'make uninstall removes it all' \
	'make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr MANDIR=/usr/man &&
	 [ -z "$(find "$D" -type f)" ]'
# oxi-chan speaks HTTP and keeps ledgers for Telegram, and checks
# Discord's Ed25519 signatures with libsodium; oxi-recv and oxi-send, for
# the terminal, link none of that
check 'each command links only the libraries it needs' \
	'! ldd "$TOP/bin/oxi-guard" | grep -q libcurl &&
	 ! ldd "$TOP/bin/oxi-recv" | grep -Eq "libpcre|libsodium|libcurl|libsqlite" &&
	 ! ldd "$TOP/bin/oxi-send" | grep -Eq "libpcre|libsodium|libcurl|libmd4c" &&
	 ! ldd "$TOP/bin/oxi-chan" | grep -Eq "libpcre" &&
	 ldd "$TOP/bin/oxi-chan" | grep -q libmd4c &&
	 ! ldd "$TOP/bin/oxi-tool" | grep -q libsqlite &&
	 ! ldd "$TOP/bin/oxi-loop" | grep -Eq "libcurl|libpcre"'
done_testing
