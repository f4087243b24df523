/*
 * RDMAVERBS_TRACE, RDMAVERBS_STATS and bad settings, on the fake provider.
 *
 * The settings are read when the library loads, so each case re-executes
 * this program ("trace child MODE DIR") with its environment set and its
 * stderr in DIR/stderr. In mode "calls" the child makes calls of all 16
 * functions, successful and failing, and writes for each the trace line it
 * expects (built here with snprintf from the arguments, the result and
 * errno) to DIR/expected, and its own count of calls, bytes, errors and
 * blocked waits per function to DIR/expected-stats. The parent compares the
 * library's trace file and exit table with those, line by line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>
#include "child.h"
#include "fake.h"
#include "functions.h"
#include "ours.h"

static struct fake F;
static FILE *expected;
static int failures;

#define FAIL(...) do { fprintf(stderr, "trace: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

static unsigned long p2u(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}

/* ---- the child: calls, and the lines and counts they should produce ---- */

/* The functions, from the table (functions.h): F_rdma_seterrno, ... */
#define ENUM(ret, name, params, args) F_##name,
enum { RDMAVERBS_FUNCTIONS(ENUM) N_FN };
#define NAME(ret, name, params, args) #name,
static const char *const names[N_FN] = { RDMAVERBS_FUNCTIONS(NAME) };
#define BLOCKS(name) [F_##name] = 1,
static const char may_block[N_FN] = { RDMAVERBS_MAY_BLOCK(BLOCKS) };
static struct { long calls, bytes, errors, blocked; } counts[N_FN];

/* Writes one expected line: "rdmaverbs[TID]: NAME" then the fields. */
static void expect(int fn, const char *fmt, ...)
{
	va_list ap;

	fprintf(expected, "rdmaverbs[%d]: %s", (int)gettid(), names[fn]);
	va_start(ap, fmt);
	vfprintf(expected, fmt, ap);
	va_end(ap);
	fputc('\n', expected);
}

static void count(int fn, int failed, long bytes)
{
	counts[fn].calls++;
	if (failed)
		counts[fn].errors++;
	else
		counts[fn].bytes += bytes;
}

/* " id=0x... qpn=N [srq=0x...]" as the library shows an id. */
static const char *idf(struct rdma_cm_id *id)
{
	static char s[128];
	int n = snprintf(s, sizeof(s), " id=%#lx", p2u(id));

	if (id && id->qp)
		n += snprintf(s + n, sizeof(s) - n, " qpn=%u", id->qp->qp_num);
	if (id && id->srq)
		snprintf(s + n, sizeof(s) - n, " srq=%#lx", p2u(id->srq));
	return s;
}

/* " ret=R" and, when it failed, " errno=E". */
static const char *retf(int ret, int err)
{
	static char s[64];

	if (ret < 0)
		snprintf(s, sizeof(s), " ret=%d errno=%d", ret, err);
	else
		snprintf(s, sizeof(s), " ret=%d", ret);
	return s;
}

static void seterrno_calls(void)
{
	int in[] = { 0, EIO, -5 };
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		int ret = rdma_seterrno(in[i]), err = errno;

		expect(F_rdma_seterrno, " arg=%d%s", in[i], retf(ret, err));
		count(F_rdma_seterrno, ret < 0, 0);
	}
}

static void reg_calls(void)
{
	static char buf[256];
	struct fake_script s = { .reg_ret = &F.mr };
	struct ibv_mr *(*fn[3])(struct rdma_cm_id *, void *, size_t) = {
		rdma_reg_msgs, rdma_reg_read, rdma_reg_write };
	struct ibv_mr *mr;
	int i, ret, err;

	for (i = 0; i < 3; i++) {
		fake_reset(&F, &s);
		mr = fn[i](&F.id, buf, sizeof(buf));
		expect(F_rdma_reg_msgs + i, "%s addr=%#lx length=%zu ret=%#lx lkey=%#x rkey=%#x",
		       idf(&F.id), p2u(buf), sizeof(buf), p2u(mr), mr->lkey, mr->rkey);
		count(F_rdma_reg_msgs + i, 0, sizeof(buf));
	}
	s.reg_ret = NULL;		/* the provider refuses */
	s.reg_errno = ENOMEM;
	fake_reset(&F, &s);
	mr = rdma_reg_msgs(&F.id, buf, 8);
	err = errno;
	expect(F_rdma_reg_msgs, "%s addr=%#lx length=8 ret=NULL errno=%d", idf(&F.id), p2u(buf), err);
	count(F_rdma_reg_msgs, mr == NULL, 0);
	mr = rdma_reg_write(NULL, buf, 8);	/* input error */
	err = errno;
	expect(F_rdma_reg_write, " id=0x0 addr=%#lx length=8 ret=NULL errno=%d", p2u(buf), err);
	count(F_rdma_reg_write, mr == NULL, 0);

	ret = rdma_dereg_mr(&F.mr);
	err = errno;
	expect(F_rdma_dereg_mr, " mr=%#lx%s", p2u(&F.mr), retf(ret, err));
	count(F_rdma_dereg_mr, ret < 0, 0);
	ret = rdma_dereg_mr(NULL);
	err = errno;
	expect(F_rdma_dereg_mr, " mr=0x0%s", retf(ret, err));
	count(F_rdma_dereg_mr, ret < 0, 0);
}

