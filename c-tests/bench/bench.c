/*
 * The benchmark: each of the 16 functions' main path, called
 *   a) inline, the original compiled from the system header into this loop,
 *   b) through a hand-written C shim library (shim.c, -O2),
 *   c) through librdmaverbs.so.1,
 * on a fake provider whose ops do trivial work. (b) and (c) are loaded with
 * dlopen and called through the same kind of pointer, so that they pay the
 * same call; the fake's functions are exported (-rdynamic) so that both
 * libraries bind to them.
 *
 * Usage: bench SHIM_SO RDMAVERBS_SO [--count N]
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

/* ---- the calls ---- */
#define FUNCS(X) X(rdma_seterrno) X(rdma_reg_msgs) X(rdma_reg_read) X(rdma_reg_write) \
	X(rdma_dereg_mr) X(rdma_post_recvv) X(rdma_post_sendv) X(rdma_post_readv)     \
	X(rdma_post_writev) X(rdma_post_recv) X(rdma_post_send) X(rdma_post_read)     \
	X(rdma_post_write) X(rdma_post_ud_send) X(rdma_get_send_comp) X(rdma_get_recv_comp)

/* One call of each function's main path; `i` varies the context. */
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

/* (b) and (c): the same function pointers, from each library. */
struct api {
#define MEMBER(name) __typeof__(name) *name;
	FUNCS(MEMBER)
};
static struct api shim, ours;

/* Three loops per function, one per variant. */
#define LOOPS(name)                                                           \
	static NOINLINE long bench_a_##name(long n)                           \
	{                                                                     \
		long s = 0, i;                                                \
		for (i = 0; i < n; i++)                                       \
			s += (long)(intptr_t)CALL_##name(name);               \
		return s;                                                     \
	}                                                                     \
	static NOINLINE long bench_b_##name(long n)                           \
	{                                                                     \
		long s = 0, i;                                                \
		for (i = 0; i < n; i++)                                       \
			s += (long)(intptr_t)CALL_##name(shim.name);          \
		return s;                                                     \
	}                                                                     \
	static NOINLINE long bench_c_##name(long n)                           \
	{                                                                     \
		long s = 0, i;                                                \
		for (i = 0; i < n; i++)                                       \
			s += (long)(intptr_t)CALL_##name(ours.name);          \
		return s;                                                     \
	}
FUNCS(LOOPS)

static const struct {
	const char *name;
	long (*loop[3])(long);
} benches[] = {
#define ENTRY(name) { #name, { bench_a_##name, bench_b_##name, bench_c_##name } },
	FUNCS(ENTRY)
};

static void load(struct api *api, const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "bench: %s\n", dlerror());
		exit(1);
	}
	/* memcpy: ISO C has no cast from dlsym's void * to a function pointer */
#define SYM(name)                                                             \
	{                                                                     \
		void *p = dlsym(h, #name);                                    \
		if (!p) {                                                     \
			fprintf(stderr, "bench: %s has no %s\n", path, #name); \
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
	static const char variant[3] = { 'a', 'b', 'c' };
	long count = argc > 4 && !strcmp(argv[3], "--count") ? atol(argv[4]) : 0;
	size_t f;
	int v, r;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SHIM_SO RDMAVERBS_SO [--count N]\n", argv[0]);
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
	load(&shim, argv[1]);
	load(&ours, argv[2]);

	for (f = 0; f < sizeof(benches) / sizeof(benches[0]); f++) {
		double t[3][REPS];
		long n = 2000000;

		if (count) {
			for (v = 0; v < 3; v++) {
				benches[f].loop[v](count);
				printf("loop %s %c %ld\n", benches[f].name, variant[v], count);
			}
			continue;
		}
		for (v = 0; v < 3; v++)
			benches[f].loop[v](n / 10);	/* warm up */
		/* a, b, c in turn in each round, so that drift hits all three */
		for (r = 0; r < REPS; r++) {
			for (v = 0; v < 3; v++) {
				double t0 = now_ns();

				benches[f].loop[v](n);
				t[v][r] = (now_ns() - t0) / (double)n;
			}
		}
		for (v = 0; v < 3; v++) {
			qsort(t[v], REPS, sizeof(t[v][0]), cmp);
			printf("time %s %c %.3f %.3f %.3f\n", benches[f].name, variant[v],
			       t[v][REPS / 2], t[v][0], t[v][REPS - 1]);
		}
		fflush(stdout);
	}
	return 0;
}
