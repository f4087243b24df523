/* The RDMAVERBS_1.3 exports, declared and called by name as a program
 * linked with librdmaverbs.so.1 does (verbs-linked.h), each bound to its
 * version by a .symver line (they are non-default versions, which a name
 * alone does not bind, as Rust's link_name = "name@RDMAVERBS_1.3" does);
 * the dynamic linker binds them to the first library that defines them
 * there (under LD_PRELOAD, the preload library). */
#include "verbs-linked.h"

#define DECLARE(ret, name, params) \
	ret ibv_##name params;     \
	__asm__(".symver ibv_" #name ", ibv_" #name "@RDMAVERBS_1.3");
VERBS_LINKED(DECLARE)

void verbs_linked(struct verbs_linked *t)
{
#define TAKE(ret, name, params) t->name = ibv_##name;
	VERBS_LINKED(TAKE)
}