/* The address functions (RDMAVERBS_1.2), by name: the pointer into the id,
 * or NULL and EINVAL for a NULL id. */
static void addr_calls(void)
{
	struct sockaddr *a;
	int err;

	a = ours_rdma_get_local_addr()(&F.id);
	expect(F_rdma_get_local_addr, "%s ret=%#lx", idf(&F.id), p2u(a));
	count(F_rdma_get_local_addr, a == NULL, 0);
	a = ours_rdma_get_peer_addr()(&F.id);
	expect(F_rdma_get_peer_addr, "%s ret=%#lx", idf(&F.id), p2u(a));
	count(F_rdma_get_peer_addr, a == NULL, 0);
	a = ours_rdma_get_peer_addr()(NULL);
	err = errno;
	expect(F_rdma_get_peer_addr, " id=0x0 ret=NULL errno=%d", err);
	count(F_rdma_get_peer_addr, a == NULL, 0);
}

static void post_calls(void)
{
	static char a[10], b[20], c[30];
	struct ibv_sge sgl[3] = {
		{ (uintptr_t)a, sizeof(a), 1 }, { (uintptr_t)b, sizeof(b), 2 },
		{ (uintptr_t)c, sizeof(c), 3 } };
	struct fake_script ok = { 0 }, refused = { .post_ret = ENOMEM };
	struct ibv_ah *ah = (struct ibv_ah *)&F.pd;	/* any non-NULL pointer */
	void *ctx = (void *)0xc0ffee;
	int ret, err;

	F.mr.addr = a;
	F.mr.length = sizeof(a);
	fake_reset(&F, &ok);

#define POST(fn, call, fmt, ...) do {						\
	ret = call;								\
	err = errno;								\
	expect(fn, "%s wr_id=%#lx " fmt "%s", idf(&F.id), p2u(ctx), __VA_ARGS__, \
	       retf(ret, err));							\
} while (0)

	POST(F_rdma_post_recvv, rdma_post_recvv(&F.id, ctx, sgl, 3), "opcode=RECV nsge=3 bytes=%d", 60);
	count(F_rdma_post_recvv, ret < 0, 60);
	POST(F_rdma_post_sendv, rdma_post_sendv(&F.id, ctx, sgl, 2, IBV_SEND_SIGNALED),
	     "opcode=SEND nsge=2 bytes=%d flags=%#x", 30, IBV_SEND_SIGNALED);
	count(F_rdma_post_sendv, ret < 0, 30);
	POST(F_rdma_post_readv, rdma_post_readv(&F.id, ctx, sgl, 3, 0, 0xabc000, 0x77),
	     "opcode=RDMA_READ nsge=3 bytes=60 flags=0x%x remote_addr=%#x rkey=%#x",
	     0, 0xabc000, 0x77);
	count(F_rdma_post_readv, ret < 0, 60);
	POST(F_rdma_post_writev, rdma_post_writev(&F.id, ctx, sgl + 1, 1, IBV_SEND_FENCE, 0x1000, 0x5),
	     "opcode=RDMA_WRITE nsge=1 bytes=20 flags=%#x remote_addr=%#x rkey=%#x",
	     IBV_SEND_FENCE, 0x1000, 0x5);
	count(F_rdma_post_writev, ret < 0, 20);
	POST(F_rdma_post_recv, rdma_post_recv(&F.id, ctx, a, sizeof(a), &F.mr),
	     "opcode=RECV nsge=1 bytes=%zu", sizeof(a));
	count(F_rdma_post_recv, ret < 0, sizeof(a));
	POST(F_rdma_post_send, rdma_post_send(&F.id, ctx, b, 16, NULL, IBV_SEND_INLINE),
	     "opcode=SEND nsge=1 bytes=16 flags=%#x", IBV_SEND_INLINE);
	count(F_rdma_post_send, ret < 0, 16);
	POST(F_rdma_post_read, rdma_post_read(&F.id, ctx, a, 4, &F.mr, 0, 0xfeed, 0x42),
	     "opcode=RDMA_READ nsge=1 bytes=4 flags=0x%x remote_addr=%#x rkey=%#x",
	     0, 0xfeed, 0x42);
	count(F_rdma_post_read, ret < 0, 4);
	POST(F_rdma_post_write, rdma_post_write(&F.id, ctx, a, 5, &F.mr, IBV_SEND_SIGNALED, 0xbeef, 0x43),
	     "opcode=RDMA_WRITE nsge=1 bytes=5 flags=%#x remote_addr=%#x rkey=%#x",
	     IBV_SEND_SIGNALED, 0xbeef, 0x43);
	count(F_rdma_post_write, ret < 0, 5);
	POST(F_rdma_post_ud_send, rdma_post_ud_send(&F.id, ctx, c, 30, NULL, IBV_SEND_INLINE, ah, 77),
	     "opcode=SEND nsge=1 bytes=30 flags=%#x ah=%#lx remote_qpn=%d",
	     IBV_SEND_INLINE, p2u(ah), 77);
	count(F_rdma_post_ud_send, ret < 0, 30);

	/* Failures: the provider's error, and input errors (no bytes shown). */
	fake_reset(&F, &refused);
	POST(F_rdma_post_send, rdma_post_send(&F.id, ctx, b, 16, NULL, 0), "opcode=SEND nsge=1 flags=0x%x", 0);
	count(F_rdma_post_send, ret < 0, 0);
	fake_reset(&F, &ok);
	POST(F_rdma_post_sendv, rdma_post_sendv(&F.id, ctx, NULL, 2, 0), "opcode=SEND nsge=2 flags=0x%x", 0);
	count(F_rdma_post_sendv, ret < 0, 0);
	POST(F_rdma_post_recv, rdma_post_recv(&F.id, ctx, b, sizeof(b), &F.mr), "opcode=RECV nsge=%d", 1);
	count(F_rdma_post_recv, ret < 0, 0);	/* b is not inside the MR */
	ret = rdma_post_write(NULL, ctx, a, 1, NULL, 0, 0, 0);
	err = errno;
	expect(F_rdma_post_write, " id=0x0 wr_id=%#lx opcode=RDMA_WRITE nsge=1 flags=0x0 "
	       "remote_addr=0x0 rkey=0x0%s", p2u(ctx), retf(ret, err));
	count(F_rdma_post_write, ret < 0, 0);

	/* An SRQ: the line shows it. */
	F.id.srq = &F.srq;
	POST(F_rdma_post_recvv, rdma_post_recvv(&F.id, ctx, sgl, 1), "opcode=RECV nsge=1 bytes=%d", 10);
	count(F_rdma_post_recvv, ret < 0, 10);
	F.id.srq = NULL;
