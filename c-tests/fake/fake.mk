# ---- the C tests on the fake providers: how they are built ----
#
# Each suite's folder holds its programs and the rules that run them (its
# .mk, included by the Makefile): c-tests/rdma (the exports of
# rdma_verbs.h), c-tests/verbs (those of verbs.h), c-tests/preload (the
# preload library), c-tests/observer (tracing, counting, probes, the
# commands). They stand on the fake providers of c-tests/fake (fake.c: a
# scripted provider for rdma_verbs.h; vfake/ (VFAKE_O): one
# for verbs.h, which defines ibv_reg_mr too, so never beside fake.o;
# fakeverbs.c: a fake libibverbs; stubverbs.c: one without what the
# preload library wraps) and share c-tests/common (the inline originals
# built as functions, our header's names, the child-process helper). A file
# is found by its name alone: no two folders hold the same one.
#
# Each test is built in three flavours: plain (build/fake), with
# AddressSanitizer and UndefinedBehaviorSanitizer (build/san; any report
# aborts), with ThreadSanitizer (build/tsan). A test program is its own
# object and whatever else its suite lists for it (in-flavours: the same
# program in each flavour).
C_SUITES    := rdma verbs preload observer
C_TEST_DIRS := c-tests/common c-tests/fake c-tests/fake/vfake $(addprefix c-tests/,$(C_SUITES)) \
	$(patsubst %/,%,$(sort $(dir $(wildcard $(addprefix c-tests/,$(addsuffix /*/*.c,$(C_SUITES)))))))
C_TEST_H    := $(wildcard $(addsuffix /*.h,$(C_TEST_DIRS))) $(GEN_H)
C_TEST_I    := $(GEN_I) -iquote c-tests/common -iquote c-tests/fake
FLAVOURS    := fake san tsan
FLAVOUR_fake := $(CFLAGS)
FLAVOUR_san  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FLAVOUR_tsan := -O1 -g -fsanitize=thread
in-flavours  = $(foreach f,$(FLAVOURS),$(addprefix $(B)/$(f)/,$(1)))
# $(call links,PROGRAMS,OBJECTS): in each flavour, PROGRAMS are linked with
# OBJECTS of the same flavour too.
links        = $(foreach f,$(FLAVOURS),$(eval $(addprefix $(B)/$(f)/,$(1)): $(addprefix $(B)/$(f)/,$(2))))

# An object, from whichever folder holds its source.
define c-object
$(B)/$(1)/%.o: $(2)/%.c $$(C_TEST_H) $$(PC)
	@mkdir -p $$(@D)
	$$(CC) $$(FLAVOUR_$(1)) $$(WARN) -pthread $$(RV_CFLAGS) $$(C_TEST_I) -c -o $$@ $$<
endef
# The inline originals, built against the stock header; a program, linked.
define flavour
$(B)/$(1)/original.o: c-tests/common/original.c c-tests/common/original.h $$(GEN_H)
	@mkdir -p $$(@D)
	$$(CC) $$(FLAVOUR_$(1)) $$(WARN) $$(STOCK_CFLAGS) $$(GEN_I) -c -o $$@ $$<
$(B)/$(1)/%: $(B)/$(1)/%.o $$(LIBRARY)
	$$(CC) $$(FLAVOUR_$(1)) -pthread -rdynamic -o $$@ $$(filter %.o,$$^) $$(EXTRA_LIBS) $$(RV_LIBS) -ldl
endef
$(foreach f,$(FLAVOURS),$(foreach d,$(C_TEST_DIRS),$(eval $(call c-object,$(f),$(d)))))
$(foreach f,$(FLAVOURS),$(eval $(call flavour,$(f))))

# The fake provider of verbs.h (c-tests/fake/vfake/, vfake.h): its world,
# log and answers (vfake-log.c), the legacy ops (vfake-world.c), the
# context's ops (vfake-ctx.c), the extended QP's and CQ's calls and the
# replaced functions (vfake-ex.c). A program on it links VFAKE_O.
VFAKE_O := vfake-log.o vfake-world.o vfake-ctx.o vfake-ex.o

# The fake libibverbs that the preload library's tests stand on
# (c-tests/fake/fakeverbs.c), linked ahead of libibverbs.
$(B)/fake/libfakeverbs.so: c-tests/fake/fakeverbs.c c-tests/fake/fakeverbs.h c-tests/fake/fakeverbs.map
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -fPIC -shared -Wl,--version-script=c-tests/fake/fakeverbs.map \
		$(STOCK_CFLAGS) -o $@ $<

# A libibverbs.so.1 with none of the functions the preload library
# interposes (c-tests/fake/stubverbs.c).
$(B)/fake/stub/libibverbs.so.1: c-tests/fake/stubverbs.c c-tests/fake/stubverbs.map $(GEN_H)
	@mkdir -p $(@D)
	$(CC) -E -P -x c $(GEN_I) -o $(@D)/stubverbs.map c-tests/fake/stubverbs.map
	$(CC) $(CFLAGS) $(WARN) $(GEN_I) -fPIC -shared -Wl,-soname,libibverbs.so.1 \
		-Wl,--version-script=$(@D)/stubverbs.map -o $@ $<
