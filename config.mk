# config.mk - paths and flags; the rules live in Makefile

VERSION = 0.1.0

PREFIX  = /usr/local
BINDIR  = $(PREFIX)/bin
DATADIR = $(PREFIX)/share
LIBEXECDIR = $(PREFIX)/libexec/oxi
MANDIR  = $(DATADIR)/man
BASHCOMPDIR = $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  = $(DATADIR)/zsh/site-functions
FISHCOMPDIR = $(DATADIR)/fish/vendor_completions.d

CC = cc
PKG_CONFIG = pkg-config

# libjq 1.6 (Debian 12) ships no pkg-config file: fall back to -ljq
JQ_CFLAGS != $(PKG_CONFIG) --cflags libjq 2>/dev/null || true
JQ_LIBS   != $(PKG_CONFIG) --libs libjq 2>/dev/null || echo -ljq
CURL_CFLAGS != $(PKG_CONFIG) --cflags libcurl 2>/dev/null || true
CURL_LIBS   != $(PKG_CONFIG) --libs libcurl 2>/dev/null || echo -lcurl
SQLITE_CFLAGS != $(PKG_CONFIG) --cflags sqlite3 2>/dev/null || true
SQLITE_LIBS   != $(PKG_CONFIG) --libs sqlite3 2>/dev/null || echo -lsqlite3
SODIUM_CFLAGS != $(PKG_CONFIG) --cflags libsodium 2>/dev/null || true
SODIUM_LIBS   != $(PKG_CONFIG) --libs libsodium 2>/dev/null || echo -lsodium
PCRE2_CFLAGS != $(PKG_CONFIG) --cflags libpcre2-8 2>/dev/null || true
PCRE2_LIBS   != $(PKG_CONFIG) --libs libpcre2-8 2>/dev/null || echo -lpcre2-8
MHD_CFLAGS != $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null || true
MHD_LIBS   != $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd
MD4C_CFLAGS != $(PKG_CONFIG) --cflags md4c 2>/dev/null || true
MD4C_LIBS   != $(PKG_CONFIG) --libs md4c 2>/dev/null || echo -lmd4c

OPTFLAGS = -O2 -g
WFLAGS   = -Wall -Wextra
OXI_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -Ilib -DOXI_SHAREDIR=\"$(DATADIR)/oxi\" \
	-DOXI_LIBEXECDIR=\"$(LIBEXECDIR)\"
OXI_CFLAGS = -std=c99 $(OPTFLAGS) $(WFLAGS) $(JQ_CFLAGS) $(CURL_CFLAGS) \
	$(SQLITE_CFLAGS) $(SODIUM_CFLAGS) $(PCRE2_CFLAGS) $(MHD_CFLAGS) \
	$(MD4C_CFLAGS)

ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -g -O1

# Debian packages the build and the tests need (make deps); bubblewrap is
# needed at run time too: the sandbox of oxi-tool (else Landlock + seccomp);
# clang, libclang-rt-dev (libFuzzer) and llvm (llvm-symbolizer) for make fuzz;
# tzdata: the time zones of oxi-cron, at run time too
DEPS_BUILD = gcc make pkg-config libc6-dev libjq-dev libcurl4-openssl-dev \
	libsqlite3-dev libsodium-dev libpcre2-dev libmicrohttpd-dev libmd4c-dev \
	bubblewrap tzdata
DEPS_TEST = perl python3 mandoc bsdextrautils valgrind clang libclang-rt-dev \
	llvm tmux gdb
