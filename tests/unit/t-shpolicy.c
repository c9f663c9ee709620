/*
 * t-shpolicy.c - the shell tool's parser and policy: every case of the
 * T-SH regression set is rejected or held, the plain commands run, the
 * binary is found in the system directories whatever $PATH says, and an
 * approval matches the exact argv, binary and cwd only
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"
#include "tap.h"

/* rejected (DENY) or held (ASK): never run as they are */
static const char *const bad[] = {
	/* abbreviated GNU long options */
	"sort --compress-prog=sh x", "sort --compress-p=sh x",
	"sort --compress-program sh x", "sort --compress=sh x",
	"sort -S1M --compress-prog sh x", "sort x --compress-prog=sh",
	/* sort file options */
	"sort --random-source=/dev/urandom x", "sort --random-s /dev/zero x",
	"sort -T /x x", "sort -T/x x", "sort -uT /x x", "sort -o /etc/x x",
	"sort -o/etc/x x", "sort -uo /etc/x x", "sort x -o /etc/x",
	"sort --output=/etc/x x", "sort --out /etc/x x",
	"sort --files0-from=list", "sort --files0=list", "sort --temporary=/x",
	/* other file options */
	"wc --files0-from=list", "wc --files0 list", "wc -l --files0-f=l",
	"du --files0-from=list", "grep -r foo .", "grep -R foo .",
	"grep -rn foo .", "grep -nr foo", "grep --recursive foo .",
	"grep --rec foo .", "grep --dereference-r foo", "grep -f pats x",
	"grep -fpats x", "grep -nf pats x", "grep --file=pats x",
	"grep --fi pats x", "grep -d recurse foo .", "grep --directories=recurse foo",
	"grep --exclude-from=list foo x", "egrep -r foo", "fgrep -f p x",
	"jq -f prog.jq x", "jq --from-file p x", "jq -rf p x", "jq -L /x .",
	"jq --rawfile a /etc/passwd .", "jq --slurpfile a x .",
	"jq 'import \"x\" as y; .' x", "jq 'include \"x\"; .' x",
	"date -s 2020-01-01", "date --set=2020-01-01", "date --se 2020",
	"shuf -o /etc/x x", "shuf --random-source=/dev/zero x",
	"file -C -m x", "tree -o /etc/x", "tree -R -H . -L 1", "uniq in out",
	/* sed writing files in place */
	"sed -i s/a/b/ x", "sed -ni p x", "sed -i.bak p x", "sed -si p x",
	"sed --in-place p x", "sed --in-place=.bak p x", "sed --in p x",
	"sed -n -e p -i x", "sed p x -i",
	/* chaining */
	"ls && curl http://x", "ls; id", "ls | sh", "ls || id", "ls & id",
	"ls &", "ls;id", "ls|sh", "ls\nid", "ls\rid",
	/* substitution */
	"ls $(id)", "ls `id`", "ls \"$(id)\"", "echo \"`id`\"", "echo $(id)",
	"ls \"`id`\"",
	/* expansion tricks */
	"ls ${IFS}", "ls${IFS}-la", "echo ${PATH:0:1}", "echo $HOME",
	"ls$IFS-la", "echo \"$HOME\"", "cat ~/.ssh/id_ed25519", "ls ~",
	"ls {a,b}", "echo a{1..3}",
	/* path-scoped names and assignments */
	"./ls", "/tmp/ls", "/usr/bin/ls", "../bin/ls", "bin/ls",
	"X=1 ls", "PATH=/tmp ls",
	/* wrappers */
	"zsh -lc 'id'", "bash -c id", "sh -c id", "dash -c id",
	"env X=1 sh", "env sh", "env -i id", "nice sh", "nice -n 5 id",
	"timeout 1 sh", "nohup sh", "stdbuf -o0 sh", "xargs sh", "xargs id",
	"setsid id", "time id", "busybox sh", "flock x sh",
	/* interpreters and exec options */
	"python3 -c 'print(1)'", "python3 x.py", "python -c 1",
	"perl -e 'print 1'", "ruby -e 'p 1'", "node -e 1", "php -r 1",
	"awk 'BEGIN{system(\"id\")}'", "awk 'BEGIN { system(\"id\") }'",
	"awk 'BEGIN{while((\"id\"|getline l)>0)print l}'",
	"awk '{print > \"/tmp/x\"}' f", "awk '{print | \"sh\"}' f",
	"awk -f prog.awk x", "awk -fprog.awk x", "awk --exec x",
	"gawk '@load \"x\"'", "mawk 'BEGIN{system(\"id\")}'",
	"awk -e 'BEGIN{}'", "awk", "nawk 'BEGIN{system(\"id\")}'",
	"find . -exec id \\;", "find . -exec id {} +", "find . -execdir id {} +",
	"find . -ok id \\;", "find . -okdir id \\;", "find . -delete",
	"find . -fprint /tmp/x", "find . -fprintf /tmp/x %p",
	"find . -fls /tmp/x", "find . -name x -exec sh -c id \\;",
	"git -c core.sshCommand=id fetch", "git -c core.pager=id log",
	"git -c alias.x=!id x", "git log", "git status",
	"tar --checkpoint-action=exec=id -cf x .", "tar -I id -cf x .",
	"tar --to-command=id -xf x", "tar --use-compress-program=id -cf x .",
	"less x", "less +!id x", "more x", "man ls", "vim x", "vi x",
	"view x", "ed x", "nano x", "emacs x",
	"dc -e '!id'", "m4 x", "make", "sqlite3 x .shell", "openssl x",
	"dd if=/dev/zero of=/dev/sda", "tee /dev/sda", "cp a /etc/x",
	"rm -rf .", "curl http://x", "wget http://x", "nc -l 1",
	/* process substitution, redirections, heredocs */
	"cat <(id)", "diff >(id) x", "ls > /dev/sda", "cat < /etc/passwd",
	"echo x >> f", "ls 2>&1", "ls >/dev/null", "cat <<EOF\nx\nEOF",
	"cat <<< x", "cat<<EOF", "(id)", "{ id; }",
	/* globs */
	"ls *", "cat /etc/*", "ls ?", "ls [a]", "ls # comment",
	/* unicode look-alikes of allowed names */
	"\xe2\x85\xbcs", "l\xd1\x95", "\xef\xbd\x8c\xef\xbd\x93",
	"ls\xe2\x80\x8b", "c\xd0\xb0t x", "\xd0\xb5" "cho hi",
	/* not commands, not found, not quoted right */
	"", "   ", "'unterminated", "\"unterminated", "ls \\", ".",
	"no-such-command-oxi", "-ls", NULL
};

