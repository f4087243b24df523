/*
 * RDMAVERBS_1.3 on Soft-RoCE: an RC exchange between a server and a client
 * whose every data-path call goes through a table of function pointers, one
 * per static inline function of <infiniband/verbs.h> (build/gen/functions.h,
 * RDMAVERBS_VERBS_H_FUNCTIONS). The same source is built twice:
 *
 *   stock  the table holds the inline originals' addresses (v.ibv_post_send
 *          = ibv_post_send), which compiles the header's code into this
 *          program;
 *   ours   the table holds librdmaverbs.so.1's exports of the same names,
 *          found with dlvsym(handle, name, its node) in the library
 *          VERBS_LIBRARY names (set by the Makefile); a missing one fails.
 *
 * Either way the program checks that each of the 94 pointers lies in the
 * object it should (this program, or the library). Set-up and teardown use
 * librdmacm's and libibverbs' real functions: the ids have no QP of
 * librdmacm's, the QPs are created through the table and moved through
 * their states with rdma_init_qp_attr and ibv_modify_qp, as librdmacm does,
 * and the connection is made with the QP numbers in the parameters
 * (rdma_connect, rdma_accept, rdma_establish).
 *
 * The exchange (client: an extended QP, ibv_wr_*, and two extended CQs;
 * server: a QP made with comp_mask IBV_QP_INIT_ATTR_PD, an SRQ, two
 * classic CQs, ibv_post_send and ibv_poll_cq):
 *   1. the client sends 8 messages, 4 as one chain through ibv_post_send
 *      (one with immediate data over 2 SGEs, one inline) and 4 through
 *      ibv_wr_* (ibv_wr_send, ibv_wr_send_imm, inline data, an SGE list),
 *      the last solicited; they land in the server's SRQ (ibv_post_srq_recv);
 *      the server's CQ was armed with ibv_req_notify_cq(cq, 1), so its event
 *      comes with the last one, and one ibv_poll_cq of 16 reaps all 8;
 *   2. the server sends 6 messages as one chain through ibv_post_send (the
 *      last solicited) into the client's receives (ibv_post_recv); the
 *      client's extended CQ, armed the same way, is read after its event
 *      with one ibv_start_poll, five ibv_next_poll and one ibv_end_poll;
 *   3. the client, in one ibv_wr_start/ibv_wr_complete batch, writes 4096
 *      bytes into the server's window, reads them back, and does a
 *      fetch-and-add and two compare-and-swaps (one that swaps, one that
 *      does not) on the server's counter; then sends DONE, inline;
 *   4. the server, on DONE (an event of its CQ armed for any completion),
 *      checks the window and the counter, then posts one chain: an RDMA
 *      write into the client's memory, an RDMA read of it, a fetch-and-add
 *      and a compare-and-swap on the client's counter, and BYE; the client
 *      checks them when BYE arrives.
 * Every completion's status, opcode, wr_id and (where defined) byte_len,
 * every byte and every atomic's old value are checked, and a few requests
 * the provider refuses (too many SGEs, a misaligned atomic, inline data too
 * long, an unsupported CQ flag and send operation). Lines starting "obs:"
 * are what both builds must report alike (values, never addresses); the
 * last line is "RESULT verbs PASS|FAIL msgs=N bytes=M" (N messages and M
 * bytes verified by this side).
 *
 * ibv_next_poll is called only where the completions it reads are known to
 * be there (after a solicited event): in rdma-core 44's rxe provider, a
 * next_poll that finds nothing unlocks the CQ and stores its index, and the
 * end_poll that must follow does both again (fixed in rdma-core 55 and
 * 59). ibv_wr_set_sge_list is given SGEs of equal lengths (rdma-core 44's
 * rxe adds the first one's length num_sge times; fixed later), and inline
 * data goes with IBV_SEND_INLINE in wr_flags (rxe's kernel reads the WQE's
 * data as inline only then).
 *
 * Usage: verbs server|client ADDR PORT
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

#include "functions.h"

#define WAIT_MS 30000	/* the longest wait for a completion or an event */
#define DEPTH 4		/* RDMA reads and atomics in flight, each way */
#define SLOT 4096
#define RSLOT (SLOT + 128)	/* a server receive: 100 bytes, a gap, the rest */
#define GAP 128
#define WIN 4096

#include "verbs-table.h"

/* ---- data ---- */

/* Phase 1, client to server: 8 messages. 0-3 one ibv_post_send chain (1
 * with immediate data, over 2 SGEs; 2 inline), 4-7 ibv_wr_* (5 with
 * immediate data, 6 inline, 7 over an SGE list of two equal halves). */
