/*
 * verbs.c's exchange, the client's side: an extended QP, ibv_wr_* and two
 * extended CQs through the table (phases 1, 2 and 3).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "verbs.h"

void client(const char *addr, const char *port)
{
	static uint8_t rbuf[8][SLOT], sbuf[P1_N][SLOT], src[WIN], dst[WIN], win[WIN];
	static uint64_t ctr, results[3];
	struct rdma_addrinfo *res = resolve(addr, port, 0);
	struct rdma_cm_id *id;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq_init_attr_ex cattr;
	struct ibv_cq_ex *scq, *rcq;
	struct ibv_cq *rcq_cq;
	struct ibv_qp_init_attr_ex qattr;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_qp_cap cap;
	struct ibv_mr *rmr, *smr, *srcmr, *dmr, *wmr, *cmr, *xmr;
	struct ibv_recv_wr rwr[8], *bad_rwr;
	struct ibv_sge rsge[8], bad_sge[8];
	struct ibv_send_wr swr[4], *bad_swr;
	struct ibv_sge ssge[5];
	struct ibv_poll_cq_attr pattr = { 0 };
	struct rdma_conn_param param;
	struct comp c;
	struct keys mine, theirs;
	char inline_msg[128];
	int k, ret;

	CHECK(!rdma_create_ep(&id, res, NULL, NULL), "rdma_create_ep");
	ctx = id->verbs;
	check_atomics(ctx);
	CHECK((pd = ibv_alloc_pd(ctx)), "ibv_alloc_pd");
	CHECK((ch = ibv_create_comp_channel(ctx)), "ibv_create_comp_channel");

	/* What rxe refuses: a CQ flag, a send operation. */
	memset(&cattr, 0, sizeof(cattr));
	cattr.cqe = 32;
	cattr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	scq = v.ibv_create_cq_ex(ctx, &cattr);
	obs("ibv_create_cq_ex with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: %s, errno %s",
	    scq ? "a CQ" : "NULL", strerror(errno));
	if (scq)
		ibv_destroy_cq(v.ibv_cq_ex_to_cq(scq));
	/* the send CQ: byte_len and qp_num; the receive CQ: all rxe has
	 * (IBV_WC_STANDARD_FLAGS), on the channel */
	cattr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
	CHECK((scq = v.ibv_create_cq_ex(ctx, &cattr)), "ibv_create_cq_ex (send)");
	cattr.wc_flags = IBV_WC_STANDARD_FLAGS;
	cattr.channel = ch;
	CHECK((rcq = v.ibv_create_cq_ex(ctx, &cattr)), "ibv_create_cq_ex (receive)");
	rcq_cq = v.ibv_cq_ex_to_cq(rcq);
	CHECK(rcq_cq && v.ibv_cq_ex_to_cq(scq) && rcq_cq->context == ctx,
	      "ibv_cq_ex_to_cq");

	memset(&qattr, 0, sizeof(qattr));
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qattr.pd = pd;
	qattr.send_cq = v.ibv_cq_ex_to_cq(scq);
	qattr.recv_cq = rcq_cq;
	qattr.cap.max_send_wr = 32;
	qattr.cap.max_recv_wr = 16;
	qattr.cap.max_send_sge = qattr.cap.max_recv_sge = 2;
	qattr.cap.max_inline_data = 64;
	qattr.qp_type = IBV_QPT_RC;
	qattr.send_ops_flags = IBV_QP_EX_WITH_TSO;
	errno = 0;
	qp = v.ibv_create_qp_ex(ctx, &qattr);
	obs("ibv_create_qp_ex of an RC QP with IBV_QP_EX_WITH_TSO: %s, errno %s",
	    qp ? "a QP" : "NULL", strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	qattr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			       IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ |
			       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | QP_FLUSH;
	CHECK((qp = v.ibv_create_qp_ex(ctx, &qattr)), "ibv_create_qp_ex");
	CHECK((qpx = ibv_qp_to_qp_ex(qp)), "ibv_qp_to_qp_ex");
	cap = qp_cap(qp);
	obs("ibv_create_qp_ex made an extended RC QP: max_inline_data %u",
	    cap.max_inline_data);

	rmr = reg(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = reg(pd, sbuf, sizeof(sbuf), 0);
	srcmr = reg(pd, src, sizeof(src), 0);
	dmr = reg(pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE);
	wmr = reg(pd, win, sizeof(win),
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	cmr = reg(pd, &ctr, sizeof(ctr), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	xmr = reg(pd, results, sizeof(results), IBV_ACCESS_LOCAL_WRITE);
	ctr = C_INIT;
	fill(win + WIN / 2, WIN / 2, SOURCE_SEED, 0);	/* the server reads it */
	mine.win_addr = (uintptr_t)win;
	mine.win_rkey = wmr->rkey;
	mine.ctr_addr = (uintptr_t)&ctr;
	mine.ctr_rkey = cmr->rkey;
	modify(id, qp, IBV_QPS_INIT, "INIT");

	/* 8 receives: a chain whose second has one SGE too many posts the
	 * first only; then the other 7 */
	for (k = 0; k < 8; k++) {
		rsge[k] = (struct ibv_sge){ (uintptr_t)rbuf[k], SLOT, rmr->lkey };
		rwr[k].wr_id = CRECV_ID(k);
		rwr[k].sg_list = &rsge[k];
		rwr[k].num_sge = 1;
		rwr[k].next = k < 7 ? &rwr[k + 1] : NULL;
	}
	CHECK(cap.max_recv_sge < 8, "the QP takes %u SGEs", cap.max_recv_sge);
	for (k = 0; k < 8; k++)
		bad_sge[k] = rsge[0];
	{
		struct ibv_recv_wr bad = { .wr_id = 0xbad, .sg_list = bad_sge,
					   .num_sge = (int)cap.max_recv_sge + 1 };

		rwr[0].next = &bad;
		ret = v.ibv_post_recv(qp, &rwr[0], &bad_rwr);
		obs("ibv_post_recv of a chain whose 2nd has max_recv_sge+1 SGEs: returns %d (%s), "
		    "bad_wr is the 2nd: %s", ret, strerror(ret), bad_rwr == &bad ? "yes" : "no");
		CHECK(ret != 0 && bad_rwr == &bad, "ibv_post_recv took too many SGEs");
	}
	rwr[0].next = &rwr[1];
	CHECK(!v.ibv_post_recv(qp, &rwr[1], &bad_rwr), "ibv_post_recv of 7");
	CHECK(!v.ibv_req_notify_cq(rcq_cq, 1), "ibv_req_notify_cq(solicited only)");

	/* Connect: no QP on the id, so the reply is RDMA_CM_EVENT_CONNECT_RESPONSE
	 * and the QP is moved to RTS here, then rdma_establish. */
	connect_param(&param, qp, 0, &mine);
	CHECK(!rdma_connect(id, &param), "rdma_connect");
	CHECK(id->event, "no event after rdma_connect");
	obs("rdma_connect: %s", rdma_event_str(id->event->event));
	CHECK(id->event->event == RDMA_CM_EVENT_CONNECT_RESPONSE, "not a connect response");
	theirs = peer_keys(id->event);
	modify(id, qp, IBV_QPS_INIT, "INIT");
	modify(id, qp, IBV_QPS_RTR, "RTR");
	modify(id, qp, IBV_QPS_RTS, "RTS");
	CHECK(!rdma_establish(id), "rdma_establish");

	/* Inline data longer than the QP takes: ibv_wr_complete refuses the
	 * batch, nothing is posted. */
	CHECK(cap.max_inline_data < sizeof(inline_msg), "max_inline_data %u",
	      cap.max_inline_data);
	memset(inline_msg, 0, sizeof(inline_msg));
	v.ibv_wr_start(qpx);
	qpx->wr_id = 0xbad;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	v.ibv_wr_send(qpx);
	v.ibv_wr_set_inline_data(qpx, inline_msg, cap.max_inline_data + 1);
	ret = v.ibv_wr_complete(qpx);
	obs("ibv_wr_complete of inline data of max_inline_data+1 bytes: returns %d (%s)", ret,
	    strerror(ret));
	CHECK(ret != 0, "ibv_wr_complete took too much inline data");

	/* 1. 8 messages: 4 through ibv_post_send (one chain), 4 through ibv_wr_*. */
	for (k = 0; k < P1_N; k++)
		fill(sbuf[k], p1_size[k], P1_SEED(k), 0);
	memset(swr, 0, sizeof(swr));
	for (k = 0; k < 4; k++) {
		ssge[k] = (struct ibv_sge){ (uintptr_t)sbuf[k], p1_size[k], smr->lkey };
		swr[k].wr_id = P1_ID(k);
		swr[k].opcode = IBV_WR_SEND;
		swr[k].send_flags = IBV_SEND_SIGNALED;
		swr[k].sg_list = &ssge[k];
		swr[k].num_sge = 1;
		swr[k].next = k < 3 ? &swr[k + 1] : NULL;
	}
	/* 1: immediate data, gathered from two places (100 bytes, a gap, the rest) */
	memmove(sbuf[1] + 100 + GAP, sbuf[1] + 100, p1_size[1] - 100);
	ssge[1].length = 100;
	ssge[4] = (struct ibv_sge){ (uintptr_t)sbuf[1] + 100 + GAP, p1_size[1] - 100, smr->lkey };
	swr[1].num_sge = 2;
	{
		struct ibv_sge two[2] = { ssge[1], ssge[4] };

		swr[1].sg_list = two;
		swr[1].opcode = IBV_WR_SEND_WITH_IMM;
		swr[1].imm_data = htonl(P1_IMM(1));
		/* 2: inline, from memory that is not registered */
		memcpy(inline_msg, sbuf[2], p1_size[2]);
		ssge[2] = (struct ibv_sge){ (uintptr_t)inline_msg, p1_size[2], 0 };
		swr[2].send_flags |= IBV_SEND_INLINE;
		CHECK(!v.ibv_post_send(qp, &swr[0], &bad_swr), "ibv_post_send of 4");
	}
	v.ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = P1_ID(4);
	v.ibv_wr_send(qpx);
	v.ibv_wr_set_sge(qpx, smr->lkey, (uintptr_t)sbuf[4], p1_size[4]);
	qpx->wr_id = P1_ID(5);
	v.ibv_wr_send_imm(qpx, htonl(P1_IMM(5)));
	v.ibv_wr_set_sge(qpx, smr->lkey, (uintptr_t)sbuf[5], p1_size[5]);
	qpx->wr_id = P1_ID(6);
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	v.ibv_wr_send(qpx);
	v.ibv_wr_set_inline_data(qpx, sbuf[6], p1_size[6]);
	qpx->wr_id = P1_ID(7);
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	v.ibv_wr_send(qpx);
	{
		struct ibv_sge halves[2] = {
			{ (uintptr_t)sbuf[7], p1_size[7] / 2, smr->lkey },
			{ (uintptr_t)sbuf[7] + p1_size[7] / 2, p1_size[7] / 2, smr->lkey },
		};

		v.ibv_wr_set_sge_list(qpx, 2, halves);
		ret = v.ibv_wr_complete(qpx);
	}
	CHECK(ret == 0, "ibv_wr_complete of 4 sends returned %d", ret);
	for (k = 0; k < P1_N; k++) {
		next_ex(scq, &c, "phase 1 send");
		check_comp("phase 1 send", k, &c, P1_ID(k), IBV_WC_SEND, -1, qp->qp_num);
	}

	/* 2. The server's 6 messages, all there with the solicited last one's
	 * event: one ibv_start_poll, five ibv_next_poll, one ibv_end_poll. */
	wait_event(ch, rcq_cq, "phase 2, solicited");
	ret = v.ibv_start_poll(rcq, &pattr);
	CHECK(ret == 0, "ibv_start_poll after the event returned %d", ret);
	for (k = 0; k < P2_N; k++) {
		char what[32];

		if (k) {
			ret = v.ibv_next_poll(rcq);
			CHECK(ret == 0, "ibv_next_poll %d returned %d", k, ret);
		}
		snprintf(what, sizeof(what), "phase 2 receive %d", k);
		read_ex(rcq, &c, 1, what);
		check_comp("phase 2 receive", k, &c, CRECV_ID(k), IBV_WC_RECV, p2_size[k],
			   qp->qp_num);
		CHECK((k == 1) == !!(c.wc_flags & IBV_WC_WITH_IMM) &&
		      (k != 1 || c.imm == P2_IMM), "phase 2 receive %d: immediate data", k);
		expect(rbuf[k], p2_size[k], P2_SEED(k), 0, "phase 2 receive");
		verified(1, p2_size[k]);
	}
	v.ibv_end_poll(rcq);
	ret = v.ibv_start_poll(rcq, &pattr);
	obs("phase 2: ibv_start_poll on the emptied CQ returns %d (%s)", ret, strerror(ret));
	CHECK(ret == ENOENT, "a completion more");
	CHECK(!v.ibv_req_notify_cq(rcq_cq, 0), "ibv_req_notify_cq(any)");

	/* 3. One batch: write, read back, fetch-and-add, two compare-and-swaps. */
	fill(src, WIN, WRITE_SEED, 0);
	memset(dst, 0, sizeof(dst));
	memset(results, 0, sizeof(results));
	v.ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = OS_WRITE;
	v.ibv_wr_rdma_write(qpx, theirs.win_rkey, theirs.win_addr);
	v.ibv_wr_set_sge(qpx, srcmr->lkey, (uintptr_t)src, WIN);
	qpx->wr_id = OS_READ;
	v.ibv_wr_rdma_read(qpx, theirs.win_rkey, theirs.win_addr);
	v.ibv_wr_set_sge(qpx, dmr->lkey, (uintptr_t)dst, WIN);
	qpx->wr_id = OS_FADD;
	v.ibv_wr_atomic_fetch_add(qpx, theirs.ctr_rkey, theirs.ctr_addr, S_ADD);
	v.ibv_wr_set_sge(qpx, xmr->lkey, (uintptr_t)&results[0], 8);
	qpx->wr_id = OS_CAS;
	v.ibv_wr_atomic_cmp_swp(qpx, theirs.ctr_rkey, theirs.ctr_addr, S_INIT + S_ADD, S_SWAP);
	v.ibv_wr_set_sge(qpx, xmr->lkey, (uintptr_t)&results[1], 8);
	qpx->wr_id = OS_CAS_FAIL;	/* compares with a stale value: no swap */
	v.ibv_wr_atomic_cmp_swp(qpx, theirs.ctr_rkey, theirs.ctr_addr, S_INIT, 0xbad);
	v.ibv_wr_set_sge(qpx, xmr->lkey, (uintptr_t)&results[2], 8);
	ret = v.ibv_wr_complete(qpx);
	CHECK(ret == 0, "ibv_wr_complete of the one-sided batch returned %d", ret);
	{
		static const unsigned op[5] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
						IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
						IBV_WC_COMP_SWAP };
		static const long len[5] = { -1, WIN, 8, 8, 8 };

		for (k = 0; k < 5; k++) {
			next_ex(scq, &c, "phase 3");
			check_comp("phase 3", k, &c, OS_WRITE + k, op[k], len[k], qp->qp_num);
		}
	}
	expect(dst, WIN, WRITE_SEED, 0, "read back");
	verified(2, WIN);
	obs("phase 3: read back the %d bytes written; fetch-and-add returned %#llx, "
	    "compare-and-swap %#llx, the stale compare-and-swap %#llx", WIN,
	    (unsigned long long)results[0], (unsigned long long)results[1],
	    (unsigned long long)results[2]);
	CHECK(results[0] == S_INIT && results[1] == S_INIT + S_ADD && results[2] == S_SWAP,
	      "the atomics' old values");
	verified(3, 24);
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	/* 3b. The window written, flushed to global visibility (rdma-core 45). */
	v.ibv_wr_start(qpx);
	qpx->wr_id = OS_FLUSH;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	v.ibv_wr_flush(qpx, theirs.win_rkey, theirs.win_addr, WIN, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
	ret = v.ibv_wr_complete(qpx);
	CHECK(ret == 0, "ibv_wr_complete of the flush returned %d", ret);
	next_ex(scq, &c, "flush");
	check_comp("flush of the window", 0, &c, OS_FLUSH, IBV_WC_FLUSH, -1, qp->qp_num);
	verified(1, 0);
#endif
	memcpy(inline_msg, "DONE", 4);
	memset(inline_msg + 4, 0, 12);
	v.ibv_wr_start(qpx);
	qpx->wr_id = OS_DONE;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	v.ibv_wr_send(qpx);
	v.ibv_wr_set_inline_data(qpx, inline_msg, 16);
	CHECK(!v.ibv_wr_complete(qpx), "ibv_wr_complete of DONE");
	next_ex(scq, &c, "DONE");
	check_comp("DONE send", 0, &c, OS_DONE, IBV_WC_SEND, -1, qp->qp_num);

	/* 4. BYE, after the server's write, read and atomics. */
	wait_event(ch, rcq_cq, "BYE");
	ret = v.ibv_start_poll(rcq, &pattr);
	CHECK(ret == 0, "ibv_start_poll of BYE returned %d", ret);
	read_ex(rcq, &c, 1, "BYE receive");
	v.ibv_end_poll(rcq);
	check_comp("BYE receive", 0, &c, CRECV_ID(P2_N), IBV_WC_RECV, 4, qp->qp_num);
	CHECK(!memcmp(rbuf[P2_N], "BYE", 4), "BYE: the message");
	verified(1, 4);
	expect(win, WIN / 2, SINK_SEED, 0, "written by the server");
	verified(1, WIN / 2);
	obs("phase 4: the sink holds the %d bytes the server wrote; the counter %#llx", WIN / 2,
	    (unsigned long long)ctr);
	CHECK(ctr == C_SWAP, "the counter is %#llx", (unsigned long long)ctr);
	verified(1, 8);

	rdma_disconnect(id);
	CHECK(!ibv_destroy_qp(qp), "ibv_destroy_qp");
	CHECK(!ibv_destroy_cq(v.ibv_cq_ex_to_cq(scq)) && !ibv_destroy_cq(rcq_cq),
	      "ibv_destroy_cq");
	CHECK(!ibv_destroy_comp_channel(ch), "ibv_destroy_comp_channel");
	CHECK(!ibv_dereg_mr(rmr) && !ibv_dereg_mr(smr) && !ibv_dereg_mr(srcmr) &&
	      !ibv_dereg_mr(dmr) && !ibv_dereg_mr(wmr) && !ibv_dereg_mr(cmr) &&
	      !ibv_dereg_mr(xmr), "ibv_dereg_mr");
	CHECK(!ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
}
