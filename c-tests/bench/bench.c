/*
 * The benchmark: each function's main path, called
 *   a) inline, the original compiled from the system header into this loop,
 *   b) through a hand-written C shim library (c-tests/common/original.c, -O2
 *      -DNDEBUG, as a release build would be),
 *   k) through the same shim built with the original's asserts kept,
 *   c) through librdmaverbs.so.1,
 *   n) through librdmaverbs.so.1 built without the USDT probes,
 * on a fake provider whose ops do trivial work: the functions of
 * <rdma/rdma_verbs.h>, then the data path of <infiniband/verbs.h> (ours
 * found at RDMAVERBS_1.3 with dlvsym, as no header declares them). The libraries are loaded with
 * dlopen and called through the same kind of pointer, so that they pay the
 * same call; the fake's functions are exported (-rdynamic) so that every
 * library binds to them.
 *
 * Usage: bench SHIM_SO SHIM_ASSERT_SO RDMAVERBS_SO NOPROBES_SO [--count N]
 *   timing mode: prints "time FUNCTION VARIANT median_ns min_ns max_ns"
 *   --count N:   runs every loop once with N calls (for callgrind) and prints
 *                "loop FUNCTION VARIANT N"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_verbs.h>

#include "functions.h"
#include "bench-fake.h"

#define NOINLINE __attribute__((noinline))
#define REPS 9

/* ---- the fake provider (bench-fake.c: another file, so that the inline
 * variant calls it as opaquely as the others do) ---- */
static struct verbs_context vctx;
#define ctx (vctx.context)
static struct ibv_qp qp;
static struct ibv_cq cq;
static struct ibv_pd pd;
static struct ibv_mr mr;
static struct rdma_cm_id id;
static struct ibv_ah ah;
static char buf[4096];
static struct ibv_sge sgl[2];
static struct ibv_wc wc;
static volatile int zero;
static struct ibv_srq srq;
static struct ibv_wq wq;
static struct ibv_qp_ex qpx;
static struct ibv_cq_ex cqx;
static struct ibv_send_wr swr, *bad_swr;
static struct ibv_recv_wr rwr, *bad_rwr;
static struct ibv_ops_wr opwr, *bad_opwr;
static struct ibv_poll_cq_attr pattr;
static struct ibv_wc_tm_info tm;
static struct ibv_data_buf data_buf[2];
static struct ibv_mw_bind_info bind_info;
static struct ibv_mw mw;
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
static uint64_t atomic_wr[1];
#endif

/* ---- the calls: the functions of <rdma/rdma_verbs.h>, from the table ---- */
#define FUNCS(X) RDMAVERBS_1_0_FUNCTIONS(X)

/* One call of each function's main path; `i` varies the context. A function
 * added to the table without one here does not compile. */
#define CTX ((void *)(uintptr_t)i)
#define CALL_rdma_seterrno(f) f(zero)
#define CALL_rdma_reg_msgs(f) f(&id, buf, sizeof(buf))
#define CALL_rdma_reg_read(f) f(&id, buf, sizeof(buf))
#define CALL_rdma_reg_write(f) f(&id, buf, sizeof(buf))
#define CALL_rdma_dereg_mr(f) f(&mr)
#define CALL_rdma_post_recvv(f) f(&id, CTX, sgl, 2)
#define CALL_rdma_post_sendv(f) f(&id, CTX, sgl, 2, 0)
#define CALL_rdma_post_readv(f) f(&id, CTX, sgl, 2, 0, 0x1000, 7)
#define CALL_rdma_post_writev(f) f(&id, CTX, sgl, 2, 0, 0x1000, 7)
#define CALL_rdma_post_recv(f) f(&id, CTX, buf, 64, &mr)
#define CALL_rdma_post_send(f) f(&id, CTX, buf, 64, &mr, 0)
#define CALL_rdma_post_read(f) f(&id, CTX, buf, 64, &mr, 0, 0x1000, 7)
#define CALL_rdma_post_write(f) f(&id, CTX, buf, 64, &mr, 0, 0x1000, 7)
#define CALL_rdma_post_ud_send(f) f(&id, CTX, buf, 64, &mr, 0, &ah, 9)
#define CALL_rdma_get_send_comp(f) f(&id, &wc)
#define CALL_rdma_get_recv_comp(f) f(&id, &wc)

