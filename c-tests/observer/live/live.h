/*
 * What the files of the live program (a trace followed live, on the fake
 * provider of fake.c) share: the child's system calls counted or refused
 * (live-system.c), its modes (live-child.c), what a trace file and a
 * thread show (live-scan.c), the parent's way of running a child
 * (live-run.c), and its checks (live.c, live-file.c, live-threads.c).
 */
#ifndef OBSERVER_LIVE_H
#define OBSERVER_LIVE_H

#include <stdio.h>
#include <sys/types.h>

#include "../scaffold.h"

/* ---- what the library asks of the system (live-system.c) ---- */

extern int refuse_threads;		/* pthread_create fails with EAGAIN */
extern volatile long writes;		/* writev calls on a descriptor above 2 */
extern volatile long writer_writes;	/* those of them by the writer thread */
extern int hold_writev, writev_held, writev_go;	/* forkwrite: one writev held */

/* ---- the child (live-child.c) ---- */

/* "live child MODE FILE": the mode's posts; what it saw on its stdout. */
int child(const char *mode, const char *file);

/* ---- what a trace file and a thread show (live-scan.c) ---- */

struct scan {
	long lines, padding, bad, per[4], bytes;
	int ends_whole;		/* empty, or its last byte a newline */
	double first, last;	/* the smallest and largest t= */
	int in_order;		/* each thread's t= never went back */
};

/* Reads `path`: every line a whole rdma_post_send line with t= and ret=0,
 * or padding (spaces only); a line with a NUL byte (a hole the file got by
 * a write past its end, after a truncation without O_APPEND) is broken. */
void scan(const char *path, struct scan *s);
/* The wr_id of the first line of `path` ("1", "2", "3" or "none"). */
const char *first_id(const char *path);
/* Lines of `path` made by thread `tid` with wr_id `id`. */
int lines_of(const char *path, int tid, int id);

/* What p's thread named name shows of itself: its scheduling policy
 * (field 41 of its stat; -1 when there is no thread of that name), the CPU
 * time it has used (fields 14 and 15, in clock ticks) and its voluntary
 * context switches (its wake-ups). */
struct seen {
	int policy;
	long ticks, wakeups;
};
struct seen thread_seen(pid_t p, const char *name);

/* ---- the parent's way of running a child (live-run.c) ---- */

extern char out[4200];		/* the trace file of the case */
extern pid_t pid;		/* the child */
extern FILE *from_child;	/* its stdout */

/* Starts "self child MODE FILE" with RDMAVERBS_TRACE=FILE, stderr to
 * FILE.err, stdout read through from_child; `before` runs in the child
 * before the exec (for limits and mounts), and may refuse (exit 77). */
void start(const char *mode, const char *file, void (*before)(void));
/* Waits for the child; its exit status, or 128 + its signal. */
int finish(void);
/* Lines of FILE.err holding `what`; all of its lines in *total. */
int warnings(const char *file, const char *what, int *total);
/* Runs child MODE (its file DIR/MODE.log); its one line of results. */
int run(const char *mode, char *line, size_t size);

/* ---- the parent's checks ---- */

void check_truncate(void);	/* live-file.c: the file under the program */
void check_delete(void);
void check_limit(void);
void check_full(void);
void check_threads(void);	/* live-threads.c: threads and forks */

#endif
