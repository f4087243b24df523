/*
 * The helpers of verbs.c's exchange on rxe, below its server and client:
 * checking a completion (of either kind of CQ), moving a QP through its
 * states, the connection's parameters and keys, the device's atomics.
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

const char *opcode_name(unsigned op)
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

/* Checks a completion against what was posted; byte_len < 0: not defined
 * for this opcode (a send's, a write's), printed, not checked. */
void check_comp(const char *what, int i, const struct comp *c, uint64_t wr_id,
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

void from_wc(struct comp *c, const struct ibv_wc *wc)
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
void read_ex(struct ibv_cq_ex *cq, struct comp *c, int full, const char *what)
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
void next_ex(struct ibv_cq_ex *cq, struct comp *c, const char *what)
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

/* Moves a QP that librdmacm does not know of to `state` with the attributes
 * rdma_cm gives, reads and atomics DEPTH deep (as rdma_accept and
 * rdma_connect do for a QP of the id's). */
void modify(struct rdma_cm_id *id, struct ibv_qp *qp, enum ibv_qp_state state,
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

void connect_param(struct rdma_conn_param *p, struct ibv_qp *qp, int srq,
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

struct keys peer_keys(const struct rdma_cm_event *event)
{
	struct keys k;

	CHECK(event && event->param.conn.private_data &&
	      event->param.conn.private_data_len >= sizeof(k), "no keys from the peer");
	memcpy(&k, event->param.conn.private_data, sizeof(k));
	return k;
}

void check_atomics(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	CHECK(!ibv_query_device(ctx, &attr), "ibv_query_device");
	CHECK(attr.atomic_cap != IBV_ATOMIC_NONE, "the device has no atomics");
	CHECK(attr.max_qp_rd_atom >= DEPTH && attr.max_qp_init_rd_atom >= DEPTH,
	      "the device takes fewer than %d reads in flight", DEPTH);
}
