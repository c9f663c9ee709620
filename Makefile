# Makefile - oxi, a personal AI assistant as a toolkit of small commands
.POSIX:
.SUFFIXES:

include config.mk

CMDS = oxi-recv oxi-send oxi-guard oxi-loop oxi-llm oxi-tool oxi-cron \
	oxi-mem oxi-vault oxi-doctor
SCRIPTS = oxi-chat oxi-svc
# programs the commands run, installed in LIBEXECDIR: oxi-chan, the
# channels but the terminal, which oxi-recv and oxi-send exec(2)
LIBEXEC = oxi-chan
BINS = $(CMDS:%=bin/%) $(LIBEXEC:%=bin/%)

LIBSRC != ls lib/*.c lib/*/*.c 2>/dev/null
LIBOBJ = $(LIBSRC:.c=.o)
LIBHDR != ls lib/*.h lib/*/*.h 2>/dev/null
UNITSRC != ls tests/unit/t-*.c 2>/dev/null
UNITS = $(UNITSRC:.c=)

# each command links only what it needs: oxi-recv and oxi-send the
# terminal alone; oxi-chan, which they exec for every other channel,
# the channel table and so both sides of each (the receiver's
# libmicrohttpd, the sender's libmd4c, Discord's Ed25519 of libsodium)
LIBS_oxi-recv  = $(JQ_LIBS)
LIBS_oxi-send  = $(JQ_LIBS)
LIBS_oxi-chan  = $(CURL_LIBS) $(SQLITE_LIBS) $(MHD_LIBS) $(MD4C_LIBS) \
	$(SODIUM_LIBS) $(JQ_LIBS)
LIBS_oxi-guard = $(SODIUM_LIBS) $(JQ_LIBS) $(PCRE2_LIBS) $(SQLITE_LIBS)
LIBS_oxi-loop  = $(SQLITE_LIBS) $(SODIUM_LIBS) $(JQ_LIBS)
LIBS_oxi-llm   = $(CURL_LIBS) $(SQLITE_LIBS) $(SODIUM_LIBS) $(JQ_LIBS)
LIBS_oxi-tool  = $(JQ_LIBS) $(PCRE2_LIBS) $(CURL_LIBS) $(SODIUM_LIBS)
LIBS_oxi-vault = $(SODIUM_LIBS) $(JQ_LIBS)
LIBS_oxi-doctor = $(LIBS_ALL)
LIBS_oxi-cron  = $(SQLITE_LIBS) $(JQ_LIBS)
LIBS_oxi-mem   = $(SQLITE_LIBS) $(JQ_LIBS)
LIBS_ALL = $(CURL_LIBS) $(SQLITE_LIBS) $(SODIUM_LIBS) $(PCRE2_LIBS) \
	$(MHD_LIBS) $(MD4C_LIBS) $(JQ_LIBS)

ALL_CFLAGS = $(OXI_CPPFLAGS) $(CPPFLAGS) $(OXI_CFLAGS) $(CFLAGS)

all: $(BINS) tests/jnorm tests/wsc

