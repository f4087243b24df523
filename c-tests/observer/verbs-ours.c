/*
 * Ours of RDMAVERBS_1.3 found by dlvsym at their nodes (verbs-ours.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "verbs-ours.h"

#define OURS(ret, name, params, args) ret (*ours_##name) params;
RDMAVERBS_VERBS_H_FUNCTIONS(OURS)
#undef OURS

int find_ours(void)
{
	void *lib = dlopen("librdmaverbs.so.1", RTLD_NOW);
	int missing = 0;
	void *p;

	if (!lib)
		return -1;
#define FIND(ret, name, params, args)                                          \
	p = dlvsym(lib, #name, RDMAVERBS_NODE_##name);                               \
	missing += !p;                                                         \
	memcpy(&ours_##name, &p, sizeof(p));
	RDMAVERBS_VERBS_H_FUNCTIONS(FIND)
	return missing ? -1 : 0;
}
