/* Each function's valid arguments, fixed or random (verbs.h, fill_args):
 * valid for the original and for a real provider behind it (objects and
 * inputs live, lists and buffers holding what their counts and lengths
 * say); ours refuses NULL where its doc says so (verbs-refusals.c). The
 * values that are only numbers to the call (keys, remote addresses, SGE
 * fields, registered addresses and lengths, flags, masks) are anything. */
#include <limits.h>
#include <string.h>

#include "verbs.h"

#define E32 ((uint32_t)edge(UINT32_MAX))
#define E64 edge(UINT64_MAX)
#define V(random, fixed) (rnd ? (random) : (fixed))
#define BEGIN(name) case F_##name: { struct a_##name *a = &u->name;
#define END } break;

/* A buffer of the world holding `*length` bytes: W.data or W.host from
 * an offset, the length at most what is left (or fixed). */
static unsigned char *buffer(unsigned char *b, size_t *length, int rnd, size_t fixed)
{
	size_t off = rnd ? (size_t)pick(65) : 0;

	*length = rnd ? (size_t)pick((int)(64 - off) + 1) : fixed;
	return b + off;
}

/* Access flags: plain ones, optional ones (IBV_ACCESS_OPTIONAL_RANGE), any. */
static unsigned int access_flags(void)
{
	switch (pick(4)) {
	case 0: return (unsigned int)pick(0x400);
	case 1: return (unsigned int)pick(0x400) | (1u << (20 + pick(10)));
	case 2: return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING;
	default: return E32;
	}
}

static int is_const(void)
{
	static const int e[] = { 0, 1, 2, -1, INT_MIN };

	return e[pick(5)];
}

/* The QP and SRQ attributes' masks: the plain path's, near it, any. */
static void random_attrs(void)
{
	int i;

	static const uint32_t qp[] = { IBV_QP_INIT_ATTR_PD, 0, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, IBV_QP_INIT_ATTR_PD | 0x80000000u };
	static const uint32_t srq[] = { IBV_SRQ_INIT_ATTR_PD, IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
					IBV_SRQ_INIT_ATTR_TYPE, 0, IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ,
					IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_RESERVED };

	W.qp_attr.comp_mask = pick(4) ? qp[pick(5)] : E32;
	W.qp_attr.pd = pick(8) ? &W.pd : NULL;
	W.srq_attr.comp_mask = pick(4) ? srq[pick(6)] : E32;
	W.srq_attr.srq_type = (enum ibv_srq_type)(pick(4) ? pick(3) : (int)E32);
	W.srq_attr.pd = pick(8) ? &W.pd : NULL;
	W.cq_attr.comp_mask = pick(2) ? (uint32_t)pick(4) : E32;
	W.cq_attr.wc_flags = E64;
	W.qd_input.comp_mask = pick(2) ? 0 : E32;
	W.wq_attr.wq_context = (void *)(uintptr_t)E64;
	W.mw.type = (enum ibv_mw_type)(pick(4) ? 1 + pick(2) : (int)E32);
	W.mw_bind.bind_info.mr = pick(3) ? &W.mr : pick(2) ? &W.other_mr : NULL;
	W.mw_bind.bind_info.addr = pick(2) ? E64 : 0;
	W.mw_bind.bind_info.length = pick(2) ? E64 : 0;
	W.bind_info = W.mw_bind.bind_info;
	W.values.comp_mask = E32;
	for (i = 0; i < 4; i++) {
		W.sge[i].addr = E64;
		W.sge[i].length = E32;
		W.sge[i].lkey = E32;
		W.bufs[i].addr = buffer(W.data, &W.bufs[i].length, 1, 0);
	}
}

/* The object of the extended QP's and CQ's calls. */
#define QX (&W.qpx)
#define CX (&W.cqx)

/* Fills c->u; W is the world the case will start from (random attributes
 * and object fields are set in it). */
