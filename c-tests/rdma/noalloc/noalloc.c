/*
 * None of the functions allocates: malloc and its kin are replaced here,
 * counting, and a burst of calls of every function, on every path (success,
 * provider errors, the blocking completion loop, invalid input) must leave
 * the count at zero (after one burst before counting: see main). The
 * functions of <rdma/rdma_verbs.h> on the fake of fake.c; the data path of
 * RDMAVERBS_1.3 (the posts, ibv_poll_cq, ibv_req_notify_cq, every ibv_wr_*,
 * the extended CQ's polls and every ibv_wc_read_*), found with dlvsym, on
 * objects of its own here (burst13).
 *
 * Unwatched, and counted (RDMAVERBS_STATS=1 alone), the 1.3 data path also
 * makes no system call: a child runs its bursts (once first: a forked
 * child's first count claims its block) under a seccomp filter that traps
 * every system call (SIGSYS) but the exit, and the write of its report.
 * (Traced, a thread writes its buffer out itself when it fills.)
 *
 * Here: the counting allocator, the burst of <rdma/rdma_verbs.h>, main; the
 * 1.3 data path's objects and burst in noalloc-13.c, the seccomp child in
 * noalloc-syscalls.c (noalloc.h between them).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>
#include "fake.h"
#include "functions.h"
#include "noalloc.h"
#include "ours.h"

/* How many functions the table has (burst() calls each of them). */
#define ONE(ret, name, params, args) +1
enum { N_FN = 0 RDMAVERBS_FUNCTIONS(ONE) };

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile long allocs;	/* counted only while `counting` */
static volatile int counting;

void *malloc(size_t n)
{
	allocs += counting;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	allocs += counting;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	allocs += counting;
	return __libc_realloc(p, n);
}

void *memalign(size_t a, size_t n)
{
	allocs += counting;
	return __libc_memalign(a, n);
}

int posix_memalign(void **p, size_t a, size_t n)
{
	allocs += counting;
	*p = __libc_memalign(a, n);
	return *p ? 0 : ENOMEM;
}

void *aligned_alloc(size_t a, size_t n)
{
	allocs += counting;
	return __libc_memalign(a, n);
}

void free(void *p)
{
	__libc_free(p);
}

static struct fake F;
static char buf[256];

/* Every function once, on the script `s`. */
static long burst(const struct fake_script *s, int srq)
{
	struct ibv_sge sge[2] = { { (uintptr_t)buf, 8, 1 }, { (uintptr_t)buf, 8, 1 } };
	struct ibv_ah *ah = (struct ibv_ah *)&F;
	struct ibv_wc wc;
	long calls = 0;

	F.id.srq = srq ? &F.srq : NULL;
	F.mr.addr = buf;
	F.mr.length = sizeof(buf);
#define DO(call) do { fake_reset(&F, s); (void)(call); calls++; } while (0)
	DO(rdma_seterrno(s->post_ret));
	DO(rdma_reg_msgs(&F.id, buf, 8));
	DO(rdma_reg_read(&F.id, buf, 8));
	DO(rdma_reg_write(&F.id, buf, 8));
	DO(rdma_dereg_mr(&F.mr));
	DO(rdma_post_recvv(&F.id, NULL, sge, 2));
	DO(rdma_post_sendv(&F.id, NULL, sge, 2, 0));
	DO(rdma_post_readv(&F.id, NULL, sge, 2, 0, 1, 2));
	DO(rdma_post_writev(&F.id, NULL, sge, 2, 0, 1, 2));
	DO(rdma_post_recv(&F.id, NULL, buf, 8, &F.mr));
	DO(rdma_post_send(&F.id, NULL, buf, 8, NULL, IBV_SEND_INLINE));
	DO(rdma_post_read(&F.id, NULL, buf, 8, &F.mr, 0, 1, 2));
	DO(rdma_post_write(&F.id, NULL, buf, 8, &F.mr, 0, 1, 2));
	DO(rdma_post_ud_send(&F.id, NULL, buf, 8, &F.mr, 0, ah, 3));
	DO(rdma_get_send_comp(&F.id, &wc));
	DO(rdma_get_recv_comp(&F.id, &wc));
	DO(rdma_get_send_comp_timeout(&F.id, &wc, 1000));
	DO(rdma_get_recv_comp_timeout(&F.id, &wc, -1));
	DO(ours_rdma_get_local_addr()(&F.id));
	DO(ours_rdma_get_peer_addr()(&F.id));
	/* invalid input */
	DO(rdma_post_send(NULL, NULL, buf, 8, NULL, 0));
	DO(rdma_post_recv(&F.id, NULL, buf, (size_t)1 << 40, &F.mr));
	DO(rdma_get_send_comp(&F.id, NULL));
	DO(rdma_reg_msgs(NULL, buf, 8));
	DO(ours_rdma_get_peer_addr()(NULL));
	return calls;
}

int main(void)
{
	/* a completion after one wait; then provider failures of each kind */
	static const struct fake_script ok = {
		.npoll = 3, .poll_ret = { 0, 0, 1 }, .nnotify = 1, .nevent = 1,
	};
	static struct fake_script fail = {
		.post_ret = ENOMEM, .npoll = 2, .poll_ret = { 0, -5 }, .nnotify = 1,
		.dereg_ret = EBUSY, .reg_errno = ENOMEM,
	};
	long calls = 0, calls13 = 0;
	int i, traced = getenv("RDMAVERBS_TRACE") != NULL;
	const char *how = traced ? "traced" : getenv("RDMAVERBS_STATS") ? "counted" : "unwatched";

	fake_init(&F);
	fail.reg_ret = NULL;
	if (find13()) {
		fprintf(stderr, "noalloc: ours not found at RDMAVERBS_1.3\n");
		return 2;
	}
	init13();
	/* Once, before counting: with RDMAVERBS_TRACE=FILE the first line a
	 * process traces starts the trace's writer thread, whose creation
	 * allocates (its stack, glibc's thread structures). Every call after
	 * that allocates nothing. */
	burst(&ok, 0);
	bursts13();
	counting = 1;
	for (i = 0; i < 1000; i++) {
		calls += burst(&ok, i & 1);
		calls += burst(&fail, i & 1);
		calls13 += bursts13();
	}
	counting = 0;
	printf("noalloc: %s: %ld calls of the 20 functions of <rdma/rdma_verbs.h> and %ld of "
	       "the 46 of RDMAVERBS_1.3's data path, %ld allocations\n", how, calls, calls13,
	       allocs);
	i = allocs != 0;
#ifdef __x86_64__
	if (!traced) {
		long nr, n = no_syscalls(&nr);

		if (n == -2)
			printf("noalloc: %s: system calls not checked: this kernel refused the seccomp "
			       "filter\n", how);
		else if (n)
			printf("noalloc: FAIL: %s: the 1.3 data path under seccomp: %ld system calls "
			       "(the first: number %ld; -1: the child could not run)\n", how, n, nr);
		else
			printf("noalloc: %s: the 1.3 data path makes no system call (seccomp)\n", how);
		i += n != 0 && n != -2;
	}
#endif
	printf("noalloc: %d passed, %d failed\n", !i, i != 0);
	return i != 0;
}
