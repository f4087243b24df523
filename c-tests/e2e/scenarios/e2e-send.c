/*
 * The e2e scenarios of sends and receives: rc (registered and inline),
 * vector (rdma_post_sendv/recvv with uneven SGEs), srq (receives through the
 * id's shared receive queue) and ud (datagrams with rdma_post_ud_send).
 */
#include "e2e.h"

/* ---- rc: send and receive, registered and inline ---- */

#define RC_N 8
#define RC_INLINE_N 8

void *rc_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 1);
	static char buf[(RC_N + RC_INLINE_N) * SLOT];
	static int ctx[RC_N + RC_INLINE_N], reply_ctx;
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	double t0, waited = 0;
	int i;

	(void)arg;
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < RC_N + RC_INLINE_N; i++)
		CHECK(!rdma_post_recv(id, &ctx[i], buf + i * SLOT, SLOT, mr),
		      "rdma_post_recv %d", i);
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	for (i = 0; i < RC_N + RC_INLINE_N; i++) {
		size_t len = i < RC_N ? msg_size(i) : (size_t)(16 + i);

		t0 = now();
		comp(id, 0, &ctx[i], &wc, "rc receive");
		if (i == 0)
			waited = now() - t0;
		CHECK(wc.byte_len == len, "rc receive %d: %u bytes, want %zu", i,
		      wc.byte_len, len);
		CHECK(wc.opcode == IBV_WC_RECV, "rc receive opcode");
		expect(buf + i * SLOT, len, i, 0, "rc receive");
		verified(1, (long)len);
	}
	/* The client waits before its first send: the first call blocked. */
	obs("receiver blocked in rdma_get_recv_comp before the first message: %s",
	    waited > 0.1 ? "yes" : "no");
	obs("%d receives completed, all in order, all bytes verified", i);
	CHECK(!rdma_post_send(id, &reply_ctx, "done", 5, NULL, IBV_SEND_INLINE),
	      "rdma_post_send inline reply");
	comp(id, 1, &reply_ctx, &wc, "rc reply");
	CHECK(!rdma_dereg_mr(mr), "rdma_dereg_mr");
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

