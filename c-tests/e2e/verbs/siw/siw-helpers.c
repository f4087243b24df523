/*
 * The helpers of siw-verbs.c's exchange on soft-iWARP, below its server and
 * client: checking a completion, the QP's state, the connection's
 * parameters and keys, the device's limits, a request siw must refuse.
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

const char *opcode_name(unsigned op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_RECV: return "RECV";
	default: return "other";
	}
}

/* One completion against what was posted: byte_len < 0 is not defined for
 * the opcode (printed, not checked); iWARP sets no flag. */
void check_wc(const char *what, int i, const struct ibv_wc *wc, uint64_t wr_id,
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

/* After the one completion a step waits for: none more but receives
 * flushed (IBV_WC_WR_FLUSH_ERR) when the peer, done, disconnects first (how
 * many is timing's, so not printed). */
void nothing_more(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc more[8];
	int n = v.ibv_poll_cq(cq, 8, more), k;

	CHECK(n >= 0, "%s: ibv_poll_cq returned %d", what, n);
	for (k = 0; k < n; k++)
		CHECK(more[k].status == IBV_WC_WR_FLUSH_ERR,
		      "%s: one completion, then wr_id %#llx status %s", what,
		      (unsigned long long)more[k].wr_id, ibv_wc_status_str(more[k].status));
}

/* To INIT with the attributes rdma_cm gives; iWARP's connection manager
 * takes it on from there. */
void to_init(struct rdma_cm_id *id, struct ibv_qp *qp)
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
void qp_state(struct ibv_qp *qp, const char *when)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	memset(&attr, 0xff, sizeof(attr));
	CHECK(!ibv_query_qp(qp, &attr, IBV_QP_STATE, &init), "ibv_query_qp");
	obs("ibv_query_qp's qp_state %s: %d", when, (int)attr.qp_state);
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

struct ibv_device_attr device(struct ibv_context *ctx)
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

/* ibv_post_send of one request the provider must refuse: nothing posted,
 * bad_wr the request. */
void refuse_send(struct ibv_qp *qp, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad = NULL;
	int ret = v.ibv_post_send(qp, wr, &bad);

	obs("ibv_post_send of %s: returns %d (%s), bad_wr is it: %s", what, ret, strerror(ret),
	    bad == wr ? "yes" : "no");
	CHECK(ret != 0 && bad == wr, "ibv_post_send took %s", what);
}
