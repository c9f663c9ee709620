/*
 * shpolicy.c - the shell tool's command line and its policy
 *
 * No shell ever reads the command: the line is split into words here and
 * the words are run with execve(2) in the sandbox.  So the parser only
 * accepts what has a meaning without a shell (words, quotes, backslash
 * escapes) and refuses everything a shell would have done: pipes, lists
 * and background jobs (| & ; && ||), redirections and heredocs (< >),
 * subshells and process substitution (( )), parameter expansion and
 * command substitution ($ and backquotes, ${IFS} included), globs
 * (* ? [), brace expansion, ~ and comments, several lines.
 *
 * The policy reads the words as the command will.  The name must be
 * plain ASCII without a slash, and is looked up in the system
 * directories only (never $PATH, never the workspace); the file found
 * and every link on its way must be in a system directory, owned by
 * root and writable by root only.  The rules then apply both to the
 * name called and to the name of the file it resolves to (awk is mawk,
 * python3 is python3.11), the stricter winning.  Options are read the
 * way GNU getopt_long reads them: anywhere before "--", bundled short
 * options with attached arguments, and long options abbreviated to any
 * prefix, so "--compress-p" is "--compress-program".
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define MAXWORDS	1024
#define MAXLINE		65536

/* where commands are looked up: system directories, in this order */
static const char *const syspath[] = {
	"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", NULL
};

enum {
	K_RUN,		/* runs, with its option rules */
	K_ASK,		/* held for approval */
	K_DENY		/* refused */
};

struct rule {
	const char *names;	/* space-separated names it applies to */
	int kind;		/* K_* */
	const char *what;	/* why it is held or refused */
	const char *sarg;	/* short options taking an argument */
	const char *sbad;	/* short options held for approval */
	const char *larg;	/* long options taking an argument */
	const char *lbad;	/* long options held for approval */
	/* more checks: K_RUN, or K_ASK/K_DENY with why set */
	int (*extra)(struct oxi_sh *, char *why, size_t n);
};

static int awkcheck(struct oxi_sh *, char *, size_t);
static int findcheck(struct oxi_sh *, char *, size_t);
static int jqcheck(struct oxi_sh *, char *, size_t);
static int uniqcheck(struct oxi_sh *, char *, size_t);
static int sedcheck(struct oxi_sh *, char *, size_t);

