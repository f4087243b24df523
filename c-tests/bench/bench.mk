# ---- benchmark (c-tests/bench/; never part of make test) ----

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

# The C shim: the originals as real functions (c-tests/common/original.c), built as a
# release build of a hand-written shim would be (-DNDEBUG), and again with the
# original's asserts kept.
$(B)/bench/libshim.so: c-tests/common/original.c c-tests/common/original.h $(GEN_H)
	@mkdir -p $(@D)
	$(CC) -O2 -DNDEBUG -fPIC -shared $(WARN) $(GEN_I) $(STOCK_CFLAGS) -o $@ $< $(STOCK_LIBS)

$(B)/bench/libshim-assert.so: c-tests/common/original.c c-tests/common/original.h $(GEN_H)
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
$(BENCH_RUST): $(wildcard c-tests/bench/bindings/rust/src/*.rs c-tests/bench/bindings/*.rs) \
		c-tests/bench/bindings/rust/Cargo.toml \
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

.PHONY: bench bench-python bench-bindings bench-peer
