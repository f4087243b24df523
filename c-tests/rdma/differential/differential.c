/*
 * The differential test: the inline originals (original.c, compiled from the
 * system header) against librdmaverbs' exports, on the fake provider
 * (fake.c), case by case (cases.c): directed cases for every exit of the
 * completion loop, fault injection, then seeded random cases over all the
 * functions; every branch of the original must have been taken.
 *
 * Usage: differential [random-cases [seed]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

/* Branch coverage: each case is counted under the branch it takes. */
enum branch {
	B_SRQ, B_QP, B_MR_NULL, B_MR, B_OP_OK, B_OP_POSITIVE, B_OP_NEGATIVE,
	B_POLL_FIRST, B_POLL_SECOND, B_POLL_LATER, B_POLL_NEGATIVE,
	B_ARM_FAILS, B_WAIT_FAILS, B_REG_FAILS,
	/* boundaries of valid input, which the generator makes on purpose */
	B_SGL_NULL, B_LEN_ZERO, B_LEN_MAX, B_RECV_AT_END, B_COUNT
};

static const char *const branch_name[B_COUNT] = {
	"recv to SRQ", "recv to QP", "mr NULL", "mr set", "op returns 0",
	"op returns errno", "op returns negative", "completion at 1st poll",
	"completion at 2nd poll", "completion at a later poll",
	"poll negative", "arming fails", "event wait fails",
	"registration fails", "sgl NULL, nsge 0", "length 0", "length UINT32_MAX",
	"buffer ending at the MR's end",
};

static int one_buffer(enum fn f)
{
	return f >= F_rdma_post_recv && f <= F_rdma_post_ud_send;
}

static long covered[F_COUNT][B_COUNT];

static void count_branches(const struct args *a, const struct outcome *o)
{
	long *c = covered[a->fn];
	int i, polls = 0;

	if (a->fn == F_rdma_post_recvv || a->fn == F_rdma_post_recv)
		c[a->srq ? B_SRQ : B_QP]++;
	if (a->fn == F_rdma_post_send || a->fn == F_rdma_post_write || a->fn == F_rdma_post_ud_send)
		c[a->mr_null ? B_MR_NULL : B_MR]++;
	if (a->fn >= F_rdma_post_recvv && a->fn <= F_rdma_post_ud_send)
		c[!a->script.post_ret ? B_OP_OK : a->script.post_ret > 0 ?
		  B_OP_POSITIVE : B_OP_NEGATIVE]++;
	if (a->fn == F_rdma_dereg_mr)
		c[!a->script.dereg_ret ? B_OP_OK : a->script.dereg_ret > 0 ?
		  B_OP_POSITIVE : B_OP_NEGATIVE]++;
	if (a->fn >= F_rdma_reg_msgs && a->fn <= F_rdma_reg_write && !a->script.reg_ret)
		c[B_REG_FAILS]++;
	if (is_vectored(a->fn) && a->sgl_null)
		c[B_SGL_NULL]++;
	if (one_buffer(a->fn) && a->length == 0)
		c[B_LEN_ZERO]++;
	if (one_buffer(a->fn) && a->length == UINT32_MAX)
		c[B_LEN_MAX]++;
	if (a->fn == F_rdma_post_recv && a->length && a->addr + a->length == sizeof(mr_buf))
		c[B_RECV_AT_END]++;
	if (a->fn == F_rdma_get_send_comp || a->fn == F_rdma_get_recv_comp) {
		for (i = 0; i < o->nlog; i++)
			polls += o->log[i].call == FC_POLL_CQ;
		if (o->ret == 1)
			c[polls == 1 ? B_POLL_FIRST : polls == 2 ? B_POLL_SECOND :
			  B_POLL_LATER]++;
		else if (o->log[o->nlog - 1].call == FC_POLL_CQ)
			c[B_POLL_NEGATIVE]++;
		else if (o->log[o->nlog - 1].call == FC_REQ_NOTIFY_CQ)
			c[B_ARM_FAILS]++;
		else
			c[B_WAIT_FAILS]++;
	}
}

static int expected(enum fn f, enum branch b)
{
	int post = f >= F_rdma_post_recvv && f <= F_rdma_post_ud_send;
	int comp = f == F_rdma_get_send_comp || f == F_rdma_get_recv_comp;

	switch (b) {
	case B_SRQ: case B_QP:
		return f == F_rdma_post_recvv || f == F_rdma_post_recv;
	case B_MR_NULL: case B_MR:
		return f == F_rdma_post_send || f == F_rdma_post_write || f == F_rdma_post_ud_send;
	case B_OP_OK: case B_OP_POSITIVE: case B_OP_NEGATIVE:
		return post || f == F_rdma_dereg_mr;
	case B_REG_FAILS:
		return f >= F_rdma_reg_msgs && f <= F_rdma_reg_write;
	case B_SGL_NULL:
		return is_vectored(f);
	case B_LEN_ZERO:
		return one_buffer(f);
	case B_LEN_MAX:
		return one_buffer(f) && f != F_rdma_post_recv;
	case B_RECV_AT_END:
		return f == F_rdma_post_recv;
	case B_COUNT:
		return 0;
	default:
		return comp;
	}
}