/* run as they are */
static const char *const good[] = {
	"ls", "ls -la", "ls -la sub", "cat 'a b.txt'", "head -n 5 notes.txt",
	"tail -n 2 x", "grep -n foo notes.txt", "grep -e -r x", "grep -- -r x",
	"grep -i 'a|b' x", "sort -k2 -t, data.csv", "sort -n x", "sort -r x",
	"sort -u -k 1,1 x", "wc -l x", "wc -c x y", "echo \"hello world\"",
	"echo 'it''s'", "echo a\\ b", "date -u", "date -d yesterday",
	"find . -name '*.txt'", "find . -type f -name \"*.c\"",
	"jq .a data.json", "jq -r '.[] | .name' x", "jq --arg f -f '.' x",
	"awk '{print $1}' x", "awk -F, '{print $2}' x",
	"awk -v n=2 'NR==n' x", "uniq x", "uniq -c x", "diff a b",
	"printf '%s\\n' a", "cut -d: -f1 x", "tr a-z A-Z", "wc",
	"md5sum x", "sha256sum x", "basename /a/b", "pwd", "true", "id",
	"uname -a", "du -sh .", "stat x", "sed -n 1,5p x", "nl x", "seq 3",
	"echo {}", "echo a!b", "echo caf\xc3\xa9", NULL
};

