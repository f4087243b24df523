/*
 * RDMAVERBS_1.3 on soft-iWARP (siw): verbs.c's table of the 94 static
 * inline functions of <infiniband/verbs.h> (verbs-table.h: librdmaverbs.so.1's
 * exports by dlvsym in ours, the inline originals in stock), on the
 * operations iWARP allows, and what it refuses. c-tests/e2e/guest/siw.sh runs a
 * server and a client of each build; both must pass and print the same
 * "obs:" lines.
 *
 * What differs from verbs.c's exchange on rxe, and why:
 *   - no atomics (atomic_cap is IBV_ATOMIC_NONE), no immediate data, no
 *     extended QP or CQ (rdma-core's siw provider has no create_qp_ex or
 *     create_cq_ex: the ibv_wr_* and ibv_start_poll paths cannot be
 *     reached): each is posted or made once and must be refused, nothing
 *     posted, the same way by both builds;
 *   - an RDMA read lands in one SGE (max_sge_rd 1);
 *   - the QP is moved to INIT only: on iWARP the connection manager moves
 *     it to RTS as it connects (and the client's rdma_connect ends with
 *     RDMA_CM_EVENT_ESTABLISHED, not a connect response to answer with
 *     rdma_establish); siw's ibv_query_qp reports no state;
 *   - the client speaks first (phase 1), as iWARP wants: the keys go in the
 *     connection's private data;
 *   - no completion carries flags (no GRH, no immediate data);
 *   - siw (Linux 6.1) signals no solicited completion: siw_rqe_complete
 *     asks the CQ to notify with the flag of any completion, so a CQ armed
 *     with ibv_req_notify_cq(cq, 1) never gives its event. The server arms
 *     its CQ so and shows that no event came for the solicited message; the
 *     client waits on a CQ armed for any completion.
 *
 * The exchange (every data-path call through the table):
 *   1. the client sends 8 messages in one ibv_post_send chain (one over two
 *      SGEs, two inline, one over two equal halves, the last solicited) into
 *      the server's SRQ (ibv_post_srq_recv); the server's CQ is armed with
 *      ibv_req_notify_cq(cq, 1); it polls until the 8 are there, then looks
 *      for the solicited event (none, on siw);
 *   2. the server sends 6 in one chain (one inline, one over two SGEs, the
 *      last solicited) into the client's receives (ibv_post_recv); the
 *      client's CQ, armed for any completion, gives its event, and it polls
 *      the 6;
 *   3. the client writes 4096 bytes into the server's window and reads them
 *      back (one chain), then sends DONE inline;
 *   4. the server, on DONE, checks the window, writes into the client's
 *      sink and reads the client's source (one chain), then sends BYE.
 * A send goes in a chain of its own after a read: siw completes a send or
 * a write as it hands it to TCP, a read when its answer comes, so a send
 * posted after a read may complete first (the IB specification keeps a
 * send queue's completions in order; siw does not).
 * Every completion's status, opcode, wr_id, byte_len (where defined),
 * flags and QP, every byte, are checked. The last line is
 * "RESULT verbs PASS|FAIL msgs=N bytes=M".
 *
 * Usage: siw-verbs server|client ADDR PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define WAIT_MS 30000	/* the longest wait for a completion or an event */
#define DEPTH 4		/* RDMA reads in flight, each way */
#define SLOT 4096
#define RSLOT (SLOT + 128)	/* a server receive: 100 bytes, a gap, the rest */
#define GAP 128
#define WIN 4096

#include "verbs-table.h"

#define P1_N 8
static const uint32_t p1_size[P1_N] = { 1, 1500, 48, 4096, 333, 2048, 60, 1400 };
#define P1_SEED(k) (0x10 + (k))
#define P2_N 6
static const uint32_t p2_size[P2_N] = { 4096, 7, 64, 1000, 2500, 1 };
#define P2_SEED(j) (0x20 + (j))
#define WRITE_SEED 0x30
#define SINK_SEED 0x40
#define SOURCE_SEED 0x50

