# ---- mutation testing (c-tests/mutants/, MUTANTS.md; not in make check: hours) ----

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
	python3 c-tests/mutants/mutants.py $(B)/mutants.out > MUTANTS.md

# One mutant's test: the C tests on the fake provider, the cheapest first,
# stopping at the first failure, with fewer random cases and repetitions
# than test-lib (a mutant is a wrong value, not a rare race).
test-mutant: export RDMAVERBS_TEST_QUICK = 1
test-mutant: DIFF_CASES = 20000
test-mutant: test-trace test-probes test-robustness test-differential test-verbs test-noalloc test-timeout test-hardening \
		test-preload test-live test-commands $(B)/fake/concurrency
	$(B)/fake/concurrency

.PHONY: mutants test-mutant
