/*
 * Between the two preload tests that compare a traced child's files with
 * what it expected (opstrace.c, verbs-preload.c): the child run again from
 * this program, traced and counted under the preload library, and the lines
 * of the files it leaves.
 */
#ifndef RDMAVERBS_TRACED_RUN_H
#define RDMAVERBS_TRACED_RUN_H

#include <stddef.h>

/* This program's own file (/proc/self/exe), to run again; "" if unknown. */
void traced_self(char *self, size_t size);
/* Runs "SELF ARG1 DIR MODE" with its stderr in `err`, LD_PRELOAD=`preload`,
 * RDMAVERBS_TRACE=`trace`, RDMAVERBS_STATS=1 (and RDMAVERBS_POLL_SPIN unset
 * when `no_spin`); its exit status, or 128 + the signal that ended it. */
int traced_run(const char *self, const char *preload, const char *err, const char *trace,
	       int no_spin, const char *arg1, const char *dir, const char *mode);
/* The lines of DIR/NAME that start with `prefix`, each without its t=
 * field (and the padding after it), at most `max`; how many. */
int traced_lines(const char *dir, const char *name, const char *prefix, char out[][400], int max);
/* A pointer as the trace shows it (0x%lx). */
unsigned long p2u(const void *p);

#endif