void rc_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char buf[RC_N * SLOT], reply[64];
	static int ctx[RC_N + RC_INLINE_N], reply_ctx;
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_mr *rmr = rdma_reg_msgs(id, reply, sizeof(reply));
	struct ibv_wc wc;
	int i;

	CHECK(mr && rmr, "rdma_reg_msgs");
	CHECK(!rdma_post_recv(id, &reply_ctx, reply, sizeof(reply), rmr), "post reply recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	usleep(300000);	/* the receiver is now blocked waiting */
	for (i = 0; i < RC_N; i++) {
		fill(buf + i * SLOT, msg_size(i), i);
		CHECK(!rdma_post_send(id, &ctx[i], buf + i * SLOT, msg_size(i), mr, 0),
		      "rdma_post_send %d", i);
		comp(id, 1, &ctx[i], &wc, "rc send");
	}
	for (; i < RC_N + RC_INLINE_N; i++) {
		char small[64];	/* not registered: inline data needs no MR */

		fill(small, (size_t)(16 + i), i);
		CHECK(!rdma_post_send(id, &ctx[i], small, (size_t)(16 + i), NULL,
				      IBV_SEND_INLINE), "rdma_post_send inline %d", i);
		comp(id, 1, &ctx[i], &wc, "rc inline send");
	}
	obs("%d sends completed (%d registered, %d inline with mr NULL)", i, RC_N,
	    RC_INLINE_N);
	comp(id, 0, &reply_ctx, &wc, "rc reply");
	CHECK(wc.byte_len == 5 && !strcmp(reply, "done"), "rc reply content");
	verified(1, 5);
	rdma_dereg_mr(mr);
	rdma_dereg_mr(rmr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- vector: rdma_post_sendv / rdma_post_recvv with uneven SGEs ---- */

static const uint32_t send_sizes[3] = { 7, 100, 1000 };
static const uint32_t send_offs[3] = { 0, 64, 512 };
static const uint32_t recv_sizes[4] = { 500, 300, 12, 1000 };
#define VEC_N 4

void *vector_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 1);
	static char buf[VEC_N][2048];
	static int ctx[VEC_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_sge sge[VEC_N][4];
	struct ibv_wc wc;
	uint32_t total = send_sizes[0] + send_sizes[1] + send_sizes[2];
	int i, k;

	(void)arg;
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < VEC_N; i++) {
		size_t off = 0;

		for (k = 0; k < 4; k++) {	/* the SGEs lie apart in memory */
			sge[i][k].addr = (uintptr_t)(buf[i] + off + 8 * k);
			sge[i][k].length = recv_sizes[k];
			sge[i][k].lkey = mr->lkey;
			off += recv_sizes[k];
		}
		CHECK(!rdma_post_recvv(id, &ctx[i], sge[i], 4), "rdma_post_recvv %d", i);
	}
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	for (i = 0; i < VEC_N; i++) {
		uint32_t got = 0;

		comp(id, 0, &ctx[i], &wc, "vector receive");
		CHECK(wc.byte_len == total, "vector receive: %u bytes", wc.byte_len);
		/* scattered in order over the four SGEs */
		for (k = 0; k < 4 && got < total; k++) {
			uint32_t n = total - got < recv_sizes[k] ? total - got : recv_sizes[k];

			expect((void *)(uintptr_t)sge[i][k].addr, n, i, got, "vector scatter");
			got += n;
		}
		verified(1, total);
	}
	obs("%d vectored receives of %u bytes scattered over 4 SGEs (500/300/12/1000)",
	    VEC_N, total);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

void vector_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char buf[VEC_N][2048];
	static int ctx[VEC_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	int i, k;

	CHECK(mr, "rdma_reg_msgs");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	for (i = 0; i < VEC_N; i++) {
		struct ibv_sge sge[3];
		uint32_t from = 0;
		char msg[1107];

		fill(msg, sizeof(msg), i);
		for (k = 0; k < 3; k++) {	/* gathered from three places */
			memcpy(buf[i] + send_offs[k], msg + from, send_sizes[k]);
			sge[k].addr = (uintptr_t)(buf[i] + send_offs[k]);
			sge[k].length = send_sizes[k];
			sge[k].lkey = mr->lkey;
			from += send_sizes[k];
		}
		CHECK(!rdma_post_sendv(id, &ctx[i], sge, 3, 0), "rdma_post_sendv %d", i);
		comp(id, 1, &ctx[i], &wc, "vector send");
	}
	obs("%d vectored sends of 3 SGEs (7/100/1000) completed", VEC_N);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- srq: receives posted through the id's shared receive queue ---- */

#define SRQ_N 8

void *srq_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 0);	/* no QP yet */
	struct ibv_srq_init_attr sattr;
	struct ibv_qp_init_attr attr;
	static char buf[SRQ_N][SLOT];
	static int ctx[SRQ_N];
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int i, seen = 0;

	(void)arg;
	memset(&sattr, 0, sizeof(sattr));
	sattr.attr.max_wr = 32;
	sattr.attr.max_sge = 4;
	CHECK(!rdma_create_srq(id, NULL, &sattr), "rdma_create_srq");
	qp_attr(&attr, 0);
	CHECK(!rdma_create_qp(id, NULL, &attr), "rdma_create_qp");
	CHECK(id->srq && id->qp, "the id has an SRQ and a QP");
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < SRQ_N / 2; i++)	/* half with rdma_post_recv */
		CHECK(!rdma_post_recv(id, &ctx[i], buf[i], SLOT, mr), "rdma_post_recv (SRQ)");
	for (; i < SRQ_N; i++) {	/* half with rdma_post_recvv, 2 SGEs */
		struct ibv_sge sge[2] = {
			{ (uintptr_t)buf[i], 100, mr->lkey },
			{ (uintptr_t)buf[i] + 100, SLOT - 100, mr->lkey },
		};

		CHECK(!rdma_post_recvv(id, &ctx[i], sge, 2), "rdma_post_recvv (SRQ)");
	}
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	for (i = 0; i < SRQ_N; i++) {
		int k;

		CHECK(rdma_get_recv_comp(id, &wc) == 1, "rdma_get_recv_comp");
		CHECK(wc.status == IBV_WC_SUCCESS, "srq completion %s",
		      ibv_wc_status_str(wc.status));
		for (k = 0; k < SRQ_N && wc.wr_id != (uintptr_t)&ctx[k]; k++)
			;
		CHECK(k < SRQ_N && !(seen & (1 << k)), "wr_id of a receive not posted");
		seen |= 1 << k;
		CHECK(wc.qp_num == id->qp->qp_num, "completion of another QP");
		CHECK(wc.byte_len == msg_size(k), "srq receive %d: %u bytes", k, wc.byte_len);
		expect(buf[k], msg_size(k), k, 0, "srq receive");
		verified(1, (long)msg_size(k));
	}
	obs("%d receives posted to the SRQ (%d rdma_post_recv, %d rdma_post_recvv) completed",
	    SRQ_N, SRQ_N / 2, SRQ_N / 2);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	rdma_destroy_srq(id);
	rdma_destroy_ep(id);
	return NULL;
}