#define P1_N 8
static const uint32_t p1_size[P1_N] = { 1, 1500, 48, 4096, 333, 2048, 60, 1400 };
#define P1_IMM(k) (0xc0de0000u + (k))
#define P1_SEED(k) (0x10 + (k))
/* Phase 2, server to client: 6 messages, one ibv_post_send chain (1 with
 * immediate data, 2 inline, 3 over 2 SGEs, 5 solicited). */
#define P2_N 6
static const uint32_t p2_size[P2_N] = { 4096, 7, 64, 1000, 2500, 1 };
#define P2_IMM 0x5e4d0001u
#define P2_SEED(j) (0x20 + (j))
#define WRITE_SEED 0x30		/* the client's write into the server's window */
#define SINK_SEED 0x40		/* the server's write into the client's sink */
#define SOURCE_SEED 0x50	/* the client's source, read by the server */
/* The counters and what the atomics do to them. */
#define S_INIT 0x0123456789abcdefull
#define S_ADD 0x1111ull
#define S_SWAP 0xfeedface00000001ull
#define C_INIT 41ull
#define C_SWAP 0x5151ull

/* wr_ids */
#define SRQ_ID(k) (0x5200u + (k))	/* server receive k (SRQ slot k % 16) */
#define CRECV_ID(j) (0xc100u + (j))	/* client receive j */
#define P1_ID(k) (0xa100u + (k))
#define P2_ID(j) (0xb200u + (j))
enum { OS_WRITE = 0xa300, OS_READ, OS_FADD, OS_CAS, OS_CAS_FAIL, OS_DONE, OS_FLUSH };

/* A build against rdma-core 45's header or later also flushes the window it
 * wrote (ibv_wr_flush, RDMAVERBS_1.4): the server registers it for that,
 * the client's QP is created with it. */
#ifdef RDMAVERBS_HAS_ibv_wr_flush
#define WIN_FLUSH IBV_ACCESS_FLUSH_GLOBAL
#define QP_FLUSH IBV_QP_EX_WITH_FLUSH
#else
#define WIN_FLUSH 0
#define QP_FLUSH 0
#endif
enum { S_WRITE = 0xb400, S_READ, S_FADD, S_CAS, S_BYE };

/* A side's remote memory, in the connection's private data. */
struct keys {
	uint64_t win_addr;	/* server: the window; client: the sink, then the source */
	uint64_t ctr_addr;
	uint32_t win_rkey;
	uint32_t ctr_rkey;
};

