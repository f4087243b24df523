/* The RDMAVERBS_1.3 exports, declared and called by name as a program
 * linked with librdmaverbs.so.1 does (verbs-linked.h): the link binds them
 * to RDMAVERBS_1.3, the dynamic linker to the first library that defines
 * them (under LD_PRELOAD, the preload library). */
#include "verbs-linked.h"

#define DECLARE(ret, name, params) ret ibv_##name params;
VERBS_LINKED(DECLARE)

void verbs_linked(struct verbs_linked *t)
{
#define TAKE(ret, name, params) t->name = ibv_##name;
	VERBS_LINKED(TAKE)
}
