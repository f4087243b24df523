/*
 * The verbs-trace child's posts and polls: ibv_post_send, ibv_post_recv,
 * ibv_post_srq_recv, ibv_post_wq_recv and ibv_post_srq_ops (a line per
 * work request of a chain, or per call), ibv_poll_cq (a line per
 * completion, none for an empty poll) and ibv_req_notify_cq, each with its
 * lines and counts (verbs-trace-shared.h); refusals too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "verbs-trace-shared.h"

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

/* ibv_post_send, ibv_post_recv, ibv_post_srq_recv: a line per work request
 * of the chain; ibv_post_wq_recv, ibv_post_srq_ops: a line per call. */
void posts(void)
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
void polls(void)
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