/* One case, compared, counted under the branch it takes; a completion case
 * also with ours in the bounded form, waiting forever and with a time-out. */
static long bounded;

static void test(const struct args *a)
{
	const struct outcome *ref;
	static const int timeouts[] = { -1, 60000 };
	size_t i;

	check(a, &ref);
	count_branches(a, ref);
	if ((a->fn == F_rdma_get_send_comp || a->fn == F_rdma_get_recv_comp) && !a->bounded) {
		for (i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
			struct args b = *a;

			b.bounded = 1;
			b.timeout_ms = timeouts[i];
			check(&b, &ref);
			bounded++;
		}
	}
}

/* Directed cases: the completion loop's every exit, on both queues. */
static void directed(void)
{
	static const struct { int npoll, poll[6], nnotify, notify[3], nevent,
			      event[3], event_errno; } scripts[] = {
		{ 1, { 1 }, 0, { 0 }, 0, { 0 }, 0 },		/* 1st poll */
		{ 2, { 0, 1 }, 1, { 0 }, 0, { 0 }, 0 },		/* 2nd poll */
		{ 3, { 0, 0, 1 }, 1, { 0 }, 1, { 0 }, 0 },	/* after a wait */
		{ 5, { 0, 0, 0, 0, 1 }, 2, { 0, 0 }, 2, { 0, 0 }, 0 },
		{ 1, { -5 }, 0, { 0 }, 0, { 0 }, 0 },		/* negative poll */
		{ 2, { 0, -1 }, 1, { 0 }, 0, { 0 }, 0 },
		{ 1, { 0 }, 1, { ENOMEM }, 0, { 0 }, 0 },	/* arming fails */
		{ 1, { 0 }, 1, { -22 }, 0, { 0 }, 0 },
		{ 2, { 0, 0 }, 1, { 0 }, 1, { -1 }, EINTR },	/* wait fails */
		{ 2, { 0, 0 }, 1, { 0 }, 1, { -1 }, EAGAIN },
		{ 2, { 0, 0 }, 1, { 0 }, 1, { -1 }, EBADF },
	};
	size_t i;
	int q, k;

	for (q = 0; q < 2; q++) {
		for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
			struct args a;

			memset(&a, 0, sizeof(a));
			a.fn = q ? F_rdma_get_recv_comp : F_rdma_get_send_comp;
			a.script.npoll = scripts[i].npoll;
			for (k = 0; k < scripts[i].npoll; k++)
				a.script.poll_ret[k] = scripts[i].poll[k];
			a.script.nnotify = scripts[i].nnotify;
			for (k = 0; k < scripts[i].nnotify; k++)
				a.script.notify_ret[k] = scripts[i].notify[k];
			a.script.nevent = scripts[i].nevent;
			for (k = 0; k < scripts[i].nevent; k++) {
				a.script.event_ret[k] = scripts[i].event[k];
				a.script.event_errno[k] = scripts[i].event_errno;
			}
			a.script.wc.wr_id = 0xc0ffee + i;
			a.script.wc.byte_len = 64;
			test(&a);
		}
	}
}

/* Directed cases at the boundaries of valid input: a vectored post with no
 * SGEs and no list (the original posts it), one-buffer posts of length 0
 * (still one SGE) and UINT32_MAX, a receive buffer that ends exactly at its
 * MR's end, fills it, or is empty at its end; each with the op succeeding
 * and failing, with and without an MR. */
static void boundaries(void)
{
	static const size_t lengths[] = { 0, 1, UINT32_MAX - 1, UINT32_MAX };
	static const struct { uint64_t addr; size_t length; } places[] = {
		{ sizeof(mr_buf) - 1, 1 }, { sizeof(mr_buf) - 64, 64 }, { 0, sizeof(mr_buf) },
		{ sizeof(mr_buf), 0 }, { 0, 0 },
	};
	struct args a;
	size_t i;
	int f, ret, mr;

	for (ret = 0; ret < 2; ret++) {
		for (f = 0; f < F_COUNT; f++) {
			if (is_vectored((enum fn)f)) {
				memset(&a, 0, sizeof(a));
				a.fn = (enum fn)f;
				a.sgl_null = 1;
				a.ctx = (void *)(uintptr_t)0xb0;
				a.script.post_ret = ret ? ENOMEM : 0;
				test(&a);
				a.srq = 1;
				test(&a);
			}
			if (!one_buffer((enum fn)f) || f == F_rdma_post_recv)
				continue;
			for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
				for (mr = 0; mr < 2; mr++) {
					memset(&a, 0, sizeof(a));
					a.fn = (enum fn)f;
					a.addr = 0x1000;
					a.length = lengths[i];
					a.mr_null = mr;
					a.flags = IBV_SEND_SIGNALED;
					a.raddr = UINT64_MAX;
					a.rkey = UINT32_MAX;
					a.qpn = 0xffffff;
					a.ah = (struct ibv_ah *)&F;
					a.script.post_ret = ret ? -1 : 0;
					test(&a);
				}
			}
		}
		for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
			for (mr = 0; mr < 2; mr++) {
				memset(&a, 0, sizeof(a));
				a.fn = F_rdma_post_recv;
				a.addr = places[i].addr;
				a.length = places[i].length;
				a.srq = mr;
				a.script.post_ret = ret ? EAGAIN : 0;
				test(&a);
			}
		}
	}
}