/* sed words that equal its guard, or could be read as options */
static const char *const sedcases[] = {
	"sed -f --sandbox x", "sed '1e id' -- --sandbox",
	"sed -e '1e id' -- --sandbox", "sed -e --sandbox x",
	"sed --expression --sandbox x", "sed --file --sandbox x",
	"sed -n -f --sandbox", "sed -s -f --sandbox -- --sandbox",
	"sed --sandbox -e p x", "sed -e p x --sandbox", "sed --sand p x",
	"sed -l --sandbox p x", "sed -- --sandbox", NULL
};

/* spellings of a store inside the workspace %s/ws */
static const char *const inws[] = {
	"%s/link/approved", "%s/./ws/approved", "%s//ws/approved",
	"%s/ws/../ws/approved", "%s/ws/./approved", "%s/link/../ws/approved",
	"%s/ws/", "%s/ws", NULL
};

static const char *const sysdirs[] = {
	"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", NULL
};

/* the case, on one line */
static const char *
show(const char *s)
{
	static char buf[256];
	size_t i, n = 0;

	for (i = 0; s[i] && n < sizeof buf - 3; i++)
		if (s[i] == '\n' || s[i] == '\r') {
			buf[n++] = '\\';
			buf[n++] = s[i] == '\n' ? 'n' : 'r';
		} else
			buf[n++] = s[i];
	buf[n] = '\0';
	return buf;
}

static void
parse(struct oxi_sh *sh, const char *line)
{
	memset(sh, 0, sizeof *sh);
	oxi_sh_parse(sh, line, strlen(line));
}

