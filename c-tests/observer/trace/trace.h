/*
 * What the files of the trace program (RDMAVERBS_TRACE, RDMAVERBS_STATS
 * and bad settings on the fake provider of fake.c) share: the fake, the
 * functions of the table, the child's expected lines and counts
 * (trace-expect.c), its calls (trace-calls.c), the cases of the process's
 * life (trace-process.c), and running a child.
 */
#ifndef OBSERVER_TRACE_H
#define OBSERVER_TRACE_H

#include <stdio.h>
#include <string.h>

#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>
#include "fake.h"
#include "functions.h"
#include "../scaffold.h"

/* ---- the child's record (trace-expect.c) ---- */

extern struct fake F;
/* DIR/expected while the child makes its calls, then DIR/expected-stats. */
extern FILE *expected;

/* The functions, from the table (functions.h): F_rdma_seterrno, ... */
#define ENUM(ret, name, params, args) F_##name,
enum { RDMAVERBS_FUNCTIONS(ENUM) N_FN };
#undef ENUM
extern const char *const names[N_FN];
extern struct counts { long calls, bytes, errors, blocked; } counts[N_FN];

/* Writes one expected line: "rdmaverbs[TID]: NAME" then the fields. */
#define expect(fn, ...) expect_line(expected, names[fn], __VA_ARGS__)
/* Counts a call: its bytes unless it failed. */
void count(int fn, int failed, long bytes);
/* " id=0x... qpn=N [srq=0x...]" as the library shows an id. */
const char *idf(struct rdma_cm_id *id);
/* " ret=R" and, when it failed, " errno=E". */
const char *retf(int ret, int err);
/* Writes DIR/expected-stats from counts: a row per function called. */
int write_stats(const char *dir);

/* ---- the child's calls (trace-calls.c) ---- */

/* Mode "calls": the calls of every function, their lines in DIR/expected
 * and their counts in DIR/expected-stats. */
int calls_child(const char *dir);

/* ---- the process's life (trace-process.c) ---- */

/* The modes of those cases (threads, fork, sigterm, segv, table-*, full,
 * eintr); -1 for another mode. */
int process_child(const char *mode);
void check_threads(void);
void check_fork_and_signals(void);
void check_table_on_signals(void);
void check_errno(void);

/* ---- the parent ---- */

/* Runs "self child MODE DIR" with `env` added (NAME=VALUE strings, NULL
 * ended), stderr to DIR/stderr (mode "full": /dev/full); returns its exit
 * status. */
static inline int run(const char *mode, const char *const *env)
{
	char errpath[4200];

	if (!strcmp(mode, "full"))
		snprintf(errpath, sizeof(errpath), "/dev/full");
	else
		snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	return wait_child(spawn_child(errpath, env, -1, -1, NULL, mode, dir));
}

#endif
