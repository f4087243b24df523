# ---- the observer on the fake providers (c-tests/observer/) ----
#
# What a user watches the library with: RDMAVERBS_TRACE and RDMAVERBS_STATS
# (trace/: trace.c; verbs-trace.c for RDMAVERBS_1.3), a trace followed live
# (live/: live.c), the environment and the trace file hardened
# (hardening/: hardening.c), the USDT probes (probes.c, verbs-probes.c,
# probes-preload.sh), the commands rdmaverbs-trace and rdmaverbs-stat
# (commands.sh, on poster.c). What trace, verbs-trace, live and hardening
# share: scaffold.c; verbs-trace and verbs-probes: verbs-ours.c (ours of
# RDMAVERBS_1.3 by dlvsym); probes and verbs-probes: probe-records.c.
$(call links,trace live poster probes,fake.o)
$(call links,verbs-trace verbs-probes,$(VFAKE_O) verbs-ours.o)
$(call links,probes verbs-probes,probe-records.o)
$(call links,trace,scaffold.o trace-expect.o trace-calls.o trace-process.o)
$(call links,verbs-trace,scaffold.o verbs-trace-expect.o verbs-trace-posts.o \
	verbs-trace-extended.o verbs-trace-control.o)
$(call links,live,scaffold.o live-system.o live-child.o live-scan.o live-run.o live-file.o \
	live-threads.o)
HARDENING_OBJS := scaffold.o hardening-child.o hardening-run.o hardening-setuid.o \
	hardening-stats.o hardening-values.o hardening-files.o hardening-lifetime.o
$(call links,hardening,$(HARDENING_OBJS))

# Every line and count checked; those of RDMAVERBS_1.3 on the fake of
# c-tests/fake/vfake/, and their counters file as rdmaverbs-stat shows it.
test-trace: $(B)/fake/trace $(B)/fake/verbs-trace $(B)/bin/rdmaverbs-stat
	rm -rf $(B)/trace.d && mkdir -p $(B)/trace.d
	$(B)/fake/trace $(B)/trace.d
	rm -rf $(B)/verbs-trace.d && mkdir -p $(B)/verbs-trace.d
	$(B)/fake/verbs-trace $(B)/verbs-trace.d $(B)/bin/rdmaverbs-stat

# A trace followed live: lines in the file while the program idles, after
# SIGKILL, under truncation, deletion, a size limit and a full disk.
test-live: $(B)/fake/live
	rm -rf $(B)/live.d && mkdir -p $(B)/live.d
	$(B)/fake/live $(B)/live.d

# The environment and the trace file; the set-user-ID case needs root, as
# CI is.
test-hardening: $(B)/fake/hardening $(B)/fake/hardening-static
	rm -rf $(B)/hardening.d && mkdir -p $(B)/hardening.d
	$(B)/fake/hardening $(CURDIR)/$(SHARED) $(CURDIR)/$(B)/hardening.d

# The copy that the set-user-ID case runs as nobody: linked with the static
# archive, so that it loads nothing from the build tree, which nobody may not
# be able to reach (a clone in /root).
$(B)/fake/hardening-static: $(B)/fake/hardening.o $(addprefix $(B)/fake/,$(HARDENING_OBJS)) \
		$(LIB)/$(NAME).a
	$(CC) $(CFLAGS) -pthread -o $@ $(filter %.o,$^) $(LIB)/$(NAME).a $$(cat $(NATIVE)) $(STOCK_LIBS)

# The probes' arguments, recorded by a library built with the feature
# c-tests (make mutants; --must there): skipped by the release build. Those
# of RDMAVERBS_1.3 on the fake of c-tests/fake/vfake/.
test-probes: $(B)/fake/probes $(B)/fake/verbs-probes $(B)/bench/ops $(PRELOADED)
	$(B)/fake/probes $(B)/probes.records $(if $(ARCHIVE),--must)
	$(B)/fake/verbs-probes $(B)/verbs-probes.records $(if $(ARCHIVE),--must)
	c-tests/observer/probes-preload.sh $(B) $(if $(ARCHIVE),--must)

# The commands, rdmaverbs-trace and rdmaverbs-stat, on the fake provider.
test-commands: $(B)/fake/poster $(TOOLS) $(B)/bench/ops $(PRELOADED)
	rm -rf $(B)/commands.d && mkdir -p $(B)/commands.d
	c-tests/observer/commands.sh $(B) $(B)/commands.d

.PHONY: test-trace test-live test-hardening test-probes test-commands