void srq_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char buf[SRQ_N][SLOT];
	static int ctx[SRQ_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	int i;

	CHECK(mr, "rdma_reg_msgs");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	/* receives are taken from the SRQ in the order they were posted */
	for (i = 0; i < SRQ_N; i++) {
		fill(buf[i], msg_size(i), i);
		CHECK(!rdma_post_send(id, &ctx[i], buf[i], msg_size(i), mr, 0), "send %d", i);
		comp(id, 1, &ctx[i], &wc, "srq send");
	}
	obs("%d sends completed", SRQ_N);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- ud: datagrams with rdma_post_ud_send ---- */

#define UD_N 8

static size_t ud_size(int i)
{
	return 1 + (size_t)(i * 131) % 1000;
}

void *ud_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(1, 1);
	static char buf[UD_N][GRH + 1024];
	static int ctx[UD_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	int i;

	(void)arg;
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < UD_N; i++)
		CHECK(!rdma_post_recv(id, &ctx[i], buf[i], sizeof(buf[i]), mr), "post recv");
	CHECK(!rdma_accept(id, NULL), "rdma_accept");
	for (i = 0; i < UD_N; i++) {
		comp(id, 0, &ctx[i], &wc, "ud receive");
		CHECK(wc.byte_len == GRH + ud_size(i), "ud receive %d: %u bytes", i,
		      wc.byte_len);
		expect(buf[i] + GRH, ud_size(i), i, 0, "ud datagram");
		verified(1, (long)ud_size(i));
	}
	obs("%d datagrams received, each with the %d-byte GRH in front", UD_N, GRH);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	return NULL;
}

void ud_client(void)
{
	struct rdma_cm_id *id = client_ep(1);
	static char buf[UD_N][1024];
	static int ctx[UD_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_ah *ah;
	uint32_t qpn;
	struct ibv_wc wc;
	int i;

	CHECK(mr, "rdma_reg_msgs");
	CHECK(!rdma_connect(id, NULL), "rdma_connect (UD)");
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED,
	      "the connection event");
	ah = ibv_create_ah(id->pd, &id->event->param.ud.ah_attr);
	CHECK(ah, "ibv_create_ah from the event's UD parameters");
	qpn = id->event->param.ud.qp_num;
	obs("remote qkey from the connection event is RDMA_UDP_QKEY: %s",
	    id->event->param.ud.qkey == RDMA_UDP_QKEY ? "yes" : "no");
	for (i = 0; i < UD_N; i++) {
		fill(buf[i], ud_size(i), i);
		CHECK(!rdma_post_ud_send(id, &ctx[i], buf[i], ud_size(i), mr, 0, ah, qpn),
		      "rdma_post_ud_send %d", i);
		comp(id, 1, &ctx[i], &wc, "ud send");
	}
	obs("%d rdma_post_ud_send completed", UD_N);
	usleep(200000);	/* let the receiver take them before the QP goes */
	ibv_destroy_ah(ah);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
}
