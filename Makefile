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
#   make e2e-host        one Soft-RoCE guest (c-tests/e2e/guest/guest.sh), its last rows on soft-iWARP
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

.PHONY: all FORCE header deps check test test-quick test-lib test-rust install uninstall clean example demo vendor

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
# with what balances them (after e2e, the RPMs and the .deb: the .deb's
# test installs the packages on this machine, which the guests see; before
# the tier, the sanitizers, valgrind and the fuzzing: the tier ends with a
# guest of its own, which waits for make e2e's, so what runs before it
# runs while they do). The e2e
# programs are built first, and both sides run with CARGO_FORCE= (the
# library as just built, not linked again while the guests load it or the
# tier checks that nothing of the host's build changes). The e2e side's output is kept in
# $(B)/e2e-all.log and printed after the tier's.
TEST_BESIDE_E2E := test-sanitizers test-valgrind test-fuzz test-rdma-core
test: RPMCHECK = --nocheck
test: export DEB_BUILD_OPTIONS = nocheck
# The tier's Debian 13 guest waits while make e2e's are up, and the other
# way round (run-guest.sh): three guests on two cores would slow each past
# its time limits.
test: export RDMAVERBS_GUEST_LOCK ?= $(CURDIR)/$(B)/guest.lock
test: test-quick test-install
	$(MAKE) $(LIBRARY) $(E2E_PROGRAMS) $(TOOLS) $(BENCH_RUN) vendor
	@echo "make test: make e2e, test-rpm and test-deb run beside $(TEST_BESIDE_E2E); their output follows"
	{ t=$$SECONDS; $(MAKE) e2e CARGO_FORCE=; a=$$?; echo "make test: make e2e took $$((SECONDS - t)) s"; \
	  t=$$SECONDS; $(MAKE) test-rpm RPMCHECK=$(RPMCHECK); b=$$?; echo "make test: make test-rpm took $$((SECONDS - t)) s"; \
	  t=$$SECONDS; $(MAKE) test-deb; c=$$?; echo "make test: make test-deb took $$((SECONDS - t)) s"; \
	  [ $$a = 0 ] && [ $$b = 0 ] && [ $$c = 0 ]; } > $(B)/e2e-all.log 2>&1 & e2e=$$!; \
	t=$$SECONDS; $(MAKE) -k $(TEST_BESIDE_E2E) CARGO_FORCE= 2>&1 | tee $(B)/beside-all.log; rest=$${PIPESTATUS[0]}; \
	echo "make test: $(TEST_BESIDE_E2E) took $$((SECONDS - t)) s"; \
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

# ---- the suites: each folder's rules ----
#
# Each suite's folder holds its tests and the rules that build and run them
# (docs/design.md has the map). Included in this order: a rule's
# prerequisites are expanded as it is read, and later files name what
# earlier ones define (the bindings, the bench's programs, in e2e's).
include c-tests/fake/fake.mk
include c-tests/rdma/rdma.mk
include c-tests/verbs/verbs.mk
include c-tests/preload/preload.mk
include c-tests/observer/observer.mk
include bindings/bindings.mk
include c-tests/bench/bench.mk
include c-tests/e2e/e2e.mk
include c-tests/packages/packages.mk
include c-tests/releases/releases.mk
include c-tests/mutants/mutants.mk

# ---- install ----

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


demo: deps
	$(MAKE) $(B)/ours/demo
	c-tests/tools/run-guest.sh -t 300 c-tests/examples/demo-guest.sh $(CURDIR)/$(B)/ours/demo


# The crates the build needs, stored for the offline package build.
vendor: Cargo.lock
	$(CARGO) vendor --locked -q vendor > /dev/null

