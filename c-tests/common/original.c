/*
 * The inline originals as real functions: each static inline function of
 * the system's <rdma/rdma_verbs.h>, and of its <infiniband/verbs.h> (this
 * file is compiled with librdmacm's include path only, never ours), wrapped
 * as original_<name>. The macros of verbs.h that stand for calls
 * (ibv_query_port, ibv_reg_mr, ibv_reg_mr_iova) are the inline functions
 * they expand to, ___ibv_query_port and the others, under those names.
 *
 * Linked into the differential test and the fuzzer (the reference to compare
 * with), and built as the benchmark's C shim (libshim.so): what a user would
 * write by hand to get real symbols, built with -DNDEBUG as a release build
 * would be, and again without it (the original's asserts kept).
 */
#include <rdma/rdma_verbs.h>

#include "original.h"

RDMAVERBS_1_0_FUNCTIONS(RDMAVERBS_SAME_TYPE)
RDMAVERBS_1_2_FUNCTIONS(RDMAVERBS_SAME_TYPE)
RDMAVERBS_VERBS_H_FUNCTIONS(RDMAVERBS_SAME_TYPE)

#define ORIGINAL(ret, name, params, args) \
	ret original_##name params { return name args; }
#define ORIGINAL_VOID(ret, name, params, args) \
	ret original_##name params { name args; }
RDMAVERBS_1_0_FUNCTIONS(ORIGINAL)
RDMAVERBS_1_2_FUNCTIONS(ORIGINAL)
RDMAVERBS_VERBS_H_VALUES(ORIGINAL)
RDMAVERBS_VERBS_H_VOIDS(ORIGINAL_VOID)