static const struct rule rules[] = {
	/* text and file inspection: the allowlist */
	{ "ls dir vdir", K_RUN, NULL, "IwT", "", "block-size format hide "
	  "ignore indicator-style quoting-style sort time time-style "
	  "tabsize width", "", NULL },
	{ "cat tac nl rev fold fmt expand unexpand paste join comm column "
	  "cut tr head tail seq basename dirname echo printf pwd true false "
	  "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum "
	  "cksum sum base32 base64 basenc od hexdump strings wc du df stat "
	  "diff cmp realpath readlink whoami id uname nproc sleep expr factor "
	  "numfmt tsort printenv locale getconf arch logname tty users groups "
	  "cal ncal", K_RUN, NULL, "", "", "", "files0-from", NULL },
	{ "date", K_RUN, NULL, "dfr", "s", "date file reference set "
	  "rfc-3339", "set", NULL },
	{ "sort", K_RUN, NULL, "kSTot", "To", "key buffer-size "
	  "temporary-directory output field-separator parallel batch-size "
	  "sort compress-program random-source files0-from",
	  "compress-program random-source temporary-directory output "
	  "files0-from", NULL },
	{ "shuf", K_RUN, NULL, "ino", "o", "input-range head-count output "
	  "random-source", "output random-source", NULL },
	{ "grep egrep fgrep", K_RUN, NULL, "efmABCdD", "frRd", "regexp file "
	  "max-count after-context before-context context directories "
	  "devices label binary-files include exclude exclude-from "
	  "exclude-dir group-separator",
	  "file recursive dereference-recursive exclude-from directories",
	  NULL },
	{ "file", K_RUN, NULL, "efFmP", "C", "exclude exclude-quiet "
	  "files-from separator magic-file parameter", "compile", NULL },
	{ "tree", K_RUN, NULL, "LPIoH", "oR", "filelimit timefmt charset "
	  "sort fromfile", "fromfile", NULL },
	{ "uniq", K_RUN, NULL, "fsw", "", "skip-fields skip-chars "
	  "check-chars", "", uniqcheck },
	{ "find", K_RUN, NULL, "", "", "", "", findcheck },
	{ "jq", K_RUN, NULL, "", "", "", "", jqcheck },
	{ "sed", K_RUN, NULL, "efl", "i", "expression file line-length",
	  "in-place", sedcheck },
	{ "awk mawk gawk nawk original-awk", K_RUN, NULL, "", "", "", "",
	  awkcheck },

	/* refused: they need a terminal the tool does not have */
	{ "less more most pg man info vi vim view nvim vim.basic vim.tiny "
	  "vim.nox vim.gtk3 ex rvim ed red nano pico emacs jed joe mc top htop "
	  "screen tmux watch", K_DENY,
	  "is interactive and needs a terminal (it could also run commands "
	  "through its ! escape)", NULL, NULL, NULL, NULL, NULL },

	/* held: they run other programs or programs given inline */
	{ "sh bash dash zsh ksh ksh93 mksh pdksh yash fish csh tcsh rbash ash "
	  "busybox toybox", K_ASK, "is a shell: it runs any command given to "
	  "it", NULL, NULL, NULL, NULL, NULL },
	{ "env nice nohup timeout stdbuf xargs time setsid chroot unshare "
	  "nsenter su sudo doas runuser setpriv chrt ionice taskset flock "
	  "script strace ltrace gdb valgrind parallel sg newgrp firejail bwrap "
	  "systemd-run capsh prlimit numactl rlwrap expect eatmydata faketime "
	  "fakeroot proot schroot setarch linux32 linux64 pkexec run-parts "
	  "start-stop-daemon entr command exec builtin eval", K_ASK,
	  "runs another command given in its arguments", NULL, NULL, NULL,
	  NULL, NULL },
	{ "python python2 python3 pypy pypy3 perl ruby irb node nodejs deno "
	  "bun php lua luajit tclsh wish R Rscript julia guile racket ocaml "
	  "ghci runghc swift java jshell groovy scala kotlin dotnet pwsh bc "
	  "dc m4 gdb sqlite3 psql mysql", K_ASK, "is an interpreter: it runs "
	  "a program given inline or in a file", NULL, NULL, NULL, NULL,
	  NULL },
	{ "git tar make cmake ninja ssh scp sftp rsync curl wget nc ncat "
	  "netcat socat telnet ftp zip unzip cpio pip pip3 npm npx yarn pnpm "
	  "cargo go gcc cc c++ g++ clang ld as docker podman kubectl "
	  "systemctl crontab at batch mail sendmail tee dd cp mv rm ln chmod "
	  "chown touch mkdir rmdir install truncate shred split csplit patch "
	  "openssl gpg ssh-keygen xxd diff3 sdiff", K_ASK, "can run other programs, reach "
	  "the network or change files", NULL, NULL, NULL, NULL, NULL },
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL }
};

static void
sh_add(struct oxi_sh *sh, const char *w, size_t n)
{
	sh->argv = xrealloc(sh->argv, (sh->argc + 2) * sizeof *sh->argv);
	sh->argv[sh->argc++] = xstrndup(w, n);
	sh->argv[sh->argc] = NULL;
}

static int
refuse(struct oxi_sh *sh, int verdict, const char *fmt, const char *arg)
{
	snprintf(sh->why, sizeof sh->why, fmt, arg);
	sh->verdict = verdict;
	return -1;
}

static const char *
metawhy(int c)
{
	switch (c) {
	case '|':
		return "a pipe or || (only one command runs per call, without "
		    "a shell)";
	case '&':
		return "&& or a background & (only one command runs per call, "
		    "without a shell)";
	case ';':
		return "a ; list (only one command runs per call, without a "
		    "shell)";
	case '<': case '>':
		return "a redirection or heredoc (the output comes back as the "
		    "result; use write_file to write a file)";
	case '(': case ')':
		return "a subshell or process substitution (no shell runs the "
		    "command)";
	case '$':
		return "a $ expansion or substitution (no shell expands it; "
		    "quote it in single quotes to pass it literally)";
	case '`':
		return "a command substitution with backquotes";
	case '*': case '?': case '[':
		return "a glob pattern (not expanded: name the files, or use "
		    "the glob tool)";
	case '{': case '}':
		return "a brace expansion (not expanded)";
	case '~':
		return "a ~ (not expanded; the workspace is the home "
		    "directory: use relative paths)";
	case '#':
		return "a # comment";
	case '\n': case '\r':
		return "more than one line (one command per call)";
	default:
		return "a control character";
	}
}