#define SRQ_ID(k) (0x5200u + (k))
#define CRECV_ID(j) (0xc100u + (j))
#define P1_ID(k) (0xa100u + (k))
#define P2_ID(j) (0xb200u + (j))
enum { OS_WRITE = 0xa300, OS_READ, OS_DONE };
enum { S_WRITE = 0xb400, S_READ, S_BYE };

struct keys {
	uint64_t win_addr;	/* server: the window; client: the sink, then the source */
	uint32_t win_rkey;
	uint32_t pad;
};

static const char *opcode_name(unsigned op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_RECV: return "RECV";
	default: return "other";
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One completion against what was posted: byte_len < 0 is not defined for
 * the opcode (printed, not checked); iWARP sets no flag. */
static void check_wc(const char *what, int i, const struct ibv_wc *wc, uint64_t wr_id,
		     unsigned opcode, long byte_len, uint32_t qp_num)
{
	CHECK(wc->status == IBV_WC_SUCCESS, "%s %d: status %s", what, i,
	      ibv_wc_status_str(wc->status));
	CHECK(wc->wr_id == wr_id, "%s %d: wr_id %#llx, posted %#llx", what, i,
	      (unsigned long long)wc->wr_id, (unsigned long long)wr_id);
	CHECK(wc->opcode == opcode, "%s %d: opcode %s, want %s", what, i,
	      opcode_name(wc->opcode), opcode_name(opcode));
	CHECK(byte_len < 0 || wc->byte_len == byte_len, "%s %d: byte_len %u, want %ld", what, i,
	      wc->byte_len, byte_len);
	CHECK(wc->qp_num == qp_num, "%s %d: the completion of another QP", what, i);
	CHECK(wc->wc_flags == 0 && wc->imm_data == 0 && wc->vendor_err == 0,
	      "%s %d: wc_flags %#x imm_data %#x vendor_err %u", what, i, wc->wc_flags,
	      wc->imm_data, wc->vendor_err);
	obs("%s %d: wr_id %#llx %s %s byte_len %u wc_flags %#x", what, i,
	    (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
	    opcode_name(wc->opcode), wc->byte_len, wc->wc_flags);
}

/* n completions of a CQ, polled in batches of up to 8. */
static void reap(struct ibv_cq *cq, int n, struct ibv_wc *wc, const char *what)
{
	double end = now() + WAIT_MS / 1000.0;
	int got = 0, ret;

	while (got < n) {
		ret = v.ibv_poll_cq(cq, n - got < 8 ? n - got : 8, wc + got);
		CHECK(ret >= 0, "%s: ibv_poll_cq returned %d", what, ret);
		if (ret == 0) {
			CHECK(now() < end, "%s: %d of %d completions within %d ms", what, got, n,
			      WAIT_MS);
			usleep(20);
		}
		got += ret;
	}
}

/* After the one completion a step waits for: none more but receives
 * flushed (IBV_WC_WR_FLUSH_ERR) when the peer, done, disconnects first (how
 * many is timing's, so not printed). */
static void nothing_more(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc more[8];
	int n = v.ibv_poll_cq(cq, 8, more), k;

	CHECK(n >= 0, "%s: ibv_poll_cq returned %d", what, n);
	for (k = 0; k < n; k++)
		CHECK(more[k].status == IBV_WC_WR_FLUSH_ERR,
		      "%s: one completion, then wr_id %#llx status %s", what,
		      (unsigned long long)more[k].wr_id, ibv_wc_status_str(more[k].status));
}

static void wait_event(struct ibv_comp_channel *ch, struct ibv_cq *want, const char *what)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	CHECK(poll(&p, 1, WAIT_MS) == 1, "%s: no completion event within %d ms", what, WAIT_MS);
	CHECK(!ibv_get_cq_event(ch, &cq, &ctx), "%s: ibv_get_cq_event", what);
	CHECK(cq == want, "%s: the event of another CQ", what);
	ibv_ack_cq_events(cq, 1);
	obs("%s: a completion event on the channel", what);
}

static struct rdma_addrinfo *resolve(const char *addr, const char *port, int passive)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	CHECK(!rdma_getaddrinfo(addr, port, &hints, &res), "rdma_getaddrinfo");
	return res;
}

