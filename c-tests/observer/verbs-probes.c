/*
 * The USDT probes' arguments of RDMAVERBS_1.3, as probes.c checks those of
 * the other exports: a library built with the cargo feature c-tests (make
 * mutants) writes each firing, "NAME a0 a1 a2 a3 a4 a5", to the
 * descriptor RDMAVERBS_TEST_PROBES names, attached at load as a tracer
 * attaches. Ours, by dlvsym(..., "RDMAVERBS_1.3"), on the fake of vfake.h:
 * a post of a chain (a firing per work request), a failed post, receives,
 * polls (a firing per completion, none for an empty poll, one for a failed
 * poll), arming, an ibv_wr_* opcode call and a setter, ibv_wr_complete, the
 * extended CQ's polls (a firing for ENOENT too, which has no trace line),
 * readers (the value read), ibv_end_poll, control-path calls (the object,
 * the result), a value, a refused call; each argument checked.
 *
 * Usage: verbs-probes FILE [--must]
 * (re-executes itself with RDMAVERBS_TEST_PROBES=9, descriptor 9 on FILE).
 * A library built without the feature writes nothing: skipped, unless
 * --must (make test-mutant, where the library is built with it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs-ours.h"
#include "probe-records.h"

static struct vscript S;

static void answer(int op, int64_t ret, int err)
{
	S.a[op].ret = ret;
	S.a[op].err = err;
}

/* ibv_poll_cq's op: these completions (the fake's own writes bytes made
 * from a seed). */
static struct ibv_wc polled[2];
static int poll_answer;

static int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	for (i = 0; i < poll_answer && i < n && i < 2; i++)
		wc[i] = polled[i];
	return poll_answer;
}

/* The calls; then the firings they must have made, in order. */
static void calls(void)
{
	struct ibv_sge sge[3] = { { 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 4096, 3 } };
	struct ibv_send_wr s[2], *sbad;
	struct ibv_recv_wr r = { .wr_id = 0x21, .sg_list = &sge[2], .num_sge = 1 }, *rbad;
	struct ibv_poll_cq_attr attr = { 0 };
	struct ibv_port_attr port;
	struct ibv_gid_entry gid[4];
	struct ibv_wc wc[2];

	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x11, .next = &s[1], .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND };
	s[1] = (struct ibv_send_wr){ .wr_id = 0x12, .sg_list = &sge[2], .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE };
	V(ibv_post_send)(&W.qp, s, &sbad);
	answer(V_post_send, ENOMEM, 0);
	s[1].wr_id = 0x13;
	V(ibv_post_send)(&W.qp, &s[1], &sbad);
	V(ibv_post_recv)(&W.qp, &r, &rbad);
	V(ibv_post_srq_recv)(&W.srq, &r, &rbad);

	VCTX->ops.poll_cq = poll_cq;
	polled[0] = (struct ibv_wc){ .wr_id = 0x31, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
		.byte_len = 100 };
	polled[1] = (struct ibv_wc){ .wr_id = 0x32, .status = IBV_WC_REM_ACCESS_ERR,
		.opcode = IBV_WC_RECV, .byte_len = 500 };
	poll_answer = 2;
	V(ibv_poll_cq)(&W.cq, 2, wc);
	poll_answer = 0;
	V(ibv_poll_cq)(&W.cq, 2, wc);
	poll_answer = -2;
	V(ibv_poll_cq)(&W.cq, 2, wc);
	V(ibv_req_notify_cq)(&W.cq, 1);

	W.qpx.wr_id = 0x41;
	W.qpx.wr_flags = IBV_SEND_SIGNALED;
	V(ibv_wr_rdma_write)(&W.qpx, 0x99, 0xabc000);
	V(ibv_wr_set_sge)(&W.qpx, 0x5, 0x6000, 123);
	answer(V_wr_complete, EINVAL, 0);
	V(ibv_wr_complete)(&W.qpx);

	W.cqx.wr_id = 0x51;
	W.cqx.status = IBV_WC_SUCCESS;
	answer(V_read_opcode, IBV_WC_RECV, 0);
	answer(V_read_byte_len, 64, 0);
	V(ibv_start_poll)(&W.cqx, &attr);
	V(ibv_wc_read_byte_len)(&W.cqx);
	V(ibv_wc_read_opcode)(&W.cqx);
	answer(V_next_poll, ENOENT, 0);
	V(ibv_next_poll)(&W.cqx);
	V(ibv_end_poll)(&W.cqx);

	answer(V_create_cq_ex, 1, 0);
	V(ibv_create_cq_ex)(VCTX, &W.cq_attr);
	answer(V_create_cq_ex, 0, ENOMEM);
	V(ibv_create_cq_ex)(VCTX, &W.cq_attr);
	answer(V_query_port, ENODEV, 0);
	V(___ibv_query_port)(VCTX, 1, &port);
	V(ibv_inc_rkey)(0x12345678);
	V(ibv_post_send)(NULL, s, &sbad);
	answer(V__ibv_query_gid_table, 2, 0);
	V(ibv_query_gid_table)(VCTX, gid, 4, 0);
	answer(V__ibv_query_gid_table, -EINVAL, 0);
	V(ibv_query_gid_table)(VCTX, gid, 4, 0);
	V(ibv_wr_start)(NULL);
}