/* ---- the data path of <infiniband/verbs.h>: the posts, polls and arming,
 * the extended QP's work requests, the extended CQ's poll and readers ---- */
#define VERBS(X)                                                              \
	X(ibv_post_send) X(ibv_post_recv) X(ibv_post_srq_recv)                \
	X(ibv_post_wq_recv) X(ibv_post_srq_ops) X(ibv_poll_cq)                \
	X(ibv_req_notify_cq)                                                  \
	X(ibv_wr_start) X(ibv_wr_complete) X(ibv_wr_abort)                    \
	X(ibv_wr_atomic_cmp_swp) X(ibv_wr_atomic_fetch_add) X(ibv_wr_bind_mw) \
	X(ibv_wr_local_inv) X(ibv_wr_rdma_read) X(ibv_wr_rdma_write)          \
	X(ibv_wr_rdma_write_imm) X(ibv_wr_send) X(ibv_wr_send_imm)            \
	X(ibv_wr_send_inv) X(ibv_wr_send_tso) X(ibv_wr_set_ud_addr)           \
	X(ibv_wr_set_xrc_srqn) X(ibv_wr_set_inline_data)                      \
	X(ibv_wr_set_inline_data_list) X(ibv_wr_set_sge)                      \
	X(ibv_wr_set_sge_list)                                                \
	RDMAVERBS_IF_ibv_wr_atomic_write(X(ibv_wr_atomic_write))              \
	RDMAVERBS_IF_ibv_wr_flush(X(ibv_wr_flush))                            \
	X(ibv_start_poll) X(ibv_next_poll) X(ibv_end_poll)                    \
	X(ibv_wc_read_opcode) X(ibv_wc_read_vendor_err)                       \
	X(ibv_wc_read_byte_len) X(ibv_wc_read_imm_data)                       \
	X(ibv_wc_read_invalidated_rkey) X(ibv_wc_read_qp_num)                 \
	X(ibv_wc_read_src_qp) X(ibv_wc_read_wc_flags) X(ibv_wc_read_slid)     \
	X(ibv_wc_read_sl) X(ibv_wc_read_dlid_path_bits)                       \
	X(ibv_wc_read_completion_ts) X(ibv_wc_read_completion_wallclock_ns)   \
	X(ibv_wc_read_cvlan) X(ibv_wc_read_flow_tag) X(ibv_wc_read_tm_info)