/* To INIT with the attributes rdma_cm gives; iWARP's connection manager
 * takes it on from there. */
static void to_init(struct rdma_cm_id *id, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int mask;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	CHECK(!rdma_init_qp_attr(id, &attr, &mask), "rdma_init_qp_attr INIT");
	CHECK(!ibv_modify_qp(qp, &attr, mask), "ibv_modify_qp to INIT");
}

/* What ibv_query_qp says of the state: siw's kernel driver fills in no
 * state (Linux 6.1, siw_query_qp), so what comes back is what
 * libibverbs' command leaves there; observed, not trusted. */
static void qp_state(struct ibv_qp *qp, const char *when)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	memset(&attr, 0xff, sizeof(attr));
	CHECK(!ibv_query_qp(qp, &attr, IBV_QP_STATE, &init), "ibv_query_qp");
	obs("ibv_query_qp's qp_state %s: %d", when, (int)attr.qp_state);
}

static void connect_param(struct rdma_conn_param *p, struct ibv_qp *qp, int srq,
			  const struct keys *mine)
{
	memset(p, 0, sizeof(*p));
	p->private_data = mine;
	p->private_data_len = sizeof(*mine);
	p->responder_resources = p->initiator_depth = DEPTH;
	p->retry_count = p->rnr_retry_count = 7;
	p->qp_num = qp->qp_num;
	p->srq = (uint8_t)srq;
}

static struct keys peer_keys(const struct rdma_cm_event *event)
{
	struct keys k;

	CHECK(event && event->param.conn.private_data &&
	      event->param.conn.private_data_len >= sizeof(k), "no keys from the peer");
	memcpy(&k, event->param.conn.private_data, sizeof(k));
	return k;
}

static struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = (ibv_reg_mr)(pd, addr, len, access);

	CHECK(mr, "ibv_reg_mr of %zu bytes", len);
	return mr;
}

static struct ibv_device_attr device(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	CHECK(ctx->device->transport_type == IBV_TRANSPORT_IWARP, "the device is not iWARP");
	CHECK(!ibv_query_device(ctx, &attr), "ibv_query_device");
	CHECK(attr.max_sge < 8 && attr.max_qp_rd_atom >= DEPTH && attr.max_qp_init_rd_atom >= DEPTH,
	      "the device's limits");
	obs("an iWARP device: atomic_cap %d, max_sge %d, max_sge_rd %d", attr.atomic_cap,
	    attr.max_sge, attr.max_sge_rd);
	return attr;
}

static struct ibv_qp_cap qp_cap(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	CHECK(!ibv_query_qp(qp, &attr, IBV_QP_CAP, &init), "ibv_query_qp");
	return attr.cap;
}

/* ibv_post_send of one request the provider must refuse: nothing posted,
 * bad_wr the request. */
static void refuse_send(struct ibv_qp *qp, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad = NULL;
	int ret = v.ibv_post_send(qp, wr, &bad);

	obs("ibv_post_send of %s: returns %d (%s), bad_wr is it: %s", what, ret, strerror(ret),
	    bad == wr ? "yes" : "no");
	CHECK(ret != 0 && bad == wr, "ibv_post_send took %s", what);
}

/* ---- server ---- */