int
main(void)
{
	struct oxi_sh sh;
	char dir[] = "/tmp/t-shpolicy.XXXXXX", path[512], ws[512], *line;
	char *line2;
	FILE *f;
	struct dirent *de;
	DIR *d;
	size_t n;
	int i, nbad, ngood, nsed, ninws, nver, nheld, v;

	for (nbad = 0; bad[nbad]; nbad++)
		;
	for (ngood = 0; good[ngood]; ngood++)
		;
	for (nsed = 0; sedcases[nsed]; nsed++)
		;
	for (ninws = 0; inws[ninws]; ninws++)
		;
	plan(nbad + ngood + nsed + ninws + 29);
	unsetenv("OXI_SHELL_POLICY");
	unsetenv("OXI_SHELL_ALLOW");
	unsetenv("OXI_SHELL_DENY");
	unsetenv("OXI_SANDBOX_ENV");
	for (i = 0; bad[i]; i++) {
		memset(&sh, 0, sizeof sh);
		v = oxi_sh_parse(&sh, bad[i], strlen(bad[i])) < 0 ?
		    sh.verdict : oxi_sh_check(&sh);
		ok(v == OXI_SH_DENY || v == OXI_SH_ASK, "refused or held: %s "
		    "(%s)", show(bad[i]), v == OXI_SH_ALLOW ? "ALLOWED" : sh.why);
		oxi_sh_free(&sh);
	}
	for (i = 0; good[i]; i++) {
		memset(&sh, 0, sizeof sh);
		v = oxi_sh_parse(&sh, good[i], strlen(good[i])) < 0 ?
		    sh.verdict : oxi_sh_check(&sh);
		ok(v == OXI_SH_ALLOW, "runs: %s%s%s", good[i], *sh.why ?
		    " -- " : "", sh.why);
		oxi_sh_free(&sh);
	}

	/* the words */
	parse(&sh, "grep -e 'a b' \"c\\\"d\" e\\ f '' g");
	is_int(sh.argc, 7, "seven words");
	is_str(sh.argv[2], "a b", "single quotes keep spaces");
	is_str(sh.argv[3], "c\"d", "a backslash escapes a double quote");
	is_str(sh.argv[4], "e f", "a backslash escapes a space");
	is_str(sh.argv[5], "", "'' is an empty word");
	oxi_sh_free(&sh);

	/* a hijacked PATH changes nothing */
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/ls", dir);
	f = fopen(path, "w");
	fputs("#!/bin/sh\necho hijacked\n", f);
	fclose(f);
	chmod(path, 0755);
	snprintf(path, sizeof path, "%s:/usr/bin:/bin", dir);
	setenv("PATH", path, 1);
	parse(&sh, "ls");
	is_int(oxi_sh_check(&sh), OXI_SH_ALLOW, "ls runs with PATH hijacked");
	ok(sh.exe && (strcmp(sh.exe, "/usr/bin/ls") == 0 ||
	    strcmp(sh.exe, "/bin/ls") == 0), "ls is the system's: %s",
	    sh.exe ? sh.exe : "(none)");
	oxi_sh_free(&sh);

	/* sed runs with --sandbox */
	parse(&sh, "sed 1e\\ id x");
	is_int(oxi_sh_check(&sh), OXI_SH_ALLOW, "sed runs");
	is_str(sh.argv[1], "--sandbox", "sed gets --sandbox (no e, w, r)");
	oxi_sh_free(&sh);

	/* the guard holds whatever the operands and option arguments */
	for (i = 0; sedcases[i]; i++) {
		parse(&sh, sedcases[i]);
		v = oxi_sh_check(&sh);
		ok(v != OXI_SH_ALLOW || (sh.argc > 1 &&
		    strcmp(sh.argv[1], "--sandbox") == 0), "sed guard first: "
		    "%s -> %s", sedcases[i], v != OXI_SH_ALLOW ? "held" :
		    sh.argv[1]);
		oxi_sh_free(&sh);
	}

	/*
	 * a version suffix never makes another program run: every command
	 * of the system directories whose name ends in a digit (diff3,
	 * python3.11, gcc-12) is held or refused, but base32 and base64
	 */
	nver = nheld = 0;
	for (i = 0; sysdirs[i]; i++) {
		if (!(d = opendir(sysdirs[i])))
			continue;
		while ((de = readdir(d))) {
			n = strlen(de->d_name);
			if (n == 0 || de->d_name[n - 1] < '0' ||
			    de->d_name[n - 1] > '9' ||
			    strcmp(de->d_name, "base32") == 0 ||
			    strcmp(de->d_name, "base64") == 0)
				continue;
			snprintf(path, sizeof path, "%s --diff-program=id x y z",
			    de->d_name);
			parse(&sh, path);
			nver++;
			if (sh.argc == 0 || oxi_sh_check(&sh) != OXI_SH_ALLOW)
				nheld++;
			else
				printf("# runs: %s (%s)\n", path, sh.real);
			oxi_sh_free(&sh);
		}
		closedir(d);
	}
	is_int(nheld, nver, "every versioned name is held (%d)", nver);
	parse(&sh, "diff3 --diff-program=id a b c");
	v = oxi_sh_check(&sh);
	ok(v == OXI_SH_ASK || v == OXI_SH_DENY, "diff3 is held: %s", sh.why);
	oxi_sh_free(&sh);

	/* python3 resolves to its versioned file, still held */
	parse(&sh, "python3 -c 'print(1)'");
	v = oxi_sh_check(&sh);
	ok(v == OXI_SH_ASK || v == OXI_SH_DENY, "python3 -c is held");

	/* approvals: the exact argv, binary and cwd only */
	snprintf(path, sizeof path, "%s/approved", dir);
	setenv("OXI_SHELL_APPROVED", path, 1);
	line = oxi_sh_approval(&sh, ".");
	ok(strstr(line, "\"argv\":[\"python3\",\"-c\",\"print(1)\"]") &&
	    strstr(line, "\"bin\":\"/usr/") && strstr(line, "\"cwd\":\".\""),
	    "the approval line names argv, binary, cwd: %s", line);
	is_int(oxi_sh_approved(line, NULL), 0, "not approved yet");
	f = fopen(path, "w");
	fprintf(f, "# approved by hand\n%s\n", line);
	fclose(f);
	is_int(oxi_sh_approved(line, NULL), 1, "approved once in the store");
	is_int(oxi_sh_approved(line, NULL), 1, "and again: the store stays");
	line2 = oxi_sh_approval(&sh, "sub");
	is_int(oxi_sh_approved(line2, NULL), 0, "another cwd is not approved");
	free(line2);
	oxi_sh_free(&sh);
	parse(&sh, "python3 -c 'print(2)'");
	oxi_sh_check(&sh);
	line2 = oxi_sh_approval(&sh, ".");
	is_int(oxi_sh_approved(line2, NULL), 0, "one argument more or less "
	    "is not approved");
	oxi_sh_free(&sh);
	snprintf(path, sizeof path, "%s/approved-once", dir);
	f = fopen(path, "w");
	fprintf(f, "%s\n", line2);
	fclose(f);
	is_int(oxi_sh_approved(line2, NULL), 1, "a one-shot approval works");
	is_int(oxi_sh_approved(line2, NULL), 0, "once");
	is_int(oxi_sh_approved(line, dir), 0, "a store inside the workspace "
	    "approves nothing");

	/* the same store, however the paths spell it */
	snprintf(ws, sizeof ws, "%s/ws", dir);
	mkdir(ws, 0700);
	snprintf(path, sizeof path, "%s/ws/approved", dir);
	f = fopen(path, "w");
	fprintf(f, "%s\n", line);
	fclose(f);
	snprintf(path, sizeof path, "%s/link", dir);
	if (symlink("ws", path) < 0)
		return 1;
	snprintf(path, sizeof path, "%s/approved", dir);
	setenv("OXI_SHELL_APPROVED", path, 1);
	is_int(oxi_sh_approved(line, ws), 1, "a store beside the workspace "
	    "approves");
	for (i = 0; inws[i]; i++) {
		snprintf(path, sizeof path, inws[i], dir);
		setenv("OXI_SHELL_APPROVED", path, 1);
		is_int(oxi_sh_approved(line, ws), 0, "a store inside the "
		    "workspace approves nothing: %s", inws[i]);
	}
	snprintf(path, sizeof path, "%s/link", dir);
	is_int(oxi_sh_approved(line, path), 0, "nor through a workspace "
	    "given by a link");
	/* a store, or its -once file, that is a link into the workspace */
	snprintf(path, sizeof path, "%s/ws/approved", dir);
	snprintf(ws, sizeof ws, "%s/st", dir);
	if (symlink(path, ws) < 0)
		return 1;
	setenv("OXI_SHELL_APPROVED", ws, 1);
	snprintf(ws, sizeof ws, "%s/ws", dir);
	is_int(oxi_sh_approved(line, ws), 0, "a store linked into the "
	    "workspace approves nothing");
	snprintf(ws, sizeof ws, "%s/st2-once", dir);
	if (symlink(path, ws) < 0)
		return 1;
	snprintf(ws, sizeof ws, "%s/st2", dir);
	setenv("OXI_SHELL_APPROVED", ws, 1);
	snprintf(ws, sizeof ws, "%s/ws", dir);
	is_int(oxi_sh_approved(line, ws), 0, "a -once file linked into the "
	    "workspace approves nothing");
	snprintf(path, sizeof path, "%s/nodir/approved", dir);
	setenv("OXI_SHELL_APPROVED", path, 1);
	is_int(oxi_sh_approved(line, ws), 0, "a store whose directory "
	    "cannot be resolved approves nothing");
	snprintf(path, sizeof path, "%s/nows", dir);
	snprintf(ws, sizeof ws, "%s/approved", dir);
	setenv("OXI_SHELL_APPROVED", ws, 1);
	is_int(oxi_sh_approved(line, path), 0, "nor with a workspace that "
	    "cannot be resolved");
	if (chdir(dir) < 0)
		return 1;
	setenv("OXI_SHELL_APPROVED", "ws/approved", 1);
	snprintf(ws, sizeof ws, "%s/ws", dir);
	is_int(oxi_sh_approved(line, ws), 0, "nor a relative store in it");
	setenv("OXI_SHELL_APPROVED", "./ws/approved", 1);
	is_int(oxi_sh_approved(line, "ws"), 0, "nor a store in a relative "
	    "workspace");
	free(line);
	free(line2);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	v = system(path);
	(void)v;
	return done();
}