.SUFFIXES: .c .o
.c.o:
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# each wing's objects depend on core, their own headers and the faces of
# the wings below them (lib/README)
CORE_OBJ != ls lib/core/*.c | sed 's/c$$/o/'
NET_OBJ != ls lib/net/*.c | sed 's/c$$/o/'
LLM_OBJ != ls lib/llm/*.c | sed 's/c$$/o/'
TOOL_OBJ != ls lib/tool/*.c | sed 's/c$$/o/'
SBX_OBJ != ls lib/sandbox/*.c | sed 's/c$$/o/'
CHAN_OBJ != ls lib/channel/*.c | sed 's/c$$/o/'
GUARD_OBJ != ls lib/guard/*.c | sed 's/c$$/o/'
LOOP_OBJ != ls lib/loop/*.c | sed 's/c$$/o/'
VAULT_OBJ != ls lib/vault/*.c | sed 's/c$$/o/'
DOCTOR_OBJ != ls lib/doctor/*.c | sed 's/c$$/o/'
CRON_OBJ != ls lib/cron/*.c | sed 's/c$$/o/'
MEM_OBJ != ls lib/mem/*.c | sed 's/c$$/o/'
NET_H != ls lib/net/*.h
LLM_H != ls lib/llm/*.h
TOOL_H != ls lib/tool/*.h
SBX_H != ls lib/sandbox/*.h
GUARD_H != ls lib/guard/*.h
$(LIBOBJ): lib/oxi.h config.mk
$(NET_OBJ): $(NET_H)
$(LLM_OBJ): $(NET_H) $(LLM_H)
$(TOOL_OBJ): $(NET_H) $(SBX_H) $(TOOL_H)
$(SBX_OBJ): $(SBX_H)
CHAN_H != ls lib/channel/*.h
$(CHAN_OBJ): $(NET_H) $(CHAN_H)
$(GUARD_OBJ): $(GUARD_H)
LOOP_H != ls lib/loop/*.h
MEM_H != ls lib/mem/*.h
$(LOOP_OBJ): $(LOOP_H)
$(MEM_OBJ): $(MEM_H)
$(VAULT_OBJ): lib/vault/vault.h
$(DOCTOR_OBJ): lib/doctor/doctor.h lib/vault/vault.h $(NET_H) $(LLM_H) \
	$(TOOL_H) $(SBX_H) $(CHAN_H)
$(CRON_OBJ): lib/cron/cron.h

lib/liboxi.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

bin/oxi-%: bin/oxi-%.c lib/liboxi.a $(LIBHDR)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< lib/liboxi.a $(LIBS_oxi-$*) -lm

# the liboxi members a command pulls in, for tests/t0005-layout.t
tests/tmp/map/oxi-%: bin/oxi-%.c lib/liboxi.a
	@mkdir -p tests/tmp/map
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< lib/liboxi.a $(LIBS_oxi-$*) \
		-lm -Wl,-Map=$@.map

tests/jnorm: tests/jnorm.c lib/liboxi.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ tests/jnorm.c lib/liboxi.a $(JQ_LIBS) -lm

# the WebSocket client of the tests (t1004)
tests/wsc: tests/wsc.c lib/liboxi.a $(NET_H)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ tests/wsc.c lib/liboxi.a \
		$(CURL_LIBS) $(JQ_LIBS) -lm

tests/unit/t-%: tests/unit/t-%.c tests/unit/tap.h tests/unit/loopio.h lib/liboxi.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< lib/liboxi.a $(LIBS_ALL) -lm

units: $(UNITS)

check: deps
	$(MAKE) all units
	prove -j2 -f $(UNITS) tests/t*.t

# ASan + UBSan build of everything, then the whole suite, then a clean tree.
# Leaks are left to valgrind (t0003): a stage that dies keeps its memory.
check-asan:
	$(MAKE) clean
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		OPTFLAGS= check
	$(MAKE) clean

bench: all
	sh bench/run

eval: all
	sh bench/eval

run:
	@sh share/oxi/deps.sh $(DEPS_BUILD)
	@$(MAKE) -s all
	@PATH="$$PWD/bin:$$PATH" exec bin/oxi-chat

deps:
	@sh share/oxi/deps.sh $(DEPS_BUILD) $(DEPS_TEST)
	@sh tests/npm-deps.sh

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DATADIR)/oxi $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(LIBEXECDIR)
	for c in $(LIBEXEC); do \
		cp -f bin/$$c $(DESTDIR)$(LIBEXECDIR)/$$c && \
		chmod 755 $(DESTDIR)$(LIBEXECDIR)/$$c && \
		cp -f man/$$c.8 $(DESTDIR)$(MANDIR)/man8/$$c.8 || exit 1; \
	done
	for c in $(CMDS) $(SCRIPTS); do \
		cp -f bin/$$c $(DESTDIR)$(BINDIR)/$$c && \
		chmod 755 $(DESTDIR)$(BINDIR)/$$c && \
		cp -f man/$$c.1 $(DESTDIR)$(MANDIR)/man1/$$c.1 && \
		cp -f completions/bash/$$c $(DESTDIR)$(BASHCOMPDIR)/$$c && \
		cp -f completions/zsh/_$$c $(DESTDIR)$(ZSHCOMPDIR)/_$$c && \
		cp -f completions/fish/$$c.fish \
			$(DESTDIR)$(FISHCOMPDIR)/$$c.fish || exit 1; \
	done
	cp -f man/oxi.7 $(DESTDIR)$(MANDIR)/man7/oxi.7
	cp -Rf share/oxi/. $(DESTDIR)$(DATADIR)/oxi/

uninstall:
	for c in $(LIBEXEC); do rm -f $(DESTDIR)$(LIBEXECDIR)/$$c \
		$(DESTDIR)$(MANDIR)/man8/$$c.8; done
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
	for c in $(CMDS) $(SCRIPTS); do \
		rm -f $(DESTDIR)$(BINDIR)/$$c $(DESTDIR)$(MANDIR)/man1/$$c.1 \
			$(DESTDIR)$(BASHCOMPDIR)/$$c $(DESTDIR)$(ZSHCOMPDIR)/_$$c \
			$(DESTDIR)$(FISHCOMPDIR)/$$c.fish; \
	done
	rm -f $(DESTDIR)$(MANDIR)/man7/oxi.7
	rm -rf $(DESTDIR)$(DATADIR)/oxi

# fuzzing (tests/fuzz/README): the library again, built by clang with
# libFuzzer's coverage, ASan and UBSan in its own object directory, and
# one harness per parser facing the outside; make fuzz runs each for
# FUZZ_SECONDS, t0006 runs each over its seeds once
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-fsanitize=fuzzer-no-link,address,undefined
FUZZ_ALL_CFLAGS = $(OXI_CPPFLAGS) $(CPPFLAGS) -std=c99 $(WFLAGS) \
	$(JQ_CFLAGS) $(CURL_CFLAGS) $(SQLITE_CFLAGS) $(SODIUM_CFLAGS) \
	$(PCRE2_CFLAGS) $(MHD_CFLAGS) $(MD4C_CFLAGS) $(FUZZ_CFLAGS)
FUZZ_DIALECTS = openai anthropic gemini ollama responses
FUZZ_HARNESSES = nd sse json html url shpolicy tgmd tgupdate discord leak ws slack cron \
	$(FUZZ_DIALECTS)
FUZZ_OBJ = $(LIBSRC:lib/%.c=tests/fuzz/obj/%.o)
FUZZ_LIB = tests/fuzz/obj/liboxi.a
FUZZ_BINS = $(FUZZ_HARNESSES:%=tests/fuzz/fz-%)

tests/fuzz/obj/%.o: lib/%.c $(LIBHDR) config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJ)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJ)

tests/fuzz/fz-%: tests/fuzz/fz-%.c tests/fuzz/fz.h $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_LIB) $(LIBS_ALL) -lm

$(FUZZ_DIALECTS:%=tests/fuzz/fz-%): tests/fuzz/fz-dialect.c tests/fuzz/fz.h \
    $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer \
		-DFZ_DIALECT=oxi_dialect_$(@F:fz-%=%) -o $@ \
		tests/fuzz/fz-dialect.c $(FUZZ_LIB) $(LIBS_ALL) -lm

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@s=0; for h in $(FUZZ_HARNESSES); do \
		echo "fuzz: $$h for $(FUZZ_SECONDS) s"; \
		sh tests/fuzz/run.sh fuzz $(FUZZ_SECONDS) $$h || s=1; \
	done; exit $$s

fuzz-clean:
	rm -rf tests/fuzz/obj $(FUZZ_BINS)

clean:
	rm -f $(BINS) lib/*.o lib/*/*.o lib/liboxi.a tests/jnorm tests/wsc $(UNITS)
	rm -rf tests/tmp

.PHONY: all units check check-asan bench eval run deps install uninstall clean \
	fuzz fuzz-build fuzz-clean