static void server(const char *addr, const char *port)
{
	static uint8_t rbuf[16][RSLOT], sbuf[P2_N][SLOT], win[WIN], back[WIN / 2];
	static uint64_t word;
	struct rdma_addrinfo *res = resolve(addr, port, 1);
	struct rdma_cm_id *listen_id, *id;
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_srq_init_attr sattr;
	struct ibv_qp_init_attr_ex qattr;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	struct ibv_mr *rmr, *smr, *wmr, *bmr, *xmr;
	struct ibv_recv_wr rwr[16], *bad_rwr;
	struct ibv_sge rsge[16][2], bad_sge[8];
	struct ibv_send_wr swr[P2_N], *bad_swr, one;
	struct ibv_sge ssge[P2_N + 1];
	struct ibv_wc wc[16];
	struct rdma_conn_param param;
	struct keys mine, peer;
	char inline_msg[128];
	int k, n, ret;

	CHECK(!rdma_create_ep(&listen_id, res, NULL, NULL), "rdma_create_ep");
	CHECK(!rdma_listen(listen_id, 1), "rdma_listen");
	printf("listening\n");
	fflush(stdout);
	CHECK(!rdma_get_request(listen_id, &id), "rdma_get_request");
	CHECK(!id->qp, "the request's id has a QP");
	peer = peer_keys(id->event);

	ctx = id->verbs;
	da = device(ctx);
	CHECK((pd = ibv_alloc_pd(ctx)), "ibv_alloc_pd");
	CHECK((ch = ibv_create_comp_channel(ctx)), "ibv_create_comp_channel");
	CHECK((scq = ibv_create_cq(ctx, 16, NULL, NULL, 0)), "ibv_create_cq (send)");
	CHECK((rcq = ibv_create_cq(ctx, 32, NULL, ch, 0)), "ibv_create_cq (receive)");
	memset(&sattr, 0, sizeof(sattr));
	sattr.attr.max_wr = 32;
	sattr.attr.max_sge = 2;
	CHECK((srq = ibv_create_srq(pd, &sattr)), "ibv_create_srq");
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
	obs("ibv_create_qp_ex (PD only) made an RC QP on the SRQ: %s; max_send_sge %u, "
	    "max_inline_data %u", qp->srq == srq ? "yes" : "no", cap.max_send_sge,
	    cap.max_inline_data);

	rmr = reg(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = reg(pd, sbuf, sizeof(sbuf), 0);
	wmr = reg(pd, win, sizeof(win),
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	bmr = reg(pd, back, sizeof(back), IBV_ACCESS_LOCAL_WRITE);
	xmr = reg(pd, &word, sizeof(word), IBV_ACCESS_LOCAL_WRITE);
	mine.win_addr = (uintptr_t)win;
	mine.win_rkey = wmr->rkey;
	mine.pad = 0;
	to_init(id, qp);

	/* The SRQ's receives, 2 SGEs each (100 bytes, a gap, the rest): a chain
	 * whose second has one SGE more than the device takes posts the first
	 * only. (siw checks a receive against its own limit, max_sge, not the
	 * SRQ's.) */
	for (k = 0; k < 16; k++) {
		rsge[k][0] = (struct ibv_sge){ (uintptr_t)rbuf[k], 100, rmr->lkey };
		rsge[k][1] = (struct ibv_sge){ (uintptr_t)rbuf[k] + 100 + GAP, SLOT - 100,
					       rmr->lkey };
		rwr[k].wr_id = SRQ_ID(k);
		rwr[k].sg_list = rsge[k];
		rwr[k].num_sge = 2;
		rwr[k].next = k < 15 ? &rwr[k + 1] : NULL;
	}
	for (k = 0; k < 8; k++)
		bad_sge[k] = rsge[0][0];
	{
		struct ibv_recv_wr bad = { .wr_id = 0xbad, .sg_list = bad_sge,
					   .num_sge = da.max_sge + 1 };

		rwr[0].next = &bad;
		ret = v.ibv_post_srq_recv(srq, &rwr[0], &bad_rwr);
		obs("ibv_post_srq_recv of a chain whose 2nd has max_sge+1 SGEs: returns %d (%s), "
		    "bad_wr is the 2nd: %s", ret, strerror(ret), bad_rwr == &bad ? "yes" : "no");
		CHECK(ret != 0 && bad_rwr == &bad, "ibv_post_srq_recv took too many SGEs");
	}
	rwr[0].next = &rwr[1];
	CHECK(!v.ibv_post_srq_recv(srq, &rwr[1], &bad_rwr), "ibv_post_srq_recv of 15");
	CHECK(!v.ibv_req_notify_cq(rcq, 1), "ibv_req_notify_cq(solicited only)");

	connect_param(&param, qp, 1, &mine);
	CHECK(!rdma_accept(id, &param), "rdma_accept");
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED, "not established");
	obs("connected (the client's QP number in the request, ours in the reply)");
	qp_state(qp, "after rdma_accept");

	/* What iWARP (siw) refuses, nothing posted: more SGEs than the device
	 * takes, atomics, immediate data, inline data past the provider's
	 * limit. */
	for (k = 0; k < 8; k++)
		bad_sge[k] = (struct ibv_sge){ (uintptr_t)sbuf[0], 1, smr->lkey };
	memset(&one, 0, sizeof(one));
	one.wr_id = 0xbad;
	one.opcode = IBV_WR_SEND;
	one.sg_list = bad_sge;
	one.num_sge = da.max_sge + 1;
	refuse_send(qp, &one, "a send of max_sge+1 SGEs");
	ssge[P2_N] = (struct ibv_sge){ (uintptr_t)&word, 8, xmr->lkey };
	one.sg_list = &ssge[P2_N];
	one.num_sge = 1;
	one.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	one.wr.atomic.remote_addr = peer.win_addr;
	one.wr.atomic.rkey = peer.win_rkey;
	one.wr.atomic.compare_add = 1;
	refuse_send(qp, &one, "a fetch-and-add");
	one.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	one.wr.atomic.swap = 2;
	refuse_send(qp, &one, "a compare-and-swap");
	memset(&one.wr, 0, sizeof(one.wr));
	one.opcode = IBV_WR_SEND_WITH_IMM;
	one.imm_data = htonl(0x5e4d0001u);
	refuse_send(qp, &one, "a send with immediate data");
	one.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	one.wr.rdma.remote_addr = peer.win_addr;
	one.wr.rdma.rkey = peer.win_rkey;
	refuse_send(qp, &one, "an RDMA write with immediate data");
	memset(inline_msg, 0, sizeof(inline_msg));
	CHECK(cap.max_inline_data < sizeof(inline_msg), "max_inline_data %u", cap.max_inline_data);
	one.opcode = IBV_WR_SEND;
	one.imm_data = 0;
	one.send_flags = IBV_SEND_INLINE;
	ssge[P2_N] = (struct ibv_sge){ (uintptr_t)inline_msg, cap.max_inline_data + 1, 0 };
	refuse_send(qp, &one, "a send of max_inline_data+1 bytes inline");

	/* 1. The client's 8 messages, polled; then the solicited event, if
	 * any comes within 200 ms (none on siw). */
	reap(rcq, P1_N, wc, "phase 1 receives");
	{
		struct pollfd p = { .fd = ch->fd, .events = POLLIN };

		struct ibv_cq *ecq;
		void *ectx;
		int got = poll(&p, 1, 200) == 1;

		obs("phase 1: the CQ armed for solicited completions: %s",
		    got ? "an event" : "no event within 200 ms of the 8th");
		if (got) {	/* a kernel that signals it: taken, acked */
			CHECK(!ibv_get_cq_event(ch, &ecq, &ectx) && ecq == rcq, "the event");
			ibv_ack_cq_events(ecq, 1);
		}
	}
	for (k = 0; k < P1_N; k++) {
		uint32_t len = p1_size[k], head = len < 100 ? len : 100;

		check_wc("phase 1 receive", k, &wc[k], SRQ_ID(k), IBV_WC_RECV, len, qp->qp_num);
		expect(rbuf[k], head, P1_SEED(k), 0, "phase 1 receive, first SGE");
		expect(rbuf[k] + 100 + GAP, len - head, P1_SEED(k), head,
		       "phase 1 receive, second SGE");
		verified(1, len);
	}
	n = v.ibv_poll_cq(rcq, 8, &wc[P1_N]);
	obs("phase 1: ibv_poll_cq again returns %d", n);
	CHECK(n == 0, "a completion more");
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
	fill(inline_msg, p2_size[2], P2_SEED(2), 0);	/* inline: any memory */
	ssge[2] = (struct ibv_sge){ (uintptr_t)inline_msg, p2_size[2], 0 };
	swr[2].send_flags |= IBV_SEND_INLINE;
	{
		struct ibv_sge two[2] = {
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
	for (k = 0; k < P2_N; k++)
		check_wc("phase 2 send", k, &wc[k], P2_ID(k), IBV_WC_SEND, -1, qp->qp_num);

	/* 3. DONE, after the client's write and read. */
	wait_event(ch, rcq, "DONE");
	/* polled until it is there, bounded */
	reap(rcq, 1, wc, "DONE");
	nothing_more(rcq, "DONE");
	check_wc("DONE receive", 0, &wc[0], SRQ_ID(8), IBV_WC_RECV, 16, qp->qp_num);
	CHECK(!memcmp(rbuf[8], "DONE", 4), "DONE: the message");
	verified(1, 16);
	expect(win, WIN, WRITE_SEED, 0, "the window the client wrote");
	verified(1, WIN);
	obs("the window holds the %d bytes written", WIN);

	/* 4. A write into the client's sink, a read of its source, BYE. */
	memset(swr, 0, sizeof(swr));
	memset(back, 0, sizeof(back));
	fill(sbuf[0], WIN / 2, SINK_SEED, 0);
	ssge[0] = (struct ibv_sge){ (uintptr_t)sbuf[0], WIN / 2, smr->lkey };
	ssge[1] = (struct ibv_sge){ (uintptr_t)back, WIN / 2, bmr->lkey };
	memcpy(inline_msg, "BYE", 4);
	ssge[2] = (struct ibv_sge){ (uintptr_t)inline_msg, 4, 0 };
	for (k = 0; k < 3; k++) {
		swr[k].wr_id = S_WRITE + k;
		swr[k].send_flags = IBV_SEND_SIGNALED;
		swr[k].sg_list = &ssge[k];
		swr[k].num_sge = 1;
		swr[k].next = k < 1 ? &swr[k + 1] : NULL;	/* BYE posted after */
	}
	swr[0].opcode = IBV_WR_RDMA_WRITE;
	swr[0].wr.rdma.remote_addr = peer.win_addr;
	swr[0].wr.rdma.rkey = peer.win_rkey;
	swr[1].opcode = IBV_WR_RDMA_READ;
	swr[1].wr.rdma.remote_addr = peer.win_addr + WIN / 2;
	swr[1].wr.rdma.rkey = peer.win_rkey;
	swr[2].opcode = IBV_WR_SEND;
	swr[2].send_flags |= IBV_SEND_INLINE;
	CHECK(!v.ibv_post_send(qp, &swr[0], &bad_swr), "ibv_post_send of phase 4");
	reap(scq, 2, wc, "phase 4");
	CHECK(!v.ibv_post_send(qp, &swr[2], &bad_swr), "ibv_post_send of BYE");
	reap(scq, 1, &wc[2], "phase 4, BYE");
	{
		static const unsigned op[3] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_SEND };
		static const long len[3] = { -1, WIN / 2, -1 };

		for (k = 0; k < 3; k++)
			check_wc("phase 4", k, &wc[k], S_WRITE + k, op[k], len[k], qp->qp_num);
	}
	expect(back, WIN / 2, SOURCE_SEED, 0, "read from the client");
	verified(1, WIN / 2);
	obs("phase 4: read the client's %d bytes", WIN / 2);

	rdma_disconnect(id);
	CHECK(!ibv_destroy_qp(qp), "ibv_destroy_qp");
	CHECK(!ibv_destroy_srq(srq), "ibv_destroy_srq");
	CHECK(!ibv_destroy_cq(scq) && !ibv_destroy_cq(rcq), "ibv_destroy_cq");
	CHECK(!ibv_destroy_comp_channel(ch), "ibv_destroy_comp_channel");
	CHECK(!ibv_dereg_mr(rmr) && !ibv_dereg_mr(smr) && !ibv_dereg_mr(wmr) &&
	      !ibv_dereg_mr(bmr) && !ibv_dereg_mr(xmr), "ibv_dereg_mr");
	CHECK(!ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
}

/* ---- client ---- */

static void client(const char *addr, const char *port)
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

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client ADDR PORT\n", argv[0]);
		return 2;
	}
	role = argv[1];
	fill_table();
	if (!strcmp(role, "server"))
		server(argv[2], argv[3]);
	else
		client(argv[2], argv[3]);
	printf("RESULT verbs PASS msgs=%ld bytes=%ld\n", msgs, bytes);
	return 0;
}
