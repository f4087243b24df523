# rdmaverbs: build, test, install.
#
#   make                 the two libraries, the commands, the uninstalled pkg-config file
#   make demo            the Soft-RoCE demo (installs what is missing first)
#   make check           installs what is missing, then make test
#   make test-quick      the quick tier: no VM, a few minutes (for every edit)
#   make bindings        the bindings for other languages, built and installed in build/bindings
#   make bindings-java   the Java binding alone (javac, JNA): build/bindings/rdmaverbs.jar, and Maven's
#                        jar (offline, Debian's JNA): build/bindings/java/maven/rdmaverbs-VERSION.jar
#   make bindings-csharp the C# binding alone (Mono): build/bindings/RdmaVerbs.dll, and its NuGet
#                        package (Mono's nuget pack): build/bindings/nuget/RdmaVerbs.VERSION.nupkg
#   make bindings-rust   the Rust crates packaged (cargo package): build/bindings/rust/package/*.crate
#   make test            every test (see the README), Soft-RoCE guests included
#   make e2e             the Soft-RoCE end-to-end tests only: one guest, then two
#   make e2e-host        one Soft-RoCE guest (c-tests/e2e/guest.sh), its last rows on soft-iWARP
#   make e2e-pair        two Soft-RoCE guests joined by a link, under faults (on soft-iWARP too)
#   make siw-module      siw.ko for the guests' kernel, built and cached (c-tests/tools/build-siw.sh)
#   make install         PREFIX=/usr/local DESTDIR= LIBDIR= BINDIR= INCLUDEDIR= MANDIR=
#   make uninstall       removes what install put there
#   make header          regenerates the generated files (see src/tests/generated.rs)
#   make bench           the benchmark: prints the table, writes BENCHMARKS.md
#   make bench-bindings  its bindings' part alone (Rust, Node.js, the message rate; a guest), printed
#   make fuzz            a long fuzzing run (FUZZ_TIME seconds)
#   make mutants         mutation testing of the library (cargo-mutants), writes MUTANTS.md; hours
#   make vendor          stores the crates for an offline build in vendor/
#   make deb             Debian packages librdmaverbs1, librdmaverbs-dev in build/deb
#   make rpm             RPM packages rdmaverbs, rdmaverbs-devel in build/rpm
#   make test-rdma-core  the quick tier in roots of Debian 11, 13 and unstable (rdma-core 33,
#                        56.1, 65), their builds' fake suites under newer libibverbs, Debian 13's .deb

# bash, for PIPESTATUS in test-fuzz
SHELL      := /bin/bash

# The version comes from Cargo.toml, and from nowhere else.
VERSION    := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
MAJOR      := $(firstword $(subst ., ,$(VERSION)))
NAME       := librdmaverbs
SONAME     := $(NAME).so.$(MAJOR)
REALNAME   := $(NAME).so.$(VERSION)
# The preload library: unversioned and never linked, like rdma-core's
# librspreload, in a private directory of LIBDIR.
PRELOAD    := $(NAME)-preload.so

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PRELOADDIR  = $(LIBDIR)/rdmaverbs
DESTDIR    ?=

CARGO      ?= cargo
CC         ?= cc
PKG_CONFIG ?= pkg-config