/* One call of each; a void function's value is 0. */
#define VOID(call) ((call), 0)
#define CALL_ibv_post_send(f) f(&qp, &swr, &bad_swr)
#define CALL_ibv_post_recv(f) f(&qp, &rwr, &bad_rwr)
#define CALL_ibv_post_srq_recv(f) f(&srq, &rwr, &bad_rwr)
#define CALL_ibv_post_wq_recv(f) f(&wq, &rwr, &bad_rwr)
#define CALL_ibv_post_srq_ops(f) f(&srq, &opwr, &bad_opwr)
#define CALL_ibv_poll_cq(f) f(&cq, 1, &wc)
#define CALL_ibv_req_notify_cq(f) f(&cq, 0)
#define CALL_ibv_wr_start(f) VOID(f(&qpx))
#define CALL_ibv_wr_complete(f) f(&qpx)
#define CALL_ibv_wr_abort(f) VOID(f(&qpx))
#define CALL_ibv_wr_atomic_cmp_swp(f) VOID(f(&qpx, 7, 0x1000, 1, 2))
#define CALL_ibv_wr_atomic_fetch_add(f) VOID(f(&qpx, 7, 0x1000, 1))
#define CALL_ibv_wr_bind_mw(f) VOID(f(&qpx, &mw, 7, &bind_info))
#define CALL_ibv_wr_local_inv(f) VOID(f(&qpx, 7))
#define CALL_ibv_wr_rdma_read(f) VOID(f(&qpx, 7, 0x1000))
#define CALL_ibv_wr_rdma_write(f) VOID(f(&qpx, 7, 0x1000))
#define CALL_ibv_wr_rdma_write_imm(f) VOID(f(&qpx, 7, 0x1000, 9))
#define CALL_ibv_wr_send(f) VOID(f(&qpx))
#define CALL_ibv_wr_send_imm(f) VOID(f(&qpx, 9))
#define CALL_ibv_wr_send_inv(f) VOID(f(&qpx, 7))
#define CALL_ibv_wr_send_tso(f) VOID(f(&qpx, buf, 64, 1400))
#define CALL_ibv_wr_set_ud_addr(f) VOID(f(&qpx, &ah, 9, 0x11111111))
#define CALL_ibv_wr_set_xrc_srqn(f) VOID(f(&qpx, 9))
#define CALL_ibv_wr_set_inline_data(f) VOID(f(&qpx, buf, 64))
#define CALL_ibv_wr_set_inline_data_list(f) VOID(f(&qpx, 2, data_buf))
#define CALL_ibv_wr_set_sge(f) VOID(f(&qpx, 5, (uintptr_t)buf, 64))
#define CALL_ibv_wr_set_sge_list(f) VOID(f(&qpx, 2, sgl))
#define CALL_ibv_wr_atomic_write(f) VOID(f(&qpx, 7, 0x1000, atomic_wr))
#define CALL_ibv_wr_flush(f) VOID(f(&qpx, 7, 0x1000, 64, 1, 2))
#define CALL_ibv_start_poll(f) f(&cqx, &pattr)
#define CALL_ibv_next_poll(f) f(&cqx)
#define CALL_ibv_end_poll(f) VOID(f(&cqx))
#define CALL_ibv_wc_read_opcode(f) f(&cqx)
#define CALL_ibv_wc_read_vendor_err(f) f(&cqx)
#define CALL_ibv_wc_read_byte_len(f) f(&cqx)
#define CALL_ibv_wc_read_imm_data(f) f(&cqx)
#define CALL_ibv_wc_read_invalidated_rkey(f) f(&cqx)
#define CALL_ibv_wc_read_qp_num(f) f(&cqx)
#define CALL_ibv_wc_read_src_qp(f) f(&cqx)
#define CALL_ibv_wc_read_wc_flags(f) f(&cqx)
#define CALL_ibv_wc_read_slid(f) f(&cqx)
#define CALL_ibv_wc_read_sl(f) f(&cqx)
#define CALL_ibv_wc_read_dlid_path_bits(f) f(&cqx)
#define CALL_ibv_wc_read_completion_ts(f) f(&cqx)
#define CALL_ibv_wc_read_completion_wallclock_ns(f) f(&cqx)
#define CALL_ibv_wc_read_cvlan(f) f(&cqx)
#define CALL_ibv_wc_read_flow_tag(f) f(&cqx)
#define CALL_ibv_wc_read_tm_info(f) VOID(f(&cqx, &tm))

/* (b), (k), (c) and (n): the same function pointers, from each library. */
struct api {
#define MEMBER(ret, name, params, args) __typeof__(name) *name;
	FUNCS(MEMBER)
#define VMEMBER(name) __typeof__(name) *name;
	VERBS(VMEMBER)
};
static struct api shim, shim_assert, ours, noprobes;

/* One loop per function and variant; the inline variant calls the function
 * itself, the others through their library's pointer. */
#define LOOP(v, name, f)                                                      \
	static NOINLINE long bench_##v##_##name(long n)                       \
	{                                                                     \
		long s = 0, i;                                                \
		for (i = 0; i < n; i++)                                       \
			s += (long)(intptr_t)CALL_##name(f);                  \
		return s;                                                     \
	}
#define VLOOPS(name)                                                          \
	LOOP(a, name, name) LOOP(b, name, shim.name)                          \
	LOOP(k, name, shim_assert.name) LOOP(c, name, ours.name)             \
	LOOP(n, name, noprobes.name)
#define LOOPS(ret, name, params, args) VLOOPS(name)
FUNCS(LOOPS)
VERBS(VLOOPS)