#undef POST
}

static void comp_calls(void)
{
	struct fake_script ready = { .npoll = 1, .poll_ret = { 1 } };
	struct fake_script wait = { .npoll = 3, .poll_ret = { 0, 0, 1 },
		.nnotify = 1, .nevent = 1 };
	struct fake_script broken = { .npoll = 1, .poll_ret = { -7 } };
	struct ibv_wc wc;
	int ret, err;

	ready.wc.wr_id = 0x1001;
	ready.wc.status = IBV_WC_SUCCESS;
	ready.wc.opcode = IBV_WC_SEND;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp(&F.id, &wc);
	expect(F_rdma_get_send_comp, "%s ret=%d wr_id=0x1001 status=SUCCESS opcode=SEND byte_len=0",
	       idf(&F.id), ret);
	count(F_rdma_get_send_comp, ret < 0, 0);

	wait.wc.wr_id = 0x2002;
	wait.wc.status = IBV_WC_SUCCESS;
	wait.wc.opcode = IBV_WC_RECV;
	wait.wc.byte_len = 100;
	fake_reset(&F, &wait);
	ret = rdma_get_recv_comp(&F.id, &wc);	/* blocks once */
	expect(F_rdma_get_recv_comp, "%s ret=%d wr_id=0x2002 status=SUCCESS opcode=RECV byte_len=100",
	       idf(&F.id), ret);
	count(F_rdma_get_recv_comp, ret < 0, 100);
	counts[F_rdma_get_recv_comp].blocked++;

	ready.wc.status = IBV_WC_REM_ACCESS_ERR;	/* a failed completion */
	ready.wc.opcode = IBV_WC_RDMA_WRITE;
	ready.wc.vendor_err = 42;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp(&F.id, &wc);
	/* in error, a completion's opcode and length are undefined: not shown */
	expect(F_rdma_get_send_comp, "%s ret=%d wr_id=0x1001 status=REM_ACCESS_ERR vendor_err=0x2a",
	       idf(&F.id), ret);
	count(F_rdma_get_send_comp, ret < 0, 0);

	fake_reset(&F, &broken);
	ret = rdma_get_recv_comp(&F.id, &wc);
	err = errno;
	expect(F_rdma_get_recv_comp, "%s%s", idf(&F.id), retf(ret, err));
	count(F_rdma_get_recv_comp, ret < 0, 0);
	ret = rdma_get_send_comp(&F.id, NULL);
	err = errno;
	expect(F_rdma_get_send_comp, "%s%s", idf(&F.id), retf(ret, err));
	count(F_rdma_get_send_comp, ret < 0, 0);

	/* a wait twice over: one call that blocked; an immediate receive's
	 * bytes are received bytes */
	{
		struct fake_script twice = { .npoll = 5, .poll_ret = { 0, 0, 0, 0, 1 },
			.nnotify = 2, .nevent = 2 };

		twice.wc.wr_id = 0x3003;
		twice.wc.status = IBV_WC_SUCCESS;
		twice.wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		twice.wc.byte_len = 300;
		fake_reset(&F, &twice);
		ret = rdma_get_recv_comp(&F.id, &wc);
		expect(F_rdma_get_recv_comp, "%s ret=%d wr_id=0x3003 status=SUCCESS "
		       "opcode=RECV_RDMA_WITH_IMM byte_len=300", idf(&F.id), ret);
		count(F_rdma_get_recv_comp, ret < 0, 300);
		counts[F_rdma_get_recv_comp].blocked++;
	}
	/* no bytes for a receive in error, nor for a read's completion */
	ready.wc.wr_id = 0x4004;
	ready.wc.status = IBV_WC_WR_FLUSH_ERR;
	ready.wc.opcode = IBV_WC_RECV;
	ready.wc.byte_len = 500;
	ready.wc.vendor_err = 7;
	fake_reset(&F, &ready);
	ret = rdma_get_recv_comp(&F.id, &wc);
	expect(F_rdma_get_recv_comp, "%s ret=%d wr_id=0x4004 status=WR_FLUSH_ERR vendor_err=0x7",
	       idf(&F.id), ret);
	count(F_rdma_get_recv_comp, ret < 0, 0);
	ready.wc.wr_id = 0x5005;
	ready.wc.status = IBV_WC_SUCCESS;
	ready.wc.opcode = IBV_WC_RDMA_READ;
	ready.wc.byte_len = 600;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp(&F.id, &wc);
	expect(F_rdma_get_send_comp, "%s ret=%d wr_id=0x5005 status=SUCCESS opcode=RDMA_READ "
	       "byte_len=600", idf(&F.id), ret);
	count(F_rdma_get_send_comp, ret < 0, 0);
	/* each other opcode of a send queue by its name, and one unknown */
	{
		static const struct { enum ibv_wc_opcode op; const char *name; } ops[] = {
			{ IBV_WC_RDMA_WRITE, "RDMA_WRITE" }, { IBV_WC_COMP_SWAP, "COMP_SWAP" },
			{ IBV_WC_FETCH_ADD, "FETCH_ADD" }, { IBV_WC_BIND_MW, "BIND_MW" },
			{ IBV_WC_LOCAL_INV, "LOCAL_INV" }, { (enum ibv_wc_opcode)99, "OTHER" },
		};
		size_t i;

		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			ready.wc.wr_id = 0x6000 + i;
			ready.wc.opcode = ops[i].op;
			ready.wc.byte_len = 8;
			fake_reset(&F, &ready);
			ret = rdma_get_send_comp(&F.id, &wc);
			expect(F_rdma_get_send_comp, "%s ret=%d wr_id=%#zx status=SUCCESS opcode=%s "
			       "byte_len=8", idf(&F.id), ret, 0x6000 + i, ops[i].name);
			count(F_rdma_get_send_comp, ret < 0, 0);
		}
	}
	ready.wc.wr_id = 0x1001;
	ready.wc.byte_len = 0;

	/* the bounded forms: a ready completion, one after a wait, a miss */
	ready.wc.status = IBV_WC_SUCCESS;
	ready.wc.vendor_err = 0;
	ready.wc.opcode = IBV_WC_SEND;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp_timeout(&F.id, &wc, 1000);
	expect(F_rdma_get_send_comp_timeout, "%s timeout_ms=1000 ret=%d wr_id=0x1001 status=SUCCESS "
	       "opcode=SEND byte_len=0", idf(&F.id), ret);
	count(F_rdma_get_send_comp_timeout, ret < 0, 0);
	fake_reset(&F, &wait);
	ret = rdma_get_recv_comp_timeout(&F.id, &wc, 1000);	/* blocks once */
	expect(F_rdma_get_recv_comp_timeout, "%s timeout_ms=1000 ret=%d wr_id=0x2002 status=SUCCESS "
	       "opcode=RECV byte_len=100", idf(&F.id), ret);
	count(F_rdma_get_recv_comp_timeout, ret < 0, 100);
	counts[F_rdma_get_recv_comp_timeout].blocked++;
	{
		struct fake_script empty = { .npoll = 1, .poll_ret = { 0 } };

		fake_reset(&F, &empty);
		ret = rdma_get_recv_comp_timeout(&F.id, &wc, 0);
		err = errno;
		expect(F_rdma_get_recv_comp_timeout, "%s timeout_ms=0%s", idf(&F.id),
		       retf(ret, err));
		count(F_rdma_get_recv_comp_timeout, ret < 0, 0);
	}
}

