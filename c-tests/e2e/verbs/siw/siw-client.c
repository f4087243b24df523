/*
 * siw-verbs.c's exchange, the client's side: its receives and a CQ armed
 * for any completion, through the table (phases 1, 2 and 3).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "siw-verbs.h"

void client(const char *addr, const char *port)
{
	static uint8_t rbuf[8][SLOT], sbuf[P1_N][SLOT], src[WIN], dst[WIN], win[WIN];
	struct rdma_addrinfo *res = resolve(addr, port, 0);
	struct rdma_cm_id *id;
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq_init_attr_ex cattr;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp_init_attr_ex qattr;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	struct ibv_mr *rmr, *smr, *srcmr, *dmr, *wmr;
	struct ibv_recv_wr rwr[8], *bad_rwr;
	struct ibv_sge rsge[8], bad_sge[8];
	struct ibv_send_wr swr[P1_N], *bad_swr;
	struct ibv_sge ssge[P1_N];
	struct ibv_wc wc[16];
	struct rdma_conn_param param;
	struct keys mine, theirs;
	char inline_msg[128];
	int k, n, ret;

	CHECK(!rdma_create_ep(&id, res, NULL, NULL), "rdma_create_ep");
	ctx = id->verbs;
	da = device(ctx);
	CHECK((pd = ibv_alloc_pd(ctx)), "ibv_alloc_pd");
	CHECK((ch = ibv_create_comp_channel(ctx)), "ibv_create_comp_channel");

	/* No extended CQ or QP in rdma-core's siw provider. */
	memset(&cattr, 0, sizeof(cattr));
	cattr.cqe = 32;
	cattr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
	errno = 0;
	cqx = v.ibv_create_cq_ex(ctx, &cattr);
	obs("ibv_create_cq_ex: %s, errno %s", cqx ? "a CQ" : "NULL", strerror(errno));
	CHECK(!cqx, "siw made an extended CQ");
	CHECK((scq = ibv_create_cq(ctx, 16, NULL, NULL, 0)), "ibv_create_cq (send)");
	CHECK((rcq = ibv_create_cq(ctx, 16, NULL, ch, 0)), "ibv_create_cq (receive)");
	memset(&qattr, 0, sizeof(qattr));
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qattr.pd = pd;
	qattr.send_cq = scq;
	qattr.recv_cq = rcq;
	qattr.cap.max_send_wr = 32;
	qattr.cap.max_recv_wr = 16;
	qattr.cap.max_send_sge = qattr.cap.max_recv_sge = 2;
	qattr.cap.max_inline_data = 64;
	qattr.qp_type = IBV_QPT_RC;
	qattr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			       IBV_QP_EX_WITH_RDMA_READ;
	errno = 0;
	qp = v.ibv_create_qp_ex(ctx, &qattr);
	obs("ibv_create_qp_ex of an extended RC QP (send, write, read): %s, errno %s",
	    qp ? "a QP" : "NULL", strerror(errno));
	CHECK(!qp, "siw made an extended QP");
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD;
	CHECK((qp = v.ibv_create_qp_ex(ctx, &qattr)), "ibv_create_qp_ex (PD only)");
	obs("ibv_qp_to_qp_ex of it: %s", ibv_qp_to_qp_ex(qp) ? "an extended QP" : "NULL");
	cap = qp_cap(qp);
	obs("ibv_create_qp_ex (PD only) made an RC QP: max_recv_sge %u, max_inline_data %u",
	    cap.max_recv_sge, cap.max_inline_data);

	rmr = reg(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = reg(pd, sbuf, sizeof(sbuf), 0);
	srcmr = reg(pd, src, sizeof(src), 0);
	dmr = reg(pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE);
	wmr = reg(pd, win, sizeof(win),
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	fill(win + WIN / 2, WIN / 2, SOURCE_SEED, 0);	/* the server reads it */
	mine.win_addr = (uintptr_t)win;
	mine.win_rkey = wmr->rkey;
	mine.pad = 0;
	to_init(id, qp);

	/* 8 receives: a chain whose second has one SGE more than the device
	 * takes posts the first only; one with no SGE is refused too; then
	 * the other 7. */
	for (k = 0; k < 8; k++) {
		rsge[k] = (struct ibv_sge){ (uintptr_t)rbuf[k], SLOT, rmr->lkey };
		rwr[k].wr_id = CRECV_ID(k);
		rwr[k].sg_list = &rsge[k];
		rwr[k].num_sge = 1;
		rwr[k].next = k < 7 ? &rwr[k + 1] : NULL;
	}
	for (k = 0; k < 8; k++)
		bad_sge[k] = rsge[0];
	{
		struct ibv_recv_wr bad = { .wr_id = 0xbad, .sg_list = bad_sge,
					   .num_sge = da.max_sge + 1 };

		rwr[0].next = &bad;
		ret = v.ibv_post_recv(qp, &rwr[0], &bad_rwr);
		obs("ibv_post_recv of a chain whose 2nd has max_sge+1 SGEs: returns %d (%s), "
		    "bad_wr is the 2nd: %s", ret, strerror(ret), bad_rwr == &bad ? "yes" : "no");
		CHECK(ret != 0 && bad_rwr == &bad, "ibv_post_recv took too many SGEs");
		bad.num_sge = 0;
		bad_rwr = NULL;
		ret = v.ibv_post_recv(qp, &bad, &bad_rwr);
		obs("ibv_post_recv of a receive with no SGE: returns %d (%s), bad_wr is it: %s",
		    ret, strerror(ret), bad_rwr == &bad ? "yes" : "no");
		CHECK(ret != 0 && bad_rwr == &bad, "ibv_post_recv took a receive with no SGE");
	}
	rwr[0].next = &rwr[1];
	CHECK(!v.ibv_post_recv(qp, &rwr[1], &bad_rwr), "ibv_post_recv of 7");
	CHECK(!v.ibv_req_notify_cq(rcq, 0), "ibv_req_notify_cq(any)");

	/* Connect: on iWARP the event is ESTABLISHED, the QP in RTS. */
	connect_param(&param, qp, 0, &mine);
	CHECK(!rdma_connect(id, &param), "rdma_connect");
	CHECK(id->event, "no event after rdma_connect");
	obs("rdma_connect: %s", rdma_event_str(id->event->event));
	CHECK(id->event->event == RDMA_CM_EVENT_ESTABLISHED, "not established");
	theirs = peer_keys(id->event);
	qp_state(qp, "after rdma_connect");

	/* 1. 8 messages, one ibv_post_send chain. */
	memset(swr, 0, sizeof(swr));
	for (k = 0; k < P1_N; k++) {
		fill(sbuf[k], p1_size[k], P1_SEED(k), 0);
		ssge[k] = (struct ibv_sge){ (uintptr_t)sbuf[k], p1_size[k], smr->lkey };
		swr[k].wr_id = P1_ID(k);
		swr[k].opcode = IBV_WR_SEND;
		swr[k].send_flags = IBV_SEND_SIGNALED;
		swr[k].sg_list = &ssge[k];
		swr[k].num_sge = 1;
		swr[k].next = k < P1_N - 1 ? &swr[k + 1] : NULL;
	}
	{
		/* 1: gathered from two places (100 bytes, a gap, the rest); 7: two
		 * equal halves; 2 and 6 inline, from memory not registered */
		struct ibv_sge two[2] = {
			{ (uintptr_t)sbuf[1], 100, smr->lkey },
			{ (uintptr_t)sbuf[1] + 100 + GAP, p1_size[1] - 100, smr->lkey },
		};
		struct ibv_sge halves[2] = {
			{ (uintptr_t)sbuf[7], p1_size[7] / 2, smr->lkey },
			{ (uintptr_t)sbuf[7] + p1_size[7] / 2, p1_size[7] / 2, smr->lkey },
		};
		char inline6[64];

		memmove(sbuf[1] + 100 + GAP, sbuf[1] + 100, p1_size[1] - 100);
		swr[1].sg_list = two;
		swr[1].num_sge = 2;
		swr[7].sg_list = halves;
		swr[7].num_sge = 2;
		swr[7].send_flags |= IBV_SEND_SOLICITED;
		memcpy(inline_msg, sbuf[2], p1_size[2]);
		ssge[2] = (struct ibv_sge){ (uintptr_t)inline_msg, p1_size[2], 0 };
		swr[2].send_flags |= IBV_SEND_INLINE;
		memcpy(inline6, sbuf[6], p1_size[6]);
		ssge[6] = (struct ibv_sge){ (uintptr_t)inline6, p1_size[6], 0 };
		swr[6].send_flags |= IBV_SEND_INLINE;
		CHECK(!v.ibv_post_send(qp, &swr[0], &bad_swr), "ibv_post_send of 8");
		reap(scq, P1_N, wc, "phase 1 sends");
	}
	for (k = 0; k < P1_N; k++)
		check_wc("phase 1 send", k, &wc[k], P1_ID(k), IBV_WC_SEND, -1, qp->qp_num);

	/* 2. The server's 6: the event (of the first), then polled. */
	wait_event(ch, rcq, "phase 2, any");
	reap(rcq, P2_N, wc, "phase 2 receives");
	for (k = 0; k < P2_N; k++) {
		check_wc("phase 2 receive", k, &wc[k], CRECV_ID(k), IBV_WC_RECV, p2_size[k],
			 qp->qp_num);
		expect(rbuf[k], p2_size[k], P2_SEED(k), 0, "phase 2 receive");
		verified(1, p2_size[k]);
	}
	n = v.ibv_poll_cq(rcq, 8, &wc[P2_N]);
	obs("phase 2: ibv_poll_cq again returns %d", n);
	CHECK(n == 0, "a completion more");
	CHECK(!v.ibv_req_notify_cq(rcq, 0), "ibv_req_notify_cq(any)");

	/* 3. A write into the server's window, read back; DONE inline. */
	fill(src, WIN, WRITE_SEED, 0);
	memset(dst, 0, sizeof(dst));
	memset(swr, 0, sizeof(swr));
	ssge[0] = (struct ibv_sge){ (uintptr_t)src, WIN, srcmr->lkey };
	ssge[1] = (struct ibv_sge){ (uintptr_t)dst, WIN, dmr->lkey };
	memcpy(inline_msg, "DONE", 4);
	memset(inline_msg + 4, 0, 12);
	ssge[2] = (struct ibv_sge){ (uintptr_t)inline_msg, 16, 0 };
	for (k = 0; k < 3; k++) {
		swr[k].wr_id = OS_WRITE + k;
		swr[k].send_flags = IBV_SEND_SIGNALED;
		swr[k].sg_list = &ssge[k];
		swr[k].num_sge = 1;
		swr[k].next = k < 1 ? &swr[k + 1] : NULL;	/* DONE posted after */
	}
	swr[0].opcode = IBV_WR_RDMA_WRITE;
	swr[0].wr.rdma.remote_addr = theirs.win_addr;
	swr[0].wr.rdma.rkey = theirs.win_rkey;
	swr[1].opcode = IBV_WR_RDMA_READ;
	swr[1].wr.rdma.remote_addr = theirs.win_addr;
	swr[1].wr.rdma.rkey = theirs.win_rkey;
	swr[2].opcode = IBV_WR_SEND;
	swr[2].send_flags |= IBV_SEND_INLINE;
	CHECK(!v.ibv_post_send(qp, &swr[0], &bad_swr), "ibv_post_send of phase 3");
	reap(scq, 2, wc, "phase 3");
	CHECK(!v.ibv_post_send(qp, &swr[2], &bad_swr), "ibv_post_send of DONE");
	reap(scq, 1, &wc[2], "phase 3, DONE");
	{
		static const unsigned op[3] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_SEND };
		static const long len[3] = { -1, WIN, -1 };

		for (k = 0; k < 3; k++)
			check_wc("phase 3", k, &wc[k], OS_WRITE + k, op[k], len[k], qp->qp_num);
	}
	expect(dst, WIN, WRITE_SEED, 0, "read back");
	verified(2, WIN);
	obs("phase 3: read back the %d bytes written", WIN);

	/* 4. BYE, after the server's write and read. */
	wait_event(ch, rcq, "BYE");
	reap(rcq, 1, wc, "BYE");	/* as DONE's */
	nothing_more(rcq, "BYE");
	check_wc("BYE receive", 0, &wc[0], CRECV_ID(P2_N), IBV_WC_RECV, 4, qp->qp_num);
	CHECK(!memcmp(rbuf[P2_N], "BYE", 4), "BYE: the message");
	verified(1, 4);
	expect(win, WIN / 2, SINK_SEED, 0, "written by the server");
	verified(1, WIN / 2);
	obs("phase 4: the sink holds the %d bytes the server wrote", WIN / 2);

	rdma_disconnect(id);
	CHECK(!ibv_destroy_qp(qp), "ibv_destroy_qp");
	CHECK(!ibv_destroy_cq(scq) && !ibv_destroy_cq(rcq), "ibv_destroy_cq");
	CHECK(!ibv_destroy_comp_channel(ch), "ibv_destroy_comp_channel");
	CHECK(!ibv_dereg_mr(rmr) && !ibv_dereg_mr(smr) && !ibv_dereg_mr(srcmr) &&
	      !ibv_dereg_mr(dmr) && !ibv_dereg_mr(wmr), "ibv_dereg_mr");
	CHECK(!ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
}
