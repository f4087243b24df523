/*
 * Between the files of noalloc (noalloc.c, noalloc-13.c, noalloc-syscalls.c):
 * the data path of RDMAVERBS_1.3 on objects of its own, and the child that
 * runs it under seccomp.
 */
#ifndef RDMAVERBS_NOALLOC_H
#define RDMAVERBS_NOALLOC_H

/* Finds ours at RDMAVERBS_1.3 by dlvsym: 0, or -1 when one is missing. */
int find13(void);
/* Sets up the objects (a context, QP, SRQ, CQ, WQ, extended QP and CQ). */
void init13(void);
/* Each way through the 1.3 data path (completions found, none, failures):
 * how many calls. */
long bursts13(void);

#ifdef __x86_64__
/* In a child: the 1.3 bursts (once before) under a filter that traps every
 * system call but exit_group, rt_sigreturn and the write of the report. -2
 * if the kernel refused the filter, -1 if the child failed otherwise; else
 * the calls trapped (*nr the first one's number). */
long no_syscalls(long *nr);
#endif

#endif
