# rdmaverbs: build, test, install.
#
#   make                 the libraries and the uninstalled pkg-config file
#   make demo            the Soft-RoCE demo (installs what is missing first)
#   make check           installs what is missing, then make test
#   make test            every test (see the README), e2e on Soft-RoCE included
#   make e2e             the Soft-RoCE end-to-end tests only
#   make install         PREFIX=/usr/local DESTDIR= LIBDIR= INCLUDEDIR= MANDIR=
#   make uninstall       removes what install put there
#   make header          regenerates include/rdma/rdma_verbs.h from src/
#   make bench           the benchmark: prints the table, writes BENCHMARKS.md
#   make fuzz            a long fuzzing run (FUZZ_TIME seconds)
#   make vendor          stores the crates for an offline build in vendor/
#   make deb             Debian packages librdmaverbs1, librdmaverbs-dev in build/deb

# bash, for PIPESTATUS in test-fuzz
SHELL      := /bin/bash

VERSION    := 1.0.0
MAJOR      := 1
NAME       := librdmaverbs
SONAME     := $(NAME).so.$(MAJOR)
REALNAME   := $(NAME).so.$(VERSION)

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=

CARGO      ?= cargo
CC         ?= cc
PKG_CONFIG ?= pkg-config

B          := build
LIB        := $(B)/lib
RUST_A     := target/release/$(NAME).a
MAP        := src/$(NAME).map
EXPORTS    := $(shell sed -n 's/^ *\(\(rdma\|ibv\)_[a-z_]*\);/\1/p' $(MAP))

