/*
 * RDMAVERBS_TRACE and RDMAVERBS_STATS of RDMAVERBS_1.3, the functions of
 * <infiniband/verbs.h>, on the fake provider of vfake.h: ours, found with
 * dlvsym(..., "RDMAVERBS_1.3") as a program finds them.
 *
 * The settings are read when the library loads, so each case re-executes
 * this program ("verbs-trace child DIR") with its environment set and its
 * stderr in DIR/stderr. The child calls a representative of every shape of
 * line the 1.3 exports have (posts of chains, polls of several completions,
 * an empty and a failing poll, arming, every ibv_wr_* builder, the extended
 * CQ's polls, control-path verbs that make an object or return a status,
 * the values, refused calls), writes for each the trace line it expects
 * (built here with snprintf from the arguments and the fake's answers) to
 * DIR/expected, and its own count of calls, bytes and errors per function
 * to DIR/expected-stats. The ibv_wc_read_* readers are called too: they
 * must add no line, and be counted. The parent compares the trace file
 * (each line whole, field by field, its t= in order and within the run)
 * and the exit table (every row, exactly) with those; again with counting
 * alone (the counting path, not the watched one); with RDMAVERBS_STAT,
 * the counters file of the child while it runs, as rdmaverbs-stat -n 1
 * shows it; and nothing set writes nothing.
 *
 * Usage: verbs-trace SCRATCH_DIR [RDMAVERBS_STAT]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "vfake.h"
#include "functions.h"

static int failures;
#define FAIL(...) do { fprintf(stderr, "verbs-trace: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

/* The functions of RDMAVERBS_1.3: F_ibv_wr_atomic_cmp_swp, ..., N_FN. */
#define ENUM(ret, name, params, args) F_##name,
enum { RDMAVERBS_VERBS_H_FUNCTIONS(ENUM) N_FN };
#define NAME(ret, name, params, args) #name,
static const char *const names[N_FN] = { RDMAVERBS_VERBS_H_FUNCTIONS(NAME) };

/* Ours, by dlvsym: V(ibv_post_send)(qp, wr, &bad). */
#define OURS(ret, name, params, args) static ret (*ours_##name) params;
RDMAVERBS_VERBS_H_FUNCTIONS(OURS)
#define V(name) ours_##name

static int find_ours(void)
{
	void *lib = dlopen("librdmaverbs.so.1", RTLD_NOW);
	int missing = 0;
	void *p;

	if (!lib)
		return -1;
#define FIND(ret, name, params, args)                                          \
	p = dlvsym(lib, #name, RDMAVERBS_NODE_##name);                               \
	missing += !p;                                                         \
	memcpy(&ours_##name, &p, sizeof(p));
	RDMAVERBS_VERBS_H_FUNCTIONS(FIND)
	return missing ? -1 : 0;
}

/* ---- the child: calls, and the lines and counts they should give ---- */

static FILE *expected;
static struct { long calls, bytes, errors; int open; } counts[N_FN];
static struct vscript S;

static unsigned long p2u(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}

/* One expected line: "rdmaverbs[TID]: NAME" then the fields. */
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
	counts[fn].errors += failed != 0;
	counts[fn].bytes += bytes;
}

/* The answers of the fake's ops: `ret` (and errno `err`) for `op`. */
static void answer(int op, int64_t ret, int err)
{
	S.a[op].ret = ret;
	S.a[op].err = err;
}

/* ibv_poll_cq's op: the completions of `polled` (the fake's own writes
 * bytes made from a seed, not completions a line can show). */
static struct ibv_wc polled[4];
static int poll_answer;

static int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	for (i = 0; i < poll_answer && i < n && i < 4; i++)
		wc[i] = polled[i];
	return poll_answer;
}

#define QP " qp=0x%lx qpn=%u"
#define QPV(q) p2u(q), (q)->qp_num

static char data[4096];
static struct ibv_sge sge[3] = {
	{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 4096, 3 },
};

/* ibv_post_send, ibv_post_recv, ibv_post_srq_recv: a line per work request
 * of the chain; ibv_post_wq_recv, ibv_post_srq_ops: a line per call. */
