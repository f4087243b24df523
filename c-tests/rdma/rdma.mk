# ---- the exports of rdma_verbs.h on the fake provider (c-tests/rdma/) ----
#
# differential/: differential.c, every function against its inline original,
# case by case (cases.c runs one, cases-compare.c compares, cases-random.c
# makes them, from c-tests/common/random.c's numbers); fuzz.c: libFuzzer
# over the same cases. robustness.c: bad input refused; timeout.c: the
# bounded waits; concurrency.c: threads posting at once. noalloc/:
# noalloc.c, no allocation, no system call on the data path (verbs.h's
# exports too: noalloc-13.c, under seccomp in noalloc-syscalls.c).

$(call links,differential,fake.o cases.o cases-compare.o cases-random.o random.o original.o)
$(call links,robustness noalloc,fake.o)
$(call links,noalloc,noalloc-13.o noalloc-syscalls.o)

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

test-robustness: $(B)/fake/robustness
	$(B)/fake/robustness

# The bounded waits on a provider with a real completion channel.
test-timeout: $(B)/fake/timeout
	$(B)/fake/timeout

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

# Both differential tests (this suite's and c-tests/verbs') and the
# refusals, under AddressSanitizer and UndefinedBehaviorSanitizer; then
# under valgrind.
test-sanitizers: $(B)/san/differential $(B)/san/robustness $(B)/san/verbs
	$(B)/san/differential 100000
	$(B)/san/robustness
	$(B)/san/verbs 100000

VALGRIND := valgrind -q --error-exitcode=1

test-valgrind: $(B)/fake/differential $(B)/fake/robustness $(B)/example-uninstalled
	$(VALGRIND) $(B)/fake/differential 20000
	$(VALGRIND) --trace-children=yes $(B)/fake/robustness
	$(VALGRIND) $(B)/example-uninstalled

# fuzzing (libFuzzer, clang; differential/fuzz.c):
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

FUZZ_C     := c-tests/rdma/differential/fuzz.c c-tests/rdma/differential/cases.c \
	c-tests/rdma/differential/cases-compare.c \
	c-tests/rdma/differential/cases-random.c c-tests/common/random.c c-tests/fake/fake.c
$(B)/fuzz: $(FUZZ_C) c-tests/common/original.c \
		$(C_TEST_H) $(FUZZ_A) $(PC)
	clang $(FUZZ_FLAGS) $(WARN) $(GEN_I) -c -o $(B)/fuzz-original.o c-tests/common/original.c $(STOCK_CFLAGS)
	clang $(FUZZ_FLAGS) $(WARN) $(C_TEST_I) $(RV_CFLAGS) -rdynamic -o $@ $(FUZZ_C) \
		$(B)/fuzz-original.o $(FUZZ_A) $$(cat $(NATIVE))

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

.PHONY: test-differential test-robustness test-timeout test-noalloc test-concurrency test-sanitizers test-valgrind \
	test-fuzz fuzz