# C code builds as a user's program would: warnings are errors, and every
# flag for the library comes from pkg-config (the uninstalled .pc in build/).
WARN       := -Wall -Wextra -Wpedantic -Werror
CFLAGS     ?= -O2 -g
TEST_PC    := PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig $(PKG_CONFIG)
RV_CFLAGS   = $(shell $(TEST_PC) --cflags rdmaverbs)
RV_LIBS     = $(shell $(TEST_PC) --libs rdmaverbs)
# A threaded C program from $<, built against our header (OURS) or against
# the stock one, the inline original without librdmaverbs (STOCK).
OURS        = $(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $< $(RV_LIBS)
STOCK       = $(CC) $(CFLAGS) $(WARN) -pthread $$($(PKG_CONFIG) --cflags librdmacm libibverbs) \
		-o $@ $< $$($(PKG_CONFIG) --libs librdmacm libibverbs)
# The path of the system's own <rdma/rdma_verbs.h>, for the inline originals.
REF_HEADER  = $(shell $(PKG_CONFIG) --variable=includedir librdmacm)/rdma/rdma_verbs.h

.PHONY: all FORCE header example e2e demo deps check test-robustness \
	test-sanitizers test-valgrind test-concurrency test-fuzz fuzz test-noalloc test-trace bench test test-rust test-symbols test-differential \
	test-install install uninstall clean vendor deb test-deb

all: $(LIB)/$(REALNAME) $(LIB)/$(NAME).a $(B)/pkgconfig/rdmaverbs-uninstalled.pc

# cargo decides what is stale; make relinks what depends on the archive
# only when cargo rewrote it.
$(RUST_A): FORCE
	$(CARGO) build --release --locked

FORCE:

# The shared library is relinked from the static archive so that it gets its
# soname and exports exactly the 16 functions at RDMAVERBS_1.0 ($(MAP)).
$(LIB)/$(REALNAME): $(RUST_A) $(MAP)
	@mkdir -p $(LIB)
	$(CC) -shared -o $@ -Wl,-soname,$(SONAME) -Wl,--version-script=$(MAP) \
		-Wl,--gc-sections -Wl,-z,relro,-z,now -Wl,--as-needed \
		$(addprefix -Wl$(comma)-u$(comma),$(EXPORTS)) \
		$(RUST_A) -libverbs -lgcc_s -lpthread -lm -ldl -lc
	ln -sf $(REALNAME) $(LIB)/$(SONAME)
	ln -sf $(SONAME) $(LIB)/$(NAME).so

$(LIB)/$(NAME).a: $(RUST_A)
	@mkdir -p $(LIB)
	cp $(RUST_A) $@

comma := ,

# For the tests: a .pc pointing at this tree, with an rpath so that test
# programs run without LD_LIBRARY_PATH. pkg-config prefers a
# "-uninstalled" file when it is on the path.
$(B)/pkgconfig/rdmaverbs-uninstalled.pc: pkgconfig/rdmaverbs.pc.in include/rdma/rdma_verbs.h
	@mkdir -p $(B)/pkgconfig $(B)/include/rdmaverbs/rdma
	cp include/rdma/rdma_verbs.h $(B)/include/rdmaverbs/rdma/
	sed -e 's|@PREFIX@|$(CURDIR)/$(B)|' -e 's|@LIBDIR@|$(CURDIR)/$(LIB)|' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/$(B)/include|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@RPATH@|-Wl,-rpath,$${libdir} |' $< > $@

header:
	RDMAVERBS_BLESS=1 $(CARGO) test --release --locked --lib header

# ---- tests ----

# What building and testing need (Debian packages, virtme-ng), if missing.
deps:
	.ci/deps

# The README's test command: what is missing, then every test.
check: deps
	$(MAKE) test

test: test-rust test-symbols test-differential test-robustness test-sanitizers \
	test-valgrind test-concurrency test-noalloc test-trace test-fuzz test-install test-deb e2e
	@echo "make test: all passed"

# Rust unit tests, including "the committed header is the generated one" and
# the struct layout against the system headers.
test-rust:
	$(CARGO) test --release --locked

test-symbols: all
	c-tests/check-symbols.sh $(LIB)/$(REALNAME)

$(B)/differential: c-tests/differential.c c-tests/fake.c c-tests/fake.h all
	$(CC) $(CFLAGS) $(WARN) -rdynamic '-DREF_RDMA_VERBS_H="$(REF_HEADER)"' \
		$(RV_CFLAGS) -o $@ c-tests/differential.c c-tests/fake.c $(RV_LIBS)

# Again with every RDMAVERBS_* switch on: tracing, counting and spinning
# change nothing the caller sees.
test-differential: $(B)/differential
	$(B)/differential 100000
	RDMAVERBS_TRACE=/dev/null RDMAVERBS_STATS=1 RDMAVERBS_POLL_SPIN=3 \
		$(B)/differential 100000 2>$(B)/differential-watched.err
	grep -q '^rdmaverbs: rdma_post_send ' $(B)/differential-watched.err

$(B)/robustness: c-tests/robustness.c c-tests/fake.c c-tests/fake.h all
	$(CC) $(CFLAGS) $(WARN) -rdynamic $(RV_CFLAGS) -o $@ c-tests/robustness.c \
		c-tests/fake.c $(RV_LIBS)

test-robustness: $(B)/robustness
	$(B)/robustness

# The C tests again, built with AddressSanitizer and UndefinedBehaviorSanitizer
# (any report aborts), and under valgrind's memcheck.
SAN := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

$(B)/san/%: c-tests/%.c c-tests/fake.c c-tests/fake.h all
	@mkdir -p $(B)/san
	$(CC) $(SAN) $(WARN) -rdynamic '-DREF_RDMA_VERBS_H="$(REF_HEADER)"' \
		$(RV_CFLAGS) -o $@ $< c-tests/fake.c $(RV_LIBS)

test-sanitizers: $(B)/san/differential $(B)/san/robustness
	$(B)/san/differential 100000
	$(B)/san/robustness

VALGRIND := valgrind -q --error-exitcode=1

test-valgrind: $(B)/differential $(B)/robustness $(B)/example-uninstalled
	$(VALGRIND) $(B)/differential 20000
	$(VALGRIND) --trace-children=yes $(B)/robustness
	$(VALGRIND) $(B)/example-uninstalled

# ---- fuzzing (libFuzzer, clang) ----
# c-tests/differential.c built with -DFUZZ: the fuzzer's bytes choose the
# function, every argument (lengths, counts, flags, NULL or not) and the
# provider's answers. Valid input must give the original's result; invalid
# input a clear error. The library is linked statically, built with
# libFuzzer's coverage instrumentation, so the fuzzer is guided by its
# branches too.
FUZZ_A     := target/fuzz/$(NAME).a
SANCOV     := -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=3 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
	-Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TIME  ?= 1800

$(FUZZ_A): FORCE
	$(CARGO) rustc --profile fuzz --lib --crate-type staticlib --locked -- $(SANCOV)

$(B)/fuzz: c-tests/differential.c c-tests/fake.c c-tests/fake.h $(FUZZ_A) all
	clang $(FUZZ_FLAGS) $(WARN) -DFUZZ '-DREF_RDMA_VERBS_H="$(REF_HEADER)"' \
		$(RV_CFLAGS) -o $@ c-tests/differential.c c-tests/fake.c $(FUZZ_A) \
		-lpthread -ldl -lm

# About a minute, as part of make test; `make fuzz` runs FUZZ_TIME seconds.
test-fuzz: $(B)/fuzz
	@mkdir -p $(B)/fuzz-corpus
	$(B)/fuzz -max_total_time=60 -seed=1 -print_final_stats=1 \
		-artifact_prefix=$(B)/ $(B)/fuzz-corpus 2>&1 | \
		grep -E '^(stat::number_of_executed_units|Done|SUMMARY|==[0-9]+==ERROR|valid|invalid)'; \
		test $${PIPESTATUS[0]} -eq 0

fuzz: $(B)/fuzz
	@mkdir -p $(B)/fuzz-corpus
	$(B)/fuzz -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
		-artifact_prefix=$(B)/ $(B)/fuzz-corpus

# ---- benchmark (c-tests/bench/) ----

$(B)/bench/bench: c-tests/bench/bench.c c-tests/bench/bench-fake.c
	@mkdir -p $(B)/bench
	$(CC) -O2 -g $(WARN) -rdynamic $$($(PKG_CONFIG) --cflags libibverbs librdmacm) \
		-o $@ c-tests/bench/bench.c c-tests/bench/bench-fake.c -ldl

$(B)/bench/libshim.so: c-tests/bench/shim.c
	@mkdir -p $(B)/bench
	$(CC) -O2 -fPIC -shared $(WARN) $$($(PKG_CONFIG) --cflags libibverbs librdmacm) \
		-o $@ $< $$($(PKG_CONFIG) --libs libibverbs librdmacm)

# Soft-RoCE ping-pong and throughput, against our header and the stock one.
$(B)/pingpong-ours: c-tests/bench/pingpong.c all
	$(OURS)

$(B)/pingpong-stock: c-tests/bench/pingpong.c
	@mkdir -p $(B)
	$(STOCK)

# Rounds of each Soft-RoCE build, alternated in one guest boot.
SOFTROCE_ROUNDS ?= 5
SOFTROCE_ROUNDTRIPS ?= 2000
SOFTROCE_MESSAGES ?= 20000

$(B)/bench/softroce.txt: $(B)/pingpong-ours $(B)/pingpong-stock c-tests/bench/softroce-guest.sh
	@mkdir -p $(B)/bench
	c-tests/e2e/run-guest.sh -t 1200 -w $(B)/bench c-tests/bench/softroce-guest.sh \
		$(B) $(CURDIR)/$@.tmp $(SOFTROCE_ROUNDS) $(SOFTROCE_ROUNDTRIPS) $(SOFTROCE_MESSAGES)
	mv $@.tmp $@

# Times and instruction counts (callgrind) of the inline original, a C shim
# and librdmaverbs, and the Soft-RoCE runs; writes BENCHMARKS.md and
# BENCHMARKS.svg. Never part of make test: nothing fails because a machine is
# slow.
bench: all $(B)/bench/bench $(B)/bench/libshim.so
	rm -f $(B)/bench/softroce.txt
	$(MAKE) $(B)/bench/softroce.txt
	python3 c-tests/bench/report.py $(B)/bench/bench $(CURDIR)/$(B)/bench/libshim.so \
		$(CURDIR)/$(LIB)/$(SONAME) $(CURDIR) $(B)/bench/softroce.txt

# RDMAVERBS_TRACE and RDMAVERBS_STATS: every line and count checked.
$(B)/trace: c-tests/trace.c c-tests/fake.c c-tests/fake.h all
	$(CC) $(CFLAGS) $(WARN) -pthread -rdynamic $(RV_CFLAGS) -o $@ c-tests/trace.c \
		c-tests/fake.c $(RV_LIBS)

test-trace: $(B)/trace
	rm -rf $(B)/trace.d && mkdir -p $(B)/trace.d
	$(B)/trace $(B)/trace.d

# None of the 16 functions allocates (malloc and kin counted around a burst).
$(B)/noalloc: c-tests/noalloc.c c-tests/fake.c c-tests/fake.h all
	$(CC) $(CFLAGS) $(WARN) -rdynamic $(RV_CFLAGS) -o $@ c-tests/noalloc.c \
		c-tests/fake.c $(RV_LIBS)

test-noalloc: $(B)/noalloc
	$(B)/noalloc
	RDMAVERBS_TRACE=/dev/null RDMAVERBS_STATS=1 $(B)/noalloc

$(B)/concurrency: c-tests/concurrency.c all
	$(OURS)

$(B)/tsan/concurrency: c-tests/concurrency.c all
	@mkdir -p $(B)/tsan
	$(CC) -O1 -g -fsanitize=thread $(WARN) -pthread $(RV_CFLAGS) -o $@ $< $(RV_LIBS)

# Threads posting at once; again under ThreadSanitizer (any report fails).
test-concurrency: $(B)/concurrency $(B)/tsan/concurrency
	$(B)/concurrency
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(B)/tsan/concurrency

$(B)/example-uninstalled: c-tests/example.c all
	$(CC) $(CFLAGS) $(WARN) $(RV_CFLAGS) -o $@ $< $(RV_LIBS)

test-install: all
	c-tests/install-test.sh

# ---- Soft-RoCE end-to-end (c-tests/e2e/) ----

# The same program twice: against our header, and against the stock one (the
# inline original, no librdmaverbs).
$(B)/e2e-ours: c-tests/e2e/e2e.c all
	$(OURS)

$(B)/e2e-stock: c-tests/e2e/e2e.c
	@mkdir -p $(B)
	$(STOCK)

e2e: all $(B)/e2e-ours $(B)/e2e-stock $(B)/pingpong-ours $(B)/pingpong-stock
	c-tests/e2e/e2e.sh $(B)

$(B)/demo: c-tests/e2e/demo.c all
	$(OURS)

# The README's first command: install what is missing, build, boot the
# guest, run the demo session in it.
demo: deps
	$(MAKE) $(B)/demo
	c-tests/e2e/run-guest.sh -t 300 c-tests/e2e/demo-guest.sh $(CURDIR)/$(B)/demo

# ---- Debian packages (debian/) ----

# The crates the build needs, stored for the offline package build.
vendor: Cargo.lock
	$(CARGO) vendor --locked -q vendor > /dev/null

# librdmaverbs1 and librdmaverbs-dev, built from a copy of the tracked files
# (so that the working tree is left alone) with no network at all when
# `unshare` can take it away; then lintian, which must report no error.
DEB := $(B)/deb
deb: vendor
	rm -rf $(DEB) && mkdir -p $(DEB)/rdmaverbs-$(VERSION)
	git ls-files -z | xargs -0 cp -a --parents -t $(DEB)/rdmaverbs-$(VERSION)
	ln -s $(CURDIR)/vendor $(DEB)/rdmaverbs-$(VERSION)/vendor
	cd $(DEB)/rdmaverbs-$(VERSION) && \
		if unshare -n true 2>/dev/null; then nonet="unshare -n"; else nonet=; fi && \
		$$nonet dpkg-buildpackage -us -uc -b
	lintian --allow-root --fail-on error --info --pedantic $(DEB)/*.changes
	@ls $(DEB)/*.deb

# Installs both packages with dpkg, builds and runs the example against the
# system's library with pkg-config only, removes them, checks nothing is left.
test-deb: deb
	c-tests/deb-test.sh $(DEB)

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma
	install -m 755 $(LIB)/$(REALNAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(NAME).so
	install -m 644 $(LIB)/$(NAME).a $(DESTDIR)$(LIBDIR)/
	install -m 644 include/rdma/rdma_verbs.h $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma/
	install -d $(DESTDIR)$(MANDIR)/man7
	install -m 644 man/rdmaverbs.7 $(DESTDIR)$(MANDIR)/man7/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@RPATH@||' pkgconfig/rdmaverbs.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/rdmaverbs.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/rdmaverbs.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/$(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/$(NAME).so $(DESTDIR)$(LIBDIR)/$(NAME).a \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/rdmaverbs.pc \
	      $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma/rdma_verbs.h \
	      $(DESTDIR)$(MANDIR)/man7/rdmaverbs.7
	-rmdir $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma $(DESTDIR)$(INCLUDEDIR)/rdmaverbs

clean:
	$(CARGO) clean
	rm -rf $(B)

# A small C program built against an install in ./build/prefix, with flags
# from that prefix's rdmaverbs.pc only.
example: all
	$(MAKE) -s install PREFIX=$(CURDIR)/$(B)/prefix
	PKG_CONFIG_PATH=$(CURDIR)/$(B)/prefix/lib/pkgconfig $(CC) $(WARN) \
		-o $(B)/example c-tests/example.c \
		$$(PKG_CONFIG_PATH=$(CURDIR)/$(B)/prefix/lib/pkgconfig $(PKG_CONFIG) --cflags --libs rdmaverbs) \
		-Wl,-rpath,$(CURDIR)/$(B)/prefix/lib
	$(B)/example