static const char *opcode_name(unsigned op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	case IBV_WC_FLUSH: return "FLUSH";
#endif
	default: return "other";
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- completions ---- */

/* One completion, as either kind of CQ gives it. */
struct comp {
	uint64_t wr_id;
	enum ibv_wc_status status;
	unsigned opcode, wc_flags;
	uint32_t byte_len, imm, qp_num;
};

/* Checks a completion against what was posted; byte_len < 0: not defined
 * for this opcode (a send's, a write's), printed, not checked. */
static void check_comp(const char *what, int i, const struct comp *c, uint64_t wr_id,
		       unsigned opcode, long byte_len, uint32_t qp_num)
{
	CHECK(c->status == IBV_WC_SUCCESS, "%s %d: status %s", what, i,
	      ibv_wc_status_str(c->status));
	CHECK(c->wr_id == wr_id, "%s %d: wr_id %#llx, posted %#llx", what, i,
	      (unsigned long long)c->wr_id, (unsigned long long)wr_id);
	CHECK(c->opcode == opcode, "%s %d: opcode %s, want %s", what, i,
	      opcode_name(c->opcode), opcode_name(opcode));
	CHECK(byte_len < 0 || c->byte_len == byte_len, "%s %d: byte_len %u, want %ld", what, i,
	      c->byte_len, byte_len);
	CHECK(c->qp_num == qp_num, "%s %d: the completion of another QP", what, i);
	obs("%s %d: wr_id %#llx %s %s byte_len %u wc_flags %#x", what, i,
	    (unsigned long long)c->wr_id, ibv_wc_status_str(c->status), opcode_name(c->opcode),
	    c->byte_len, c->wc_flags);
	if ((c->opcode & IBV_WC_RECV) && (c->wc_flags & IBV_WC_WITH_IMM))
		obs("%s %d: imm_data %#x", what, i, c->imm);
}

static void from_wc(struct comp *c, const struct ibv_wc *wc)
{
	c->wr_id = wc->wr_id;
	c->status = wc->status;
	c->opcode = wc->opcode;
	c->wc_flags = wc->wc_flags;
	c->byte_len = wc->byte_len;
	c->imm = (wc->wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc->imm_data) : 0;
	c->qp_num = wc->qp_num;
}

/* The current completion of an extended CQ, through the ibv_wc_read_*
 * functions of the flags the CQ was made with (all of rxe's on `full`). */
static void read_ex(struct ibv_cq_ex *cq, struct comp *c, int full, const char *what)
{
	c->wr_id = cq->wr_id;
	c->status = cq->status;
	CHECK(c->status == IBV_WC_SUCCESS, "%s: status %s", what, ibv_wc_status_str(c->status));
	c->opcode = v.ibv_wc_read_opcode(cq);
	c->wc_flags = v.ibv_wc_read_wc_flags(cq);
	c->byte_len = v.ibv_wc_read_byte_len(cq);
	c->qp_num = v.ibv_wc_read_qp_num(cq);
	c->imm = 0;
	CHECK(v.ibv_wc_read_vendor_err(cq) == 0, "%s: vendor_err %u", what,
	      v.ibv_wc_read_vendor_err(cq));
	if (!full)
		return;
	if (c->wc_flags & IBV_WC_WITH_IMM)
		c->imm = ntohl(v.ibv_wc_read_imm_data(cq));
	/* RC on RoCE: no source QP, LID, SL or path bits; what rxe reports */
	obs("%s: src_qp %u slid %u sl %u dlid_path_bits %u", what, v.ibv_wc_read_src_qp(cq),
	    v.ibv_wc_read_slid(cq), v.ibv_wc_read_sl(cq), v.ibv_wc_read_dlid_path_bits(cq));
}

/* The next completion of an extended CQ: ibv_start_poll until there is one
 * (ENOENT: none yet), read it, ibv_end_poll. */
static void next_ex(struct ibv_cq_ex *cq, struct comp *c, const char *what)
{
	struct ibv_poll_cq_attr attr = { 0 };
	double end = now() + WAIT_MS / 1000.0;
	int ret;

	while ((ret = v.ibv_start_poll(cq, &attr)) == ENOENT) {
		CHECK(now() < end, "%s: no completion within %d ms", what, WAIT_MS);
		usleep(20);
	}
	CHECK(ret == 0, "%s: ibv_start_poll returned %d", what, ret);
	read_ex(cq, c, 0, what);
	v.ibv_end_poll(cq);
}

/* n completions of a classic CQ, polled in batches of up to 8. */
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

/* Waits for the event of a CQ armed with ibv_req_notify_cq, and acks it. */
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

/* ---- connection ---- */

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

/* Moves a QP that librdmacm does not know of to `state` with the attributes
 * rdma_cm gives, reads and atomics DEPTH deep (as rdma_accept and
 * rdma_connect do for a QP of the id's). */
static void modify(struct rdma_cm_id *id, struct ibv_qp *qp, enum ibv_qp_state state,
		   const char *name)
{
	struct ibv_qp_attr attr;
	int mask;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = state;
	CHECK(!rdma_init_qp_attr(id, &attr, &mask), "rdma_init_qp_attr %s", name);
	if (state == IBV_QPS_RTR)
		attr.max_dest_rd_atomic = DEPTH;
	if (state == IBV_QPS_RTS)
		attr.max_rd_atomic = DEPTH;
	CHECK(!ibv_modify_qp(qp, &attr, mask), "ibv_modify_qp to %s", name);
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
	/* (ibv_reg_mr): the real function, not verbs.h's macro and inline
	 * __ibv_reg_mr */
	struct ibv_mr *mr = (ibv_reg_mr)(pd, addr, len, access);

	CHECK(mr, "ibv_reg_mr of %zu bytes", len);
	return mr;
}

static void check_atomics(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	CHECK(!ibv_query_device(ctx, &attr), "ibv_query_device");
	CHECK(attr.atomic_cap != IBV_ATOMIC_NONE, "the device has no atomics");
	CHECK(attr.max_qp_rd_atom >= DEPTH && attr.max_qp_init_rd_atom >= DEPTH,
	      "the device takes fewer than %d reads in flight", DEPTH);
}

static struct ibv_qp_cap qp_cap(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	CHECK(!ibv_query_qp(qp, &attr, IBV_QP_CAP, &init), "ibv_query_qp");
	return attr.cap;
}

/* ---- server ---- */

static void server(const char *addr, const char *port)
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

/* ---- client ---- */

static void client(const char *addr, const char *port)
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