int
oxi_sh_parse(struct oxi_sh *sh, const char *line, size_t len)
{
	struct oxi_buf w = OXI_BUF_INIT;
	size_t i;
	int inword = 0, r = -1;
	unsigned char c;

	sh->verdict = OXI_SH_DENY;
	if (len > MAXLINE)
		return refuse(sh, OXI_SH_DENY, "the command is too long%s", "");
	if (memchr(line, 0, len) != NULL)
		return refuse(sh, OXI_SH_DENY, "the command holds a NUL "
		    "byte%s", "");
	for (i = 0; i <= len; i++) {
		c = i < len ? (unsigned char)line[i] : ' ';
		if (c == ' ' || c == '\t') {
			if (inword) {
				if (sh->argc >= MAXWORDS) {
					refuse(sh, OXI_SH_DENY, "too many "
					    "words%s", "");
					goto done;
				}
				sh_add(sh, w.s ? w.s : "", w.len);
				oxi_buf_reset(&w);
				inword = 0;
			}
			continue;
		}
		if (c == '\'') {
			inword = 1;
			oxi_buf_cats(&w, "");
			for (i++; i < len && line[i] != '\''; i++)
				oxi_buf_putc(&w, line[i]);
			if (i >= len) {
				refuse(sh, OXI_SH_DENY, "an unterminated "
				    "single quote%s", "");
				goto done;
			}
			continue;
		}
		if (c == '"') {
			inword = 1;
			oxi_buf_cats(&w, "");
			for (i++; i < len && line[i] != '"'; i++) {
				c = (unsigned char)line[i];
				if (c == '$' || c == '`') {
					refuse(sh, OXI_SH_DENY, "the command "
					    "holds %s", metawhy(c));
					goto done;
				}
				if (c == '\\' && i + 1 < len &&
				    strchr("\"\\$`", line[i + 1]))
					c = (unsigned char)line[++i];
				else if (c == '\\' && i + 1 < len &&
				    line[i + 1] == '\n') {
					refuse(sh, OXI_SH_DENY, "the command "
					    "holds %s", metawhy('\n'));
					goto done;
				}
				oxi_buf_putc(&w, c);
			}
			if (i >= len) {
				refuse(sh, OXI_SH_DENY, "an unterminated "
				    "double quote%s", "");
				goto done;
			}
			continue;
		}
		if (c == '\\') {
			if (i + 1 >= len || line[i + 1] == '\n' ||
			    line[i + 1] == '\r') {
				refuse(sh, OXI_SH_DENY, "a backslash at the end "
				    "of a line%s", "");
				goto done;
			}
			inword = 1;
			oxi_buf_putc(&w, line[++i]);
			continue;
		}
		if (c < 0x20 || c == 0x7f || strchr("|&;<>()$`*?[", c) ||
		    ((c == '~' || c == '#') && !inword)) {
			refuse(sh, OXI_SH_DENY, "the command holds %s",
			    metawhy(c));
			goto done;
		}
		if (c == '{' || c == '}') {
			/* "{}" alone, as find -exec has it, expands to itself */
			if (!(c == '{' && !inword && i + 1 < len &&
			    line[i + 1] == '}' && (i + 2 == len ||
			    line[i + 2] == ' ' || line[i + 2] == '\t'))) {
				refuse(sh, OXI_SH_DENY, "the command holds %s",
				    metawhy(c));
				goto done;
			}
			oxi_buf_cats(&w, "{}");
			inword = 1;
			i++;
			continue;
		}
		inword = 1;
		oxi_buf_putc(&w, c);
	}
	if (sh->argc == 0) {
		refuse(sh, OXI_SH_DENY, "the command is empty%s", "");
		goto done;
	}
	sh->verdict = OXI_SH_ALLOW;
	r = 0;
done:
	oxi_buf_free(&w);
	return r;
}

