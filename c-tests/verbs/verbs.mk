# ---- the exports of verbs.h on the fake provider (c-tests/verbs/) ----
#
# The differential test of RDMAVERBS_1.3 (verbs.c) on the fake of vfake.h:
# each case called on the inline original and on ours and compared
# (verbs-call.c), run and its branches counted (verbs-run.c), the cases made
# at random (verbs-cases.c, verbs-args.c) and directed at every branch
# (verbs-directed.c); ours and libibverbs' own (verbs-libibverbs.c); the
# refusals (verbs-refusals.c); the random numbers from c-tests/common/random.c.
VERBS_O := $(VFAKE_O) verbs-run.o verbs-call.o verbs-cases.o verbs-args.o verbs-directed.o \
	verbs-libibverbs.o verbs-refusals.o original.o random.o
$(call links,verbs,$(VERBS_O))

# Again with every RDMAVERBS_* switch on (its differences, if any, from the
# file of its standard error).
test-verbs: $(B)/fake/verbs
	$(B)/fake/verbs $(DIFF_CASES)
	RDMAVERBS_TRACE=$(CURDIR)/$(B)/verbs.trace RDMAVERBS_STATS=1 RDMAVERBS_POLL_SPIN=3 \
		$(B)/fake/verbs $(DIFF_CASES) 2>$(B)/verbs-watched.err || \
		{ grep -v '^rdmaverbs' $(B)/verbs-watched.err; exit 1; }
	grep -q '^rdmaverbs: ibv_post_send ' $(B)/verbs-watched.err
	grep -q '^rdmaverbs\[[0-9]*\]: ibv_post_send ' $(B)/verbs.trace
	rm -f $(B)/verbs.trace

.PHONY: test-verbs
