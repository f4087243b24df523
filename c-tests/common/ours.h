/*
 * Ours of the exports that no header declares (functions.h's
 * RDMAVERBS_1_2_FUNCTIONS: <rdma/rdma_cma.h> defines them inline under the
 * same names), found as a program finds them: dlvsym at their node on the
 * program's own handle, which searches the libraries it is linked with
 * (dlsym finds none: they are non-default versions). ours_NAME() is the
 * function, NULL when no library exports it.
 */
#ifndef RDMAVERBS_OURS_H
#define RDMAVERBS_OURS_H

#include <dlfcn.h>
#include <string.h>

#include "functions.h"

/* <dlfcn.h> declares it only under _GNU_SOURCE, which the files that
 * include this one do not all define first. */
extern void *dlvsym(void *handle, const char *name, const char *version);

#define RDMAVERBS_OURS(ret, name, params, args)                       \
	static inline ret (*ours_##name(void)) params                   \
	{                                                               \
		static ret (*f) params;                                 \
		if (!f) {                                               \
			void *p = dlvsym(dlopen(NULL, RTLD_NOW), #name,  \
				       "RDMAVERBS_1.2");                \
			memcpy(&f, &p, sizeof(p));                      \
		}                                                       \
		return f;                                               \
	}
RDMAVERBS_1_2_FUNCTIONS(RDMAVERBS_OURS)
#undef RDMAVERBS_OURS


#endif
