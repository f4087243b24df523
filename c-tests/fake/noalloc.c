/*
 * None of the functions allocates: malloc and its kin are replaced here,
 * counting, and a burst of calls of every function, on every path (success,
 * provider errors, the blocking completion loop, invalid input) must leave
 * the count at zero (after one burst before counting: see main).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>
#include "fake.h"
#include "../functions.h"
#include "../ours.h"

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
	long calls = 0;
	int i;

	fake_init(&F);
	fail.reg_ret = NULL;
	/* Once, before counting: with RDMAVERBS_TRACE=FILE the first line a
	 * process traces starts the trace's writer thread, whose creation
	 * allocates (its stack, glibc's thread structures). Every call after
	 * that allocates nothing. */
	burst(&ok, 0);
	counting = 1;
	for (i = 0; i < 1000; i++) {
		calls += burst(&ok, i & 1);
		calls += burst(&fail, i & 1);
	}
	counting = 0;
	printf("noalloc: %ld calls of all %d functions, %ld allocations\n", calls, N_FN, allocs);
	printf("noalloc: %d passed, %d failed\n", allocs == 0, allocs != 0);
	return allocs != 0;
}