static void posts(void)
{
	struct ibv_send_wr s[2], *sbad = NULL;
	struct ibv_recv_wr r[2], *rbad = NULL;
	struct ibv_ops_wr o = { .wr_id = 0x61 }, *obad = NULL;
	int ret, err;

	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x11, .next = &s[1], .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED };
	s[1] = (struct ibv_send_wr){ .wr_id = 0x12, .sg_list = &sge[2], .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_FENCE };
	s[1].wr.rdma.remote_addr = 0xfeed0000;
	s[1].wr.rdma.rkey = 0x77;
	W.qp.qp_type = IBV_QPT_RC;
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {	/* accepted, then refused */
		answer(V_post_send, ret, 0);
		if (V(ibv_post_send)(&W.qp, s, &sbad) != ret)
			FAIL("ibv_post_send did not return %d", ret);
		if (ret) {
			expect(F_ibv_post_send, QP " wr_id=0x11 opcode=SEND nsge=2 flags=0x6 ret=12",
			       QPV(&W.qp));
			expect(F_ibv_post_send, QP " wr_id=0x12 opcode=RDMA_WRITE nsge=1 flags=0x1 "
			       "remote_addr=0xfeed0000 rkey=0x77 ret=12", QPV(&W.qp));
		} else {
			expect(F_ibv_post_send, QP " wr_id=0x11 opcode=SEND nsge=2 bytes=30 flags=0x6 "
			       "ret=0", QPV(&W.qp));
			expect(F_ibv_post_send, QP " wr_id=0x12 opcode=RDMA_WRITE nsge=1 bytes=4096 "
			       "flags=0x1 remote_addr=0xfeed0000 rkey=0x77 ret=0", QPV(&W.qp));
		}
		count(F_ibv_post_send, ret, ret ? 0 : 4126);
	}
	/* UD: the address handle and the remote QP number */
	answer(V_post_send, 0, 0);
	W.qp.qp_type = IBV_QPT_UD;
	s[0].next = NULL;
	s[0].num_sge = 1;
	s[0].opcode = IBV_WR_SEND_WITH_IMM;
	s[0].send_flags = IBV_SEND_INLINE;
	s[0].wr.ud.ah = &W.ah;
	s[0].wr.ud.remote_qpn = 0xffffff;
	V(ibv_post_send)(&W.qp, s, &sbad);
	expect(F_ibv_post_send, QP " wr_id=0x11 opcode=SEND_WITH_IMM nsge=1 bytes=10 flags=0x8 "
	       "ah=0x%lx remote_qpn=16777215 ret=0", QPV(&W.qp), p2u(&W.ah));
	count(F_ibv_post_send, 0, 10);
	W.qp.qp_type = IBV_QPT_RC;
	/* every other opcode's name (and one not in the enum: OTHER); the
	 * RDMA ones with their remote address and key */
	{
		static const struct { enum ibv_wr_opcode op; const char *name; } ops[] = {
			{ IBV_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM" },
			{ IBV_WR_RDMA_READ, "RDMA_READ" },
			{ IBV_WR_ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP" },
			{ IBV_WR_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD" },
			{ IBV_WR_LOCAL_INV, "LOCAL_INV" },
			{ IBV_WR_BIND_MW, "BIND_MW" },
			{ IBV_WR_SEND_WITH_INV, "SEND_WITH_INV" },
			{ (enum ibv_wr_opcode)99, "OTHER" },
		};
		struct ibv_send_wr all[8];
		unsigned i;

		memset(all, 0, sizeof(all));
		for (i = 0; i < 8; i++) {
			all[i].wr_id = 0x81 + i;
			all[i].next = i < 7 ? &all[i + 1] : NULL;
			all[i].opcode = ops[i].op;
		}
		all[0].wr.rdma.remote_addr = 0xbeef000;
		all[0].wr.rdma.rkey = 0x5;
		all[1].wr.rdma.remote_addr = 0xbeef100;
		all[1].wr.rdma.rkey = 0x6;
		answer(V_post_send, 0, 0);
		V(ibv_post_send)(&W.qp, all, &sbad);
		for (i = 0; i < 8; i++) {
			if (i < 2)
				expect(F_ibv_post_send, QP " wr_id=0x%x opcode=%s nsge=0 bytes=0 flags=0x0 "
				       "remote_addr=0x%lx rkey=0x%x ret=0", QPV(&W.qp), 0x81 + i, ops[i].name,
				       (unsigned long)all[i].wr.rdma.remote_addr, all[i].wr.rdma.rkey);
			else
				expect(F_ibv_post_send, QP " wr_id=0x%x opcode=%s nsge=0 bytes=0 flags=0x0 "
				       "ret=0", QPV(&W.qp), 0x81 + i, ops[i].name);
		}
		count(F_ibv_post_send, 0, 0);
	}

	memset(r, 0, sizeof(r));
	r[0] = (struct ibv_recv_wr){ .wr_id = 0x21, .next = &r[1], .sg_list = &sge[2], .num_sge = 1 };
	r[1] = (struct ibv_recv_wr){ .wr_id = 0x22, .sg_list = sge, .num_sge = 2 };
	answer(V_post_recv, 0, 0);
	V(ibv_post_recv)(&W.qp, r, &rbad);
	expect(F_ibv_post_recv, QP " wr_id=0x21 nsge=1 bytes=4096 ret=0", QPV(&W.qp));
	expect(F_ibv_post_recv, QP " wr_id=0x22 nsge=2 bytes=30 ret=0", QPV(&W.qp));
	count(F_ibv_post_recv, 0, 4126);
	answer(V_post_srq_recv, EAGAIN, 0);
	V(ibv_post_srq_recv)(&W.srq, &r[1], &rbad);
	expect(F_ibv_post_srq_recv, " srq=0x%lx wr_id=0x22 nsge=2 ret=11", p2u(&W.srq));
	count(F_ibv_post_srq_recv, 1, 0);
	answer(V_post_srq_recv, 0, 0);
	V(ibv_post_srq_recv)(&W.srq, &r[1], &rbad);
	expect(F_ibv_post_srq_recv, " srq=0x%lx wr_id=0x22 nsge=2 bytes=30 ret=0", p2u(&W.srq));
	count(F_ibv_post_srq_recv, 0, 30);
	/* a work queue's post: a line per work request, as ibv_post_srq_recv's */
	answer(V_wq_post_recv, 0, 0);
	V(ibv_post_wq_recv)(&W.wq, r, &rbad);
	expect(F_ibv_post_wq_recv, " wq=0x%lx wr_id=0x21 nsge=1 bytes=4096 ret=0", p2u(&W.wq));
	expect(F_ibv_post_wq_recv, " wq=0x%lx wr_id=0x22 nsge=2 bytes=30 ret=0", p2u(&W.wq));
	count(F_ibv_post_wq_recv, 0, 4126);
	/* tag matching's: the call, the SRQ, the result */
	answer(V_post_srq_ops, ENOSPC, 0);
	V(ibv_post_srq_ops)(&W.srq, &o, &obad);
	expect(F_ibv_post_srq_ops, " srq=0x%lx ret=%d", p2u(&W.srq), ENOSPC);
	count(F_ibv_post_srq_ops, 1, 0);

	/* refused: a NULL QP, a NULL list (errno values returned, no errno) */
	V(ibv_post_send)(NULL, s, &sbad);
	expect(F_ibv_post_send, " qp=0x0 ret=22");
	count(F_ibv_post_send, 1, 0);
	V(ibv_post_recv)(&W.qp, NULL, &rbad);
	expect(F_ibv_post_recv, " qp=0x%lx ret=22", p2u(&W.qp));
	count(F_ibv_post_recv, 1, 0);
	errno = 0;
	ret = V(ibv_post_srq_recv)(NULL, r, &rbad);
	err = errno;
	expect(F_ibv_post_srq_recv, " srq=0x0 ret=22");
	count(F_ibv_post_srq_recv, 1, 0);
	if (ret != EINVAL || err)
		FAIL("ibv_post_srq_recv(NULL): %d, errno %d; want EINVAL, errno untouched", ret, err);
}

/* ibv_poll_cq (a line per completion, none for an empty poll, one for a
 * failed one) and ibv_req_notify_cq. */
static void polls(void)
{
	struct ibv_wc wc[4];
	int ret, err;

	VCTX->ops.poll_cq = poll_cq;
	memset(polled, 0, sizeof(polled));
	polled[0] = (struct ibv_wc){ .wr_id = 0x31, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
		.byte_len = 100, .qp_num = 17 };
	polled[1] = (struct ibv_wc){ .wr_id = 0x32, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND,
		.byte_len = 300, .qp_num = 18 };
	polled[2] = (struct ibv_wc){ .wr_id = 0x33, .status = IBV_WC_REM_ACCESS_ERR,
		.opcode = IBV_WC_RECV, .byte_len = 500, .vendor_err = 0x2a, .qp_num = 17 };
	poll_answer = 3;
	if (V(ibv_poll_cq)(&W.cq, 4, wc) != 3)
		FAIL("ibv_poll_cq did not return its 3 completions");
	expect(F_ibv_poll_cq, " cq=0x%lx ret=3 qpn=17 wr_id=0x31 status=SUCCESS opcode=RECV "
	       "byte_len=100", p2u(&W.cq));
	expect(F_ibv_poll_cq, " cq=0x%lx ret=3 qpn=18 wr_id=0x32 status=SUCCESS opcode=SEND "
	       "byte_len=300", p2u(&W.cq));
	expect(F_ibv_poll_cq, " cq=0x%lx ret=3 qpn=17 wr_id=0x33 status=REM_ACCESS_ERR "
	       "vendor_err=0x2a", p2u(&W.cq));
	count(F_ibv_poll_cq, 0, 100);	/* a successful receive's bytes only */
	/* room for fewer than the provider has: only what was written is read */
	poll_answer = 1;
	V(ibv_poll_cq)(&W.cq, 1, wc);
	expect(F_ibv_poll_cq, " cq=0x%lx ret=1 qpn=17 wr_id=0x31 status=SUCCESS opcode=RECV "
	       "byte_len=100", p2u(&W.cq));
	count(F_ibv_poll_cq, 0, 100);
	poll_answer = 0;	/* empty: counted, no line, not an error (twice: */
	V(ibv_poll_cq)(&W.cq, 4, wc);	/* the errors then tell an empty poll */
	count(F_ibv_poll_cq, 0, 0);	/* from a failed one) */
	V(ibv_poll_cq)(&W.cq, 4, wc);
	count(F_ibv_poll_cq, 0, 0);
	poll_answer = -2;	/* failed: one line */
	V(ibv_poll_cq)(&W.cq, 4, wc);
	expect(F_ibv_poll_cq, " cq=0x%lx ret=-2", p2u(&W.cq));
	count(F_ibv_poll_cq, 1, 0);
	/* refused: no array, no CQ (-1, errno EINVAL) */
	V(ibv_poll_cq)(&W.cq, 4, NULL);
	expect(F_ibv_poll_cq, " cq=0x%lx ret=-1 errno=22", p2u(&W.cq));
	count(F_ibv_poll_cq, 1, 0);
	poll_answer = 0;	/* no array and no room asked for: the provider's */
	V(ibv_poll_cq)(&W.cq, 0, NULL);	/* empty poll, no line, no error */
	count(F_ibv_poll_cq, 0, 0);
	ret = V(ibv_poll_cq)(NULL, 4, wc);
	err = errno;
	expect(F_ibv_poll_cq, " cq=0x0 ret=-1 errno=22");
	count(F_ibv_poll_cq, 1, 0);
	if (ret != -1 || err != EINVAL)
		FAIL("ibv_poll_cq(NULL): %d errno %d, want -1 EINVAL", ret, err);

	for (ret = 0; ret <= EINVAL; ret += EINVAL) {
		answer(V_req_notify_cq, ret, 0);
		V(ibv_req_notify_cq)(&W.cq, 1);
		expect(F_ibv_req_notify_cq, " cq=0x%lx ret=%d", p2u(&W.cq), ret);
		count(F_ibv_req_notify_cq, ret, 0);
	}
	V(ibv_req_notify_cq)(NULL, 0);
	expect(F_ibv_req_notify_cq, " cq=0x0 ret=22");
	count(F_ibv_req_notify_cq, 1, 0);
}

/* The extended QP: a line per call of every ibv_wr_*. */
static void builders(void)
{
	struct ibv_qp_ex *x = &W.qpx;
	struct ibv_data_buf bufs[2] = { { data, 7 }, { data + 100, 1000 } };
	struct ibv_mw_bind_info info = { 0 };
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	uint64_t atomic = 5;
#endif
	char hdr[16];
	int ret;

#define XQ p2u(x), x->qp_base.qp_num
	V(ibv_wr_start)(x);
	expect(F_ibv_wr_start, QP, XQ);
	count(F_ibv_wr_start, 0, 0);
	/* each opcode call: wr_id and flags as the QP has them, and the remote
	 * address and key of an RDMA or atomic one */
#define OPCODE(fn, id, flags, call, remote) do {                               \
	x->wr_id = id;                                                         \
	x->wr_flags = flags;                                                   \
	call;                                                                  \
	expect(F_##fn, QP " wr_id=0x%x flags=0x%x%s", XQ, id, flags, remote);  \
	count(F_##fn, 0, 0);                                                   \
} while (0)
	OPCODE(ibv_wr_rdma_write, 0x41, IBV_SEND_SIGNALED, V(ibv_wr_rdma_write)(x, 0x99, 0xabc000),
	       " remote_addr=0xabc000 rkey=0x99");
	OPCODE(ibv_wr_rdma_write_imm, 0x42, 0, V(ibv_wr_rdma_write_imm)(x, 0x98, 0xabd000, 7),
	       " remote_addr=0xabd000 rkey=0x98");
	OPCODE(ibv_wr_rdma_read, 0x43, IBV_SEND_FENCE,
	       V(ibv_wr_rdma_read)(x, UINT32_MAX, UINT64_MAX),
	       " remote_addr=0xffffffffffffffff rkey=0xffffffff");
	OPCODE(ibv_wr_atomic_cmp_swp, 0x44, IBV_SEND_SIGNALED,
	       V(ibv_wr_atomic_cmp_swp)(x, 0x55, 0x8000, 1, 2), " remote_addr=0x8000 rkey=0x55");
	OPCODE(ibv_wr_atomic_fetch_add, 0x45, 0, V(ibv_wr_atomic_fetch_add)(x, 0x56, 0x8008, 3),
	       " remote_addr=0x8008 rkey=0x56");
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	OPCODE(ibv_wr_atomic_write, 0x46, 0, V(ibv_wr_atomic_write)(x, 0x57, 0x8010, &atomic),
	       " remote_addr=0x8010 rkey=0x57");
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	OPCODE(ibv_wr_flush, 0x4d, IBV_SEND_SIGNALED, V(ibv_wr_flush)(x, 0x58, 0x8018, 64, 1, 2),
	       " remote_addr=0x8018 rkey=0x58");
#endif
	OPCODE(ibv_wr_send, 0x47, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED, V(ibv_wr_send)(x), "");
	OPCODE(ibv_wr_send_imm, 0x48, 0, V(ibv_wr_send_imm)(x, 0x12345678), "");
	OPCODE(ibv_wr_send_inv, 0x49, 0, V(ibv_wr_send_inv)(x, 0x66), "");
	OPCODE(ibv_wr_send_tso, 0x4a, 0, V(ibv_wr_send_tso)(x, hdr, sizeof(hdr), 1460), "");
	OPCODE(ibv_wr_local_inv, 0x4b, 0, V(ibv_wr_local_inv)(x, 0x67), "");
	OPCODE(ibv_wr_bind_mw, 0x4c, 0, V(ibv_wr_bind_mw)(x, &W.mw, 0x68, &info), "");
#undef OPCODE
	V(ibv_wr_set_sge)(x, 0x5, 0x6000, 123);
	expect(F_ibv_wr_set_sge, QP " lkey=0x5 addr=0x6000 length=123", XQ);
	count(F_ibv_wr_set_sge, 0, 123);
	V(ibv_wr_set_sge_list)(x, 3, sge);
	expect(F_ibv_wr_set_sge_list, QP " nsge=3 bytes=4126", XQ);
	count(F_ibv_wr_set_sge_list, 0, 4126);
	V(ibv_wr_set_inline_data)(x, data, 33);
	expect(F_ibv_wr_set_inline_data, QP " addr=0x%lx length=33", XQ, p2u(data));
	count(F_ibv_wr_set_inline_data, 0, 33);
	V(ibv_wr_set_inline_data_list)(x, 2, bufs);
	expect(F_ibv_wr_set_inline_data_list, QP " nbuf=2 bytes=1007", XQ);
	count(F_ibv_wr_set_inline_data_list, 0, 1007);
	V(ibv_wr_set_ud_addr)(x, &W.ah, 0x10, 0x11111111);
	expect(F_ibv_wr_set_ud_addr, QP " ah=0x%lx remote_qpn=16 remote_qkey=0x11111111", XQ,
	       p2u(&W.ah));
	count(F_ibv_wr_set_ud_addr, 0, 0);
	V(ibv_wr_set_xrc_srqn)(x, 77);
	expect(F_ibv_wr_set_xrc_srqn, QP " srqn=77", XQ);
	count(F_ibv_wr_set_xrc_srqn, 0, 0);
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {
		answer(V_wr_complete, ret, 0);
		if (V(ibv_wr_complete)(x) != ret)
			FAIL("ibv_wr_complete did not return %d", ret);
		expect(F_ibv_wr_complete, QP " ret=%d", XQ, ret);
		count(F_ibv_wr_complete, ret, 0);
	}
	V(ibv_wr_start)(x);
	expect(F_ibv_wr_start, QP, XQ);
	count(F_ibv_wr_start, 0, 0);
	V(ibv_wr_abort)(x);
	expect(F_ibv_wr_abort, QP, XQ);
	count(F_ibv_wr_abort, 0, 0);
	/* refused: a NULL QP (nothing done, counted as an error; ibv_wr_complete:
	 * EINVAL) */
	V(ibv_wr_send)(NULL);
	expect(F_ibv_wr_send, " qp=0x0");
	count(F_ibv_wr_send, 1, 0);
	V(ibv_wr_complete)(NULL);
	expect(F_ibv_wr_complete, " qp=0x0 ret=22");
	count(F_ibv_wr_complete, 1, 0);
#undef XQ
}

/* Every reader of the current completion: counted, no line. */
static int reads(struct ibv_cq_ex *c)
{
	struct ibv_wc_tm_info tm;
	int n = 0;

#define READ(fn, ...) do { (void)V(fn)(__VA_ARGS__); count(F_##fn, 0, 0); n++; } while (0)
	READ(ibv_wc_read_opcode, c);
	READ(ibv_wc_read_vendor_err, c);
	READ(ibv_wc_read_byte_len, c);
	READ(ibv_wc_read_imm_data, c);
	READ(ibv_wc_read_invalidated_rkey, c);
	READ(ibv_wc_read_qp_num, c);
	READ(ibv_wc_read_src_qp, c);
	READ(ibv_wc_read_wc_flags, c);
	READ(ibv_wc_read_slid, c);
	READ(ibv_wc_read_sl, c);
	READ(ibv_wc_read_dlid_path_bits, c);
	READ(ibv_wc_read_completion_ts, c);
	READ(ibv_wc_read_completion_wallclock_ns, c);
	READ(ibv_wc_read_cvlan, c);
	READ(ibv_wc_read_flow_tag, c);
	READ(ibv_wc_read_tm_info, c, &tm);
#undef READ
	return n;
}

/* The extended CQ: a found completion's line, none for ENOENT. */
static void extended_polls(void)
{
	struct ibv_cq_ex *c = &W.cqx;
	struct ibv_poll_cq_attr attr = { 0 };

	W.cqx.wr_id = 0x51;
	W.cqx.status = IBV_WC_SUCCESS;
	answer(V_start_poll, 0, 0);
	answer(V_read_opcode, IBV_WC_RECV, 0);
	answer(V_read_byte_len, 64, 0);
	answer(V_read_vendor_err, 0x7, 0);
	if (V(ibv_start_poll)(c, &attr))
		FAIL("ibv_start_poll did not return 0");
	expect(F_ibv_start_poll, " cq=0x%lx ret=0 wr_id=0x51 status=SUCCESS opcode=RECV byte_len=64",
	       p2u(c));
	count(F_ibv_start_poll, 0, 64);
	if (reads(c) != 16)
		FAIL("not every reader called");
	W.cqx.wr_id = 0x52;	/* a completion in error */
	W.cqx.status = IBV_WC_WR_FLUSH_ERR;
	answer(V_next_poll, 0, 0);
	V(ibv_next_poll)(c);
	expect(F_ibv_next_poll, " cq=0x%lx ret=0 wr_id=0x52 status=WR_FLUSH_ERR vendor_err=0x7",
	       p2u(c));
	count(F_ibv_next_poll, 0, 0);
	W.cqx.wr_id = 0x53;	/* a send's: no bytes counted */
	W.cqx.status = IBV_WC_SUCCESS;
	answer(V_read_opcode, IBV_WC_RDMA_WRITE, 0);
	V(ibv_next_poll)(c);
	expect(F_ibv_next_poll, " cq=0x%lx ret=0 wr_id=0x53 status=SUCCESS opcode=RDMA_WRITE "
	       "byte_len=64", p2u(c));
	count(F_ibv_next_poll, 0, 0);
	answer(V_next_poll, ENOENT, 0);	/* none left: counted, no line, no error */
	V(ibv_next_poll)(c);
	count(F_ibv_next_poll, 0, 0);
	answer(V_next_poll, EIO, 0);	/* failed: a line, an error */
	V(ibv_next_poll)(c);
	expect(F_ibv_next_poll, " cq=0x%lx ret=%d", p2u(c), EIO);
	count(F_ibv_next_poll, 1, 0);
	V(ibv_end_poll)(c);
	expect(F_ibv_end_poll, " cq=0x%lx", p2u(c));
	count(F_ibv_end_poll, 0, 0);
	answer(V_start_poll, ENOENT, 0);	/* an empty CQ */
	V(ibv_start_poll)(c, &attr);
	count(F_ibv_start_poll, 0, 0);
	/* refused */
	V(ibv_start_poll)(NULL, &attr);
	expect(F_ibv_start_poll, " cq=0x0 ret=22");
	count(F_ibv_start_poll, 1, 0);
	V(ibv_end_poll)(NULL);
	expect(F_ibv_end_poll, " cq=0x0");
	count(F_ibv_end_poll, 1, 0);
}

/* The control path: the object the call is on, the result (an object,
 * NULL with errno, an errno value, a count); the values. */
static void control(void)
{
	struct ibv_gid_entry gid[4];
	struct ibv_port_attr port;
	void *p;
	int ret, err;

	answer(V_create_cq_ex, 1, 0);
	p = V(ibv_create_cq_ex)(VCTX, &W.cq_attr);
	expect(F_ibv_create_cq_ex, " ctx=0x%lx ret=0x%lx", p2u(VCTX), p2u(&W.cqx));
	count(F_ibv_create_cq_ex, 0, 0);
	if (p != &W.cqx)
		FAIL("ibv_create_cq_ex did not return the fake's CQ");
	answer(V_create_cq_ex, 0, ENOMEM);
	p = V(ibv_create_cq_ex)(VCTX, &W.cq_attr);
	err = errno;
	expect(F_ibv_create_cq_ex, " ctx=0x%lx ret=NULL errno=12", p2u(VCTX));
	count(F_ibv_create_cq_ex, 1, 0);
	if (p || err != ENOMEM)
		FAIL("ibv_create_cq_ex: %p errno %d, want NULL ENOMEM", p, err);
	V(ibv_create_cq_ex)(NULL, &W.cq_attr);
	expect(F_ibv_create_cq_ex, " ctx=0x0 ret=NULL errno=22");
	count(F_ibv_create_cq_ex, 1, 0);

	answer(V_query_port, 0, 0);
	V(___ibv_query_port)(VCTX, 1, &port);
	expect(F____ibv_query_port, " ctx=0x%lx ret=0", p2u(VCTX));
	count(F____ibv_query_port, 0, 0);
	answer(V_query_port, ENODEV, 0);
	ret = V(___ibv_query_port)(VCTX, 1, &port);
	expect(F____ibv_query_port, " ctx=0x%lx ret=19", p2u(VCTX));
	count(F____ibv_query_port, 1, 0);
	if (ret != ENODEV)
		FAIL("___ibv_query_port returned %d, want ENODEV", ret);

	answer(V_alloc_td, 1, 0);
	p = V(ibv_alloc_td)(VCTX, &W.td_attr);
	expect(F_ibv_alloc_td, " ctx=0x%lx ret=0x%lx", p2u(VCTX), p2u(&W.td));
	count(F_ibv_alloc_td, p == NULL, 0);
	answer(V_alloc_td, 0, EOPNOTSUPP);
	V(ibv_alloc_td)(VCTX, &W.td_attr);
	expect(F_ibv_alloc_td, " ctx=0x%lx ret=NULL errno=95", p2u(VCTX));
	count(F_ibv_alloc_td, 1, 0);
	answer(V_dealloc_td, 0, 0);
	V(ibv_dealloc_td)(&W.td);
	expect(F_ibv_dealloc_td, " td=0x%lx ret=0", p2u(&W.td));
	count(F_ibv_dealloc_td, 0, 0);

	/* a registration: the MR and its keys */
	W.new_mr.lkey = 0x1234;
	W.new_mr.rkey = 0xabcd;
	answer(V_ibv_reg_mr, 1, 0);
	p = V(__ibv_reg_mr)(&W.pd, data, sizeof(data), IBV_ACCESS_LOCAL_WRITE, 1);
	expect(F___ibv_reg_mr, " pd=0x%lx addr=0x%lx length=%zu ret=0x%lx lkey=0x1234 rkey=0xabcd",
	       p2u(&W.pd), p2u(data), sizeof(data), p2u(&W.new_mr));
	count(F___ibv_reg_mr, p == NULL, p ? (long)sizeof(data) : 0);

	/* ssize_t: a count (0 too), or a negative errno value (errno
	 * untouched); four counts (two of them 0) and one failure, so that
	 * the errors tell which failed: 1, where taking 0 for the failure
	 * would count 2 */
	for (unsigned k = 0; k < 4; k++) {
		static const int entries[] = { 2, 0, 3, 0 };

		answer(V__ibv_query_gid_table, entries[k], 0);
		V(ibv_query_gid_table)(VCTX, gid, 4, 0);
		expect(F_ibv_query_gid_table, " ctx=0x%lx ret=%d", p2u(VCTX), entries[k]);
		count(F_ibv_query_gid_table, 0, 0);
	}
	answer(V__ibv_query_gid_table, -EINVAL, 0);
	V(ibv_query_gid_table)(VCTX, gid, 4, 0);
	expect(F_ibv_query_gid_table, " ctx=0x%lx ret=-22", p2u(VCTX));
	count(F_ibv_query_gid_table, 1, 0);

	/* the values: the argument and the result */
	V(ibv_inc_rkey)(0x12345678);
	expect(F_ibv_inc_rkey, " arg=0x12345678 ret=0x12345679");
	count(F_ibv_inc_rkey, 0, 0);
	V(ibv_inc_rkey)(0xabcdefff);	/* the tag wraps */
	expect(F_ibv_inc_rkey, " arg=0xabcdefff ret=0xabcdef00");
	count(F_ibv_inc_rkey, 0, 0);
	V(ibv_is_qpt_supported)(0x14, IBV_QPT_RC);	/* bit 2: yes, an int */
	expect(F_ibv_is_qpt_supported, " arg=0x14 ret=1");
	count(F_ibv_is_qpt_supported, 0, 0);
	V(ibv_flow_label_to_udp_sport)(0xfffff);	/* 0x3fff ^ 0x3f | 0xc000 */
	expect(F_ibv_flow_label_to_udp_sport, " arg=0xfffff ret=0xffc0");
	count(F_ibv_flow_label_to_udp_sport, 0, 0);
	V(ibv_cq_ex_to_cq)(&W.cqx);	/* the same address */
	expect(F_ibv_cq_ex_to_cq, " arg=0x%lx ret=0x%lx", p2u(&W.cqx), p2u(&W.cqx));
	count(F_ibv_cq_ex_to_cq, 0, 0);
}

static int child(const char *dir, int hold)
{
	char path[4200];
	int i;

	if (find_ours()) {
		fprintf(stderr, "verbs-trace: ours not found at RDMAVERBS_1.3\n");
		return 2;
	}
	vfake_init();
	vfake_script = &S;
	snprintf(path, sizeof(path), "%s/expected", dir);
	expected = fopen(path, "w");
	if (!expected)
		return 3;
	posts();
	polls();
	builders();
	extended_polls();
	control();
	fclose(expected);
	snprintf(path, sizeof(path), "%s/expected-stats", dir);
	expected = fopen(path, "w");
	if (!expected)
		return 3;
	for (i = 0; i < N_FN; i++) {
		char bytes[32];

		if (!counts[i].calls)
			continue;
		snprintf(bytes, sizeof(bytes), "%ld", counts[i].bytes);
		fprintf(expected, "%s %ld %s %ld -\n", names[i], counts[i].calls,
			counts[i].open ? "?" : bytes, counts[i].errors);
	}
	fclose(expected);
	if (hold) {	/* tell the parent, then wait for its word (EOF) */
		char c;

		if (write(1, "r", 1) != 1)
			return 5;
		while (read(0, &c, 1) > 0)
			;
	}
	return failures ? 4 : 0;
}

/* ---- the parent: run the child, compare ---- */

static char self[4096], dir[4096];

/* Runs "self child DIR" with `env` added (NULL ended), stderr to
 * DIR/stderr; its exit status. */
static int run(const char *const *env)
{
	char errpath[4200];
	pid_t pid;
	int st;

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
		execl(self, self, "child", dir, "run", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The lines of DIR/NAME (at most `max`), without their newlines; padding
 * lines (spaces only: rdmaverbs(7), "Trace file") skipped. */
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
		if (out[n][strspn(out[n], " ")] == '\n' || out[n][strspn(out[n], " ")] == 0)
			continue;
		out[n][strcspn(out[n], "\n")] = 0;
		n++;
	}
	fclose(f);
	return n;
}

static char got[1000][600], want[1000][600];

static double monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Takes " t=SECONDS.NANOSECONDS" (and the padding after it) out of `line`,
 * checking it is right after the name, has nine digits after the point,
 * is not before `*last` and lies within [from, to]. */
static int take_time(char *line, double *last, double from, double to)
{
	char *colon = strchr(line, ':'), *t = strstr(line, " t="), *end;
	double v;

	if (strncmp(line, "rdmaverbs[", 10) || !colon || !t || t < colon ||
	    strchr(colon + 2, ' ') != t)
		return 0;
	v = strtod(t + 3, &end);
	if (!strchr(t, '.') || end - strchr(t, '.') != 10 || (*end != ' ' && *end != 0) ||
	    v < *last || v < from - 1e-6 || v > to + 1e-6)
		return 0;
	*last = v;
	while (end[0] == ' ' && end[1] == ' ')
		end++;
	memmove(t, end, strlen(end) + 1);
	return 1;
}

/* Whether a row of the table matches an expected one, word by word; an
 * expected "?" matches any word (a value this test leaves open). */
static int row_matches(const char *row, const char *w)
{
	char a[5][64], b[5][64];
	int i;

	if (sscanf(row, "%63s %63s %63s %63s %63s", a[0], a[1], a[2], a[3], a[4]) != 5 ||
	    sscanf(w, "%63s %63s %63s %63s %63s", b[0], b[1], b[2], b[3], b[4]) != 5)
		return 0;
	for (i = 0; i < 5; i++)
		if (strcmp(b[i], "?") && strcmp(a[i], b[i]))
			return 0;
	return 1;
}

/* The table's columns (got[0..n)): the names' as wide as the longest name
 * shown plus a space, 20 at least; every row's calls (13 wide, right
 * aligned) ending where the header's "calls" ends. */
static void check_columns(const char *what, int n)
{
	const size_t pre = strlen("rdmaverbs: ");
	size_t w = 20, len, end;
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(got[i], "rdmaverbs: ibv_", 15) || !strncmp(got[i], "rdmaverbs: __", 13) ||
		    !strncmp(got[i], "rdmaverbs: rdma_", 16)) {
			len = strcspn(got[i] + pre, " ");
			if (len + 1 > w)
				w = len + 1;
		}
	end = pre + w + 13;
	for (i = 0; i < n; i++) {
		const char *l = got[i];

		if (strncmp(l, "rdmaverbs: function ", 20) && strncmp(l, "rdmaverbs: ibv_", 15) &&
		    strncmp(l, "rdmaverbs: __", 13) && strncmp(l, "rdmaverbs: rdma_", 16))
			continue;
		len = strcspn(l + pre, " ");
		if (strlen(l) <= end || l[end] != ' ' || l[end - 1] == ' ' ||
		    strspn(l + pre + len, " ") < w - len)
			FAIL("%s: the table's columns: \"%s\" (names %zu wide, calls ending at %zu)",
			     what, l, w, end);
	}
}

/* The exit table's rows in DIR/stderr against DIR/expected-stats: one
 * table, every row expected, every expected row there once. */
static void check_table(const char *what)
{
	static char seen[1000];
	int n = lines("stderr", got, 1000), m = lines("expected-stats", want, 1000), i, j;
	int rows = 0, heads = 0, before = failures;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		char name[64], c[32], b[32], e[32], k[32], row[600];

		heads += !strncmp(got[i], "rdmaverbs: calls of process ", 28);
		if (sscanf(got[i], "rdmaverbs: %63s %31s %31s %31s %31s", name, c, b, e, k) != 5 ||
		    !strcmp(name, "function") || !strcmp(name, "calls"))
			continue;
		snprintf(row, sizeof(row), "%s %s %s %s %s", name, c, b, e, k);
		for (j = 0; j < m && (seen[j] || !row_matches(row, want[j])); j++)
			;
		if (j == m)
			FAIL("%s: exit table row \"%s\" not expected", what, row);
		else
			seen[j] = 1;
		rows++;
	}
	for (j = 0; j < m; j++)
		if (!seen[j])
			FAIL("%s: no exit table row \"%s\"", what, want[j]);
	if (heads != 1)
		FAIL("%s: %d tables printed, want 1", what, heads);
	check_columns(what, n);
	if (failures == before)
		printf("verbs-trace: ok: %s: the exit table's %d rows (calls, bytes, errors) as "
		       "counted, in columns as wide as its longest name\n", what, rows);
}

static void check_traced(void)
{
	char tracevar[4200];
	const char *env[] = { tracevar, "RDMAVERBS_STATS=1", NULL };
	double from, to, last = 0;
	int n, m, i, rc;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/trace.log", dir);
	unlink(strchr(tracevar, '=') + 1);
	from = monotonic();
	rc = run(env);
	to = monotonic();
	if (rc) {
		FAIL("the traced child exited %d (see %s/stderr)", rc, dir);
		return;
	}
	n = lines("trace.log", got, 1000);
	m = lines("expected", want, 1000);
	if (n != m)
		FAIL("%d trace lines for %d expected", n, m);
	for (i = 0; i < n; i++) {
		if (!take_time(got[i], &last, from, to))
			FAIL("trace line %d: no t= after the name, or out of order or of the run: %s",
			     i + 1, got[i]);
		else if (i >= m || strcmp(got[i], want[i]))
			FAIL("trace line %d:\n  got  %s\n  want %s", i + 1, got[i], i < m ? want[i] : "");
	}
	if (!failures)
		printf("verbs-trace: ok: %d trace lines of the 1.3 exports (posts, polls, arming, "
		       "ibv_wr_*, the extended CQ, the control path, values, refusals), each field "
		       "as expected; none for an empty poll, ENOENT or the %d ibv_wc_read_* calls\n",
		       m, 16);
	check_table("traced and counted");
}

/* The counters file of a running child, as rdmaverbs-stat shows it: the
 * child, counting, makes its calls and waits; `stat -n 1 PID` must show
 * each row the exit table would (names up to 35 bytes long). */
static void check_counters_file(const char *stat)
{
	char run[4200], cmd[13000], path[4200];
	int ready[2], done[2], n, m, i, j, before = failures, st;
	FILE *f;
	pid_t pid;

	snprintf(run, sizeof(run), "%s/run", dir);
	mkdir(run, 0700);
	if (pipe(ready) || pipe(done))
		return;
	pid = fork();
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/stderr", dir);
		dup2(ready[1], 1);
		dup2(done[0], 0);
		close(ready[0]);
		close(done[1]);
		if (!freopen(path, "w", stderr))
			_exit(126);
		unsetenv("RDMAVERBS_TRACE");
		setenv("RDMAVERBS_STATS", "1", 1);
		setenv("XDG_RUNTIME_DIR", run, 1);
		default_signals();
		execl(self, self, "child", dir, "hold", (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], cmd, 1) != 1) {
		FAIL("counters file: the child did not get to its wait");
		close(done[1]);
		waitpid(pid, &st, 0);
		return;
	}
	snprintf(cmd, sizeof(cmd), "XDG_RUNTIME_DIR='%s' '%s' -n 1 %d > '%s/stat.out' 2>&1", run,
		 stat, (int)pid, dir);
	if (system(cmd))
		FAIL("counters file: %s failed", cmd);
	close(done[1]);
	waitpid(pid, &st, 0);
	close(ready[0]);
	m = lines("expected-stats", want, 1000);
	snprintf(path, sizeof(path), "%s/stat.out", dir);
	f = fopen(path, "r");
	n = 0;
	while (f && n < 1000 && fgets(got[n], 600, f)) {
		char name[64], c[32], rate[32], b[32], brate[32], e[32], k[32];

		if (sscanf(got[n], "%63s %31s %31s %31s %31s %31s %31s", name, c, rate, b, brate, e,
			   k) != 7 || !strcmp(name, "function") || !strcmp(name, "rdmaverbs-stat:"))
			continue;
		snprintf(got[n], 600, "%s %s %s %s %s", name, c, b, e, k);
		n++;
	}
	if (f)
		fclose(f);
	for (i = 0; i < n; i++) {
		for (j = 0; j < m && (!want[j][0] || !row_matches(got[i], want[j])); j++)
			;
		if (j == m)
			FAIL("counters file: rdmaverbs-stat's row \"%s\" not expected", got[i]);
		else
			want[j][0] = 0;
	}
	for (j = 0; j < m; j++)
		if (want[j][0])
			FAIL("counters file: rdmaverbs-stat has no row \"%s\"", want[j]);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("counters file: the child exited %d", st);
	if (failures == before)
		printf("verbs-trace: ok: the counters file of a running process: rdmaverbs-stat's %d "
		       "rows as counted (ibv_wc_read_completion_wallclock_ns among them)\n", n);
}

int main(int argc, char **argv)
{
	const char *counting[] = { "RDMAVERBS_STATS=1", NULL };

	if (argc == 4 && !strcmp(argv[1], "child"))
		return child(argv[2], !strcmp(argv[3], "hold"));
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s SCRATCH_DIR [RDMAVERBS_STAT]\n", argv[0]);
		return 2;
	}
	if (!realpath("/proc/self/exe", self) || !realpath(argv[1], dir)) {
		perror("verbs-trace: realpath");
		return 2;
	}
	check_traced();
	/* counting alone takes the counting path, not the watched one */
	if (run(counting))
		FAIL("the counting child failed");
	else
		check_table("counted alone");
	if (argc == 3)
		check_counters_file(argv[2]);
	/* nothing set: not a byte on stderr */
	if (run(NULL) || lines("stderr", got, 1000) != 0)
		FAIL("with nothing set, the child failed or the library wrote to stderr");
	else
		printf("verbs-trace: ok: nothing set: nothing written\n");
	printf("verbs-trace: %s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