/* 1 if name is one of the space-separated words of list */
static int
inlist(const char *list, const char *name)
{
	size_t n = strlen(name), k;
	const char *p;

	for (p = list; p && *p; p += k) {
		p += strspn(p, " ,\t");
		k = strcspn(p, " ,\t");
		if (k == n && n > 0 && strncmp(p, name, n) == 0)
			return 1;
	}
	return 0;
}

/* 1 if some word of list starts with name[0..n): getopt_long's prefix */
static int
prefixof(const char *list, const char *name, size_t n, const char **hit)
{
	const char *p;
	size_t k;

	for (p = list; p && *p; p += k) {
		p += strspn(p, " ");
		k = strcspn(p, " ");
		if (k >= n && n > 0 && strncmp(p, name, n) == 0) {
			*hit = p;
			return 1;
		}
	}
	return 0;
}

/* the rule of name, or NULL */
static const struct rule *
rulefor(const char *name)
{
	const struct rule *r;

	for (r = rules; r->names; r++)
		if (inlist(r->names, name))
			return r;
	return NULL;
}

/* 1 if s is a version: an optional - or . then digits and dots */
static int
isversion(const char *s)
{
	if (*s == '-' || *s == '.')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' &&
		    s[1] <= '9')))
			return 0;
	return 1;
}

/*
 * python3.11 -> python3, gcc-12 -> gcc: the rule of a versioned name.
 * The name with its version dropped may be another program (diff3 is
 * not diff), so a version only ever brings a rule that holds or refuses:
 * the rules that let a command run are for their exact names.
 */
static const struct rule *
rulever(const char *name)
{
	const struct rule *r;
	char buf[NAME_MAX + 1];
	size_t n;

	if ((r = rulefor(name)))
		return r;
	snprintf(buf, sizeof buf, "%s", name);
	for (n = strlen(buf) - 1; n > 0; n--) {
		if (!isversion(name + n))
			continue;
		buf[n] = '\0';
		if ((r = rulefor(buf)) && r->kind != K_RUN)
			return r;
	}
	return NULL;
}

/*
 * Reads the options of sh->argv as getopt_long would, for the rule's
 * option lists: K_RUN, or K_ASK with why.  Sets *nop to the number of
 * operands seen.
 */
static int
options(struct oxi_sh *sh, const struct rule *r, char *why, size_t n,
    int *nop)
{
	const char *a, *hit, *eq;
	size_t len;
	int i, j;

	*nop = 0;
	for (i = 1; i < sh->argc; i++) {
		a = sh->argv[i];
		if (strcmp(a, "--") == 0) {
			*nop += sh->argc - i - 1;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			(*nop)++;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			if (prefixof(r->lbad, a + 2, len, &hit)) {
				snprintf(why, n, "'%.*s' is %s--%.*s, which "
				    "can run programs, read or write other "
				    "files", (int)(len + 2 > 60 ? 60 : len + 2),
				    a, strcspn(hit, " ") == len ? "" :
				    "an abbreviation of ",
				    (int)strcspn(hit, " "), hit);
				return K_ASK;
			}
			if (!eq && prefixof(r->larg, a + 2, len, &hit))
				i++;	/* its argument is the next word */
			continue;
		}
		for (j = 1; a[j]; j++) {
			if (r->sbad && strchr(r->sbad, a[j])) {
				snprintf(why, n, "option -%c of %s can run "
				    "programs, read or write other files",
				    a[j], sh->argv[0]);
				return K_ASK;
			}
			if (r->sarg && strchr(r->sarg, a[j])) {
				if (a[j + 1] == '\0')
					i++;
				break;
			}
		}
	}
	return K_RUN;
}

static int
uniqcheck(struct oxi_sh *sh, char *why, size_t n)
{
	const struct rule *r = rulefor("uniq");
	int nop, v;

	if ((v = options(sh, r, why, n, &nop)) != K_RUN)
		return v;
	if (nop > 1) {
		snprintf(why, n, "uniq writes its second operand, a file");
		return K_ASK;
	}
	return K_RUN;
}

