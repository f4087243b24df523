/*
 * Ours of RDMAVERBS_1.3 (the functions of <infiniband/verbs.h>), found as a
 * program finds them: dlvsym(..., "RDMAVERBS_1.3") in librdmaverbs.so.1.
 * Shared by the programs that call them on the fake of vfake.h:
 * verbs-trace (trace/) and verbs-probes.
 */
#ifndef OBSERVER_VERBS_OURS_H
#define OBSERVER_VERBS_OURS_H

#include "vfake.h"
#include "functions.h"

/* Ours, by dlvsym: V(ibv_post_send)(qp, wr, &bad). */
#define OURS(ret, name, params, args) extern ret (*ours_##name) params;
RDMAVERBS_VERBS_H_FUNCTIONS(OURS)
#undef OURS
#define V(name) ours_##name

/* Finds them all in librdmaverbs.so.1 at their nodes; -1 if one is not. */
int find_ours(void);

#endif
