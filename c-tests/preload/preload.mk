# ---- the preload library on a fake libibverbs (c-tests/preload/) ----
#
# preload.c: what it wraps and records (its child's cases in
# preload-child.c); traced/: opstrace.c, the ops' trace lines (its child in
# opstrace-child.c), and verbs-preload.c, the exports of RDMAVERBS_1.3
# under it, each call recorded once (verbs-linked.c calls each), both
# running their child and reading its files with traced-run.c;
# nolibibverbs.c: a libibverbs without what it wraps
# (c-tests/fake/stubverbs.c).
$(B)/fake/preload $(B)/fake/opstrace $(B)/fake/verbs-preload: $(B)/fake/libfakeverbs.so
$(B)/fake/verbs-preload: $(B)/fake/verbs-linked.o $(B)/fake/traced-run.o
$(B)/fake/opstrace: $(B)/fake/opstrace-child.o $(B)/fake/traced-run.o
$(B)/fake/preload: $(B)/fake/preload-child.o
$(B)/fake/preload $(B)/fake/opstrace $(B)/fake/verbs-preload: EXTRA_LIBS = -L$(B)/fake \
	-Wl,-rpath,$(CURDIR)/$(B)/fake -lfakeverbs
$(B)/fake/nolibibverbs: c-tests/preload/nolibibverbs.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -ldl

test-preload: $(B)/fake/preload $(B)/fake/opstrace $(B)/fake/verbs-preload $(B)/fake/nolibibverbs \
		$(B)/fake/stub/libibverbs.so.1
	rm -rf $(B)/preload.d && mkdir -p $(B)/preload.d
	LD_LIBRARY_PATH=$(B)/fake/stub LD_PRELOAD=$(CURDIR)/$(PRELOADED) $(B)/fake/nolibibverbs
	$(B)/fake/opstrace $(CURDIR)/$(PRELOADED) $(CURDIR)/$(B)/preload.d
	$(B)/fake/verbs-preload $(CURDIR)/$(PRELOADED) $(CURDIR)/$(B)/preload.d
	$(B)/fake/preload $(CURDIR)/$(PRELOADED) $(CURDIR)/$(B)/preload.d

.PHONY: test-preload