void fill_args(struct vcase *c, int rnd)
{
	union vargs *u = &c->u;
	struct ibv_context *ctx = VCTX;

	if (rnd)
		random_attrs();
	switch (c->fn) {
	BEGIN(ibv_wr_atomic_cmp_swp) a->qp = QX; a->rkey = V(E32, 0x1234); a->remote_addr = V(E64, 0x1000);
		a->compare = V(E64, 1); a->swap = V(E64, 2); END
	BEGIN(ibv_wr_atomic_fetch_add) a->qp = QX; a->rkey = V(E32, 0x1234); a->remote_addr = V(E64, 0x1000);
		a->add = V(E64, 3); END
	BEGIN(ibv_wr_bind_mw) a->qp = QX; a->mw = &W.mw; a->rkey = V(E32, 0x77); a->bind_info = &W.bind_info; END
	BEGIN(ibv_wr_local_inv) a->qp = QX; a->invalidate_rkey = V(E32, 0x88); END
	BEGIN(ibv_wr_rdma_read) a->qp = QX; a->rkey = V(E32, 0x99); a->remote_addr = V(E64, 0x2000); END
	BEGIN(ibv_wr_rdma_write) a->qp = QX; a->rkey = V(E32, 0x99); a->remote_addr = V(E64, 0x2000); END
	BEGIN(ibv_wr_rdma_write_imm) a->qp = QX; a->rkey = V(E32, 0x99); a->remote_addr = V(E64, 0x2000);
		a->imm_data = V(E32, 0x01020304); END
	BEGIN(ibv_wr_send) a->qp = QX; END
	BEGIN(ibv_wr_send_imm) a->qp = QX; a->imm_data = V(E32, 0x05060708); END
	BEGIN(ibv_wr_send_inv) a->qp = QX; a->invalidate_rkey = V(E32, 0xaa); END
	BEGIN(ibv_wr_send_tso) a->qp = QX; a->hdr = W.data; a->hdr_sz = (uint16_t)V(pick(65), 16);
		a->mss = (uint16_t)V(edge(0xffff), 1460); END
	BEGIN(ibv_wr_set_ud_addr) a->qp = QX; a->ah = &W.ah; a->remote_qpn = V(E32, 0xffffff);
		a->remote_qkey = V(E32, 0x11111111); END
	BEGIN(ibv_wr_set_xrc_srqn) a->qp = QX; a->remote_srqn = V(E32, 0xbb); END
	BEGIN(ibv_wr_set_inline_data) a->qp = QX; a->addr = buffer(W.data, &a->length, rnd, 16); END
	BEGIN(ibv_wr_set_inline_data_list) a->qp = QX; a->num_buf = (size_t)V(pick(5), 1); a->buf_list = W.bufs; END
	BEGIN(ibv_wr_set_sge) a->qp = QX; a->lkey = V(E32, 0x1111); a->addr = V(E64, (uintptr_t)W.data);
		a->length = V(E32, 16); END
	BEGIN(ibv_wr_set_sge_list) a->qp = QX; a->num_sge = (size_t)V(pick(5), 1); a->sg_list = W.sge; END
	BEGIN(ibv_wr_start) a->qp = QX; END
	BEGIN(ibv_wr_complete) a->qp = QX; END
	BEGIN(ibv_wr_abort) a->qp = QX; END
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	BEGIN(ibv_wr_atomic_write) a->qp = QX; a->rkey = V(E32, 0x99); a->remote_addr = V(E64, 0x3000);
		a->atomic_wr = &W.data[8 * V(pick(8), 0)]; END
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	BEGIN(ibv_wr_flush) a->qp = QX; a->rkey = V(E32, 0x9a); a->remote_addr = V(E64, 0x3000);
		a->len = (size_t)V(E64, 64); a->type = (uint8_t)V(pick(256), 1); a->level = (uint8_t)V(pick(256), 2); END
#endif
	BEGIN(ibv_cq_ex_to_cq) a->cq = V(pick(3) ? CX : pick(2) ? NULL : (struct ibv_cq_ex *)(uintptr_t)E64, CX); END
	BEGIN(ibv_start_poll) a->cq = CX; a->attr = &W.poll_attr; END
	BEGIN(ibv_next_poll) a->cq = CX; END
	BEGIN(ibv_end_poll) a->cq = CX; END
	BEGIN(ibv_wc_read_opcode) a->cq = CX; END
	BEGIN(ibv_wc_read_vendor_err) a->cq = CX; END
	BEGIN(ibv_wc_read_byte_len) a->cq = CX; END
	BEGIN(ibv_wc_read_imm_data) a->cq = CX; END
	BEGIN(ibv_wc_read_invalidated_rkey) a->cq = CX; END
	BEGIN(ibv_wc_read_qp_num) a->cq = CX; END
	BEGIN(ibv_wc_read_src_qp) a->cq = CX; END
	BEGIN(ibv_wc_read_wc_flags) a->cq = CX; END
	BEGIN(ibv_wc_read_slid) a->cq = CX; END
	BEGIN(ibv_wc_read_sl) a->cq = CX; END
	BEGIN(ibv_wc_read_dlid_path_bits) a->cq = CX; END
	BEGIN(ibv_wc_read_completion_ts) a->cq = CX; END
	BEGIN(ibv_wc_read_completion_wallclock_ns) a->cq = CX; END
	BEGIN(ibv_wc_read_cvlan) a->cq = CX; END
	BEGIN(ibv_wc_read_flow_tag) a->cq = CX; END
	BEGIN(ibv_wc_read_tm_info) a->cq = CX; a->tm_info = &W.tm_info; END
	BEGIN(ibv_post_wq_recv) a->wq = &W.wq; a->recv_wr = &W.rwr[V(pick(2), 0)];
		a->bad_recv_wr = &W.bad_rwr; END
	BEGIN(___ibv_query_port) a->context = ctx; a->port_num = (uint8_t)V(edge(255), 1); a->port_attr = &W.port; END
	BEGIN(ibv_query_gid_ex) a->context = ctx; a->port_num = V(pick(2) ? edge(3) : E32, 1);
		a->gid_index = V(E32, 0); a->entry = &W.gid[V(pick(4), 0)]; a->flags = V(E32, 0); END
	BEGIN(ibv_query_gid_table) a->context = ctx; a->entries = W.gid; a->max_entries = (size_t)V(pick(5), 4);
		a->flags = V(E32, 0); END
	BEGIN(ibv_create_flow) a->qp = &W.qp; a->flow = &W.flow_attr; END
	BEGIN(ibv_destroy_flow) a->flow_id = &W.flow; END
	BEGIN(ibv_create_flow_action_esp) a->ctx = ctx; a->esp = &W.esp; END
	BEGIN(ibv_modify_flow_action_esp) a->action = &W.action; a->esp = &W.esp; END
	BEGIN(ibv_destroy_flow_action) a->action = &W.action; END
	BEGIN(ibv_open_xrcd) a->context = ctx; a->xrcd_init_attr = &W.xrcd_attr; END
	BEGIN(ibv_close_xrcd) a->xrcd = &W.xrcd; END
	BEGIN(__ibv_reg_mr) a->pd = V(pick(2) ? &W.pd : &W.other_pd, &W.pd);
		a->addr = V(pick(2) ? (void *)W.data : (void *)(uintptr_t)E64, W.data);
		a->length = V(E64, 64); a->access = V(access_flags(), IBV_ACCESS_LOCAL_WRITE);
		a->is_access_const = V(is_const(), 1); END
	BEGIN(__ibv_reg_mr_iova) a->pd = V(pick(2) ? &W.pd : &W.other_pd, &W.pd);
		a->addr = V(pick(2) ? (void *)W.data : (void *)(uintptr_t)E64, W.data);
		a->length = V(E64, 64); a->iova = V(E64, 0x10000); a->access = V(access_flags(), IBV_ACCESS_LOCAL_WRITE);
		a->is_access_const = V(is_const(), 1); END
	BEGIN(ibv_alloc_mw) a->pd = &W.pd; a->type_ = V(pick(2) ? 1u + (unsigned)pick(2) : E32, IBV_MW_TYPE_1); END
	BEGIN(ibv_dealloc_mw) a->mw = &W.mw; END
	BEGIN(ibv_inc_rkey) a->rkey = V(E32, 0x12345678); END
	BEGIN(ibv_bind_mw) a->qp = &W.qp; a->mw = &W.mw; a->mw_bind = &W.mw_bind; END
	BEGIN(ibv_advise_mr) a->pd = &W.pd; a->advice = V(pick(2) ? (unsigned)pick(3) : E32, 0);
		a->flags = V(E32, 0); a->sg_list = W.sge; a->num_sge = (uint32_t)V(pick(5), 1); END
	BEGIN(ibv_alloc_dm) a->context = ctx; a->attr = &W.dm_attr; END
	BEGIN(ibv_free_dm) a->dm = &W.dm; END
	BEGIN(ibv_memcpy_to_dm) a->dm = &W.dm; a->dm_offset = V(E64, 0); a->host_addr = buffer(W.data, &a->length, rnd, 16); END
	BEGIN(ibv_memcpy_from_dm) a->host_addr = buffer(W.host, &a->length, rnd, 16); a->dm = &W.dm;
		a->dm_offset = V(E64, 0); END
	BEGIN(ibv_alloc_null_mr) a->pd = &W.pd; END
	BEGIN(ibv_reg_dm_mr) a->pd = &W.pd; a->dm = &W.dm; a->dm_offset = V(E64, 0); a->length = V(E64, 64);
		a->access = V(access_flags(), IBV_ACCESS_ZERO_BASED); END
	BEGIN(ibv_create_cq_ex) a->context = ctx; a->cq_attr = &W.cq_attr; END
	BEGIN(ibv_poll_cq) a->cq = &W.cq; a->num_entries = V(pick(5), 4);
		/* no room asked for: a NULL array is valid (the provider writes none) */
		a->wc = rnd && a->num_entries == 0 && pick(2) ? NULL : W.wc; END
	BEGIN(ibv_req_notify_cq) a->cq = &W.cq; a->solicited_only = V(edge_int(), 0); END
	BEGIN(ibv_modify_cq) a->cq = &W.cq; a->attr = &W.cq_mod; END
	/* the extended op's path unless random: the plain path has its cases */
	BEGIN(ibv_create_srq_ex) a->srq_init_attr_ex = &W.srq_attr; a->context = ctx;
		if (!rnd) {
			W.srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD;
			W.srq_attr.srq_type = IBV_SRQT_XRC;
		} else if ((W.srq_attr.comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE)) == 0 &&
			   (W.srq_attr.comp_mask & IBV_SRQ_INIT_ATTR_PD) &&
			   (!(W.srq_attr.comp_mask & IBV_SRQ_INIT_ATTR_TYPE) || W.srq_attr.srq_type == IBV_SRQT_BASIC) &&
			   !pick(4)) {
			a->context = NULL;	/* the plain path does not need one */
		} END
	BEGIN(ibv_get_srq_num) a->srq = &W.srq; a->srq_num = &W.srq_num; END
	BEGIN(ibv_post_srq_recv) a->srq = &W.srq; a->recv_wr = &W.rwr[V(pick(2), 0)]; a->bad_recv_wr = &W.bad_rwr; END
	BEGIN(ibv_post_srq_ops) a->srq = &W.srq; a->op = &W.ops_wr[V(pick(2), 0)]; a->bad_op = &W.bad_op; END
	BEGIN(ibv_create_qp_ex) a->qp_init_attr_ex = &W.qp_attr; a->context = ctx;
		if (!rnd)
			W.qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		else if (W.qp_attr.comp_mask == IBV_QP_INIT_ATTR_PD && !pick(4))
			a->context = NULL;
		END
	BEGIN(ibv_alloc_td) a->context = ctx; a->init_attr = &W.td_attr; END
	BEGIN(ibv_dealloc_td) a->td = &W.td; END
	BEGIN(ibv_alloc_parent_domain) a->context = ctx; a->attr = &W.parent_attr; END
	BEGIN(ibv_query_rt_values_ex) a->context = ctx; a->values = &W.values; END
#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
	BEGIN(ibv_query_comp_cntr_caps) a->context = ctx; a->caps = &W.cntr_caps; END
#endif
	BEGIN(ibv_query_device_ex) a->context = ctx; a->input = V(pick(3) ? NULL : &W.qd_input, NULL);
		a->attr = &W.dev_attr; END
	BEGIN(ibv_open_qp) a->context = ctx; a->qp_open_attr = &W.qp_open_attr; END
	BEGIN(ibv_modify_qp_rate_limit) a->qp = &W.qp; a->attr = &W.rate; END
	BEGIN(ibv_create_wq) a->context = ctx; a->wq_init_attr = &W.wq_attr; END
	BEGIN(ibv_modify_wq) a->wq = &W.wq; a->wq_attr = &W.wq_mod; END
	BEGIN(ibv_destroy_wq) a->wq = &W.wq; END
	BEGIN(ibv_create_rwq_ind_table) a->context = ctx; a->init_attr = &W.table_attr; END
	BEGIN(ibv_destroy_rwq_ind_table) a->rwq_ind_table = &W.table; END
	BEGIN(ibv_post_send) a->qp = &W.qp; a->wr = &W.swr[V(pick(2), 0)]; a->bad_wr = &W.bad_swr; END
	BEGIN(ibv_post_recv) a->qp = &W.qp; a->wr = &W.rwr[V(pick(2), 0)]; a->bad_wr = &W.bad_rwr; END
	/* 1 << 31 is undefined in the original: UBSan (the sanitizer build) stops at it */
#ifdef __SANITIZE_ADDRESS__
	BEGIN(ibv_is_qpt_supported) a->caps = V(E32, 0x84); a->qpt = (unsigned)V(pick(31), IBV_QPT_RC); END
#else
	BEGIN(ibv_is_qpt_supported) a->caps = V(E32, 0x84); a->qpt = (unsigned)V(pick(32), IBV_QPT_RC); END
#endif
	BEGIN(ibv_create_counters) a->context = ctx; a->init_attr = &W.counters_attr; END
	BEGIN(ibv_destroy_counters) a->counters = &W.counters; END
	BEGIN(ibv_attach_counters_point_flow) a->counters = &W.counters; a->attr = &W.attach_attr;
		a->flow = &W.flow; END
	BEGIN(ibv_read_counters) a->counters = &W.counters; a->counters_value = W.counter_values;
		a->ncounters = (uint32_t)V(pick(9), 8); a->flags = V(E32, 0); END
	BEGIN(ibv_flow_label_to_udp_sport) a->fl = V(E32, 0x12345); END
	case F_COUNT:
		break;
	}
}

