/*
 * The benchmark: each function's main path, called
 *   a) inline, the original compiled from the system header into this loop,
 *   b) through a hand-written C shim library (c-tests/original.c, -O2
 *      -DNDEBUG, as a release build would be),
 *   k) through the same shim built with the original's asserts kept,
 *   c) through librdmaverbs.so.1,
 *   n) through librdmaverbs.so.1 built without the USDT probes,
 * on a fake provider whose ops do trivial work. The libraries are loaded with
 * dlopen and called through the same kind of pointer, so that they pay the
 * same call; the fake's functions are exported (-rdynamic) so that every
 * library binds to them.
 *
 * Usage: bench SHIM_SO SHIM_ASSERT_SO RDMAVERBS_SO NOPROBES_SO [--count N]
 *   timing mode: prints "time FUNCTION VARIANT median_ns min_ns max_ns"
 *   --count N:   runs every loop once with N calls (for callgrind) and prints
 *                "loop FUNCTION VARIANT N"
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_verbs.h>

#include "../functions.h"

#define NOINLINE __attribute__((noinline))
#define REPS 9

/* ---- the fake provider (bench-fake.c: another file, so that the inline
 * variant calls it as opaquely as the others do) ---- */
int op_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int op_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int op_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *w);

static struct ibv_context ctx;
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

/* (b), (k), (c) and (n): the same function pointers, from each library. */
struct api {
#define MEMBER(ret, name, params, args) __typeof__(name) *name;
	FUNCS(MEMBER)
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
#define LOOPS(ret, name, params, args)                                        \
	LOOP(a, name, name) LOOP(b, name, shim.name)                          \
	LOOP(k, name, shim_assert.name) LOOP(c, name, ours.name)             \
	LOOP(n, name, noprobes.name)
FUNCS(LOOPS)

#define NVARIANTS 5
static const char variant[NVARIANTS] = { 'a', 'b', 'k', 'c', 'n' };
static const struct {
	const char *name;
	long (*loop[NVARIANTS])(long);
} benches[] = {
#define ENTRY(ret, name, params, args) \
	{ #name, { bench_a_##name, bench_b_##name, bench_k_##name, bench_c_##name,  \
		   bench_n_##name } },
	FUNCS(ENTRY)
};

/* The functions of the library at `path`, named `prefix` + their name. */
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
		p = dlsym(h, sym);                                            \
		if (!p) {                                                     \
			fprintf(stderr, "bench: %s has no %s\n", path, sym);  \
			exit(1);                                              \
		}                                                             \
		memcpy(&api->name, &p, sizeof(p));                            \
	}
	FUNCS(SYM)
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
	ctx.ops.post_send = op_post_send;
	ctx.ops.post_recv = op_post_recv;
	ctx.ops.poll_cq = op_poll_cq;
	qp.context = &ctx;
	cq.context = &ctx;
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