static int
findcheck(struct oxi_sh *sh, char *why, size_t n)
{
	static const char bad[] = "-exec -execdir -ok -okdir -delete -fprint "
	    "-fprint0 -fprintf -fls -files0-from";
	int i;

	for (i = 1; i < sh->argc; i++)
		if (inlist(bad, sh->argv[i])) {
			snprintf(why, n, "find %s runs a command, deletes or "
			    "writes files", sh->argv[i]);
			return K_ASK;
		}
	return K_RUN;
}

static int
jqcheck(struct oxi_sh *sh, char *why, size_t n)
{
	const char *a;
	int i, prog = 0;

	for (i = 1; i < sh->argc; i++) {
		a = sh->argv[i];
		if (strcmp(a, "--args") == 0 || strcmp(a, "--jsonargs") == 0)
			break;	/* the rest are values */
		if (strcmp(a, "--arg") == 0 || strcmp(a, "--argjson") == 0) {
			i += 2;
			continue;
		}
		if (strcmp(a, "--indent") == 0) {
			i++;
			continue;
		}
		if (strcmp(a, "-f") == 0 || strcmp(a, "--from-file") == 0 ||
		    strcmp(a, "--slurpfile") == 0 ||
		    strcmp(a, "--rawfile") == 0 || strncmp(a, "-L", 2) == 0 ||
		    (a[0] == '-' && a[1] != '-' && strpbrk(a, "fL"))) {
			snprintf(why, n, "jq %.40s reads a program or data "
			    "from another file", a);
			return K_ASK;
		}
		if (a[0] == '-' && a[1] != '\0')
			continue;
		if (!prog++ && (strstr(a, "import") || strstr(a, "include"))) {
			snprintf(why, n, "the jq program loads modules");
			return K_ASK;
		}
	}
	return K_RUN;
}

static int
sedcheck(struct oxi_sh *sh, char *why, size_t n)
{
	const struct rule *r = rulefor("sed");
	int nop, v;

	if ((v = options(sh, r, why, n, &nop)) != K_RUN)
		return v;
	/*
	 * GNU sed --sandbox refuses the e, w and r commands.  It goes first,
	 * always: a "--sandbox" elsewhere may be an operand (after "--") or
	 * the argument of -f or -e, and first no word can take it as its
	 * argument, while nothing after it turns it off.
	 */
	sh->argv = xrealloc(sh->argv, (sh->argc + 2) * sizeof *sh->argv);
	memmove(sh->argv + 2, sh->argv + 1, sh->argc * sizeof *sh->argv);
	sh->argv[1] = xstrdup("--sandbox");
	sh->argc++;
	return K_RUN;
}

static int
awkcheck(struct oxi_sh *sh, char *why, size_t n)
{
	static const char *const bad[] = { "system", "getline", "|", ">",
		"@", "close", "fflush", "ENVIRON", "PROCINFO", NULL };
	const char *a;
	int i, k;

	for (i = 1; i < sh->argc; i++) {
		a = sh->argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (strcmp(a, "-F") == 0 || strcmp(a, "-v") == 0) {
			i++;
			continue;
		}
		if (strncmp(a, "-F", 2) == 0 || strncmp(a, "-v", 2) == 0)
			continue;
		snprintf(why, n, "%s option %.40s may load or run a program",
		    sh->argv[0], a);
		return K_ASK;
	}
	if (i >= sh->argc) {
		snprintf(why, n, "%s without a program", sh->argv[0]);
		return K_ASK;
	}
	for (k = 0; bad[k]; k++)
		if (strstr(sh->argv[i], bad[k])) {
			snprintf(why, n, "the %s program uses '%s', which can "
			    "run commands or write files", sh->argv[0],
			    bad[k]);
			return K_ASK;
		}
	return K_RUN;
}

/* a file or directory fit to hold a command: root's, written by root */
static int
sysowned(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return S_ISLNK(st.st_mode) && st.st_uid == 0;
	return 1;
}

