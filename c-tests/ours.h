/*
 * Ours of the exports that no header declares (functions.h's
 * RDMAVERBS_1_2_FUNCTIONS: <rdma/rdma_cma.h> defines them inline under the
 * same names), found as a program finds them: dlsym on the program's own
 * handle, which searches the libraries it is linked with. ours_NAME() is
 * the function, NULL when no library exports it.
 */
#ifndef RDMAVERBS_OURS_H
#define RDMAVERBS_OURS_H

#include <dlfcn.h>
#include <string.h>

#include "functions.h"

#define RDMAVERBS_OURS(ret, name, params, args)                       \
	static inline ret (*ours_##name(void)) params                   \
	{                                                               \
		static ret (*f) params;                                 \
		if (!f) {                                               \
			void *p = dlsym(dlopen(NULL, RTLD_NOW), #name); \
			memcpy(&f, &p, sizeof(p));                      \
		}                                                       \
		return f;                                               \
	}
RDMAVERBS_1_2_FUNCTIONS(RDMAVERBS_OURS)
#undef RDMAVERBS_OURS


#endif