B          := build
LIB        := $(B)/lib
# The archive of the library's crate, rdmaverbs-lib (its lib: rdmaverbs_lib).
RUST_A     := target/release/librdmaverbs_lib.a
# The native libraries the static archive needs, as rustc prints them.
NATIVE     := target/release/native-static-libs.txt
# make test-mutant (run by cargo test for make mutants) links the archive
# cargo has just built of a mutant, ARCHIVE, as it is; make mutants gives
# the native libraries (NATIVE_LIBS) and the commands, built once
# (TOOLS_FROM), in the environment.
ifdef ARCHIVE
RUST_A     := $(ARCHIVE)
NATIVE     := $(B)/native-static-libs.txt
endif
SHARED     := $(LIB)/$(REALNAME)
PRELOADED  := $(LIB)/$(PRELOAD)
PC         := $(B)/pkgconfig/rdmaverbs-uninstalled.pc
LIBRARY    := $(SHARED) $(PRELOADED) $(PC)
HEADERS    := include/rdma/rdma_verbs.h include/rdmaverbs.h
MAN3       := $(wildcard man/*.3)
MAN1       := $(wildcard man/*.1)
# The commands (tools/), built with the path where this installation puts
# the preload library (they preload it); RDMAVERBS_PRELOAD overrides it at
# run time (the tests point it at build/lib).
COMMANDS   := rdmaverbs-trace rdmaverbs-stat
TOOLS      := $(addprefix $(B)/bin/,$(COMMANDS))

# Nothing the tests do depends on how make was started (docs/testing.md):
# they have a locale of their own, and a folder for temporary files of their
# own in the build tree (a TMPDIR that is unset, under a home closed to
# others, full, or mounted noexec changes nothing). Signals and the user
# they need are set where they are needed, in the tests themselves.
export LC_ALL := C.UTF-8
export TMPDIR := $(CURDIR)/$(B)/tmp
$(shell mkdir -p $(B)/tmp)

# C code builds as a user's program would: warnings are errors, and every
# flag for the library comes from pkg-config (the uninstalled .pc in build/).
WARN       := -Wall -Wextra -Wpedantic -Werror
CFLAGS     ?= -O2 -g
TEST_PC    := PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig $(PKG_CONFIG)
RV_CFLAGS   = $(shell $(TEST_PC) --cflags rdmaverbs)
RV_LIBS     = $(shell $(TEST_PC) --libs rdmaverbs)
STOCK_CFLAGS = $(shell $(PKG_CONFIG) --cflags librdmacm libibverbs)
STOCK_LIBS   = $(shell $(PKG_CONFIG) --libs librdmacm libibverbs)

.PHONY: all FORCE header example e2e e2e-host e2e-pair siw-module demo deps check test test-quick test-rust \
	test-symbols test-headers test-differential test-verbs test-robustness test-sanitizers \
	test-valgrind test-concurrency test-fuzz fuzz test-noalloc test-trace test-live test-commands test-probes \
	test-hardening test-timeout bindings bindings-java bindings-csharp bindings-rust test-bindings test-lib mutants test-mutant \
	test-preload bench bench-python bench-bindings bench-peer \
	test-install install uninstall clean vendor deb test-deb rpm test-rpm test-rdma-core test-versions \
	test-bindings-layout

# Cargo's outputs are remade by cargo every time (it knows what changed):
# FORCE. make CARGO=true CARGO_FORCE= takes them as they are (make
# test-rdma-core's runs of a build in another root: make 4.3 remakes what
# depends on a grouped target whose recipe ran, though it changed nothing).
# Set before the rules that name it: a rule's prerequisites are expanded as
# it is read.
CARGO_FORCE ?= FORCE

all: $(LIBRARY) $(LIB)/$(NAME).a $(TOOLS)

# cargo decides what is stale; make relinks what depends on the archive only
# when cargo rewrote it. rustc writes $(NATIVE) whenever it builds the archive.
ifdef ARCHIVE
$(NATIVE): FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2> /dev/null)" = '$(NATIVE_LIBS)' ] || echo '$(NATIVE_LIBS)' > $@
$(SHARED) $(PRELOADED): $(NATIVE)
else
$(RUST_A) $(NATIVE) &: $(CARGO_FORCE)
	$(CARGO) rustc --release --locked --lib --crate-type staticlib -- \
		--print native-static-libs=$(CURDIR)/$(NATIVE).new
	$(call replace-if-changed,$(NATIVE),$(NATIVE).new)
endif

# replace-if-changed FILE NEW: NEW becomes FILE only when their bytes
# differ (else NEW is removed), so that what depends on FILE is not made
# again for a rewrite of the same bytes: rustc prints the native libraries
# at every cargo run, built or fresh, and the .pc file made from that list
# is what the C tests' objects depend on. (rustc's NEW has a fixed name:
# its arguments are part of what cargo compares to decide it is fresh.)
replace-if-changed = if [ ! -e $(2) ] || cmp -s $(2) $(1); then rm -f $(2); else mv $(2) $(1); fi

FORCE:

# Objects and other intermediate files are kept.
.SECONDARY:

# Both libraries are the same archive, linked with different version scripts
# (generated from abi/src/functions.rs): librdmaverbs.so.1 exports the functions
# of the headers; the preload library also interposes libibverbs' functions.
# --gc-sections drops from each what its exports do not reach (the
# interposition, from librdmaverbs.so.1). -z nodelete: a preload library that
# has wrapped a device's ops must never be unloaded. Both hash tables (.hash
# and .gnu.hash; a few hundred bytes), as rpmlint asks of a shared library:
# some loaders and tools read only the old one.
LINK = $(CC) -shared $(LDFLAGS) -o $@ -Wl,--version-script=$(filter %.map,$^) \
	-Wl,--gc-sections -Wl,-z,relro,-z,now -Wl,--as-needed -Wl,--hash-style=both \
	$(addprefix -Wl$(comma)-u$(comma),$(shell sed -n 's/^ *\([a-z_]*\);$$/\1/p' $(filter %.map,$^))) \
	$(filter %.a,$^) $$(cat $(NATIVE))
comma := ,

# The archive build/lib was linked from: a library linked from another one
# (make test-mutant's ARCHIVE: a mutant's, or a debug build's when cargo test
# --features c-tests runs in this tree) is linked again by the next make
# without it, though it is newer than target/release's archive.
LINKED_FROM := $(B)/linked-from
$(LINKED_FROM): FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2> /dev/null)" = "$(RUST_A)" ] || echo "$(RUST_A)" > $@

$(SHARED): $(RUST_A) src/librdmaverbs.map $(LINKED_FROM)
	@mkdir -p $(@D)
	$(LINK) -Wl,-soname,$(SONAME)
	ln -sf $(REALNAME) $(LIB)/$(SONAME)
	ln -sf $(SONAME) $(LIB)/$(NAME).so

$(PRELOADED): $(RUST_A) src/preload.map $(LINKED_FROM)
	@mkdir -p $(@D)
	$(LINK) -Wl,-z,nodelete

$(LIB)/$(NAME).a: $(RUST_A) $(LINKED_FROM)
	@mkdir -p $(@D)
	cp $(RUST_A) $@

# cargo rebuilds them when RDMAVERBS_PRELOAD_PATH changes (option_env!).
$(addprefix target/release/,$(COMMANDS)) &: $(CARGO_FORCE)
	RDMAVERBS_PRELOAD_PATH=$(PRELOADDIR)/$(PRELOAD) $(CARGO) build --release --locked -p rdmaverbs-tools

$(B)/bin/%: $(if $(ARCHIVE),$(TOOLS_FROM),target/release)/%
	@mkdir -p $(@D)
	cp $< $@

# rdmaverbs.pc for PREFIX etc. ($1), or, uninstalled, for this tree, with an
# rpath so that test programs run without LD_LIBRARY_PATH. pkg-config
# prefers a "-uninstalled" file when it is on the path.
pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' -e 's|@INCLUDEDIR@|$(3)|' \
	-e 's|@PRELOADDIR@|$(4)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@RPATH@|$(5)|' \
	-e "s|@LIBS_PRIVATE@|$$(cat $(NATIVE))|" pkgconfig/rdmaverbs.pc.in

# The .pc file and the headers copied beside it are made by a stamp's rule,
# which runs when one of its sources is newer: the .pc is replaced when its
# bytes change, or when a header changed (the C tests' objects depend on the
# .pc: they are compiled again then, and only then).
PC_MADE := $(B)/pkgconfig/.made
$(PC_MADE): pkgconfig/rdmaverbs.pc.in $(HEADERS) $(NATIVE) Cargo.toml
	@mkdir -p $(@D) $(B)/include/rdmaverbs/rdma
	$(call pc,$(CURDIR)/$(B),$(CURDIR)/$(LIB),$(CURDIR)/$(B)/include,$(CURDIR)/$(LIB),-Wl$(comma)-rpath$(comma)$${libdir} ) > $(PC).$$$$ && \
	if cmp -s include/rdma/rdma_verbs.h $(B)/include/rdmaverbs/rdma/rdma_verbs.h && \
	   cmp -s include/rdmaverbs.h $(B)/include/rdmaverbs/rdmaverbs.h; then \
		$(call replace-if-changed,$(PC),$(PC).$$$$); \
	else \
		cp include/rdma/rdma_verbs.h $(B)/include/rdmaverbs/rdma/ && cp include/rdmaverbs.h $(B)/include/rdmaverbs/ && \
		mv $(PC).$$$$ $(PC); \
	fi
	touch $@
$(PC): $(PC_MADE)
	@[ -e $@ ] || { rm -f $(PC_MADE); $(MAKE) --no-print-directory $(PC_MADE); }

# The exports of this build (abi/exports.tsv's rows that the library
# defines: those whose originals the build's headers have), which the C
# tests and the bindings' tests read; and the C tests' X-macro lists of them.
EXPORTS    := $(B)/exports.tsv
GEN_H      := $(B)/gen/functions.h
$(EXPORTS): abi/exports.tsv $(SHARED) c-tests/tools/exports.sh
	c-tests/tools/exports.sh $(SHARED) abi/exports.tsv > $@.tmp
	mv $@.tmp $@
$(GEN_H): $(EXPORTS) abi/exports.tsv c-tests/tools/functions-h.awk
	@mkdir -p $(@D)
	awk -f c-tests/tools/functions-h.awk abi/exports.tsv $(EXPORTS) > $@.tmp
	mv $@.tmp $@
# The C tests find it as "functions.h".
GEN_I      := -iquote $(B)/gen

# Rewrites the generated files (the header, the version scripts, the full
# exports list, the symbols file) from src/.
header:
	RDMAVERBS_BLESS=1 $(CARGO) test --release --locked --lib generated

# ---- tests ----

# What building and testing need (Debian packages, virtme-ng), if missing.
deps:
	.ci/deps

# The README's test command: what is missing, then every test.
check: deps
	$(MAKE) test

# The quick tier, for every edit: no VM, no package build. test-lib is all
# of it but the bindings (whose runtimes and npm a package build has not):
# the packages' own check (debian/rules, the RPM's %check) runs it.
test-quick: test-lib test-bindings
	@echo "make test-quick: all passed"

test-lib: test-rust test-symbols test-headers test-differential test-verbs test-robustness \
	test-trace test-live test-commands test-probes test-noalloc test-concurrency test-timeout test-hardening test-preload test-versions
	@echo "make test-lib: all passed"

# Within make test, the package builds' own run of test-lib (the RPM's
# %check, debian/rules' dh_auto_test), which make test has just run on the
# same tree, is skipped; make rpm and make deb alone run it.
# The guests of make e2e keep one core of two busy (TCG), and make
# test-rdma-core another on average: so the two run side by side, each
# followed by what balances them (after e2e, the RPMs and the .deb: the
# .deb's test installs the packages on this machine, which the guests see;
# after the tier, the sanitizers, valgrind and the fuzzing). The e2e
# programs are built first, and both sides run with CARGO_FORCE= (the
# library as just built, not linked again while the guests load it or the
# tier checks that nothing of the host's build changes). The e2e side's output is kept in
# $(B)/e2e-all.log and printed after the tier's.
TEST_BESIDE_E2E := test-rdma-core test-sanitizers test-valgrind test-fuzz
test: RPMCHECK = --nocheck
test: export DEB_BUILD_OPTIONS = nocheck
# The tier's Debian 13 guest waits while make e2e's are up, and the other
# way round (run-guest.sh): three guests on two cores would slow each past
# its time limits.
test: export RDMAVERBS_GUEST_LOCK ?= $(CURDIR)/$(B)/guest.lock
test: test-quick test-install
	$(MAKE) $(LIBRARY) $(E2E_PROGRAMS) $(TOOLS) $(BENCH_RUN) vendor
	@echo "make test: make e2e, test-rpm and test-deb run beside $(TEST_BESIDE_E2E); their output follows"
	{ $(MAKE) e2e CARGO_FORCE=; a=$$?; $(MAKE) test-rpm RPMCHECK=$(RPMCHECK); b=$$?; \
	  $(MAKE) test-deb; c=$$?; [ $$a = 0 ] && [ $$b = 0 ] && [ $$c = 0 ]; } > $(B)/e2e-all.log 2>&1 & e2e=$$!; \
	$(MAKE) -k $(TEST_BESIDE_E2E) CARGO_FORCE= 2>&1 | tee $(B)/beside-all.log; rest=$${PIPESTATUS[0]}; \
	wait $$e2e; one=$$?; \
	echo "---- make e2e, test-rpm, test-deb (all they printed, $(B)/e2e-all.log) ----"; cat $(B)/e2e-all.log; \
	if [ $$rest != 0 ] || [ $$one != 0 ]; then echo "---- make test: what failed (both sides' FAIL and make's error lines) ----"; \
		grep -h -E 'FAIL|\*\*\*|rebuilt: ' $(B)/beside-all.log $(B)/e2e-all.log | head -n 60; fi; \
	[ $$rest = 0 ] || echo "make test: $(TEST_BESIDE_E2E): failed ($(B)/beside-all.log)"; \
	[ $$one = 0 ] || echo "make test: make e2e, test-rpm or test-deb failed ($(B)/e2e-all.log)"; \
	[ $$one = 0 ] && [ $$rest = 0 ]
	@echo "make test: all passed"

# Rust unit tests: the generated files are current, the struct layout matches
# the system headers, the shape of the crates' sources; the layout crate's and the
# commands' own.
# (make test-rdma-core's roots test of the lower crates only rdmaverbs-abi's,
# the one that reads the release's headers: RUST_CRATES=rdmaverbs-abi.)
RUST_CRATES ?= rdmaverbs-abi rdmaverbs-observe rdmaverbs-format rdmaverbs-tools
test-rust:
	$(CARGO) test --release --locked
	$(CARGO) test --release --locked $(addprefix -p ,$(RUST_CRATES))

test-symbols: $(LIBRARY)
	c-tests/tools/check-symbols.sh $(SHARED) $(PRELOADED)

# The drop-in header compiles wherever the stock one does, warning for warning.
test-headers: $(PC)
	c-tests/tools/header-matrix.sh $(B)/include/rdmaverbs

# ---- tests on the fake provider (c-tests/fake/) ----

# Each test is built in three flavours: plain, with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report aborts), with ThreadSanitizer. A test
# program is its own object and whatever else it lists below: the scripted
# fake provider (fake.o), the cases, original.o (the inline originals, built
# against the stock header).
# The differential test of RDMAVERBS_1.3 (verbs.c) has a fake of its own
# (vfake.c): not fake.o, which defines ibv_reg_mr too.
VERBS_O := vfake.o vfake-ex.o verbs-call.o verbs-cases.o verbs-args.o verbs-directed.o verbs-refusals.o
SAN  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN := -O1 -g -fsanitize=thread
FAKE_H := c-tests/fake/child.h c-tests/fake/fake.h c-tests/fake/cases.h $(GEN_H) c-tests/original.h \
	c-tests/fake/vfake.h c-tests/fake/verbs.h c-tests/fake/verbs-linked.h c-tests/fake/fakeverbs.h

define flavour
$(B)/$(1)/%.o: c-tests/fake/%.c $(FAKE_H) $(PC)
	@mkdir -p $$(@D)
	$$(CC) $(2) $$(WARN) -pthread $$(RV_CFLAGS) $(GEN_I) -c -o $$@ $$<
$(B)/$(1)/original.o: c-tests/original.c c-tests/original.h $(GEN_H)
	@mkdir -p $$(@D)
	$$(CC) $(2) $$(WARN) $$(STOCK_CFLAGS) $(GEN_I) -c -o $$@ $$<
$(B)/$(1)/%: $(B)/$(1)/%.o $(LIBRARY)
	$$(CC) $(2) -pthread -rdynamic -o $$@ $$(filter %.o,$$^) $$(EXTRA_LIBS) $$(RV_LIBS) -ldl
$(addprefix $(B)/$(1)/,differential robustness trace live noalloc poster probes): $(B)/$(1)/fake.o
$(B)/$(1)/differential: $(B)/$(1)/cases.o $(B)/$(1)/original.o
$(B)/$(1)/verbs: $(addprefix $(B)/$(1)/,$(VERBS_O) original.o)
$(B)/$(1)/verbs-trace $(B)/$(1)/verbs-probes: $(addprefix $(B)/$(1)/,vfake.o vfake-ex.o)
endef
$(eval $(call flavour,fake,$(CFLAGS)))
$(eval $(call flavour,san,$(SAN)))
$(eval $(call flavour,tsan,$(TSAN)))

# The fake libibverbs that the preload library's tests stand on
# (c-tests/fake/fakeverbs.c), linked ahead of libibverbs.
$(B)/fake/libfakeverbs.so: c-tests/fake/fakeverbs.c c-tests/fake/fakeverbs.h c-tests/fake/fakeverbs.map
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -fPIC -shared -Wl,--version-script=c-tests/fake/fakeverbs.map \
		$(STOCK_CFLAGS) -o $@ $<
$(B)/fake/preload $(B)/fake/opstrace $(B)/fake/verbs-preload: $(B)/fake/libfakeverbs.so
$(B)/fake/verbs-preload: $(B)/fake/verbs-linked.o

# A libibverbs.so.1 with none of the functions the preload library
# interposes (c-tests/fake/stubverbs.c), and the program that finds them
# missing (nolibibverbs.c).
$(B)/fake/stub/libibverbs.so.1: c-tests/fake/stubverbs.c c-tests/fake/stubverbs.map $(GEN_H)
	@mkdir -p $(@D)
	$(CC) -E -P -x c $(GEN_I) -o $(@D)/stubverbs.map c-tests/fake/stubverbs.map
	$(CC) $(CFLAGS) $(WARN) $(GEN_I) -fPIC -shared -Wl,-soname,libibverbs.so.1 \
		-Wl,--version-script=$(@D)/stubverbs.map -o $@ $<
$(B)/fake/nolibibverbs: c-tests/fake/nolibibverbs.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -ldl
$(B)/fake/preload $(B)/fake/opstrace $(B)/fake/verbs-preload: EXTRA_LIBS = -L$(B)/fake \
	-Wl,-rpath,$(CURDIR)/$(B)/fake -lfakeverbs

# The differential test, again with every RDMAVERBS_* switch on: tracing,
# counting and spinning change nothing the caller sees.
DIFF_CASES ?= 100000
test-differential: $(B)/fake/differential
	$(B)/fake/differential $(DIFF_CASES)
	RDMAVERBS_TRACE=$(CURDIR)/$(B)/differential.trace RDMAVERBS_STATS=1 RDMAVERBS_POLL_SPIN=3 \
		$(B)/fake/differential $(DIFF_CASES) 2>$(B)/differential-watched.err
	grep -q '^rdmaverbs: rdma_post_send ' $(B)/differential-watched.err
	grep -q '^rdmaverbs\[[0-9]*\]: rdma_post_send ' $(B)/differential.trace
	rm -f $(B)/differential.trace

# The differential test of RDMAVERBS_1.3, the functions of verbs.h
# (c-tests/fake/verbs.c, on the fake of vfake.c), and their refusals; again
# with every RDMAVERBS_* switch on (its differences, if any, from the file
# of its standard error).
test-verbs: $(B)/fake/verbs
	$(B)/fake/verbs $(DIFF_CASES)
	RDMAVERBS_TRACE=$(CURDIR)/$(B)/verbs.trace RDMAVERBS_STATS=1 RDMAVERBS_POLL_SPIN=3 \
		$(B)/fake/verbs $(DIFF_CASES) 2>$(B)/verbs-watched.err || \
		{ grep -v '^rdmaverbs' $(B)/verbs-watched.err; exit 1; }
	grep -q '^rdmaverbs: ibv_post_send ' $(B)/verbs-watched.err
	grep -q '^rdmaverbs\[[0-9]*\]: ibv_post_send ' $(B)/verbs.trace
	rm -f $(B)/verbs.trace

# The environment and the trace file (c-tests/fake/hardening.c); the
# set-user-ID case needs root, as CI is.
test-hardening: $(B)/fake/hardening $(B)/fake/hardening-static
	rm -rf $(B)/hardening.d && mkdir -p $(B)/hardening.d
	$(B)/fake/hardening $(CURDIR)/$(SHARED) $(CURDIR)/$(B)/hardening.d

# The copy that the set-user-ID case runs as nobody: linked with the static
# archive, so that it loads nothing from the build tree, which nobody may not
# be able to reach (a clone in /root).
$(B)/fake/hardening-static: $(B)/fake/hardening.o $(LIB)/$(NAME).a
	$(CC) $(CFLAGS) -pthread -o $@ $< $(LIB)/$(NAME).a $$(cat $(NATIVE)) $(STOCK_LIBS)

# The preload library on a fake libibverbs (c-tests/fake/preload.c); the
# exports of RDMAVERBS_1.3 under it, each call recorded once
# (verbs-preload.c).
test-preload: $(B)/fake/preload $(B)/fake/opstrace $(B)/fake/verbs-preload $(B)/fake/nolibibverbs \
		$(B)/fake/stub/libibverbs.so.1
	rm -rf $(B)/preload.d && mkdir -p $(B)/preload.d
	LD_LIBRARY_PATH=$(B)/fake/stub LD_PRELOAD=$(CURDIR)/$(PRELOADED) $(B)/fake/nolibibverbs
	$(B)/fake/opstrace $(CURDIR)/$(PRELOADED) $(CURDIR)/$(B)/preload.d
	$(B)/fake/verbs-preload $(CURDIR)/$(PRELOADED) $(CURDIR)/$(B)/preload.d
	$(B)/fake/preload $(CURDIR)/$(PRELOADED) $(CURDIR)/$(B)/preload.d

test-robustness: $(B)/fake/robustness
	$(B)/fake/robustness

# The bounded waits on a provider with a real completion channel.
test-timeout: $(B)/fake/timeout
	$(B)/fake/timeout

# RDMAVERBS_TRACE and RDMAVERBS_STATS: every line and count checked; those
# of RDMAVERBS_1.3 on the fake of vfake.c (verbs-trace.c), and their
# counters file as rdmaverbs-stat shows it.
test-trace: $(B)/fake/trace $(B)/fake/verbs-trace $(B)/bin/rdmaverbs-stat
	rm -rf $(B)/trace.d && mkdir -p $(B)/trace.d
	$(B)/fake/trace $(B)/trace.d
	rm -rf $(B)/verbs-trace.d && mkdir -p $(B)/verbs-trace.d
	$(B)/fake/verbs-trace $(B)/verbs-trace.d $(B)/bin/rdmaverbs-stat

# The probes' arguments, recorded by a library built with the feature
# c-tests (make mutants; --must there): skipped by the release build. Those
# of RDMAVERBS_1.3 on the fake of vfake.c (verbs-probes.c).
test-probes: $(B)/fake/probes $(B)/fake/verbs-probes $(B)/bench/ops $(PRELOADED)
	$(B)/fake/probes $(B)/probes.records $(if $(ARCHIVE),--must)
	$(B)/fake/verbs-probes $(B)/verbs-probes.records $(if $(ARCHIVE),--must)
	c-tests/fake/probes-preload.sh $(B) $(if $(ARCHIVE),--must)

# The commands, rdmaverbs-trace and rdmaverbs-stat, on the fake provider.
test-commands: $(B)/fake/poster $(TOOLS) $(B)/bench/ops $(PRELOADED)
	rm -rf $(B)/commands.d && mkdir -p $(B)/commands.d
	c-tests/fake/commands.sh $(B) $(B)/commands.d

# A trace followed live: lines in the file while the program idles, after
# SIGKILL, under truncation, deletion, a size limit and a full disk.
test-live: $(B)/fake/live
	rm -rf $(B)/live.d && mkdir -p $(B)/live.d
	$(B)/fake/live $(B)/live.d

# None of the functions allocates (malloc and kin counted around a burst);
# the data path of RDMAVERBS_1.3 makes no system call (seccomp), unwatched
# and counted.
test-noalloc: $(B)/fake/noalloc
	$(B)/fake/noalloc
	RDMAVERBS_STATS=1 $(B)/fake/noalloc 2> $(B)/noalloc-counted.err
	RDMAVERBS_TRACE=$(CURDIR)/$(B)/noalloc.trace RDMAVERBS_STATS=1 $(B)/fake/noalloc

# Threads posting at once; again under ThreadSanitizer (any report fails).
test-concurrency: $(B)/fake/concurrency $(B)/tsan/concurrency
	$(B)/fake/concurrency
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(B)/tsan/concurrency

test-sanitizers: $(B)/san/differential $(B)/san/robustness $(B)/san/verbs
	$(B)/san/differential 100000
	$(B)/san/robustness
	$(B)/san/verbs 100000

VALGRIND := valgrind -q --error-exitcode=1

test-valgrind: $(B)/fake/differential $(B)/fake/robustness $(B)/example-uninstalled
	$(VALGRIND) $(B)/fake/differential 20000
	$(VALGRIND) --trace-children=yes $(B)/fake/robustness
	$(VALGRIND) $(B)/example-uninstalled

# ---- fuzzing (libFuzzer, clang; c-tests/fake/fuzz.c) ----
# The fuzzer's bytes choose the function, every argument (lengths, counts,
# flags, NULL or not) and the provider's answers. Valid input must give the
# original's result; invalid input a clear error. The library is linked
# statically, built with libFuzzer's coverage instrumentation, so the fuzzer
# is guided by its branches too. (-rdynamic: the test finds the address
# functions by name, as a program would.)
FUZZ_A     := target/fuzz/librdmaverbs_lib.a
SANCOV     := -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=3 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
	-Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TIME  ?= 1800

$(FUZZ_A): FORCE
	$(CARGO) rustc --profile fuzz --lib --crate-type staticlib --locked -- $(SANCOV)

$(B)/fuzz: c-tests/fake/fuzz.c c-tests/fake/cases.c c-tests/fake/fake.c c-tests/original.c \
		$(FAKE_H) $(FUZZ_A) $(PC)
	clang $(FUZZ_FLAGS) $(WARN) $(GEN_I) -c -o $(B)/fuzz-original.o c-tests/original.c $(STOCK_CFLAGS)
	clang $(FUZZ_FLAGS) $(WARN) $(GEN_I) $(RV_CFLAGS) -rdynamic -o $@ c-tests/fake/fuzz.c c-tests/fake/cases.c \
		c-tests/fake/fake.c $(B)/fuzz-original.o $(FUZZ_A) $$(cat $(NATIVE))

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

# ---- the bindings for other languages (bindings/, bindings/README.md) ----

# Each built, and each installed as its README says (bindings/run.sh says how
# each runs from here).
BIND       := $(B)/bindings
JNA_JAR    ?= /usr/share/java/jna.jar
JAVAC      := javac -Xlint:all -Werror -encoding UTF-8
MCS        := mcs -nologo -warnaserror -warn:4
# Maven offline, against Debian's repository (bindings/java/debian-repo.xml).
MVN        := mvn -o -q -B -Dstyle.color=never -s bindings/java/debian-repo.xml -Daether.offline.protocols=file
MVN_JAR    := $(BIND)/java/maven/rdmaverbs-$(VERSION).jar
NUPKG      := $(BIND)/nuget/RdmaVerbs.$(VERSION).nupkg
VENDORED   := vendor/libc/Cargo.toml
BINDINGS   := $(BIND)/layout $(BIND)/librecorder.so \
	$(BIND)/rdmaverbs.jar $(BIND)/java/test/.built $(BIND)/java/examples/.built $(MVN_JAR) \
	$(BIND)/RdmaVerbs.dll $(NUPKG) $(BIND)/RdmaVerbsTest.exe $(BIND)/Rc.exe $(BIND)/rust/debug/examples/rc \
	$(BIND)/Verbs.exe $(BIND)/VerbsObjects.exe $(BIND)/VerbsAsync.exe $(BIND)/Hello.exe $(BIND)/Echo.exe \
	$(BIND)/rust/doc/.ok $(BIND)/java/doc/.ok $(BIND)/rust/package/.ok \
	$(foreach l,python node rust java csharp lua,$(BIND)/install/$(l)/.ok)

bindings: $(BINDINGS)

# One binding alone, with its own toolchain only: the jar with javac and
# Debian's JNA, the .dll with Mono's mcs; each with its test and examples
# (bindings/java/README.md, bindings/csharp/README.md).
bindings-java: $(BIND)/rdmaverbs.jar $(BIND)/java/test/.built $(BIND)/java/examples/.built $(MVN_JAR)
bindings-rust: $(BIND)/rust/package/.ok $(VENDORED)
bindings-csharp: $(BIND)/RdmaVerbs.dll $(NUPKG) $(BIND)/RdmaVerbsTest.exe $(BIND)/Rc.exe $(BIND)/Verbs.exe \
	$(BIND)/VerbsObjects.exe $(BIND)/VerbsAsync.exe $(BIND)/Hello.exe $(BIND)/Echo.exe

# What each binding's layout is compared with: the system headers' sizes,
# offsets and constants, printed by a C program generate.py writes.
$(BIND)/layout: bindings/generate.py bindings/api.py
	@mkdir -p $(@D)
	python3 bindings/generate.py --layout-c > $@.c
	$(CC) $(WARN) $(STOCK_CFLAGS) -o $@ $@.c

# The recording provider the bindings' tests post to (bindings/recorder.c).
$(BIND)/librecorder.so: bindings/recorder.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(STOCK_CFLAGS) -fPIC -shared -o $@ $<

# Each package installed as its README says, from a fresh folder
# BIND/install/LANGUAGE: bindings/install.sh runs the README's install block
# as written (the wheel pip installs into a venv, the tarball of npm pack
# with koffi beside it, the jar and pom Maven built, installed into a
# project's repository, the .nupkg restored from a folder, the crates of
# cargo package in a new cargo project, offline, luarocks make of the
# rockspec into a rocks tree) and a small program that uses the
# package. Again when the package, its README
# or install.sh changes; the library need only be there (each binding's
# test, run every time, runs against the library as it is).
$(BIND)/install/python/.ok: bindings/python/README.md bindings/python/pyproject.toml \
	$(wildcard bindings/python/rdmaverbs/*.py) $(wildcard bindings/python/rdmaverbs/*.pyi) \
	$(wildcard bindings/python/rdmaverbs/objects/*.py) $(wildcard bindings/python/rdmaverbs/objects/endpoint/*.py) \
	bindings/python/rdmaverbs/py.typed bindings/python/LICENSE-MIT bindings/python/LICENSE-APACHE \
	$(wildcard bindings/python/examples/*.py bindings/python/tests/*.py)
$(BIND)/install/node/.ok: bindings/node/README.md bindings/node/package.json \
	bindings/node/index.js bindings/node/index.mjs bindings/node/api.js bindings/node/objects.js $(wildcard bindings/node/objects/*.js) \
	bindings/node/index.d.ts bindings/node/index.d.mts bindings/node/api.d.ts bindings/node/LICENSE-MIT bindings/node/LICENSE-APACHE
$(BIND)/install/rust/.ok: bindings/rust/README.md $(BIND)/rust/package/.ok | $(VENDORED)
$(BIND)/install/java/.ok: bindings/java/README.md $(MVN_JAR)
$(BIND)/install/csharp/.ok: bindings/csharp/README.md $(NUPKG)
$(BIND)/install/lua/.ok: bindings/lua/README.md bindings/lua/rdmaverbs.lua $(wildcard bindings/lua/rdmaverbs/*.lua) \
	$(wildcard bindings/lua/*.rockspec)
$(BIND)/install/%/.ok: bindings/install.sh | $(SHARED) $(PC)
	bindings/install.sh $(B) $*
	touch $@

$(BIND)/rdmaverbs.jar: $(wildcard bindings/java/src/org/rdmaverbs/*.java)
	rm -rf $(BIND)/java/classes && mkdir -p $(BIND)/java/classes
	$(JAVAC) -cp $(JNA_JAR) -d $(BIND)/java/classes $^
	jar --create --file $@ -C $(BIND)/java/classes .

# The jar and its pom (bindings/java/pom.xml) as Maven builds them, offline,
# against Debian's JNA and plugins; what bindings/java/README.md installs
# into a Maven repository. Its local repository, a copy of what it took from
# Debian's, is build/bindings/java/m2.
$(MVN_JAR): bindings/java/pom.xml bindings/java/debian-repo.xml $(wildcard bindings/java/src/org/rdmaverbs/*.java)
	$(MVN) -f bindings/java/pom.xml -Dmaven.repo.local=$(CURDIR)/$(BIND)/java/m2 \
		-Drdmaverbs.target=$(CURDIR)/$(BIND)/java/maven package
	@touch $@

# The test and the example, each compiled against the jar.
$(BIND)/java/test/.built: $(wildcard bindings/java/test/org/rdmaverbs/*.java)
$(BIND)/java/examples/.built: $(wildcard bindings/java/examples/*.java)
$(BIND)/java/%/.built: $(BIND)/rdmaverbs.jar
	rm -rf $(@D) && mkdir -p $(@D)
	$(JAVAC) -cp $(JNA_JAR):$< -d $(@D) $(filter %.java,$^)
	touch $@

# With its XML documentation (RdmaVerbs.xml, beside it for the IDE), every
# doc comment checked (a malformed one, a cref or param that names nothing,
# is an error); a public member with none is not (CS1591): the generated
# Api.cs has none.
$(BIND)/RdmaVerbs.dll: bindings/csharp/Api.cs bindings/csharp/RdmaVerbs.cs $(wildcard bindings/csharp/Objects/*.cs)
	@mkdir -p $(@D)
	$(MCS) -unsafe -target:library -doc:$(BIND)/RdmaVerbs.xml -nowarn:1591 -out:$@ $^

# The NuGet package of the .dll and its XML documentation
# (bindings/csharp/RdmaVerbs.nuspec), alone in its folder: the local source
# bindings/csharp/README.md restores from.
$(NUPKG): bindings/csharp/RdmaVerbs.nuspec $(BIND)/RdmaVerbs.dll
	rm -rf $(@D) && mkdir -p $(@D)
	nuget pack $< -BasePath $(BIND) -OutputDirectory $(@D) -NonInteractive -Verbosity quiet

$(BIND)/RdmaVerbsTest.exe: $(wildcard bindings/csharp/test/*.cs) $(BIND)/RdmaVerbs.dll
	$(MCS) -r:$(BIND)/RdmaVerbs.dll -out:$@ $(filter %.cs,$^)

$(BIND)/Rc.exe: bindings/csharp/examples/Rc.cs $(BIND)/RdmaVerbs.dll
	$(MCS) -r:$(BIND)/RdmaVerbs.dll -out:$@ $<

# The C# verbs client (bindings/verbs-protocol.md), the exchange in the
# object API, the README's client.
$(BIND)/Verbs.exe $(BIND)/VerbsObjects.exe $(BIND)/VerbsAsync.exe $(BIND)/Hello.exe $(BIND)/Echo.exe: $(BIND)/%.exe: bindings/csharp/examples/%.cs $(BIND)/RdmaVerbs.dll
	$(MCS) -r:$(BIND)/RdmaVerbs.dll -out:$@ $<

# The crates (rdmaverbs-sys, and rdmaverbs over it, tokio's feature on),
# linked as pkg-config finds librdmaverbs (here: this tree's uninstalled
# .pc; the library there, linked first); cargo decides what is stale.
$(BIND)/rust/debug/examples/rc: $(PC) FORCE | $(SHARED)
	cd bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(BIND)/rust \
		$(CARGO) build -q --locked --workspace --all-features --examples

# The two crates as crates.io would have them (cargo package: each packaged,
# then built from its package, the safe crate against the packaged raw
# one); what bindings/rust/README.md installs from. --allow-dirty: a tree
# being edited packages what it has.
RUST_PACKAGED := $(wildcard bindings/rust/*.md bindings/rust/build.rs bindings/rust/src/*.rs bindings/rust/src/*/*.rs \
	bindings/rust/examples/*.rs bindings/rust/examples/*/*.rs bindings/rust/tests/*.rs bindings/rust/rdmaverbs-sys/*.md \
	bindings/rust/rdmaverbs-sys/build.rs bindings/rust/rdmaverbs-sys/*/*.rs)