/* Threads posting at once: each line must arrive whole. */
static int nop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return 0;
}

/* Two waves of threads, more in each than the library has buffers (64): all
 * of a wave alive after their first line (a barrier), so some write
 * directly, none taking a live thread's buffer; the second wave takes over
 * the buffers of the first, whose threads have exited. */
enum { WAVES = 2, THREADS = 80, PER_THREAD = 500 };

static pthread_barrier_t all_alive;

static void *poster(void *arg)
{
	char buf[8];
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		rdma_post_send(&F.id, arg, buf, sizeof(buf), NULL, IBV_SEND_INLINE);
		if (i == 0)
			pthread_barrier_wait(&all_alive);
	}
	return NULL;
}

/* n posts with wr_id `id`, each traced. */
static void post_n(int id, int n)
{
	char buf[8];

	while (n--)
		rdma_post_send(&F.id, (void *)(uintptr_t)id, buf, sizeof(buf), NULL, IBV_SEND_INLINE);
}

/* A program's own handler, which ends the program with exit(3). */
static void exit_on_signal(int sig)
{
	exit(100 + sig);
}

/* errno after each call while no trace line can be written (stderr is
 * /dev/full): the call's own, as without tracing. In mode "eintr", the
 * program's errno is EINTR before a call that succeeds: the line is
 * written once, errno left as it was. A bit per check that failed. */
