/* opstrace's child (opstrace.h): every wrapped op, classic and extended,
 * called on the fake libibverbs, each trace line it should give and its own
 * count of each op written down for the parent ("ops"); or each op with the
 * trace on /dev/full, errno kept ("full"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fakeverbs.h"
#include "opstrace.h"
#include "traced-run.h"

static FILE *expected;

/* The ops, in the order of the exit table's rows checked. */
enum op {
	POST_SEND, POST_RECV, POST_SRQ_RECV, POLL_CQ, REQ_NOTIFY_CQ,
	WR_START, WR_SEND, WR_SEND_IMM, WR_RDMA_WRITE, WR_RDMA_WRITE_IMM, WR_RDMA_READ,
	WR_SET_SGE, WR_SET_SGE_LIST, WR_SET_INLINE_DATA, WR_COMPLETE, WR_ABORT,
	START_POLL, NEXT_POLL, END_POLL, N_OP
};
static const char *const op_name[N_OP] = {
	"ibv_post_send", "ibv_post_recv", "ibv_post_srq_recv", "ibv_poll_cq", "ibv_req_notify_cq",
	"ibv_wr_start", "ibv_wr_send", "ibv_wr_send_imm", "ibv_wr_rdma_write",
	"ibv_wr_rdma_write_imm", "ibv_wr_rdma_read", "ibv_wr_set_sge", "ibv_wr_set_sge_list",
	"ibv_wr_set_inline_data", "ibv_wr_complete", "ibv_wr_abort",
	"ibv_start_poll", "ibv_next_poll", "ibv_end_poll",
};
static struct { long calls, bytes, errors; } counts[N_OP];

/* One expected line: "rdmaverbs[TID]: NAME" and the fields. */
static void expect(enum op o, const char *fmt, ...)
{
	va_list ap;

	fprintf(expected, "rdmaverbs[%d]: %s", (int)gettid(), op_name[o]);
	va_start(ap, fmt);
	vfprintf(expected, fmt, ap);
	va_end(ap);
	fputc('\n', expected);
}

static void count(enum op o, int failed, long bytes)
{
	counts[o].calls++;
	counts[o].errors += failed;
	counts[o].bytes += bytes;
}

/* A completion as the trace shows it. */
static const char *wcf(const struct ibv_wc *wc)
{
	static char s[200];
	const char *status = wc->status == IBV_WC_SUCCESS ? "SUCCESS" :
			     wc->status == IBV_WC_WR_FLUSH_ERR ? "WR_FLUSH_ERR" : "REM_ACCESS_ERR";
	const char *opcode = wc->opcode == IBV_WC_RECV ? "RECV" :
			     wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM ? "RECV_RDMA_WITH_IMM" :
			     wc->opcode == IBV_WC_SEND ? "SEND" : "RDMA_READ";

	if (wc->status == IBV_WC_SUCCESS)
		snprintf(s, sizeof(s), " wr_id=0x%llx status=%s opcode=%s byte_len=%u",
			 (unsigned long long)wc->wr_id, status, opcode, wc->byte_len);
	else
		snprintf(s, sizeof(s), " wr_id=0x%llx status=%s vendor_err=0x%x",
			 (unsigned long long)wc->wr_id, status, wc->vendor_err);
	return s;
}

static long wc_bytes(const struct ibv_wc *wc)
{
	return wc->status == IBV_WC_SUCCESS && (wc->opcode & IBV_WC_RECV) ? wc->byte_len : 0;
}

static struct ibv_device dev;
static struct ibv_context *ctx;
static struct ibv_qp rc, ud;
static struct ibv_srq srq;
static struct ibv_cq cq;
static struct ibv_sge sges[4] = {
	{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 4096, 3 }, { 0x4000, 0xffffffffu, 4 },
};

