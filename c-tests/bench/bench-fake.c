/*
 * The benchmark's fake provider: ops and replaced libibverbs functions that
 * do trivial work. In a file of its own so that no variant can inline them;
 * the binary exports them (-rdynamic), so the two libraries bind to them.
 */
#include <stdlib.h>
#include <infiniband/verbs.h>

#include "bench-fake.h"
#include "functions.h"	/* RDMAVERBS_IF_name: the build's functions (build/gen) */

static struct ibv_mr mr;

int op_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)q; (void)wr; (void)bad;
	return 0;
}

int op_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)q; (void)wr; (void)bad;
	return 0;
}

int op_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *w)
{
	(void)c; (void)n;
	w->wr_id = 1;
	return 1;	/* a completion is always ready */
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *p, void *addr, size_t length, int access)
{
	(void)p; (void)addr; (void)length; (void)access;
	return &mr;
}

int ibv_dereg_mr(struct ibv_mr *m)
{
	(void)m;
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **c, void **context)
{
	(void)ch; (void)c; (void)context;
	abort();	/* never on the main path */
}

void ibv_ack_cq_events(struct ibv_cq *c, unsigned int n)
{
	(void)c; (void)n;
	abort();
}


/* ---- the rest of the data path of <infiniband/verbs.h> (RDMAVERBS_1.3):
 * each op does nothing, or answers a constant ---- */
static int op_post_srq_recv(struct ibv_srq *s, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)s; (void)wr; (void)bad;
	return 0;
}

static int op_post_wq_recv(struct ibv_wq *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)q; (void)wr; (void)bad;
	return 0;
}

static int op_post_srq_ops(struct ibv_srq *s, struct ibv_ops_wr *op, struct ibv_ops_wr **bad)
{
	(void)s; (void)op; (void)bad;
	return 0;
}

static int op_req_notify_cq(struct ibv_cq *c, int solicited_only)
{
	(void)c; (void)solicited_only;
	return 0;
}

/* The extended QP's calls, by their parameters after the QP (unused). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define WR(name, ...) static void wr_##name(struct ibv_qp_ex *q, __VA_ARGS__) { (void)q; }
WR(atomic_cmp_swp, uint32_t a, uint64_t b, uint64_t c, uint64_t d)
WR(atomic_fetch_add, uint32_t a, uint64_t b, uint64_t c)
WR(bind_mw, struct ibv_mw *a, uint32_t b, const struct ibv_mw_bind_info *c)
WR(local_inv, uint32_t a)
WR(rdma_read, uint32_t a, uint64_t b)
WR(rdma_write, uint32_t a, uint64_t b)
WR(rdma_write_imm, uint32_t a, uint64_t b, __be32 c)
WR(send_imm, __be32 a)
WR(send_inv, uint32_t a)
WR(send_tso, void *a, uint16_t b, uint16_t c)
WR(set_ud_addr, struct ibv_ah *a, uint32_t b, uint32_t c)
WR(set_xrc_srqn, uint32_t a)
WR(set_inline_data, void *a, size_t b)
WR(set_inline_data_list, size_t a, const struct ibv_data_buf *b)
WR(set_sge, uint32_t a, uint64_t b, uint32_t c)
WR(set_sge_list, size_t a, const struct ibv_sge *b)
RDMAVERBS_IF_ibv_wr_atomic_write(WR(atomic_write, uint32_t a, uint64_t b, const void *c))
RDMAVERBS_IF_ibv_wr_flush(WR(flush, uint32_t a, uint64_t b, size_t c, uint8_t d, uint8_t e))
#undef WR
#pragma GCC diagnostic pop
static void wr_nothing(struct ibv_qp_ex *q) { (void)q; }
static int wr_complete(struct ibv_qp_ex *q) { (void)q; return 0; }

/* The extended CQ's: a poll finds one completion; a reader answers 7. */
static int cq_start_poll(struct ibv_cq_ex *c, struct ibv_poll_cq_attr *a) { (void)c; (void)a; return 0; }
static int cq_next_poll(struct ibv_cq_ex *c) { (void)c; return 0; }
static void cq_end_poll(struct ibv_cq_ex *c) { (void)c; }
#define READ(type, name) static type cq_read_##name(struct ibv_cq_ex *c) { (void)c; return 7; }
READ(enum ibv_wc_opcode, opcode) READ(uint32_t, vendor_err) READ(uint32_t, byte_len)
READ(__be32, imm_data) READ(uint32_t, qp_num) READ(uint32_t, src_qp)
READ(unsigned int, wc_flags) READ(uint32_t, slid) READ(uint8_t, sl)
READ(uint8_t, dlid_path_bits) READ(uint64_t, completion_ts) READ(uint16_t, cvlan)
READ(uint32_t, flow_tag) READ(uint64_t, completion_wallclock_ns)
#undef READ
static void cq_read_tm_info(struct ibv_cq_ex *c, struct ibv_wc_tm_info *t) { (void)c; (void)t; }

void bench_fake_verbs(struct verbs_context *v, struct ibv_wq *wq, struct ibv_qp_ex *qp,
		      struct ibv_cq_ex *cq)
{
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->sz = sizeof(*v);
	v->context.ops.post_send = op_post_send;
	v->context.ops.post_recv = op_post_recv;
	v->context.ops.poll_cq = op_poll_cq;
	v->context.ops.post_srq_recv = op_post_srq_recv;
	v->context.ops.req_notify_cq = op_req_notify_cq;
	v->post_srq_ops = op_post_srq_ops;
	wq->post_recv = op_post_wq_recv;
#define SET(name) qp->wr_##name = wr_##name;
	SET(atomic_cmp_swp) SET(atomic_fetch_add) SET(bind_mw) SET(local_inv)
	SET(rdma_read) SET(rdma_write) SET(rdma_write_imm) SET(send_imm) SET(send_inv)
	SET(send_tso) SET(set_ud_addr) SET(set_xrc_srqn) SET(set_inline_data)
	SET(set_inline_data_list) SET(set_sge) SET(set_sge_list) SET(complete)
	RDMAVERBS_IF_ibv_wr_atomic_write(SET(atomic_write))
	RDMAVERBS_IF_ibv_wr_flush(SET(flush))
#undef SET
	qp->wr_send = qp->wr_start = qp->wr_abort = wr_nothing;
	cq->start_poll = cq_start_poll;
	cq->next_poll = cq_next_poll;
	cq->end_poll = cq_end_poll;
#define SET(name) cq->read_##name = cq_read_##name;
	SET(opcode) SET(vendor_err) SET(byte_len) SET(imm_data) SET(qp_num) SET(src_qp)
	SET(wc_flags) SET(slid) SET(sl) SET(dlid_path_bits) SET(completion_ts) SET(cvlan)
	SET(flow_tag) SET(completion_wallclock_ns) SET(tm_info)
#undef SET
}