/* 1 if path lies in a system directory */
static int
insys(const char *path)
{
	static const char *const ok[] = { "/usr/", "/bin/", "/sbin/",
		"/lib/", "/lib64/", "/etc/alternatives/", NULL };
	int i;

	for (i = 0; ok[i]; i++)
		if (strncmp(path, ok[i], strlen(ok[i])) == 0)
			return 1;
	return 0;
}

/* 1 if every link from path to its file is a system one */
static int
syschain(const char *path)
{
	char cur[PATH_MAX], lnk[PATH_MAX], *slash;
	struct stat st;
	ssize_t k;
	int hops;

	snprintf(cur, sizeof cur, "%s", path);
	for (hops = 0; hops < 16; hops++) {
		if (lstat(cur, &st) < 0)
			return 0;
		if (!S_ISLNK(st.st_mode))
			return 1;
		if (!insys(cur) || !sysowned(cur))
			return 0;
		if ((k = readlink(cur, lnk, sizeof lnk - 1)) <= 0)
			return 0;
		lnk[k] = '\0';
		if (lnk[0] == '/')
			snprintf(cur, sizeof cur, "%s", lnk);
		else if ((slash = strrchr(cur, '/')) && (size_t)(slash - cur) +
		    1 + (size_t)k < sizeof cur) {
			memcpy(slash + 1, lnk, (size_t)k + 1);
		} else
			return 0;
	}
	return 0;
}

/* finds name in the system directories: 0, or -1 with why */
static int
findexe(struct oxi_sh *sh)
{
	char buf[PATH_MAX], real[PATH_MAX], dir[PATH_MAX], *slash;
	struct stat st;
	int i;

	for (i = 0; syspath[i]; i++) {
		snprintf(buf, sizeof buf, "%s/%s", syspath[i], sh->argv[0]);
		if (stat(buf, &st) < 0 || !S_ISREG(st.st_mode) ||
		    access(buf, X_OK) < 0)
			continue;
		if (!realpath(buf, real))
			continue;
		snprintf(dir, sizeof dir, "%s", real);
		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
		if (!insys(real) || !syschain(buf) || !sysowned(real) ||
		    !sysowned(dir)) {
			refuse(sh, OXI_SH_DENY, "'%.64s' resolves outside the "
			    "system directories, or to a file others may "
			    "write", sh->argv[0]);
			return -1;
		}
		sh->exe = xstrdup(buf);
		sh->real = xstrdup(real);
		return 0;
	}
	refuse(sh, OXI_SH_DENY, "'%.64s' is not a command of the system "
	    "directories (/usr/bin, /bin, /usr/sbin, /sbin, /usr/local/bin)",
	    sh->argv[0]);
	return -1;
}

/* the verdict of one rule (or none) for the words */
static int
judge(struct oxi_sh *sh, const struct rule *r, const char *name, int allow,
    char *why, size_t n)
{
	int nop;

	if (!r) {
		if (allow)
			return K_RUN;
		snprintf(why, n, "'%.64s' is not in the shell allowlist", name);
		return K_ASK;
	}
	if (r->kind != K_RUN) {
		snprintf(why, n, "%.64s %s", name, r->what);
		return r->kind;
	}
	if (r->extra)
		return r->extra(sh, why, n);
	return options(sh, r, why, n, &nop);
}