/* libibverbs fills every op a provider leaves unset with a stub that returns
 * EOPNOTSUPP (positive, poll_cq's included): the same stubs here. */
static int stub_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int stub_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int stub_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	(void)srq; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int stub_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq; (void)n; (void)wc;
	return EOPNOTSUPP;
}

static int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	return EOPNOTSUPP;
}

/* Fault injection: every provider op and replaced libibverbs function
 * failing in each way it can, on every function that calls it. */
static long faults(void)
{
	static const int op_fail[] = { EINVAL, ENOMEM, EAGAIN, EOPNOTSUPP, -1, -EINVAL };
	static const int ev_errno[] = { EINTR, EAGAIN, EBADF };
	long before = compared;
	struct args a;
	int f, k, srq;

	for (f = 0; f < F_COUNT; f++) {
		for (k = 0; k < 6; k++) {
			for (srq = 0; srq < 2; srq++) {
				memset(&a, 0, sizeof(a));
				a.fn = (enum fn)f;
				a.srq = srq;
				a.nsge = 1;
				a.length = 16;
				a.ah = (struct ibv_ah *)&F;
				a.script.post_ret = op_fail[k];	/* posting ops */
				a.script.dereg_ret = op_fail[k];	/* ibv_dereg_mr */
				a.script.reg_errno = op_fail[k] > 0 ? op_fail[k] : ENOMEM;
				if (f == F_rdma_get_send_comp || f == F_rdma_get_recv_comp) {
					/* arming fails */
					a.script.npoll = 1;
					a.script.nnotify = 1;
					a.script.notify_ret[0] = op_fail[k];
					test(&a);
					/* the first, then the second poll fails */
					memset(&a.script, 0, sizeof(a.script));
					a.script.npoll = 1;
					a.script.poll_ret[0] = op_fail[k] < 0 ? op_fail[k] : -op_fail[k];
					test(&a);
					a.script.npoll = 2;
					a.script.poll_ret[1] = a.script.poll_ret[0];
					a.script.poll_ret[0] = 0;
					a.script.nnotify = 1;
					test(&a);
					/* the event wait fails */
					if (k < 3) {
						memset(&a.script, 0, sizeof(a.script));
						a.script.npoll = 2;
						a.script.nnotify = 1;
						a.script.nevent = 1;
						a.script.event_ret[0] = -1;
						a.script.event_errno[0] = ev_errno[k];
						test(&a);
					}
					continue;
				}
				test(&a);
			}
		}
	}
	/* every op left unset by the provider: libibverbs' stubs */
	F.ctx.ops.post_send = stub_post_send;
	F.ctx.ops.post_recv = stub_post_recv;
	F.ctx.ops.post_srq_recv = stub_post_srq_recv;
	F.ctx.ops.poll_cq = stub_poll_cq;
	F.ctx.ops.req_notify_cq = stub_req_notify_cq;
	for (f = 0; f < F_COUNT; f++) {
		for (srq = 0; srq < 2; srq++) {
			memset(&a, 0, sizeof(a));
			a.fn = (enum fn)f;
			a.srq = srq;
			a.nsge = 1;
			a.ah = (struct ibv_ah *)&F;
			test(&a);
		}
	}
	fake_default_ops(&F);
	return compared - before;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 100000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed;
	int f, b, missing = 0;
	const char *spin;
	long i;

	long nfaults;

	rnd_seed(seed);
	cases_init();
	directed();
	boundaries();
	nfaults = faults();
	for (i = 0; i < n; i++) {
		struct args a;

		random_case(&a);
		test(&a);
	}
	for (f = 0; f < F_COUNT; f++) {
		for (b = 0; b < B_COUNT; b++) {
			if (expected((enum fn)f, (enum branch)b) && !covered[f][b]) {
				fprintf(stderr, "NOT COVERED: %s: %s\n", fn_name[f],
					branch_name[b]);
				missing++;
			}
		}
	}
	printf("differential: %ld cases compared (%ld of them fault injection, %ld more with "
	       "ours bounded; seed %#llx), %ld different, %d branches not covered\n", compared,
	       nfaults, bounded, (unsigned long long)seed, failed, missing);
	/* Run with RDMAVERBS_POLL_SPIN: the spin polls really ran (and were
	 * invisible in the comparison, as fake.c arranges); without it, none. */
	spin = getenv("RDMAVERBS_POLL_SPIN");
	if (spin && atoi(spin) > 0) {
		printf("differential: with RDMAVERBS_POLL_SPIN=%s: %ld spin polls\n",
		       spin, F.spins);
		if (F.spins == 0)
			missing++;
	} else if (F.spins) {
		printf("differential: %ld spin polls without RDMAVERBS_POLL_SPIN\n", F.spins);
		missing++;
	}
	return failed || missing;
}