static void firings(void)
{
	long qp = L(&W.qp), cq = L(&W.cq), x = L(&W.qpx), c = L(&W.cqx), ctx = L(VCTX);

	/* posts, a firing per work request: the QP (or SRQ), wr_id, the
	 * IBV_WR_* opcode (-1 a receive), the SGEs, the bytes, the result */
	expect("send of a chain, first", "ibv_post_send", qp, 0x11, IBV_WR_SEND, 2, 30, 0);
	expect("send of a chain, second", "ibv_post_send", qp, 0x12, IBV_WR_RDMA_WRITE, 1, 4096, 0);
	expect("failed send", "ibv_post_send", qp, 0x13, IBV_WR_RDMA_WRITE, 1, 0, ENOMEM);
	expect("recv", "ibv_post_recv", qp, 0x21, -1, 1, 4096, 0);
	expect("srq recv", "ibv_post_srq_recv", L(&W.srq), 0x21, -1, 1, 4096, 0);
	/* completions, a firing each: the CQ, wr_id, status, the IBV_WC_*
	 * opcode (-1 in error), the bytes (0 in error), the result; none for
	 * the empty poll, one for the failed one */
	expect("completion", "ibv_poll_cq", cq, 0x31, IBV_WC_SUCCESS, IBV_WC_RECV, 100, 2);
	expect("completion in error", "ibv_poll_cq", cq, 0x32, IBV_WC_REM_ACCESS_ERR, -1, 0, 2);
	expect("failed poll", "ibv_poll_cq", cq, 0, 0, 0, 0, -2);
	expect("arming", "ibv_req_notify_cq", cq, 0, 0, 0, 0, 0);
	/* the extended QP: wr_id, opcode, flags, remote address and key; an
	 * SGE; the batch's result */
	expect("wr opcode", "ibv_wr_rdma_write", x, 0x41, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED,
	       0xabc000, 0x99);
	expect("wr sge", "ibv_wr_set_sge", x, 0x5, 0x6000, 123, 0, 0);
	expect("wr complete", "ibv_wr_complete", x, 0, 0, 0, 0, EINVAL);
	/* the extended CQ: the completion found; each read, the value read;
	 * ENOENT fires (with no trace line); the end */
	expect("start poll", "ibv_start_poll", c, 0x51, IBV_WC_SUCCESS, IBV_WC_RECV, 64, 0);
	expect("read byte_len", "ibv_wc_read_byte_len", c, 64, 0, 0, 0, 0);
	expect("read opcode", "ibv_wc_read_opcode", c, IBV_WC_RECV, 0, 0, 0, 0);
	expect("next poll, none", "ibv_next_poll", c, 0, 0, 0, 0, ENOENT);
	expect("end poll", "ibv_end_poll", c, 0, 0, 0, 0, 0);
	/* the control path: the object, then the result (the object made, 0
	 * for NULL; an errno value) */
	expect("create cq ex", "ibv_create_cq_ex", ctx, 0, 0, 0, 0, c);
	expect("failed create cq ex", "ibv_create_cq_ex", ctx, 0, 0, 0, 0, 0);
	expect("query port", "___ibv_query_port", ctx, 0, 0, 0, 0, ENODEV);
	expect("value", "ibv_inc_rkey", 0x12345678, 0, 0, 0, 0, 0x12345679);
	expect("refused send", "ibv_post_send", 0, 0, 0, 0, 0, EINVAL);
	/* ssize_t: the count, or minus the errno value; a refused void call: 0 */
	expect("gid table", "ibv_query_gid_table", ctx, 0, 0, 0, 0, 2);
	expect("failed gid table", "ibv_query_gid_table", ctx, 0, 0, 0, 0, -EINVAL);
	expect("refused void", "ibv_wr_start", 0, 0, 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
	int ret, must = argc == 3 && !strcmp(argv[2], "--must");

	if ((ret = probes_start("verbs-probes", argc, argv)) != -1)
		return ret;
	if (find_ours()) {
		fprintf(stderr, "verbs-probes: ours not found at RDMAVERBS_1.3\n");
		return 2;
	}
	vfake_init();
	vfake_script = &S;
	calls();
	if ((ret = probes_records(must)) != -1)
		return ret;
	firings();
	return probes_end("firings of RDMAVERBS_1.3");
}
