# ---- Soft-RoCE end-to-end (c-tests/e2e/) ----
# scenarios/: the e2e program (one scenario a run); rdma/: the other
# programs of rdma_verbs.h's exports (pingpong, wire, exapi, open10);
# peer/: the bindings' C peer; verbs/: verbs.h's table (verbs; siw-verbs in
# verbs/siw/); guest/: the scripts run in the guests; here: these rules,
# e2e.sh and pair.sh (the host's side) and pair.py (the pair's table).

# Programs built twice: against our header (ours) and the stock one.
# The same source, as a user would build it with our pkg-config file (ours)
# or as the inline original, without librdmaverbs (stock).
$(B)/ours/%: c-tests/e2e/rdma/%.c $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $< $(RV_LIBS)

# e2e: its scenarios in files by kind (scenarios/e2e.h lists them).
E2E_SRC := $(addprefix c-tests/e2e/scenarios/,e2e.c e2e-common.c e2e-send.c e2e-onesided.c e2e-errors.c)
$(B)/ours/e2e: $(E2E_SRC) c-tests/e2e/scenarios/e2e.h $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $(E2E_SRC) $(RV_LIBS)

$(B)/stock/e2e: $(E2E_SRC) c-tests/e2e/scenarios/e2e.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(STOCK_CFLAGS) -o $@ $(E2E_SRC) $(STOCK_LIBS)

# wire: its two sides and what they share, beside its command line.
WIRE_SRC := $(addprefix c-tests/e2e/rdma/,wire.c wire-server.c wire-client.c wire-common.c)
$(B)/ours/wire: $(WIRE_SRC) c-tests/e2e/rdma/wire-common.h $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $(WIRE_SRC) $(RV_LIBS)

$(B)/stock/wire: $(WIRE_SRC) c-tests/e2e/rdma/wire-common.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(STOCK_CFLAGS) -o $@ $(WIRE_SRC) $(STOCK_LIBS)

# The bindings' C peer: the RC exchange (peer.c) and the verbs one
# (peer-verbs.c, over peer-verbs-side.c).
$(B)/ours/peer: $(addprefix c-tests/e2e/peer/,peer.c peer-verbs.c peer-verbs-side.c peer-verbs.h peer-verbs-side.h) $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $(filter %.c,$^) $(RV_LIBS)

$(B)/ours/%: c-tests/examples/%.c $(LIBRARY)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(RV_CFLAGS) -o $@ $< $(RV_LIBS)

$(B)/stock/%: c-tests/e2e/rdma/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -pthread $(STOCK_CFLAGS) -o $@ $< $(STOCK_LIBS)

# verbs.c, the RDMAVERBS_1.3 row: no header of ours; a table of verbs.h's
# 94 inline functions (verbs/verbs-table.c), filled with their originals
# (stock) or with librdmaverbs.so.1's exports of the same names, found by
# dlvsym in the library that VERBS_LIBRARY names (ours: nothing of
# librdmaverbs linked).
# -ldl: dlopen, dlvsym (in libc itself since glibc 2.34).
# siw-verbs.c, the same table on soft-iWARP (c-tests/e2e/guest/siw.sh; its
# files in verbs/siw/), is built the same way; both share verbs-table.c and
# verbs-common.c.
VERBS_SHARED := $(addprefix c-tests/e2e/verbs/,verbs-table.c verbs-table.h verbs-common.c verbs-common.h)
$(B)/ours/verbs $(B)/ours/siw-verbs: VERBS_TABLE = -DVERBS_LIBRARY='"$(shell $(TEST_PC) --variable=libdir rdmaverbs)/$(SONAME)"'
$(B)/ours/verbs $(B)/ours/siw-verbs: $(LIBRARY)
$(B)/ours/verbs $(B)/stock/verbs: $(addprefix c-tests/e2e/verbs/,verbs.c verbs-server.c verbs-client.c verbs-helpers.c verbs.h)
$(B)/ours/siw-verbs $(B)/stock/siw-verbs: $(addprefix c-tests/e2e/verbs/siw/,siw-verbs.c siw-server.c siw-client.c siw-helpers.c siw-verbs.h)
$(B)/ours/verbs $(B)/stock/verbs $(B)/ours/siw-verbs $(B)/stock/siw-verbs: $(VERBS_SHARED) $(GEN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(GEN_I) $(VERBS_TABLE) $(STOCK_CFLAGS) -o $@ $(filter %.c,$^) $(STOCK_LIBS) -ldl

$(B)/example-uninstalled: $(B)/ours/example
	cp $< $@



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
.PHONY: e2e e2e-host e2e-pair siw-module