#define NVARIANTS 5
static const char variant[NVARIANTS] = { 'a', 'b', 'k', 'c', 'n' };
static const struct {
	const char *name;
	long (*loop[NVARIANTS])(long);
} benches[] = {
#define VENTRY(name) \
	{ #name, { bench_a_##name, bench_b_##name, bench_k_##name, bench_c_##name,  \
		   bench_n_##name } },
#define ENTRY(ret, name, params, args) VENTRY(name)
	FUNCS(ENTRY)
	VERBS(VENTRY)
};

/* The functions of the library at `path`, named `prefix` + their name; with
 * no prefix (librdmaverbs), those of <infiniband/verbs.h> at RDMAVERBS_1.3. */
static void load(struct api *api, const char *path, const char *prefix)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "bench: %s\n", dlerror());
		exit(1);
	}
	/* memcpy: ISO C has no cast from dlsym's void * to a function pointer */
#define SYM(ret, name, params, args)                                          \
	{                                                                     \
		char sym[128];                                                \
		void *p;                                                      \
		snprintf(sym, sizeof(sym), "%s%s", prefix, #name);            \
		p = *prefix || !VERBS_H(name) ? dlsym(h, sym)                \
					       : dlvsym(h, sym, RDMAVERBS_NODE_##name); \
		if (!p) {                                                     \
			fprintf(stderr, "bench: %s has no %s\n", path, sym);  \
			exit(1);                                              \
		}                                                             \
		memcpy(&api->name, &p, sizeof(p));                            \
	}
#define VERBS_H(name) (strncmp(#name, "ibv_", 4) == 0)
#define VSYM(name) SYM(, name, , )
	FUNCS(SYM)
	VERBS(VSYM)
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	long count = argc > 6 && !strcmp(argv[5], "--count") ? atol(argv[6]) : 0;
	size_t f;
	int v, r;

	if (argc < 5) {
		fprintf(stderr, "usage: %s SHIM_SO SHIM_ASSERT_SO RDMAVERBS_SO NOPROBES_SO "
			"[--count N]\n", argv[0]);
		return 2;
	}
	bench_fake_verbs(&vctx, &wq, &qpx, &cqx);
	qp.context = &ctx;
	cq.context = &ctx;
	srq.context = &ctx;
	wq.context = &ctx;
	qpx.qp_base.context = &ctx;
	cqx.context = &ctx;
	data_buf[0].addr = data_buf[1].addr = buf;
	data_buf[0].length = data_buf[1].length = 16;
	mr.addr = buf;
	mr.length = sizeof(buf);
	mr.lkey = 5;
	sgl[0].addr = sgl[1].addr = (uintptr_t)buf;
	sgl[0].length = sgl[1].length = 16;
	id.qp = &qp;
	id.send_cq = id.recv_cq = &cq;
	id.pd = &pd;
	load(&shim, argv[1], "original_");
	load(&shim_assert, argv[2], "original_");
	load(&ours, argv[3], "");
	load(&noprobes, argv[4], "");

	for (f = 0; f < sizeof(benches) / sizeof(benches[0]); f++) {
		double t[NVARIANTS][REPS];
		long n = 2000000;

		if (count) {
			for (v = 0; v < NVARIANTS; v++) {
				benches[f].loop[v](count);
				printf("loop %s %c %ld\n", benches[f].name, variant[v], count);
			}
			continue;
		}
		for (v = 0; v < NVARIANTS; v++)
			benches[f].loop[v](n / 10);	/* warm up */
		/* the variants in turn in each round, so that drift hits them all */
		for (r = 0; r < REPS; r++) {
			for (v = 0; v < NVARIANTS; v++) {
				double t0 = now_ns();

				benches[f].loop[v](n);
				t[v][r] = (now_ns() - t0) / (double)n;
			}
		}
		for (v = 0; v < NVARIANTS; v++) {
			qsort(t[v], REPS, sizeof(t[v][0]), cmp);
			printf("time %s %c %.3f %.3f %.3f\n", benches[f].name, variant[v],
			       t[v][REPS / 2], t[v][0], t[v][REPS - 1]);
		}
		fflush(stdout);
	}
	return 0;
}