/* The classic ops: chains of send and receive work requests, polls, arming. */
static void classic(void)
{
	struct ibv_send_wr s[3], *sbad;
	struct ibv_recv_wr r[2], *rbad;
	struct ibv_wc wc[4];
	struct ibv_ah *ah = (struct ibv_ah *)(uintptr_t)0xa4;
	int ret, i;

	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x51, .next = &s[1], .sg_list = sges, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	s[1] = (struct ibv_send_wr){ .wr_id = 0x52, .next = &s[2], .sg_list = &sges[2],
		.num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_FENCE };
	s[1].wr.rdma.remote_addr = 0xfeed0000;
	s[1].wr.rdma.rkey = 0x77;
	s[2] = (struct ibv_send_wr){ .wr_id = UINT64_MAX, .sg_list = &sges[3], .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ };
	s[2].wr.rdma.remote_addr = UINT64_MAX;
	s[2].wr.rdma.rkey = UINT32_MAX;
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {	/* succeeding, then failing */
		fakeverbs_script.post_ret = ret;
		ibv_post_send(&rc, s, &sbad);
		for (i = 0; i < 3; i++) {
			char bytes[40] = "";
			long b = 0;

			for (int k = 0; k < s[i].num_sge; k++)
				b += s[i].sg_list[k].length;
			if (!ret)
				snprintf(bytes, sizeof(bytes), " bytes=%ld", b);
			expect(POST_SEND, " qp=0x%lx qpn=%u wr_id=0x%llx opcode=%s nsge=%d%s flags=0x%x%s%s ret=%d",
			       p2u(&rc), rc.qp_num, (unsigned long long)s[i].wr_id,
			       i == 0 ? "SEND" : i == 1 ? "RDMA_WRITE" : "RDMA_READ", s[i].num_sge,
			       bytes, s[i].send_flags, i ? " remote_addr=0x" : "",
			       i == 1 ? "feed0000 rkey=0x77" : i == 2 ? "ffffffffffffffff rkey=0xffffffff" : "",
			       ret);
		}
		count(POST_SEND, ret != 0, ret ? 0 : 10 + 20 + 4096 + 0xffffffffL);
	}
	/* UD: the address handle and remote QP number; an immediate send */
	fakeverbs_script.post_ret = 0;
	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x61, .sg_list = sges, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED };
	s[0].wr.ud.ah = ah;
	s[0].wr.ud.remote_qpn = 0xffffff;
	ibv_post_send(&ud, s, &sbad);
	expect(POST_SEND, " qp=0x%lx qpn=%u wr_id=0x61 opcode=SEND_WITH_IMM nsge=1 bytes=10 flags=0xa "
	       "ah=0x%lx remote_qpn=16777215 ret=0", p2u(&ud), ud.qp_num, p2u(ah));
	count(POST_SEND, 0, 10);

	memset(r, 0, sizeof(r));
	r[0] = (struct ibv_recv_wr){ .wr_id = 0x71, .next = &r[1], .sg_list = &sges[2], .num_sge = 1 };
	r[1] = (struct ibv_recv_wr){ .wr_id = 0x72, .sg_list = sges, .num_sge = 2 };
	for (ret = 0; ret <= EAGAIN; ret += EAGAIN) {
		fakeverbs_script.post_ret = ret;
		ibv_post_recv(&rc, r, &rbad);
		if (ret) {
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x71 nsge=1 ret=%d", p2u(&rc), rc.qp_num, ret);
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x72 nsge=2 ret=%d", p2u(&rc), rc.qp_num, ret);
		} else {
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x71 nsge=1 bytes=4096 ret=0", p2u(&rc), rc.qp_num);
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x72 nsge=2 bytes=30 ret=0", p2u(&rc), rc.qp_num);
		}
		count(POST_RECV, ret != 0, ret ? 0 : 4126);
		ibv_post_srq_recv(&srq, &r[1], &rbad);
		if (ret)
			expect(POST_SRQ_RECV, " srq=0x%lx wr_id=0x72 nsge=2 ret=%d", p2u(&srq), ret);
		else
			expect(POST_SRQ_RECV, " srq=0x%lx wr_id=0x72 nsge=2 bytes=30 ret=0", p2u(&srq));
		count(POST_SRQ_RECV, ret != 0, ret ? 0 : 30);
	}

	/* four completions: two receives (counted), a send, a receive in error */
	fakeverbs_script.poll_ret = 4;
	memset(fakeverbs_script.wc, 0, sizeof(fakeverbs_script.wc));
	fakeverbs_script.wc[0] = (struct ibv_wc){ .wr_id = 0x71, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV, .byte_len = 100, .qp_num = 17 };
	fakeverbs_script.wc[1] = (struct ibv_wc){ .wr_id = 0x72, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .byte_len = 200, .qp_num = 18 };
	fakeverbs_script.wc[2] = (struct ibv_wc){ .wr_id = 0x51, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_SEND, .byte_len = 300, .qp_num = 17 };
	fakeverbs_script.wc[3] = (struct ibv_wc){ .wr_id = 0x73, .status = IBV_WC_WR_FLUSH_ERR,
		.opcode = IBV_WC_RECV, .byte_len = 400, .vendor_err = 0x11, .qp_num = 17 };
	ret = ibv_poll_cq(&cq, 4, wc);
	for (i = 0; i < 4; i++)
		expect(POLL_CQ, " cq=0x%lx ret=4 qpn=%u%s", p2u(&cq), wc[i].qp_num, wcf(&wc[i]));
	count(POLL_CQ, 0, wc_bytes(&wc[0]) + wc_bytes(&wc[1]) + wc_bytes(&wc[2]) + wc_bytes(&wc[3]));
	fakeverbs_script.poll_ret = 0;	/* nothing: counted, not traced */
	ibv_poll_cq(&cq, 4, wc);
	count(POLL_CQ, 0, 0);
	fakeverbs_script.poll_ret = -2;
	ibv_poll_cq(&cq, 4, wc);
	expect(POLL_CQ, " cq=0x%lx ret=-2", p2u(&cq));
	count(POLL_CQ, 1, 0);
	for (ret = 0; ret <= EINVAL; ret += EINVAL) {
		fakeverbs_script.notify_ret = ret;
		ibv_req_notify_cq(&cq, 0);
		expect(REQ_NOTIFY_CQ, " cq=0x%lx ret=%d", p2u(&cq), ret);
		count(REQ_NOTIFY_CQ, ret != 0, 0);
	}
}

