/* The fake provider of vfake.h: the world built (vfake_init, with the ops of
 * vfake-ctx.c and vfake-ex.c set in it) and the ops of struct
 * ibv_context_ops the inlines call. */
#include "../vfake.h"

#include <string.h>

#define U(x) ((uint64_t)(uintptr_t)(x))

/* ---- struct ibv_context_ops ---- */

/* A failed post names the first work request not posted: the list's
 * first, or its second when the script says so. */
#define BAD(bad, wr) \
	do { if (vfake_room(bad) && vfake_room(wr)) *(bad) = vfake_script->bad && (wr)->next ? (wr)->next : (wr); } while (0)

static int op_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int ret = (int)vfake_answer(V_post_send);

	vfake_snap(vfake_rec(V_post_send, qp, 2, U(wr), U(bad)), wr, sizeof(*wr));
	if (ret)
		BAD(bad, wr);
	return ret;
}

static int op_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int ret = (int)vfake_answer(V_post_recv);

	vfake_snap(vfake_rec(V_post_recv, qp, 2, U(wr), U(bad)), wr, sizeof(*wr));
	if (ret)
		BAD(bad, wr);
	return ret;
}

static int op_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int ret = (int)vfake_answer(V_post_srq_recv);

	vfake_snap(vfake_rec(V_post_srq_recv, srq, 2, U(wr), U(bad)), wr, sizeof(*wr));
	if (ret)
		BAD(bad, wr);
	return ret;
}

/* Writes as many completions as it returns (at most num_entries, and the
 * world's four). */
static int op_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int ret = (int)vfake_answer(V_poll_cq);

	vfake_rec(V_poll_cq, cq, 2, U(n), U(wc));
	if (ret > 0 && n > 0)
		vfake_fill(wc, (size_t)(ret < n ? ret : n) * sizeof(*wc));
	return ret;
}

static int op_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	vfake_rec(V_req_notify_cq, cq, 1, U(solicited_only));
	return (int)vfake_answer(V_req_notify_cq);
}

static struct ibv_mw *op_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	vfake_rec(V_alloc_mw, pd, 1, U(type));
	return vfake_made(V_alloc_mw, &W.new_mw);
}

static int op_dealloc_mw(struct ibv_mw *mw)
{
	vfake_rec(V_dealloc_mw, mw, 0);
	return (int)vfake_answer(V_dealloc_mw);
}

static int op_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *b)
{
	vfake_snap(vfake_rec(V_bind_mw, qp, 2, U(mw), U(b)), b, sizeof(*b));
	return (int)vfake_answer(V_bind_mw);
}

/* ---- the world ---- */

size_t vfake_sz_for(size_t offset)
{
	return sizeof(struct verbs_context) - offset;
}

void vfake_init(void)
{
	struct verbs_context *v = &W.vctx;
	struct ibv_context *c = VCTX;

	memset(&W, 0, sizeof(W));
	v->sz = sizeof(*v);
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	c->device = &W.dev;
	c->num_comp_vectors = 4;
	vfake_install_ctx();
#define SET(n) c->ops.n = op_##n;
	VFAKE_LEGACY_OPS(SET)
#undef SET
	W.pd.context = W.other_pd.context = W.parent_pd.context = c;
	W.pd.handle = 1;
	W.other_pd.handle = 2;
	W.qp.context = W.new_qp.context = c;
	W.qp.pd = &W.pd;
	W.qp.qp_num = 0x1234;
	W.srq.context = W.new_srq.context = c;
	W.srq.pd = &W.pd;
	W.cq.context = c;
	W.mw.context = W.new_mw.context = c;
	W.mw.pd = &W.pd;
	W.mw.type = IBV_MW_TYPE_1;
	W.mr.context = W.other_mr.context = W.new_mr.context = c;
	W.mr.pd = &W.pd;
	W.other_mr.pd = &W.other_pd;
	W.xrcd.context = c;
	W.td.context = c;
	W.flow.context = c;
	W.action.context = c;
	W.counters.context = c;
	W.dm.context = c;
	W.wq.context = W.new_wq.context = c;
	W.table.context = c;
	W.ah.context = c;
	W.ah.pd = &W.pd;
	vfake_install_ex();

	/* the inputs, valid */
	W.swr[0].next = &W.swr[1];
	W.swr[0].wr_id = 1;
	W.swr[0].sg_list = W.sge;
	W.swr[0].num_sge = 1;
	W.swr[1].wr_id = 2;
	W.rwr[0].next = &W.rwr[1];
	W.rwr[0].wr_id = 3;
	W.rwr[0].sg_list = W.sge;
	W.rwr[0].num_sge = 1;
	W.rwr[1].wr_id = 4;
	W.ops_wr[0].next = &W.ops_wr[1];
	W.ops_wr[0].wr_id = 5;
	W.ops_wr[1].wr_id = 6;
	W.sge[0].addr = (uintptr_t)W.data;
	W.sge[0].length = 16;
	W.sge[0].lkey = 0x1111;
	W.bufs[0].addr = W.data;
	W.bufs[0].length = 8;
	W.mw_bind.bind_info.mr = &W.mr;
	W.mw_bind.bind_info.addr = (uintptr_t)W.data;
	W.mw_bind.bind_info.length = 16;
	W.bind_info = W.mw_bind.bind_info;
	W.cq_attr.cqe = 16;
	W.srq_attr.pd = &W.pd;
	W.srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	W.qp_attr.pd = &W.pd;
	W.qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	W.qp_attr.qp_type = IBV_QPT_RC;
	W.wq_attr.wq_context = &W.data[8];
	W.wq_attr.pd = &W.pd;
	W.wq_attr.cq = &W.cq;
	memset(W.data, 0x5c, sizeof(W.data));

	/* the outputs, and what the new WQ's fields hold before the call sets them */
	memset(&W.port, 0xa5, sizeof(W.port));
	memset(W.gid, 0xa5, sizeof(W.gid));
	memset(&W.dev_attr, 0xa5, sizeof(W.dev_attr));
	memset(&W.values, 0xa5, sizeof(W.values));
	W.values.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	memset(&W.srq_num, 0xa5, sizeof(W.srq_num));
	memset(W.counter_values, 0xa5, sizeof(W.counter_values));
	memset(W.wc, 0xa5, sizeof(W.wc));
	memset(&W.tm_info, 0xa5, sizeof(W.tm_info));
	memset(W.host, 0xa5, sizeof(W.host));
	W.new_wq.wq_context = &W.data[32];
	W.new_wq.events_completed = 0xdeadbeef;
	memset(&W.new_wq.mutex, 0xa5, sizeof(W.new_wq.mutex));
	memset(&W.new_wq.cond, 0xa5, sizeof(W.new_wq.cond));
	W.bad_swr = &W.swr[1];
	W.bad_rwr = &W.rwr[1];
	W.bad_op = &W.ops_wr[1];
}