# What the Rust README's project takes for crates.io: vendor/ (make vendor),
# made when missing.
$(VENDORED):
	$(CARGO) vendor --locked -q vendor > /dev/null
$(BIND)/rust/package/.ok: bindings/rust/Cargo.toml bindings/rust/Cargo.lock bindings/rust/rdmaverbs-sys/Cargo.toml \
		$(RUST_PACKAGED) | $(SHARED) $(PC)
	rm -f $(BIND)/rust/package/*.crate
	cd bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(BIND)/rust \
		$(CARGO) package -q --locked --allow-dirty --workspace
	@ls $(BIND)/rust/package/rdmaverbs-$(VERSION).crate $(BIND)/rust/package/rdmaverbs-sys-$(VERSION).crate > /dev/null
	touch $@

# The API references: rustdoc of the two crates and javadoc of the Java
# package, each built with every warning an error (javadoc: every doclint
# check but missing comments and tags, which the generated RdmaVerbs.java
# has none of; bindings/java/README.md says so).
$(BIND)/rust/doc/.ok: $(PC) $(wildcard bindings/rust/src/*.rs bindings/rust/src/*/*.rs bindings/rust/*.md \
		bindings/rust/rdmaverbs-sys/src/*.rs bindings/rust/rdmaverbs-sys/*.md) | $(SHARED)
	cd bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(BIND)/rust \
		RUSTDOCFLAGS=-Dwarnings $(CARGO) doc -q --no-deps --locked --workspace --all-features
	@mkdir -p $(@D) && touch $@
$(BIND)/java/doc/.ok: $(wildcard bindings/java/src/org/rdmaverbs/*.java)
	rm -rf $(@D) && mkdir -p $(@D)
	javadoc -Xdoclint:all,-missing -Werror -quiet -encoding UTF-8 -cp $(JNA_JAR) -d $(@D) $^
	touch $@

# The bindings' generated files, enums and layouts against this machine's
# headers, for the languages whose runtime is here without the network
# (make test-rdma-core runs it in each root).
test-bindings-layout: $(BIND)/layout $(LIBRARY) $(EXPORTS)
	bindings/layout.sh $(B) python $$(command -v luajit > /dev/null && echo lua)

test-bindings: $(LIBRARY) $(BINDINGS) $(EXPORTS)
	bindings/test.sh $(B)

# ---- mutation testing (MUTANTS.md; not in make check: hours) ----

# cargo-mutants changes the library's crates one mutant at a time, in copies of the tree,
# and runs cargo test there; with the feature c-tests, cargo test also runs
# test-mutant against the library it built (tests/fake_provider.rs).
# Installs cargo-mutants from crates.io if it is missing.
MUTANTS_JOBS ?= 2
MUTANTS_ARGS ?=
# The library's three crates, each mutant tested by the tests of all three
# (the top crate's test runs the C tests, which see every crate's code).
MUTATED    := $(foreach p,rdmaverbs-lib rdmaverbs-observe rdmaverbs-abi,-p $(p) --test-package $(p))
mutants: $(LIBRARY) $(TOOLS)
	command -v cargo-mutants > /dev/null || $(CARGO) install --locked cargo-mutants@27.1.0
	@# the names found unviable by every run since the last full one (cargo-mutants keeps
	@# only the last two runs' lists)
	if echo " $(MUTANTS_ARGS) " | grep -q -- " --iterate "; then \
		cat $(B)/mutants.out/unviable.txt $(B)/mutants.unviable 2> /dev/null | sort -u > $(B)/mutants.unviable.new; \
		mv $(B)/mutants.unviable.new $(B)/mutants.unviable; else rm -f $(B)/mutants.unviable; fi
	@# cargo-mutants copies the tree into TMPDIR: not build/tmp, inside the tree (it would
	@# copy its copy), but under target/, which it never copies
	mkdir -p target/mutants.tmp
	TMPDIR=$(CURDIR)/target/mutants.tmp NATIVE_LIBS="$$(cat $(NATIVE))" TOOLS_FROM=$(CURDIR)/$(B)/bin \
		$(CARGO) mutants $(MUTATED) \
		--features rdmaverbs-lib/c-tests --jobs $(MUTANTS_JOBS) --timeout 45 --output $(B) $(MUTANTS_ARGS); \
		rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 2 ] || [ $$rc -eq 3 ] || exit $$rc
	$(CARGO) mutants $(MUTATED) --features rdmaverbs-lib/c-tests --list > $(B)/mutants.list
	cat $(B)/mutants.out/unviable.txt >> $(B)/mutants.unviable
	python3 c-tests/tools/mutants.py $(B)/mutants.out > MUTANTS.md

# One mutant's test: the C tests on the fake provider, the cheapest first,
# stopping at the first failure, with fewer random cases and repetitions
# than test-lib (a mutant is a wrong value, not a rare race).
test-mutant: export RDMAVERBS_TEST_QUICK = 1
test-mutant: DIFF_CASES = 20000
test-mutant: test-trace test-probes test-robustness test-differential test-verbs test-noalloc test-timeout test-hardening \
		test-preload test-live test-commands $(B)/fake/concurrency
	$(B)/fake/concurrency

# ---- programs built twice: against our header (ours) and the stock one ----

# The same source, as a user would build it with our pkg-config file (ours)
# or as the inline original, without librdmaverbs (stock).
$(B)/ours/%: c-tests/e2e/%.c $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $< $(RV_LIBS)

# The bindings' C peer: the RC exchange (peer.c) and the verbs one
# (peer-verbs.c).
$(B)/ours/peer: c-tests/e2e/peer.c c-tests/e2e/peer-verbs.c c-tests/e2e/peer-verbs.h $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $(filter %.c,$^) $(RV_LIBS)

$(B)/ours/%: c-tests/examples/%.c $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $< $(RV_LIBS)

$(B)/stock/%: c-tests/e2e/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(STOCK_CFLAGS) -o $@ $< $(STOCK_LIBS)

# verbs.c, the RDMAVERBS_1.3 row: no header of ours; a table of verbs.h's
# 94 inline functions, filled with their originals (stock) or with
# librdmaverbs.so.1's exports of the same names, found by dlvsym in the
# library that VERBS_LIBRARY names (ours: nothing of librdmaverbs linked).
# -ldl: dlopen, dlvsym (in libc itself since glibc 2.34).
# siw-verbs.c, the same table on soft-iWARP (c-tests/e2e/siw.sh), is built
# the same way.
$(B)/ours/verbs $(B)/ours/siw-verbs: VERBS_TABLE = -DVERBS_LIBRARY='"$(shell $(TEST_PC) --variable=libdir rdmaverbs)/$(SONAME)"'
$(B)/ours/verbs $(B)/ours/siw-verbs: $(LIBRARY)
$(B)/ours/verbs $(B)/stock/verbs: c-tests/e2e/verbs.c
$(B)/ours/siw-verbs $(B)/stock/siw-verbs: c-tests/e2e/siw-verbs.c
$(B)/ours/verbs $(B)/stock/verbs $(B)/ours/siw-verbs $(B)/stock/siw-verbs: c-tests/e2e/verbs-table.h $(GEN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(GEN_I) $(VERBS_TABLE) $(STOCK_CFLAGS) -o $@ c-tests/e2e/$(@F).c $(STOCK_LIBS) -ldl

$(B)/example-uninstalled: $(B)/ours/example
	cp $< $@

# ---- benchmark (c-tests/bench/) ----

$(B)/bench/bench: c-tests/bench/bench.c c-tests/bench/bench-fake.c c-tests/bench/bench-fake.h \
		$(GEN_H)
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) $(GEN_I) -rdynamic $(STOCK_CFLAGS) -o $@ c-tests/bench/bench.c \
		c-tests/bench/bench-fake.c -ldl

# The wrapped ops' cost (c-tests/bench/ops.c), on the fake libibverbs.
$(B)/bench/ops: c-tests/bench/ops.c $(B)/fake/libfakeverbs.so
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -pthread $(STOCK_CFLAGS) -o $@ $< -L$(B)/fake -Wl,-rpath,$(CURDIR)/$(B)/fake \
		-lfakeverbs $(STOCK_LIBS)

# The C shim: the originals as real functions (c-tests/original.c), built as a
# release build of a hand-written shim would be (-DNDEBUG), and again with the
# original's asserts kept.
$(B)/bench/libshim.so: c-tests/original.c c-tests/original.h $(GEN_H)
	@mkdir -p $(@D)
	$(CC) -O2 -DNDEBUG -fPIC -shared $(WARN) $(GEN_I) $(STOCK_CFLAGS) -o $@ $< $(STOCK_LIBS)

$(B)/bench/libshim-assert.so: c-tests/original.c c-tests/original.h $(GEN_H)
	@mkdir -p $(@D)
	$(CC) -O2 -fPIC -shared $(WARN) $(GEN_I) $(STOCK_CFLAGS) -o $@ $< $(STOCK_LIBS)

# librdmaverbs without the USDT probes compiled in (cargo's feature
# "probes" off), for the benchmark's column of what the probes cost.
NOPROBES_A := target/noprobes/release/librdmaverbs_lib.a
$(NOPROBES_A): FORCE
	$(CARGO) rustc --release --locked --lib --crate-type staticlib --no-default-features \
		--target-dir target/noprobes

$(B)/bench/noprobes/$(SONAME): $(NOPROBES_A) src/librdmaverbs.map
	@mkdir -p $(@D)
	$(LINK) -Wl,-soname,$(SONAME)

# Rounds of each Soft-RoCE build, alternated in one guest boot.
SOFTROCE_ROUNDS ?= 5
SOFTROCE_ROUNDTRIPS ?= 2000
SOFTROCE_MESSAGES ?= 20000

# The Python ping-pong's round trips per run (c-tests/bench/python-guest.sh).
SOFTROCE_PY_ROUNDTRIPS ?= 3000
# The bindings' runs (c-tests/bench/bindings/guest.sh): round trips of a
# ping-pong, messages of a message rate.
SOFTROCE_BIND_ROUNDTRIPS ?= 3000
SOFTROCE_BIND_MESSAGES ?= 10000

# What c-tests/bench/bindings/guest.sh runs: C's message rate through
# librdmaverbs (c-tests/bench/msgrate.c), Rust's ping-pong and message rate
# through the binding's crates (offline: vendor/), Node.js's through the
# package its README installs, and a peer crate's ping-pong (crates.io:
# without it, that row is left out and make bench says so).
BENCH_RUST := $(B)/bench/rust/release/pingpong
BENCH_PEER := $(B)/bench/peer/release/peer-pingpong
# BENCH_RUN is what make e2e-host's short round of them needs (the peer
# crate's row only where make bench has built it).
BENCH_RUN := $(B)/bench/msgrate $(BENCH_RUST) $(BIND)/install/node/.ok
BENCH_BINDINGS := $(BENCH_RUN) bench-peer
$(B)/bench/msgrate: c-tests/bench/msgrate.c $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) $(RV_CFLAGS) -o $@ $< $(RV_LIBS)
$(BENCH_RUST): $(wildcard c-tests/bench/bindings/rust/src/*.rs) c-tests/bench/bindings/rust/Cargo.toml \
		c-tests/bench/bindings/rust/Cargo.lock $(RUST_PACKAGED) | $(PC) $(VENDORED)
	cd c-tests/bench/bindings/rust && PKG_CONFIG_PATH=$(CURDIR)/$(B)/pkgconfig CARGO_TARGET_DIR=$(CURDIR)/$(B)/bench/rust \
		$(CARGO) build -q --release --locked --offline --config 'source.crates-io.replace-with="vendored"' \
		--config 'source.vendored.directory="$(CURDIR)/vendor"'
bench-peer:
	cd c-tests/bench/bindings/peer && CARGO_TARGET_DIR=$(CURDIR)/$(B)/bench/peer $(CARGO) build -q --release --locked || \
		{ rm -f $(CURDIR)/$(BENCH_PEER); echo "make bench: the peer crate could not be built (crates.io unreachable?): its row is left out"; }

$(B)/bench/softroce.txt: $(B)/ours/pingpong $(B)/stock/pingpong c-tests/bench/softroce-guest.sh \
		c-tests/bench/python-guest.sh c-tests/bench/pingpong.py $(BENCH_BINDINGS)
	@mkdir -p $(@D)
	c-tests/tools/run-guest.sh -t 2400 -w $(B)/bench c-tests/bench/softroce-guest.sh \
		$(B) $(CURDIR)/$@.tmp $(SOFTROCE_ROUNDS) $(SOFTROCE_ROUNDTRIPS) $(SOFTROCE_MESSAGES) \
		$(SOFTROCE_PY_ROUNDTRIPS) $(SOFTROCE_BIND_ROUNDTRIPS) $(SOFTROCE_BIND_MESSAGES)
	mv $@.tmp $@

# The Python ping-pong alone, in a guest of its own (a few minutes): its
# section of BENCHMARKS.md printed, nothing written.
bench-python: $(LIBRARY)
	@mkdir -p $(B)/bench
	rm -f $(B)/bench/python.txt
	c-tests/tools/run-guest.sh -t 1200 -w $(B)/bench c-tests/bench/python-guest.sh \
		$(B) $(CURDIR)/$(B)/bench/python.txt $(SOFTROCE_ROUNDS) $(SOFTROCE_PY_ROUNDTRIPS)
	python3 c-tests/bench/report.py --python $(B)/bench/python.txt

# The bindings beside their peers alone (c-tests/bench/bindings/), in a
# guest of its own: their section of BENCHMARKS.md printed, nothing written.
bench-bindings: $(LIBRARY) $(BENCH_BINDINGS)
	rm -f $(B)/bench/bindings.txt
	c-tests/tools/run-guest.sh -t 1800 -w $(B)/bench c-tests/bench/bindings/guest.sh \
		$(B) $(CURDIR)/$(B)/bench/bindings.txt $(SOFTROCE_ROUNDS) $(SOFTROCE_BIND_ROUNDTRIPS) \
		$(SOFTROCE_BIND_MESSAGES)
	python3 c-tests/bench/report.py --bindings $(B)/bench/bindings.txt

# Times and instruction counts (callgrind) of the inline original, the C shims
# and librdmaverbs, and the Soft-RoCE runs; writes BENCHMARKS.md and
# BENCHMARKS.svg. Never part of make test: nothing fails because a machine is
# slow.
bench: $(LIBRARY) $(B)/bench/bench $(B)/bench/libshim.so $(B)/bench/libshim-assert.so \
		$(B)/bench/noprobes/$(SONAME) $(B)/bench/ops $(PRELOADED)
	rm -f $(B)/bench/softroce.txt
	$(MAKE) $(B)/bench/softroce.txt
	python3 c-tests/bench/report.py $(B)/bench/bench $(CURDIR)/$(B)/bench/libshim.so \
		$(CURDIR)/$(B)/bench/libshim-assert.so $(CURDIR)/$(LIB)/$(SONAME) \
		$(CURDIR)/$(B)/bench/noprobes/$(SONAME) $(B)/bench/ops $(CURDIR)/$(PRELOADED) \
		$(CURDIR) $(B)/bench/softroce.txt

# ---- install ----

test-install: $(LIBRARY)
	c-tests/tools/install-test.sh

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PRELOADDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man1
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf $(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(NAME).so
	install -m 644 $(LIB)/$(NAME).a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(PRELOADED) $(DESTDIR)$(PRELOADDIR)/
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 644 include/rdma/rdma_verbs.h $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma/
	install -m 644 include/rdmaverbs.h $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/
	install -m 644 man/rdmaverbs.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(call pc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR),$(PRELOADDIR),) > $(DESTDIR)$(LIBDIR)/pkgconfig/rdmaverbs.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/rdmaverbs.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/$(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/$(NAME).so $(DESTDIR)$(LIBDIR)/$(NAME).a \
	      $(DESTDIR)$(PRELOADDIR)/$(PRELOAD) \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/rdmaverbs.pc \
	      $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma/rdma_verbs.h \
	      $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdmaverbs.h \
	      $(DESTDIR)$(MANDIR)/man7/rdmaverbs.7 $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3))) \
	      $(addprefix $(DESTDIR)$(BINDIR)/,$(COMMANDS)) $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	-rmdir $(DESTDIR)$(PRELOADDIR) $(DESTDIR)$(INCLUDEDIR)/rdmaverbs/rdma \
		$(DESTDIR)$(INCLUDEDIR)/rdmaverbs

clean:
	$(CARGO) clean
	for l in $(B)/bindings/install/*; do [ ! -L "$$l" ] || rm -rf "$$(readlink "$$l")"; done
	rm -rf $(B)

# A small C program built against an install in ./build/prefix, with flags
# from that prefix's rdmaverbs.pc only.
example: all
	$(MAKE) -s install PREFIX=$(CURDIR)/$(B)/prefix
	PKG_CONFIG_PATH=$(CURDIR)/$(B)/prefix/lib/pkgconfig $(CC) $(WARN) \
		-o $(B)/example c-tests/examples/example.c \
		$$(PKG_CONFIG_PATH=$(CURDIR)/$(B)/prefix/lib/pkgconfig $(PKG_CONFIG) --cflags --libs rdmaverbs) \
		-Wl,-rpath,$(CURDIR)/$(B)/prefix/lib
	$(B)/example

# ---- Soft-RoCE end-to-end (c-tests/e2e/) ----

E2E_PROGRAMS := $(addprefix $(B)/ours/,e2e pingpong wire peer verbs siw-verbs) \
	$(addprefix $(B)/stock/,e2e pingpong wire exapi open10 verbs siw-verbs) \
	$(BINDINGS)

# One guest, then two (never beside each other: two guests share the cores).
e2e: $(LIBRARY) $(E2E_PROGRAMS) $(TOOLS) $(BENCH_RUN)
	c-tests/e2e/e2e.sh $(B); one=$$?; c-tests/e2e/pair.sh $(B); two=$$?; \
	if [ $$one != 0 ]; then echo "make e2e: the one-guest tier failed (all of it: $(B)/e2e.log):"; \
		grep -v '^e2e: .* PASS' $(B)/e2e.log | grep -A25 -E 'FAIL|error' | head -n 80; fi; \
	[ $$one = 0 ] && [ $$two = 0 ]

e2e-host: $(LIBRARY) $(E2E_PROGRAMS) $(TOOLS) $(BENCH_RUN)
	c-tests/e2e/e2e.sh $(B)

e2e-pair: $(LIBRARY) $(E2E_PROGRAMS) $(TOOLS)
	c-tests/e2e/pair.sh $(B)

# Soft-iWARP for the guests (e2e.sh and pair.sh build it too): Debian's
# kernels have no siw, so it is built from linux-source-X.Y against
# linux-headers-KVER, of the guests' kernel's own version, and cached in
# /var/cache/rdmaverbs (root) or $$XDG_CACHE_HOME/rdmaverbs.
siw-module:
	c-tests/tools/build-siw.sh

# The README's first command: install what is missing, build, boot the
# guest, run the demo session in it.
demo: deps
	$(MAKE) $(B)/ours/demo
	c-tests/tools/run-guest.sh -t 300 c-tests/examples/demo-guest.sh $(CURDIR)/$(B)/ours/demo

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
	c-tests/tools/deb-test.sh $(DEB)

# ---- RPM packages (rpm/rdmaverbs.spec) ----

# rdmaverbs, rdmaverbs-devel, their debuginfo and the source RPM, built by
# rpmbuild from two tarballs (the tracked files; vendor/), with no network
# when `unshare` can take it away; then rpmlint, which must report no error.
# --nodeps: on Debian, rpm's own database knows none of the BuildRequires.
# rpm/macros.debian gives the build what Fedora's redhat-rpm-config does.
RPM := $(B)/rpm
RPMBUILD = rpmbuild --define "_topdir $(CURDIR)/$(RPM)" --nodeps --load rpm/macros.debian
rpm: vendor
	rm -rf $(RPM) && mkdir -p $(RPM)/SOURCES
	git ls-files -z | tar --null -T - --transform 's,^,rdmaverbs-$(VERSION)/,' \
		-czf $(RPM)/SOURCES/rdmaverbs-$(VERSION).tar.gz
	tar -czf $(RPM)/SOURCES/rdmaverbs-$(VERSION)-vendor.tar.gz vendor
	if unshare -n true 2>/dev/null; then nonet="unshare -n"; else nonet=; fi && \
		$$nonet $(RPMBUILD) $(RPMCHECK) -ba rpm/rdmaverbs.spec
	rpmlint -r rpm/rdmaverbs.rpmlintrc rpm/rdmaverbs.spec $(RPM)/SRPMS/*.rpm $(RPM)/RPMS/*/*.rpm
	@ls $(RPM)/SRPMS/*.rpm $(RPM)/RPMS/*/*.rpm

# One version in Cargo.toml, debian/changelog, the spec and the man pages.
test-versions:
	c-tests/tools/versions.sh

# Every rdma-core its users have that Debian's archive holds: the quick
# tier's library part and the bindings' layouts in roots of Debian 11, 13
# and unstable, each build's fake suites under every newer libibverbs, the
# .deb of Debian 13 (c-tests/tools/rdma-core.sh; roots kept in
# /var/cache/rdmaverbs/roots). Run after test-quick: the host's build is
# one of those run under the newer libibverbs.
test-rdma-core: vendor
	c-tests/tools/rdma-core.sh $(B)

# Takes the RPMs apart with rpm2cpio, checks what they provide and require,
# builds and runs the example against the unpacked tree with pkg-config only.
test-rpm: rpm
	c-tests/tools/rpm-test.sh $(RPM)