/* The extended QP's builders and the extended CQ's polls. */
static int extended(void)
{
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct ibv_cq_init_attr_ex ca = { .cqe = 16 };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_qp_ex *x;
	struct ibv_cq_ex *c;
	struct ibv_qp *qp;
	char inl[33];
	int i, ret;

	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	qp = ibv_create_qp_ex(ctx, &qa);
	c = ibv_create_cq_ex(ctx, &ca);
	if (!qp || !c)
		return 1;
	x = ibv_qp_to_qp_ex(qp);
#define QP " qp=0x%lx qpn=%u"
#define Q p2u(x), qp->qp_num
	ibv_wr_start(x);
	expect(WR_START, QP, Q);
	count(WR_START, 0, 0);
	x->wr_id = 0x81;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	expect(WR_SEND, QP " wr_id=0x81 flags=0x2", Q);
	count(WR_SEND, 0, 0);
	x->wr_id = 0x82;
	ibv_wr_send_imm(x, 0x12345678);
	expect(WR_SEND_IMM, QP " wr_id=0x82 flags=0x2", Q);
	count(WR_SEND_IMM, 0, 0);
	x->wr_id = 0x83;
	x->wr_flags = IBV_SEND_FENCE;
	ibv_wr_rdma_write(x, 0x99, 0xabc000);
	expect(WR_RDMA_WRITE, QP " wr_id=0x83 flags=0x1 remote_addr=0xabc000 rkey=0x99", Q);
	count(WR_RDMA_WRITE, 0, 0);
	x->wr_id = 0x84;
	ibv_wr_rdma_write_imm(x, 0x98, 0xabd000, 7);
	expect(WR_RDMA_WRITE_IMM, QP " wr_id=0x84 flags=0x1 remote_addr=0xabd000 rkey=0x98", Q);
	count(WR_RDMA_WRITE_IMM, 0, 0);
	x->wr_id = 0x85;
	x->wr_flags = 0;
	ibv_wr_rdma_read(x, UINT32_MAX, UINT64_MAX);
	expect(WR_RDMA_READ, QP " wr_id=0x85 flags=0x0 remote_addr=0xffffffffffffffff rkey=0xffffffff", Q);
	count(WR_RDMA_READ, 0, 0);
	ibv_wr_set_sge(x, 0x5, 0x6000, 123);
	expect(WR_SET_SGE, QP " lkey=0x5 addr=0x6000 length=123", Q);
	count(WR_SET_SGE, 0, 123);
	ibv_wr_set_sge_list(x, 2, sges);
	expect(WR_SET_SGE_LIST, QP " nsge=2 bytes=30", Q);
	count(WR_SET_SGE_LIST, 0, 30);
	ibv_wr_set_inline_data(x, inl, sizeof(inl));
	expect(WR_SET_INLINE_DATA, QP " addr=0x%lx length=33", Q, p2u(inl));
	count(WR_SET_INLINE_DATA, 0, 33);
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {
		fakeverbs_script.complete_ret = ret;
		if (ibv_wr_complete(x) != ret)
			return 2;
		expect(WR_COMPLETE, QP " ret=%d", Q, ret);
		count(WR_COMPLETE, ret != 0, 0);
	}
	ibv_wr_start(x);
	expect(WR_START, QP, Q);
	count(WR_START, 0, 0);
	ibv_wr_abort(x);
	expect(WR_ABORT, QP, Q);
	count(WR_ABORT, 0, 0);

	/* three completions: a receive, one in error, an immediate receive */
	fakeverbs_script.nex = 3;
	fakeverbs_script.ex[0] = (struct ibv_wc){ .wr_id = 0x91, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV, .byte_len = 64 };
	fakeverbs_script.ex[1] = (struct ibv_wc){ .wr_id = 0x92, .status = IBV_WC_REM_ACCESS_ERR,
		.vendor_err = 0x33 };
	fakeverbs_script.ex[2] = (struct ibv_wc){ .wr_id = 0x93, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .byte_len = 1000 };
	if (ibv_start_poll(c, &pa))
		return 3;
	expect(START_POLL, " cq=0x%lx ret=0%s", p2u(c), wcf(&fakeverbs_script.ex[0]));
	count(START_POLL, 0, 64);
	for (i = 1; i < 3; i++) {
		if (ibv_next_poll(c))
			return 4;
		expect(NEXT_POLL, " cq=0x%lx ret=0%s", p2u(c), wcf(&fakeverbs_script.ex[i]));
		count(NEXT_POLL, 0, i == 2 ? 1000 : 0);
	}
	if (ibv_next_poll(c) != ENOENT)	/* none left: counted, not traced */
		return 5;
	count(NEXT_POLL, 0, 0);
	ibv_end_poll(c);
	expect(END_POLL, " cq=0x%lx", p2u(c));
	count(END_POLL, 0, 0);
	if (ibv_start_poll(c, &pa) != ENOENT)	/* an empty CQ */
		return 6;
	count(START_POLL, 0, 0);
	if (ibv_destroy_qp(qp) || ibv_destroy_cq(ibv_cq_ex_to_cq(c)))
		return 7;
	return 0;
}

