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

#include "verbs.h"

/* ---- the helpers of this exchange ---- */

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
