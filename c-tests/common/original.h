/*
 * The inline originals of the system's <rdma/rdma_verbs.h> (and the inline
 * address functions of its <rdma/rdma_cma.h>, and the inline functions of
 * its <infiniband/verbs.h>), as real functions named
 * original_<name> (original.c), for the tests that compare
 * with them and for the benchmark's C shim. Declared from the X-macro list
 * (functions.h), so that a function added to the table is here too.
 */
#ifndef RDMAVERBS_ORIGINAL_H
#define RDMAVERBS_ORIGINAL_H

#include "functions.h"

#define RDMAVERBS_DECLARE_ORIGINAL(ret, name, params, args) ret original_##name params;
RDMAVERBS_1_0_FUNCTIONS(RDMAVERBS_DECLARE_ORIGINAL)
/* The inline address functions of <rdma/rdma_cma.h> (RDMAVERBS_1.2). */
RDMAVERBS_1_2_FUNCTIONS(RDMAVERBS_DECLARE_ORIGINAL)
/* The inline functions of <infiniband/verbs.h> (RDMAVERBS_1.3). */
RDMAVERBS_VERBS_H_FUNCTIONS(RDMAVERBS_DECLARE_ORIGINAL)

/* Fails to compile unless `name`, as declared where this is used, has the
 * type that the table gives it: used both against the stock header
 * (original.c) and against ours (the tests), it proves the two equal. */
#define RDMAVERBS_SAME_TYPE(ret, name, params, args)                          \
	_Static_assert(__builtin_types_compatible_p(__typeof__(name), ret params), \
		       #name " has the type of the original");

#endif