int
oxi_sh_check(struct oxi_sh *sh)
{
	const char *mode = oxi_getenv("OXI_SHELL_POLICY"), *name, *base;
	const struct rule *r1, *r2;
	const unsigned char *u;
	int deny = 0, v1, v2, extra;
	char why2[sizeof sh->why];

	if (sh->argc == 0)
		return refuse(sh, OXI_SH_DENY, "the command is empty%s", ""),
		    OXI_SH_DENY;
	if (mode && strcmp(mode, "denylist") == 0)
		deny = 1;
	else if (mode && strcmp(mode, "allowlist") != 0 &&
	    strcmp(mode, "strict") != 0 && strcmp(mode, "sandbox") != 0) {
		refuse(sh, OXI_SH_DENY, "unknown OXI_SHELL_POLICY '%.32s' "
		    "(sandbox, strict, allowlist or denylist)", mode);
		return OXI_SH_DENY;
	}
	name = sh->argv[0];
	for (u = (const unsigned char *)name; *u; u++)
		if (*u >= 0x80) {
			refuse(sh, OXI_SH_DENY, "the command name '%.64s' is "
			    "not plain ASCII (a look-alike of another name?)",
			    name);
			return OXI_SH_DENY;
		}
	if (strchr(name, '=')) {
		refuse(sh, OXI_SH_DENY, "'%.64s' is a variable assignment: "
		    "the environment cannot be set", name);
		return OXI_SH_DENY;
	}
	if (strchr(name, '/')) {
		refuse(sh, OXI_SH_DENY, "'%.64s' is a path: give the command "
		    "by its name only, it is looked up in the system "
		    "directories", name);
		return OXI_SH_DENY;
	}
	if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' &&
	    name[0] <= 'Z') || (name[0] >= '0' && name[0] <= '9') ||
	    name[0] == '_') || strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") != strlen(name)) {
		refuse(sh, OXI_SH_DENY, "'%.64s' is not a command name", name);
		return OXI_SH_DENY;
	}
	if (inlist(oxi_getenv("OXI_SHELL_DENY"), name)) {
		refuse(sh, OXI_SH_DENY, "'%.64s' is denied by OXI_SHELL_DENY",
		    name);
		return OXI_SH_DENY;
	}
	if (findexe(sh) < 0)
		return OXI_SH_DENY;
	base = strrchr(sh->real, '/') + 1;
	extra = inlist(oxi_getenv("OXI_SHELL_ALLOW"), name);
	r1 = rulever(name);
	r2 = rulever(base);
	/* the rule of the file run, when the name called has none */
	v1 = judge(sh, r1 ? r1 : r2, name, deny || extra, sh->why,
	    sizeof sh->why);
	v2 = K_RUN;
	why2[0] = '\0';
	if (r2 && r2 != r1 && (r2->kind != K_RUN || !r2->extra))
		v2 = judge(sh, r2, base, deny || extra, why2, sizeof why2);
	else if (!r2 && strcmp(base, name) != 0 && !deny && !extra &&
	    r1 && r1->kind == K_RUN) {
		snprintf(why2, sizeof why2, "'%.64s' runs %.128s, which is not "
		    "in the shell allowlist", name, sh->real);
		v2 = K_ASK;
	}
	if (extra && v1 == K_ASK && r1 && r1->kind == K_ASK)
		v1 = K_RUN;	/* named in OXI_SHELL_ALLOW: the owner's call */
	if (extra && v2 == K_ASK && r2 && r2->kind == K_ASK)
		v2 = K_RUN;
	if (v2 > v1) {
		v1 = v2;
		memcpy(sh->why, why2, sizeof sh->why);
	}
	sh->verdict = v1 == K_RUN ? OXI_SH_ALLOW : v1 == K_ASK ? OXI_SH_ASK :
	    OXI_SH_DENY;
	if (sh->verdict == OXI_SH_ALLOW)
		sh->why[0] = '\0';
	return sh->verdict;
}

char *
oxi_sh_approval(const struct oxi_sh *sh, const char *cwd)
{
	const char *p;
	jv o, a, e, s;
	char name[128], *res;
	size_t k;
	int i;

	a = jv_array();
	for (i = 0; i < sh->argc; i++)
		a = jv_array_append(a, jv_string(sh->argv[i]));
	e = jv_array();
	for (p = oxi_getenv("OXI_SANDBOX_ENV"); p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (k > 0 && k < sizeof name) {
			memcpy(name, p, k);
			name[k] = '\0';
			e = jv_array_append(e, jv_string(name));
		}
	}
	e = jv_sort(e, jv_copy(e));
	o = jv_object();
	o = jv_object_set(o, jv_string("argv"), a);
	o = jv_object_set(o, jv_string("bin"), jv_string(sh->real ?
	    sh->real : ""));
	o = jv_object_set(o, jv_string("cwd"), jv_string(cwd));
	o = jv_object_set(o, jv_string("env"), e);
	s = jv_dump_string(o, JV_PRINT_SORTED);
	res = xstrdup(jv_string_value(s));
	jv_free(s);
	return res;
}