int opstrace_child(const char *dir, const char *mode)
{
	char path[4096];
	int i;

	fakeverbs_scripted = 1;
	ctx = ibv_open_device(&dev);
	if (!ctx)
		return 10;
	rc.context = ud.context = srq.context = cq.context = ctx;
	rc.qp_num = 17;
	rc.qp_type = IBV_QPT_RC;
	ud.qp_num = 4660;
	ud.qp_type = IBV_QPT_UD;
	if (!strcmp(mode, "full")) {	/* each op leaves errno as it was */
		struct ibv_send_wr s = { .wr_id = 1, .sg_list = sges, .num_sge = 1 }, *bad;
		struct ibv_wc wc[4];

		fakeverbs_script.poll_ret = 1;
		errno = 1234;
		ibv_post_send(&rc, &s, &bad);
		i = errno == 1234;
		fakeverbs_script.post_ret = ENOMEM;
		ibv_post_send(&rc, &s, &bad);
		i &= errno == 1234;
		errno = 4321;
		ibv_poll_cq(&cq, 1, wc);
		i &= errno == 4321;
		ibv_close_device(ctx);
		return i ? 0 : 11;
	}
	snprintf(path, sizeof(path), "%s/expected", dir);
	expected = fopen(path, "w");
	if (!expected)
		return 12;
	classic();
	if ((i = extended()))
		return 20 + i;
	fclose(expected);
	ibv_close_device(ctx);
	if (fakeverbs_calls.closed_wrapped || fakeverbs_calls.destroyed_wrapped)
		return 13;	/* an op was not put back before the close or destroy */
	snprintf(path, sizeof(path), "%s/expected-stats", dir);
	expected = fopen(path, "w");
	for (i = 0; i < N_OP; i++)
		fprintf(expected, "%s %ld %ld %ld -\n", op_name[i], counts[i].calls, counts[i].bytes,
			counts[i].errors);
	fclose(expected);
	return 0;
}
