/*
 * verbs.c's exchange, the server's side: an SRQ, two classic CQs,
 * ibv_post_send and ibv_poll_cq through the table (phases 1, 2 and 4).
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

void server(const char *addr, const char *port)
{
	static uint8_t rbuf[16][RSLOT], sbuf[P2_N][SLOT], win[WIN], back[WIN / 2];
	static uint64_t ctr, results[2];
	struct rdma_addrinfo *res = resolve(addr, port, 1);
	struct rdma_cm_id *listen_id, *id;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_srq_init_attr sattr;
	struct ibv_qp_init_attr_ex qattr;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	struct ibv_mr *rmr, *smr, *wmr, *cmr, *bmr, *xmr;
	struct ibv_recv_wr rwr[16], *bad_rwr;
	struct ibv_sge rsge[16][2], bad_sge[8];
	struct ibv_send_wr swr[P2_N], *bad_swr, one;
	struct ibv_sge ssge[P2_N + 1];
	struct ibv_wc wc[16];
	struct rdma_conn_param param;
	struct comp c;
	struct keys mine, peer;
	char inline_msg[64];
	int k, n, ret;

	CHECK(!rdma_create_ep(&listen_id, res, NULL, NULL), "rdma_create_ep");
	CHECK(!rdma_listen(listen_id, 1), "rdma_listen");
	printf("listening\n");
	fflush(stdout);
	CHECK(!rdma_get_request(listen_id, &id), "rdma_get_request");
	CHECK(!id->qp, "the request's id has a QP");
	peer = peer_keys(id->event);

	ctx = id->verbs;
	check_atomics(ctx);
	CHECK((pd = ibv_alloc_pd(ctx)), "ibv_alloc_pd");
	CHECK((ch = ibv_create_comp_channel(ctx)), "ibv_create_comp_channel");
	CHECK((scq = ibv_create_cq(ctx, 16, NULL, NULL, 0)), "ibv_create_cq (send)");
	CHECK((rcq = ibv_create_cq(ctx, 32, NULL, ch, 0)), "ibv_create_cq (receive)");
	memset(&sattr, 0, sizeof(sattr));
	sattr.attr.max_wr = 32;
	sattr.attr.max_sge = 2;
	CHECK((srq = ibv_create_srq(pd, &sattr)), "ibv_create_srq");
	/* comp_mask IBV_QP_INIT_ATTR_PD alone: ibv_create_qp_ex is
	 * ibv_create_qp */
	memset(&qattr, 0, sizeof(qattr));
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD;
	qattr.pd = pd;
	qattr.send_cq = scq;
	qattr.recv_cq = rcq;
	qattr.srq = srq;
	qattr.cap.max_send_wr = 16;
	qattr.cap.max_send_sge = 2;
	qattr.cap.max_inline_data = 64;
	qattr.qp_type = IBV_QPT_RC;
	CHECK((qp = v.ibv_create_qp_ex(ctx, &qattr)), "ibv_create_qp_ex");
	cap = qp_cap(qp);
	obs("ibv_create_qp_ex (PD only) made an RC QP on the SRQ: %s, max_inline_data %u",
	    qp->srq == srq ? "yes" : "no", cap.max_inline_data);

	rmr = reg(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = reg(pd, sbuf, sizeof(sbuf), 0);
	wmr = reg(pd, win, sizeof(win),
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | WIN_FLUSH);
	cmr = reg(pd, &ctr, sizeof(ctr), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	bmr = reg(pd, back, sizeof(back), IBV_ACCESS_LOCAL_WRITE);
	xmr = reg(pd, results, sizeof(results), IBV_ACCESS_LOCAL_WRITE);
	ctr = S_INIT;
	mine.win_addr = (uintptr_t)win;
	mine.win_rkey = wmr->rkey;
	mine.ctr_addr = (uintptr_t)&ctr;
	mine.ctr_rkey = cmr->rkey;
	modify(id, qp, IBV_QPS_INIT, "INIT");

	/* The SRQ's receives, 2 SGEs each (100 bytes, a gap, the rest): a chain
	 * whose second has one SGE too many posts the first only. */
	for (k = 0; k < 16; k++) {
		rsge[k][0].addr = (uintptr_t)rbuf[k];
		rsge[k][0].length = 100;
		rsge[k][0].lkey = rmr->lkey;
		rsge[k][1].addr = (uintptr_t)rbuf[k] + 100 + GAP;
		rsge[k][1].length = SLOT - 100;
		rsge[k][1].lkey = rmr->lkey;
		rwr[k].wr_id = SRQ_ID(k);
		rwr[k].sg_list = rsge[k];
		rwr[k].num_sge = 2;
		rwr[k].next = k < 15 ? &rwr[k + 1] : NULL;
	}
	CHECK(sattr.attr.max_sge < 8, "the SRQ takes %u SGEs", sattr.attr.max_sge);
	for (k = 0; k < 8; k++)
		bad_sge[k] = rsge[0][0];
	{
		struct ibv_recv_wr bad = { .wr_id = 0xbad, .sg_list = bad_sge,
					   .num_sge = (int)sattr.attr.max_sge + 1 };

		rwr[0].next = &bad;
		ret = v.ibv_post_srq_recv(srq, &rwr[0], &bad_rwr);
		obs("ibv_post_srq_recv of a chain whose 2nd has max_sge+1 SGEs: returns %d (%s), "
		    "bad_wr is the 2nd: %s", ret, strerror(ret), bad_rwr == &bad ? "yes" : "no");
		CHECK(ret != 0 && bad_rwr == &bad, "ibv_post_srq_recv took too many SGEs");
	}
	rwr[0].next = &rwr[1];
	CHECK(!v.ibv_post_srq_recv(srq, &rwr[1], &bad_rwr), "ibv_post_srq_recv of 15");
	/* the event comes with the solicited message (phase 1's last) */
	CHECK(!v.ibv_req_notify_cq(rcq, 1), "ibv_req_notify_cq(solicited only)");

	modify(id, qp, IBV_QPS_INIT, "INIT");
	modify(id, qp, IBV_QPS_RTR, "RTR");
	modify(id, qp, IBV_QPS_RTS, "RTS");
	connect_param(&param, qp, 1, &mine);
	CHECK(!rdma_accept(id, &param), "rdma_accept");
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED, "not established");
	obs("connected (the client's QP number in the request, ours in the reply)");

	/* Requests the provider refuses, nothing posted. */
	for (k = 0; k < 8; k++)
		bad_sge[k] = (struct ibv_sge){ (uintptr_t)sbuf[0], 1, smr->lkey };
	memset(&one, 0, sizeof(one));
	one.wr_id = 0xbad;
	one.opcode = IBV_WR_SEND;
	one.sg_list = bad_sge;
	one.num_sge = (int)cap.max_send_sge + 1;
	CHECK(cap.max_send_sge < 8, "the QP takes %u SGEs", cap.max_send_sge);
	ret = v.ibv_post_send(qp, &one, &bad_swr);
	obs("ibv_post_send with max_send_sge+1 SGEs: returns %d (%s), bad_wr is it: %s", ret,
	    strerror(ret), bad_swr == &one ? "yes" : "no");
	CHECK(ret != 0 && bad_swr == &one, "ibv_post_send took too many SGEs");
	one.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	one.sg_list = &ssge[P2_N];
	ssge[P2_N] = (struct ibv_sge){ (uintptr_t)&results[0], 8, xmr->lkey };
	one.num_sge = 1;
	one.wr.atomic.remote_addr = peer.ctr_addr + 1;
	one.wr.atomic.rkey = peer.ctr_rkey;
	one.wr.atomic.compare_add = 1;
	ret = v.ibv_post_send(qp, &one, &bad_swr);
	obs("ibv_post_send of a fetch-and-add at a misaligned address: returns %d (%s), "
	    "bad_wr is it: %s", ret, strerror(ret), bad_swr == &one ? "yes" : "no");
	CHECK(ret != 0 && bad_swr == &one, "ibv_post_send took a misaligned atomic");

	/* 1. The client's 8 messages: one ibv_poll_cq after the event. */
	wait_event(ch, rcq, "phase 1, solicited");
	n = v.ibv_poll_cq(rcq, 16, wc);
	obs("phase 1: one ibv_poll_cq of 16 after the event returns %d", n);
	CHECK(n == P1_N, "one ibv_poll_cq returned %d of the %d messages", n, P1_N);
	for (k = 0; k < P1_N; k++) {
		uint32_t len = p1_size[k], head = len < 100 ? len : 100;

		from_wc(&c, &wc[k]);
		check_comp("phase 1 receive", k, &c, SRQ_ID(k), IBV_WC_RECV, len, qp->qp_num);
		CHECK((k == 1 || k == 5) == !!(c.wc_flags & IBV_WC_WITH_IMM) &&
		      (!(c.wc_flags & IBV_WC_WITH_IMM) || c.imm == P1_IMM(k)),
		      "phase 1 receive %d: immediate data", k);
		expect(rbuf[k], head, P1_SEED(k), 0, "phase 1 receive, first SGE");
		expect(rbuf[k] + 100 + GAP, len - head, P1_SEED(k), head,
		       "phase 1 receive, second SGE");
		verified(1, len);
	}
	n = v.ibv_poll_cq(rcq, 16, wc);
	obs("phase 1: ibv_poll_cq again returns %d", n);
	CHECK(n == 0, "a completion more");
	/* the slots taken, again (ids 16..23); DONE takes slot 8 */
	for (k = 0; k < 8; k++) {
		rwr[k].wr_id = SRQ_ID(16 + k);
		rwr[k].next = k < 7 ? &rwr[k + 1] : NULL;
	}
	CHECK(!v.ibv_post_srq_recv(srq, &rwr[0], &bad_rwr), "ibv_post_srq_recv again");
	CHECK(!v.ibv_req_notify_cq(rcq, 0), "ibv_req_notify_cq(any)");

	/* 2. 6 messages to the client, one chain. */
	memset(swr, 0, sizeof(swr));
	for (k = 0; k < P2_N; k++) {
		fill(sbuf[k], p2_size[k], P2_SEED(k), 0);
		ssge[k] = (struct ibv_sge){ (uintptr_t)sbuf[k], p2_size[k], smr->lkey };
		swr[k].wr_id = P2_ID(k);
		swr[k].opcode = IBV_WR_SEND;
		swr[k].send_flags = IBV_SEND_SIGNALED;
		swr[k].sg_list = &ssge[k];
		swr[k].num_sge = 1;
		swr[k].next = k < P2_N - 1 ? &swr[k + 1] : NULL;
	}
	swr[1].opcode = IBV_WR_SEND_WITH_IMM;
	swr[1].imm_data = htonl(P2_IMM);
	fill(inline_msg, p2_size[2], P2_SEED(2), 0);	/* inline: any memory */
	ssge[2] = (struct ibv_sge){ (uintptr_t)inline_msg, p2_size[2], 0 };
	swr[2].send_flags |= IBV_SEND_INLINE;
	{
		struct ibv_sge two[2] = {	/* 500 + 500 bytes from two places */
			{ (uintptr_t)sbuf[3], 500, smr->lkey },
			{ (uintptr_t)sbuf[3] + 2048, 500, smr->lkey },
		};

		fill(sbuf[3] + 2048, 500, P2_SEED(3), 500);
		swr[3].sg_list = two;
		swr[3].num_sge = 2;
		swr[P2_N - 1].send_flags |= IBV_SEND_SOLICITED;
		CHECK(!v.ibv_post_send(qp, &swr[0], &bad_swr), "ibv_post_send of phase 2");
		reap(scq, P2_N, wc, "phase 2 sends");
	}
	for (k = 0; k < P2_N; k++) {
		from_wc(&c, &wc[k]);
		check_comp("phase 2 send", k, &c, P2_ID(k), IBV_WC_SEND, -1, qp->qp_num);
	}

	/* 3. DONE, after the client's write, read and atomics. */
	wait_event(ch, rcq, "DONE");
	CHECK(v.ibv_poll_cq(rcq, 16, wc) == 1, "DONE: one completion");
	from_wc(&c, &wc[0]);
	check_comp("DONE receive", 0, &c, SRQ_ID(8), IBV_WC_RECV, 16, qp->qp_num);
	CHECK(!memcmp(rbuf[8], "DONE", 4), "DONE: the message");
	verified(1, 16);
	expect(win, WIN, WRITE_SEED, 0, "the window the client wrote");
	verified(1, WIN);
	obs("the window holds the %d bytes written; the counter %#llx", WIN,
	    (unsigned long long)ctr);
	CHECK(ctr == S_SWAP, "the counter is %#llx, want %#llx", (unsigned long long)ctr,
	      (unsigned long long)S_SWAP);
	verified(1, 8);

	/* 4. Write, read, atomics on the client's memory, then BYE. */
	memset(swr, 0, sizeof(swr));
	memset(back, 0, sizeof(back));
	fill(sbuf[0], WIN / 2, SINK_SEED, 0);
	ssge[0] = (struct ibv_sge){ (uintptr_t)sbuf[0], WIN / 2, smr->lkey };
	ssge[1] = (struct ibv_sge){ (uintptr_t)back, WIN / 2, bmr->lkey };
	ssge[2] = (struct ibv_sge){ (uintptr_t)&results[0], 8, xmr->lkey };
	ssge[3] = (struct ibv_sge){ (uintptr_t)&results[1], 8, xmr->lkey };
	memcpy(inline_msg, "BYE", 4);
	ssge[4] = (struct ibv_sge){ (uintptr_t)inline_msg, 4, 0 };
	for (k = 0; k < 5; k++) {
		swr[k].wr_id = S_WRITE + k;
		swr[k].send_flags = IBV_SEND_SIGNALED;
		swr[k].sg_list = &ssge[k];
		swr[k].num_sge = 1;
		swr[k].next = k < 4 ? &swr[k + 1] : NULL;
	}
	swr[0].opcode = IBV_WR_RDMA_WRITE;
	swr[0].wr.rdma.remote_addr = peer.win_addr;
	swr[0].wr.rdma.rkey = peer.win_rkey;
	swr[1].opcode = IBV_WR_RDMA_READ;
	swr[1].wr.rdma.remote_addr = peer.win_addr + WIN / 2;
	swr[1].wr.rdma.rkey = peer.win_rkey;
	swr[2].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	swr[2].wr.atomic.remote_addr = peer.ctr_addr;
	swr[2].wr.atomic.rkey = peer.ctr_rkey;
	swr[2].wr.atomic.compare_add = 1;
	swr[3].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	swr[3].wr.atomic.remote_addr = peer.ctr_addr;
	swr[3].wr.atomic.rkey = peer.ctr_rkey;
	swr[3].wr.atomic.compare_add = C_INIT + 1;
	swr[3].wr.atomic.swap = C_SWAP;
	swr[4].opcode = IBV_WR_SEND;
	swr[4].send_flags |= IBV_SEND_INLINE;
	CHECK(!v.ibv_post_send(qp, &swr[0], &bad_swr), "ibv_post_send of phase 4");
	reap(scq, 5, wc, "phase 4");
	{
		static const unsigned op[5] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
						IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP, IBV_WC_SEND };
		static const long len[5] = { -1, WIN / 2, 8, 8, -1 };

		for (k = 0; k < 5; k++) {
			from_wc(&c, &wc[k]);
			check_comp("phase 4", k, &c, S_WRITE + k, op[k], len[k], qp->qp_num);
		}
	}
	expect(back, WIN / 2, SOURCE_SEED, 0, "read from the client");
	verified(1, WIN / 2);
	obs("phase 4: read the client's %d bytes; fetch-and-add returned %llu, "
	    "compare-and-swap %llu", WIN / 2, (unsigned long long)results[0],
	    (unsigned long long)results[1]);
	CHECK(results[0] == C_INIT && results[1] == C_INIT + 1, "the atomics' old values");
	verified(2, 16);

	rdma_disconnect(id);
	CHECK(!ibv_destroy_qp(qp), "ibv_destroy_qp");
	CHECK(!ibv_destroy_srq(srq), "ibv_destroy_srq");
	CHECK(!ibv_destroy_cq(scq) && !ibv_destroy_cq(rcq), "ibv_destroy_cq");
	CHECK(!ibv_destroy_comp_channel(ch), "ibv_destroy_comp_channel");
	CHECK(!ibv_dereg_mr(rmr) && !ibv_dereg_mr(smr) && !ibv_dereg_mr(wmr) &&
	      !ibv_dereg_mr(cmr) && !ibv_dereg_mr(bmr) && !ibv_dereg_mr(xmr), "ibv_dereg_mr");
	CHECK(!ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
}