/* A random case: any function, context, arguments and answers. W is the
 * pristine world; the case's changes are made in it. */
void random_case(struct vcase *c)
{
	memset(c, 0, sizeof(*c));
	c->fn = (enum vfn)pick(F_COUNT);
	c->config = pick(3) ? C_RANDOM : (enum vconfig)pick(C_RANDOM);
	if (c->fn == F_ibv_close_xrcd && (c->config == C_OP_NULL || c->config == C_NOT_EXT))
		c->config = C_FULL;	/* the original would crash */
	fill_args(c, 1);
	apply_config(c);
	script_random(&c->script);
	script_fit(c);
}

/* A provider answers no more completions or GID entries than it was given
 * room for. (libibverbs' poll_cq stub answers EOPNOTSUPP, 95, whatever the
 * room: verbs-directed.c has that case, in a child process.) */
void script_fit(struct vcase *c)
{
	struct vanswer *poll = &c->script.a[V_poll_cq], *table = &c->script.a[V__ibv_query_gid_table];

	if (c->fn == F_ibv_poll_cq && poll->ret > c->u.ibv_poll_cq.num_entries)
		poll->ret = pick(c->u.ibv_poll_cq.num_entries + 1);
	if (c->fn == F_ibv_query_gid_table && table->ret > (int64_t)c->u.ibv_query_gid_table.max_entries)
		table->ret = pick((int)c->u.ibv_query_gid_table.max_entries + 1);
}
