/*
 * What the files of the verbs-trace program (RDMAVERBS_TRACE and
 * RDMAVERBS_STATS of RDMAVERBS_1.3 on the fake provider of vfake.h) share:
 * the functions of the table (ours found by dlvsym: ../verbs-ours.h), the
 * child's expected lines and counts and the fake's answers
 * (verbs-trace-expect.c), and the child's calls: posts and polls
 * (verbs-trace-posts.c), the extended QP and CQ (verbs-trace-extended.c),
 * the control path and the values (verbs-trace-control.c).
 */
#ifndef OBSERVER_VERBS_TRACE_SHARED_H
#define OBSERVER_VERBS_TRACE_SHARED_H

#include <stdint.h>
#include <stdio.h>

#include "../scaffold.h"
#include "../verbs-ours.h"

/* The functions of RDMAVERBS_1.3: F_ibv_wr_atomic_cmp_swp, ..., N_FN. */
#define ENUM(ret, name, params, args) F_##name,
enum { RDMAVERBS_VERBS_H_FUNCTIONS(ENUM) N_FN };
#undef ENUM
extern const char *const names[N_FN];

/* ---- the child's record (verbs-trace-expect.c) ---- */

/* DIR/expected while the child makes its calls. */
extern FILE *expected;
extern struct counts { long calls, bytes, errors; int open; } counts[N_FN];
extern struct vscript S;

/* One expected line: "rdmaverbs[TID]: NAME" then the fields. */
#define expect(fn, ...) expect_line(expected, names[fn], __VA_ARGS__)
/* Counts a call, an error if `failed`, and its bytes. */
void count(int fn, int failed, long bytes);
/* The answers of the fake's ops: `ret` (and errno `err`) for `op`. */
void answer(int op, int64_t ret, int err);
/* Writes DIR/expected-stats from counts: a row per function called. */
int write_stats(const char *dir);

/* A QP as a line shows it: QP with QPV(q). */
#define QP " qp=0x%lx qpn=%u"
#define QPV(q) p2u(q), (q)->qp_num

/* A buffer, and three gather entries (10, 20 and 4096 bytes). */
extern char data[4096];
extern struct ibv_sge sge[3];

/* ---- the child's calls, each with its lines and counts ---- */

void posts(void);		/* verbs-trace-posts.c */
void polls(void);
void builders(void);		/* verbs-trace-extended.c */
void extended_polls(void);
void control(void);		/* verbs-trace-control.c */

#endif
