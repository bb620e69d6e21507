# posenc - GNU make.  `make` builds ./posenc, `make check` runs every test,
# `make bench` compares posenc with NumPy.  Respects CC CFLAGS CPPFLAGS
# LDFLAGS PREFIX DESTDIR BINDIR MANDIR; DEVELOPER=1 adds -Werror; V=1 shows
# the whole compiler and linker lines.

PKG_CONFIG ?= pkg-config
PYTHON ?= /usr/bin/python3
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions

# V=1: every command as it runs; otherwise the recipes are silent and say
# one short line per file built
ifeq ($(V),1)
say = :
else
.SILENT:
say = printf '  %-6s %s\n'
endif

CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wvla -Wdouble-promotion
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif

# OpenBLAS: only its header at build time; similarity loads the library
# (libopenblas.so.0; another with -DPE_OPENBLAS_SONAME='"..."' in CPPFLAGS)
# when it needs it, so the other commands do not pay for its start-up.
# pkg-config is asked one package at a time: asked for several, it prints
# nothing for any when one is missing, and the build then failed at
# #include <cJSON.h> with no word of the package that was missing.
pc = $(shell $(PKG_CONFIG) $(1) $(2) 2>/dev/null)
PKGS = libcjson libpng cairo fontconfig
PKG_CFLAGS := $(foreach p,$(PKGS) openblas,$(call pc,--cflags,$(p)))
PKG_LIBS := $(foreach p,$(PKGS),$(call pc,--libs,$(p)))
CMOCKA_CFLAGS := $(call pc,--cflags,cmocka)
CMOCKA_LIBS := $(call pc,--libs,cmocka)
PKG_MISSING := $(strip $(foreach p,$(PKGS) openblas cmocka mpfr,$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(warning pkg-config finds no $(PKG_MISSING) (pkg-config --exists); their flags are left out. On Debian: sh tools/deps.sh)
endif
# MPFR: the tests' independent, correctly rounded reference (not linked into posenc)
MPFR_LIBS := $(shell $(PKG_CONFIG) --libs mpfr 2>/dev/null)
# SLEEF: the vector functions the float32 emulation (core/sleef32.c) is proven
# against, by the tests alone (posenc itself runs the emulation everywhere)
SLEEF_LIBS := $(shell $(PKG_CONFIG) --libs sleef 2>/dev/null || echo -lsleef)
TEST_LIBS = $(CMOCKA_LIBS) $(MPFR_LIBS) $(SLEEF_LIBS)

# -ffp-contract=off: no fused multiply-add behind our back, so the learned
# tables (core/rng.c) have the same bits on every machine.
# -fno-math-errno: sqrt is the instruction, in vector loops too (posenc
# never reads errno after a math function; no value changes).
ALL_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -Isrc $(PKG_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS = -std=c11 -ffp-contract=off -fno-math-errno -pthread $(WARN) $(CFLAGS)
ALL_LDLIBS = $(PKG_LIBS) -lm -pthread $(LDLIBS)

B = build
BIN = posenc
LIB_SRC := $(sort $(wildcard src/core/*.c src/io/*.c) $(filter-out src/cli/main.c,$(wildcard src/cli/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
MAIN_OBJ := $(B)/src/cli/main.o
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(B)/tests/%)
TEST_HELPERS := $(filter-out $(TEST_SRC),$(wildcard tests/unit/*.c))

.DELETE_ON_ERROR:
.PHONY: all check test unit cli-test check-exhaustive check-reference venv lint-man deps asan valgrind fuzz bench \
	install uninstall clean

COMPLETIONS = $(B)/completion/posenc.bash $(B)/completion/_posenc

all: $(BIN) $(COMPLETIONS)

# The shell completions are written by posenc itself from its option tables.
$(B)/completion/posenc.bash: $(BIN)
	@mkdir -p $(@D)
	@$(say) GEN $@
	./$(BIN) --completion bash > $@

$(B)/completion/_posenc: $(BIN)
	@mkdir -p $(@D)
	@$(say) GEN $@
	./$(BIN) --completion zsh > $@

$(BIN): $(MAIN_OBJ) $(B)/libposenc.a
	@$(say) LINK $@
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(ALL_LDLIBS)

$(B)/libposenc.a: $(LIB_OBJ)
	@$(say) AR $@
	rm -f $@
	$(AR) rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(say) CC $<
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# Test programs and fuzz targets compile and link in one step; -MMD -MP
# writes their header dependencies beside them (build/tests/test_x.d), so a
# changed header rebuilds the tests that include it.
$(B)/tests/% $(B)/exhaustive/% $(B)/fuzz/fuzz_% $(FB)/fuzz_%: private ALL_CFLAGS += -MMD -MP

$(B)/tests/%: tests/unit/%.c $(TEST_HELPERS) $(B)/libposenc.a
	@mkdir -p $(@D)
	@$(say) CCLD $@
	$(CC) $(ALL_CPPFLAGS) $(CMOCKA_CFLAGS) -Itests/unit $(ALL_CFLAGS) -DPE_SOURCE_DIR='"$(CURDIR)"' \
		$(LDFLAGS) -o $@ $< $(TEST_HELPERS) $(B)/libposenc.a $(TEST_LIBS) $(ALL_LDLIBS)

# The fuzz targets built with the normal compiler and tests/fuzz/driver.c as
# main: make check replays every seed and regression input through them.
FUZZ_TARGETS = npy safetensors csv raw table list hfconfig numbers values cli mrope
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c tests/fuzz/fuzz.h $(B)/libposenc.a
	@mkdir -p $(@D)
	@$(say) CCLD $@
	$(CC) $(ALL_CPPFLAGS) -Itests/fuzz $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/driver.c \
		$(B)/libposenc.a $(ALL_LDLIBS)

# The whole suite: unit tests (cmocka), CLI tests (the built binary), the
# fuzz corpora replayed, and the cross-check against NumPy.  Prints
# "N passed, N failed" last.
check test: $(BIN) $(TEST_BIN) $(FUZZ_REPLAY)
	@POSENC=$(BIN) PYTHON=$(PYTHON) FUZZ_REPLAY="$(FUZZ_REPLAY)" sh tests/run-all.sh $(TEST_BIN)

# Checks too long for make check: each program runs every input of a
# function (or every value of whole tables) against an independent
# definition, prints what it checked, and exits non-zero on a mismatch.
# check_tables (under a minute): every value of the sinusoidal 65536 x 1024
# and 1,000,000 x 64 tables and of a rope exact table against a double-double
# reference, MPFR deciding values near a float32 rounding boundary.  fmt_f32
# (about 50 minutes on 2 cores): all 2^32 float32 patterns through the
# csv/json formatter and its printf definition; PE_EXHAUSTIVE_SLICE=K/N
# checks only inputs K mod N, PE_EXHAUSTIVE_THREADS (default 2).  sleef32
# (about 10 minutes): every float32 through the SLEEF emulation against
# libsleef's AVX2 and AVX-512 functions (those the CPU has) and the glibc
# powf emulation against the C library's, on the same slices.
EXHAUSTIVE_BIN = $(B)/exhaustive/check_tables $(B)/exhaustive/fmt_f32 $(B)/exhaustive/sleef32

$(B)/exhaustive/%: tests/exhaustive/%.c $(TEST_HELPERS) $(B)/libposenc.a
	@mkdir -p $(@D)
	@$(say) CCLD $@
	$(CC) $(ALL_CPPFLAGS) $(CMOCKA_CFLAGS) -Itests/unit $(ALL_CFLAGS) -DPE_SOURCE_DIR='"$(CURDIR)"' \
		$(LDFLAGS) -o $@ $< $(TEST_HELPERS) $(B)/libposenc.a $(TEST_LIBS) $(ALL_LDLIBS)

check-exhaustive: $(EXHAUSTIVE_BIN)
	@for t in $(EXHAUSTIVE_BIN); do echo "$$t"; $$t || exit 1; done

# posenc against the libraries' own code: transformers, diffusers, PyTorch,
# safetensors (tests/reference/run.py says what is checked and how; ends
# "reference: N passed, M failed").  They run from a virtual environment,
# build/venv, made on first use from the pinned tests/reference/
# requirements.txt (about 50 s and 2.1 GB; reused after, recreated when the
# file changes).  POSENC=path checks another binary.  make check needs none
# of it.
VENV = build/venv
venv:
	@sh tests/reference/venv.sh $(VENV)

check-reference: $(BIN) venv
	@$(VENV)/bin/python tests/reference/run.py $(or $(POSENC),./$(BIN))

unit: $(TEST_BIN)
	@for t in $(TEST_BIN); do $$t || exit 1; done

cli-test: $(BIN)
	@sh tests/cli/run.sh $(BIN)

# Installs the Debian packages posenc needs (as root; otherwise prints the
# line): DEPS="build test" by default; ref, bench or all add more.
DEPS ?= build test
deps:
	@sh tools/deps.sh $(DEPS)

# The man pages through groff with every warning on: any warning fails.
lint-man:
	@if ! command -v groff >/dev/null 2>&1; then \
		if [ "$(PE_REQUIRE_ALL)" = 1 ]; then echo "FAIL: lint-man: groff not found (groff-base)"; exit 1; fi; \
		echo "lint-man: SKIPPED (groff not found: apt-get install groff-base)"; exit 0; \
	fi; bad=0; for m in man/*.1; do \
		w=$$(groff -mandoc -ww -z $$m 2>&1); [ -z "$$w" ] || { echo "$$w"; bad=1; }; \
	done; [ $$bad -eq 1 ] || echo "lint-man: $(words $(wildcard man/*.1)) man pages, no groff warnings"; exit $$bad

# The whole suite under AddressSanitizer and UBSan, built in its own
# directory: ./posenc and build/ stay the plain build (make install never
# installs an instrumented binary).
ASAN_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_TESTS = $(TEST_BIN:$(B)/%=build-asan/%)
ASAN_FUZZ = $(FUZZ_TARGETS:%=build-asan/fuzz/fuzz_%)
asan:
	$(MAKE) B=build-asan BIN=build-asan/posenc CFLAGS="$(ASAN_CFLAGS)" build-asan/posenc $(ASAN_TESTS) $(ASAN_FUZZ)
	POSENC=build-asan/posenc PYTHON=$(PYTHON) FUZZ_REPLAY="$(ASAN_FUZZ)" \
		PE_ISA_SKIP="ASan build: make check compares the instruction-set paths" \
		sh tests/run-all.sh $(ASAN_TESTS)

# The unit tests (at their PE_TEST_QUICK sizes), the CLI suite and the fuzz
# replays under valgrind memcheck: any error or leak is exit 99, a failure.
# Valgrind does x87 long double arithmetic in double, so the tests that
# need its 64-bit significand skip, saying so (tests/unit/testutil.h).
VALGRIND_CMD = valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible
valgrind: $(BIN) $(TEST_BIN) $(FUZZ_REPLAY)
	@PE_TEST_QUICK=1 VALGRIND="$(VALGRIND_CMD)" POSENC=$(BIN) PYTHON=$(PYTHON) \
		FUZZ_REPLAY="$(FUZZ_REPLAY)" sh tests/run-all.sh $(TEST_BIN)

# libFuzzer (clang): every target in build-fuzz/, the library compiled for
# coverage and ASan+UBSan there too (never build/ or ./posenc), each run for
# FUZZ_SECONDS over a copy of its seeds plus its regression inputs, so the
# committed corpus does not grow.  Crashes land in build-fuzz/artifacts/;
# logs in build-fuzz/logs/.  Paths given to libFuzzer are absolute: fuzz_cli
# changes directory.  Not part of make check.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
FB = build-fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# ALL_CFLAGS, then: -Wno-double-promotion (with clang, glibc's NAN is a float
# constant), its own optimisation and the sanitizers
FUZZ_ALL_CFLAGS = $(ALL_CFLAGS) -Wno-double-promotion -O1 -g $(FUZZ_SAN)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FB)/%.o)
FUZZ_BIN := $(FUZZ_TARGETS:%=$(FB)/fuzz_%)

$(FB)/%.o: %.c
	@mkdir -p $(@D)
	@$(say) CC $@
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FB)/libposenc.a: $(FUZZ_LIB_OBJ)
	@$(say) AR $@
	rm -f $@
	$(AR) rcs $@ $^

$(FB)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FB)/libposenc.a
	@$(say) CCLD $@
	$(FUZZ_CC) $(ALL_CPPFLAGS) -Itests/fuzz $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) \
		-o $@ $< $(FB)/libposenc.a $(ALL_LDLIBS)

fuzz: $(FUZZ_BIN)
	@mkdir -p $(FB)/artifacts $(FB)/logs; bad=0; \
	for t in $(FUZZ_TARGETS); do \
		rm -rf $(FB)/corpus-$$t; mkdir -p $(FB)/corpus-$$t; \
		cp tests/fuzz/corpus/$$t/* $(FB)/corpus-$$t/; \
		regress=; [ -d tests/fuzz/regress/$$t ] && regress=tests/fuzz/regress/$$t; \
		$(FB)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(CURDIR)/$(FB)/artifacts/$$t- \
			$(CURDIR)/$(FB)/corpus-$$t $${regress:+$(CURDIR)/$$regress} \
			> $(FB)/logs/$$t.log 2>&1; rc=$$?; \
		n=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FB)/logs/$$t.log); \
		echo "fuzz $$t: $${n:-?} executions in $(FUZZ_SECONDS) s, exit $$rc"; \
		if [ $$rc -ne 0 ]; then bad=1; grep -m5 'ERROR\|SUMMARY\|contract' $(FB)/logs/$$t.log; fi; \
	done; exit $$bad

bench: $(BIN)
	$(PYTHON) bench/bench.py $(BIN)

install: $(BIN) $(COMPLETIONS)
	@$(say) INSTALL "$(DESTDIR)$(BINDIR)/posenc, man pages, completions"
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/posenc
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/
	install -m 0644 $(B)/completion/posenc.bash $(DESTDIR)$(BASHCOMPDIR)/posenc
	install -m 0644 $(B)/completion/_posenc $(DESTDIR)$(ZSHCOMPDIR)/_posenc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/posenc $(DESTDIR)$(BASHCOMPDIR)/posenc $(DESTDIR)$(ZSHCOMPDIR)/_posenc
	for m in man/*.1; do rm -f $(DESTDIR)$(MANDIR)/$${m#man/}; done

clean:
	rm -rf $(B) $(BIN) build-asan $(FB)

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(FUZZ_LIB_OBJ:.o=.d) \
	$(TEST_BIN:=.d) $(FUZZ_REPLAY:=.d) $(EXHAUSTIVE_BIN:=.d) $(FUZZ_BIN:=.d)