static int errno_calls(int eintr)
{
	struct fake_script ok = { 0 }, fail = { .post_ret = ENOMEM };
	struct rlimit small = { 1 << 20, 1 << 20 };
	char buf[8];
	int bad = 0;

	setrlimit(RLIMIT_FSIZE, &small);	/* a line written for ever ends here */
	alarm(10);
	fake_reset(&F, &ok);
	errno = eintr ? EINTR : 1234;
	bad |= rdma_post_send(&F.id, NULL, buf, sizeof(buf), NULL, 0) != 0 ||
	       errno != (eintr ? EINTR : 1234);
	if (eintr)
		return bad;
	bad |= (rdma_post_send(NULL, NULL, buf, sizeof(buf), NULL, 0) != -1 || errno != EINVAL) << 1;
	bad |= (rdma_seterrno(EIO) != -1 || errno != EIO) << 2;
	fake_reset(&F, &fail);
	bad |= (rdma_post_send(&F.id, NULL, buf, sizeof(buf), NULL, 0) != -1 || errno != ENOMEM) << 3;
	return bad;
}

static int child(const char *mode, const char *dir)
{
	char path[4096];
	int i;

	fake_init(&F);
	if (!strcmp(mode, "full") || !strcmp(mode, "eintr"))
		return errno_calls(!strcmp(mode, "eintr"));
	if (!strcmp(mode, "fork")) {	/* 100 lines, a child's 50, 30 more */
		pid_t pid;
		int st;

		F.ctx.ops.post_send = nop_post_send;
		post_n(1, 100);
		pid = fork();
		if (pid == 0) {
			post_n(2, 50);
			exit(0);
		}
		waitpid(pid, &st, 0);
		post_n(3, 30);
		return !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (!strncmp(mode, "table-", 6)) {	/* 7 counted sends, then a signal */
		F.ctx.ops.post_send = nop_post_send;
		if (!strcmp(mode, "table-handled"))
			signal(SIGINT, exit_on_signal);
		post_n(1, 7);
		raise(!strcmp(mode, "table-sigterm") ? SIGTERM : SIGINT);
		return 0;
	}
	if (!strcmp(mode, "sigterm") || !strcmp(mode, "segv")) {	/* 100, then death */
		F.ctx.ops.post_send = nop_post_send;
		post_n(1, 100);
		if (!strcmp(mode, "sigterm"))
			raise(SIGTERM);
		{
			volatile int *nowhere = (volatile int *)(uintptr_t)atoi("8");

			*nowhere = 1;	/* SIGSEGV */
		}
		return 0;
	}
	if (!strcmp(mode, "threads")) {
		pthread_t t[THREADS];
		int w;

		F.ctx.ops.post_send = nop_post_send;
		for (w = 0; w < WAVES; w++) {
			pthread_barrier_init(&all_alive, NULL, THREADS);
			for (i = 0; i < THREADS; i++)
				pthread_create(&t[i], NULL, poster,
					       (void *)(uintptr_t)(w * THREADS + i + 1));
			for (i = 0; i < THREADS; i++)
				pthread_join(t[i], NULL);
			pthread_barrier_destroy(&all_alive);
		}
		return 0;
	}
	snprintf(path, sizeof(path), "%s/expected", dir);
	expected = fopen(path, "w");
	if (!expected)
		return 1;
	seterrno_calls();
	reg_calls();
	post_calls();
	comp_calls();
	addr_calls();
	fclose(expected);
	snprintf(path, sizeof(path), "%s/expected-stats", dir);
	expected = fopen(path, "w");
	for (i = 0; i < N_FN; i++) {
		if (!counts[i].calls)
			continue;
		fprintf(expected, "%s %ld %ld %ld ", names[i], counts[i].calls,
			counts[i].bytes, counts[i].errors);
		if (may_block[i])
			fprintf(expected, "%ld\n", counts[i].blocked);
		else
			fprintf(expected, "-\n");
	}
	fclose(expected);
	return 0;
}

/* ---- the parent: run a child, compare ---- */

static char self[4096], dir[4096];

/* Runs "self child MODE DIR" with `env` added (NAME=VALUE strings, NULL
 * ended), stderr to DIR/stderr; returns its exit status. */
static int run(const char *mode, const char *const *env)
{
	char errpath[4200];
	pid_t pid;
	int st;

	if (!strcmp(mode, "full"))
		snprintf(errpath, sizeof(errpath), "/dev/full");
	else
		snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	pid = fork();
	if (pid == 0) {
		unsetenv("RDMAVERBS_TRACE");
		unsetenv("RDMAVERBS_STATS");
		unsetenv("RDMAVERBS_POLL_SPIN");
		for (; env && *env; env++)
			putenv((char *)*env);
		if (!freopen(errpath, "w", stderr))
			_exit(126);
		default_signals();
		execl(self, self, "child", mode, dir, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A line of a trace file that is padding: spaces only, or empty. */
static int padding(const char *line)
{
	return line[strspn(line, " ")] == '\n' || line[strspn(line, " ")] == 0;
}

/* The lines of a file (at most `max`), each without its newline; padding
 * lines are skipped. */
static int lines(const char *name, char out[][600], int max)
{
	char path[4200];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fgets(out[n], 600, f)) {
		if (padding(out[n]))
			continue;
		out[n][strcspn(out[n], "\n")] = 0;
		n++;
	}
	fclose(f);
	return n;
}

static char got[10000][600], want[1000][600];

static double monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Takes the " t=SECONDS.NANOSECONDS" after a trace line's name out of
 * `line` (which then reads as the child expects it), checking that it is
 * there, nine digits after the point, after `*last` and within [from, to]
 * (this process's CLOCK_MONOTONIC around the run: the same clock). */
static int take_time(char *line, double *last, double from, double to)
{
	char *t = strstr(line, " t="), *end;
	double v;

	if (!t || strncmp(line, "rdmaverbs[", 10) || !strchr(line, ':') || t < strchr(line, ':'))
		return 0;
	v = strtod(t + 3, &end);
	if (end - strchr(t, '.') != 10 || (*end != ' ' && *end != 0) || v < *last ||
	    v < from - 1e-6 || v > to + 1e-6)
		return 0;
	*last = v;
	while (end[0] == ' ' && end[1] == ' ')	/* padding (rdmaverbs(7)) */
		end++;
	memmove(t, end, strlen(end) + 1);
	return 1;
}

static void check_calls(void)
{
	char tracevar[4200];
	const char *env[] = { tracevar, "RDMAVERBS_STATS=1", NULL };
	double from, to, last = 0;
	int n, m, i, rows = 0;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/trace.log", dir);
	from = monotonic();
	if (run("calls", env)) {
		FAIL("the traced child failed");
		return;
	}
	to = monotonic();
	n = lines("trace.log", got, 10000);
	m = lines("expected", want, 1000);
	if (n != m)
		FAIL("%d trace lines for %d calls", n, m);
	for (i = 0; i < n && i < m; i++) {
		if (!take_time(got[i], &last, from, to))
			FAIL("trace line %d: no t=, or not in order and within the run: %s", i + 1,
			     got[i]);
		else if (strcmp(got[i], want[i]))
			FAIL("trace line %d:\n  got  %s\n  want %s", i + 1, got[i], want[i]);
	}

	/* The exit table: a row per function called, with the child's counts. */
	n = lines("stderr", got, 10000);
	m = lines("expected-stats", want, 1000);
	for (i = 0; i < n; i++) {
		char name[64], calls[32], bytes[32], errors[32], blocked[32], row[600];
		int j;

		if (sscanf(got[i], "rdmaverbs: %63s %31s %31s %31s %31s", name, calls,
			   bytes, errors, blocked) != 5 || strncmp(name, "rdma_", 5))
			continue;
		snprintf(row, sizeof(row), "%s %s %s %s %s", name, calls, bytes, errors, blocked);
		for (j = 0; j < m && strcmp(row, want[j]); j++)
			;
		if (j == m)
			FAIL("stats row \"%s\" is not expected", row);
		rows++;
	}
	if (rows != m)
		FAIL("%d stats rows for %d functions called", rows, m);
	/* Its columns: the names' as wide as the longest name shown plus a
	 * space (20 at least), each row's calls (13 wide) ending where the
	 * header's "calls" ends. */
	{
		const size_t pre = strlen("rdmaverbs: ");
		size_t w = 20, len, end;

		for (i = 0; i < n; i++)
			if (!strncmp(got[i], "rdmaverbs: rdma_", 16) &&
			    (len = strcspn(got[i] + pre, " ")) + 1 > w)
				w = len + 1;
		end = pre + w + 13;
		for (i = 0; i < n; i++) {
			const char *l = got[i];

			if (strncmp(l, "rdmaverbs: rdma_", 16) && strncmp(l, "rdmaverbs: function ", 20))
				continue;
			len = strcspn(l + pre, " ");
			if (strlen(l) <= end || l[end] != ' ' || l[end - 1] == ' ' ||
			    strspn(l + pre + len, " ") < w - len)
				FAIL("the exit table's columns: \"%s\" (names %zu wide, calls ending "
				     "at %zu)", l, w, end);
		}
	}
	printf("trace: ok: %d calls of the %d functions of rdma_verbs.h and later nodes, each trace line as expected; "
	       "the exit table's %d rows match, in columns as wide as its longest name\n",
	       lines("expected", want, 1000), m, rows);
}

static void check_threads(void)
{
	static int per[WAVES * THREADS + 1];
	char tracevar[4200], path[4200], line[600];
	const char *env[] = { tracevar, NULL };
	static struct { int tid; double t; } last[WAVES * THREADS];
	int n = 0, bad = 0, wrong = 0, unordered = 0, nlast = 0, i;
	FILE *f;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/threads.log", dir);
	if (run("threads", env)) {
		FAIL("the threaded child failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/threads.log", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long id;
		char *w = strstr(line, " wr_id="), *t = strstr(line, " t=");
		double v;
		int tid;

		if (padding(line))
			continue;
		n++;
		if (sscanf(line, "rdmaverbs[%d]: rdma_post_send t=%lf ", &tid, &v) != 2 || !t ||
		    strcmp(line + strlen(line) - 7, " ret=0\n") || !w ||
		    sscanf(w, " wr_id=%lx", &id) != 1 || id < 1 || id > WAVES * THREADS) {
			bad++;
			continue;
		}
		per[id]++;
		/* each thread's lines in its own order: its times never go back */
		for (i = 0; i < nlast && last[i].tid != tid; i++)
			;
		if (i == nlast && nlast < WAVES * THREADS)
			last[nlast++].tid = tid;
		if (i < WAVES * THREADS) {
			unordered += v < last[i].t;
			last[i].t = v;
		}
	}
	/* no line straddles a page of the file: a newline ends each page */
	{
		long pages = 0, straddled = 0, off;
		int c;

		for (off = 4096; f && !fseek(f, off - 1, SEEK_SET) && (c = fgetc(f)) != EOF;
		     off += 4096) {
			pages++;
			straddled += c != '\n';
		}
		if (pages < 8 || straddled) {
			FAIL("%ld of the file's %ld page boundaries inside a line", straddled, pages);
			bad++;
		}
	}
	if (f)
		fclose(f);
	for (i = 1; i <= WAVES * THREADS; i++)
		wrong += per[i] != PER_THREAD;
	if (n != WAVES * THREADS * PER_THREAD || bad || wrong || unordered)
		FAIL("%d lines from %d threads' %d posts, %d of them broken, %d threads with "
		     "lines missing or doubled, %d lines out of their thread's order", n,
		     WAVES * THREADS, WAVES * THREADS * PER_THREAD, bad, wrong, unordered);
	else
		printf("trace: ok: %d threads in %d waves, %d lines, each whole, each thread's %d "
		       "there once and in its order; every page of the file ends a line\n",
		       WAVES * THREADS, WAVES, n, PER_THREAD);
}

/* Lines of the last count_ids whose wr_id is below the line's before. */
static int unordered;

/* How many lines of the trace file `name` have each wr_id (1 to 3); -1 if
 * a line is not a whole rdma_post_send line. */
static int count_ids(const char *name, int per[4])
{
	char path[4200], line[600];
	FILE *f;
	int n = 0;
	unsigned long last_id = 0;

	unordered = 0;
	memset(per, 0, 4 * sizeof(*per));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *w = strstr(line, " wr_id=");
		unsigned long id;

		if (padding(line))
			continue;
		if (!w || sscanf(w, " wr_id=%lx", &id) != 1 || id < 1 || id > 3 ||
		    strcmp(line + strlen(line) - 7, " ret=0\n"))
			n = -1;
		else if (n >= 0)
			n++, per[id]++;
		if (w && sscanf(w, " wr_id=%lx", &id) == 1) {
			unordered += id < last_id;
			last_id = id;
		}
	}
	if (f)
		fclose(f);
	return n;
}

/* The buffered lines are written out before a fork (the child's copy is
 * not written again) and on a fatal signal. */
static void check_fork_and_signals(void)
{
	char tracevar[4200];
	const char *env[] = { tracevar, NULL };
	int per[4], rc, n;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/fork.log", dir);
	rc = run("fork", env);
	n = count_ids("fork.log", per);
	/* the parent's lines from before the fork are written out before it,
	 * the child's at its exit, before the parent's last ones */
	if (rc || n != 180 || per[1] != 100 || per[2] != 50 || per[3] != 30 || unordered)
		FAIL("fork: exit %d, %d lines (%d, %d, %d), want 100 + the child's 50 + 30; %d out "
		     "of order", rc, n, per[1], per[2], per[3], unordered);
	else
		printf("trace: ok: fork: the parent's 130 lines and the child's 50, each once, "
		       "in the order they were made\n");
	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/sigterm.log", dir);
	rc = run("sigterm", env);
	n = count_ids("sigterm.log", per);
	if (rc != 128 + SIGTERM || n != 100)
		FAIL("SIGTERM: status %d, %d lines written out (want death by SIGTERM, 100)", rc, n);
	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/segv.log", dir);
	rc = run("segv", env);
	n = count_ids("segv.log", per);
	if (rc != 128 + SIGSEGV || n != 100)
		FAIL("SIGSEGV: status %d, %d lines written out (want death by SIGSEGV, 100)", rc, n);
	else
		printf("trace: ok: SIGTERM and SIGSEGV: the 100 buffered lines written out, "
		       "the process dies of its signal\n");
}

/* RDMAVERBS_STATS=1 and a program stopped by SIGINT or SIGTERM (default
 * action), or by SIGINT with its own handler that calls exit(3): the table
 * is printed once, with the 7 sends, and the program ends as the signal or
 * its handler says. */
static void check_table_on_signals(void)
{
	static const struct { const char *mode; int status; } cases[] = {
		{ "table-sigint", 128 + SIGINT },
		{ "table-sigterm", 128 + SIGTERM },
		{ "table-handled", 100 + SIGINT },
	};
	const char *env[] = { "RDMAVERBS_STATS=1", NULL };
	size_t k;
	int bad = 0;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int rc = run(cases[k].mode, env), n = lines("stderr", got, 10000), i, rows = 0,
		    heads = 0;

		for (i = 0; i < n; i++) {
			char name[64];
			long calls, bytes, errors;

			heads += !strncmp(got[i], "rdmaverbs: calls of process ", 28);
			if (sscanf(got[i], "rdmaverbs: %63s %ld %ld %ld", name, &calls, &bytes,
				   &errors) == 4 && !strcmp(name, "rdma_post_send"))
				rows += calls == 7 && bytes == 56 && errors == 0 ? 1 : 100;
		}
		if (rc != cases[k].status || heads != 1 || rows != 1) {
			FAIL("%s: status %d (want %d), %d tables, rdma_post_send rows %d", cases[k].mode,
			     rc, cases[k].status, heads, rows);
			bad++;
		}
	}
	if (!bad)
		printf("trace: ok: RDMAVERBS_STATS=1 and SIGINT, SIGTERM: the table printed once "
		       "(7 sends, 56 bytes), the program dies of its signal; a handler of its own "
		       "that calls exit(3): the table once, its exit status\n");
}

/* errno when the trace cannot be written, and a line written once when the
 * program's errno was EINTR (see errno_calls). */
static void check_errno(void)
{
	const char *env[] = { "RDMAVERBS_TRACE=1", "RDMAVERBS_STATS=1", NULL };
	int rc = run("full", env), n, i, lines_seen = 0;

	if (rc)
		FAIL("full: the child exited %d (a bit per wrong errno: 1 success, 2 NULL id, "
		     "4 rdma_seterrno, 8 provider failure)", rc);
	rc = run("eintr", env);
	n = lines("stderr", got, 10000);
	for (i = 0; i < n; i++)
		lines_seen += !strncmp(got[i], "rdmaverbs[", 10);
	if (rc || lines_seen != 1)
		FAIL("eintr: the child exited %d, %d trace lines for one call", rc, lines_seen);
	if (!failures)
		printf("trace: ok: the trace on /dev/full: each call's errno as without tracing; "
		       "errno EINTR before a call: its line written once\n");
}

static void check_quiet(void)
{
	const char *bad[] = { "RDMAVERBS_TRACE=/nonexistent/dir/trace.log",
		"RDMAVERBS_STATS=yes", "RDMAVERBS_POLL_SPIN=12x", NULL };
	const char *stderr1[] = { "RDMAVERBS_TRACE=1", NULL };
	int n, m, i, warnings = 0, traced = 0;

	/* Nothing set: not a byte on stderr. */
	if (run("calls", NULL) || lines("stderr", got, 10000) != 0)
		FAIL("with nothing set, the library wrote to stderr");
	/* Bad values: one warning each, then the defaults (nothing traced). */
	if (run("calls", bad))
		FAIL("the child failed with bad settings");
	n = lines("stderr", got, 10000);
	for (i = 0; i < n; i++)
		warnings += !strncmp(got[i], "rdmaverbs: warning: RDMAVERBS_", 30);
	if (n != 3 || warnings != 3)
		FAIL("bad settings: %d lines on stderr, %d warnings; want 3 and 3", n, warnings);
	for (i = 0; i < n; i++)
		printf("trace: ok: %s\n", got[i]);
	/* RDMAVERBS_TRACE=1: the lines go to stderr. */
	if (run("calls", stderr1))
		FAIL("the child failed with RDMAVERBS_TRACE=1");
	n = lines("stderr", got, 10000);
	m = lines("expected", want, 1000);
	for (i = 0; i < n; i++) {
		double last = 0;

		if (!strncmp(got[i], "rdmaverbs[", 10) && take_time(got[i], &last, 0, 1e12) &&
		    traced < m && !strcmp(got[i], want[traced]))
			traced++;
	}
	if (traced != m || traced == 0)
		FAIL("RDMAVERBS_TRACE=1: %d lines on stderr as expected, of %d", traced, m);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "child"))
		return child(argv[2], argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
		return 2;
	}
	if (!realpath("/proc/self/exe", self) || !realpath(argv[1], dir)) {
		perror("trace: realpath");
		return 2;
	}
	check_calls();
	check_threads();
	check_fork_and_signals();
	check_table_on_signals();
	check_errno();
	check_quiet();
	printf("trace: %s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