/* the canonical form of a store line, or NULL */
static char *
canon(const char *line, size_t len)
{
	jv v, s;
	char *r;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
	    line[len - 1] == ' '))
		len--;
	if (len == 0 || line[0] == '#')
		return NULL;
	v = oxi_json_parse(line, len);
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return NULL;
	}
	s = jv_dump_string(v, JV_PRINT_SORTED);
	r = xstrdup(jv_string_value(s));
	jv_free(s);
	return r;
}

/* looks for want in file path; with consume, removes the line: 1 or 0 */
static int
lookup(const char *path, const char *want, int consume)
{
	struct oxi_buf b = OXI_BUF_INIT, keep = OXI_BUF_INIT;
	char tmp[PATH_MAX], *c;
	const char *p, *e;
	int found = 0, fd;

	if (oxi_readfile(path, &b, 16 << 20) < 0 || !b.s)
		goto done;
	for (p = b.s; p < b.s + b.len; p = e + (e < b.s + b.len)) {
		if (!(e = memchr(p, '\n', b.s + b.len - p)))
			e = b.s + b.len;
		c = canon(p, e - p);
		if (c && !found && strcmp(c, want) == 0) {
			found = 1;
			free(c);
			if (!consume)
				break;
			continue;
		}
		free(c);
		oxi_buf_cat(&keep, p, e - p);
		oxi_buf_putc(&keep, '\n');
	}
	if (found && consume) {
		snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		    O_NOFOLLOW, 0600);
		if (fd < 0 || oxi_writeall(fd, keep.s ? keep.s : "",
		    keep.len) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
			/* not removed: not used either */
			if (fd >= 0)
				unlink(tmp);
			found = 0;
		}
	}
done:
	oxi_buf_free(&b);
	oxi_buf_free(&keep);
	return found;
}

/* path with its directory resolved, and itself if a link: 0 or -1 */
static int
resolve(const char *path, char *out, size_t n)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 :
	    path;
	struct stat st;

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 :
	    1, slash ? path : ".");
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") ||
	    !realpath(dir, real) || (size_t)snprintf(out, n, "%s/%s",
	    strcmp(real, "/") ? real : "", base) >= n)
		return -1;
	if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode))
		return realpath(out, real) && (size_t)snprintf(out, n, "%s",
		    real) < n ? 0 : -1;
	return 0;
}

/* 1 if path is ws (resolved) or inside it */
static int
within(const char *path, const char *ws)
{
	size_t n = strlen(ws);

	return !strcmp(ws, "/") || (!strncmp(path, ws, n) &&
	    (path[n] == '/' || path[n] == '\0'));
}

/*
 * A store the sandboxed commands could write approves nothing: the store
 * and its -once file, resolved, must lie outside the resolved workspace.
 */
int
oxi_sh_approved(const char *line, const char *ws)
{
	char once[PATH_MAX], *want, real[PATH_MAX] = "", st[PATH_MAX];
	char st1[PATH_MAX];
	const char *store = oxi_approved_path(0);
	int r;

	if (!store || (size_t)snprintf(once, sizeof once, "%s-once", store) >=
	    sizeof once)
		return 0;
	if (resolve(store, st, sizeof st) < 0 ||
	    resolve(once, st1, sizeof st1) < 0) {
		oxi_warn("shell: approval store '%s' cannot be resolved, "
		    "ignored", store);
		return 0;
	}
	if (ws && (!realpath(ws, real) || within(st, real) ||
	    within(st1, real))) {
		oxi_warn("shell: approval store '%s' is inside the workspace, "
		    "ignored%s", store, *real ? "" : " (which cannot be "
		    "resolved)");
		return 0;
	}
	if (!(want = canon(line, strlen(line))))
		return 0;
	r = lookup(st, want, 0);
	if (!r)
		r = lookup(st1, want, 1);
	free(want);
	return r;
}

void
oxi_sh_free(struct oxi_sh *sh)
{
	int i;

	for (i = 0; i < sh->argc; i++)
		free(sh->argv[i]);
	free(sh->argv);
	free(sh->exe);
	free(sh->real);
	sh->argv = NULL;
	sh->argc = 0;
	sh->exe = sh->real = NULL;
}
