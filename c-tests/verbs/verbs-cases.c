/* The cases of the differential test of RDMAVERBS_1.3 (verbs.h): what each
 * function calls, its valid arguments, the context, the fake's answers. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "verbs.h"

#define OFF(op) offsetof(struct verbs_context, op)
#define CTX(op) { V_##op, K_CTX, OFF(op) }
#define OBJ(op) { V_##op, K_OBJECT, 0 }
#define LEG(op) { V_##op, K_LEGACY, 0 }
#define LIB(op) { V_##op, K_LIBRARY, 0 }

const struct vinfo vinfo[F_COUNT] = {
	[F_ibv_wr_atomic_cmp_swp] = OBJ(wr_atomic_cmp_swp),
	[F_ibv_wr_atomic_fetch_add] = OBJ(wr_atomic_fetch_add),
	[F_ibv_wr_bind_mw] = OBJ(wr_bind_mw),
	[F_ibv_wr_local_inv] = OBJ(wr_local_inv),
	[F_ibv_wr_rdma_read] = OBJ(wr_rdma_read),
	[F_ibv_wr_rdma_write] = OBJ(wr_rdma_write),
	[F_ibv_wr_rdma_write_imm] = OBJ(wr_rdma_write_imm),
	[F_ibv_wr_send] = OBJ(wr_send),
	[F_ibv_wr_send_imm] = OBJ(wr_send_imm),
	[F_ibv_wr_send_inv] = OBJ(wr_send_inv),
	[F_ibv_wr_send_tso] = OBJ(wr_send_tso),
	[F_ibv_wr_set_ud_addr] = OBJ(wr_set_ud_addr),
	[F_ibv_wr_set_xrc_srqn] = OBJ(wr_set_xrc_srqn),
	[F_ibv_wr_set_inline_data] = OBJ(wr_set_inline_data),
	[F_ibv_wr_set_inline_data_list] = OBJ(wr_set_inline_data_list),
	[F_ibv_wr_set_sge] = OBJ(wr_set_sge),
	[F_ibv_wr_set_sge_list] = OBJ(wr_set_sge_list),
	[F_ibv_wr_start] = OBJ(wr_start),
	[F_ibv_wr_complete] = OBJ(wr_complete),
	[F_ibv_wr_abort] = OBJ(wr_abort),
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	[F_ibv_wr_atomic_write] = OBJ(wr_atomic_write),
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	[F_ibv_wr_flush] = OBJ(wr_flush),
#endif
#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
	[F_ibv_query_comp_cntr_caps] = LIB(_ibv_query_comp_cntr_caps),
#endif
	[F_ibv_cq_ex_to_cq] = { V_NONE, K_PURE, 0 },
	[F_ibv_start_poll] = OBJ(start_poll),
	[F_ibv_next_poll] = OBJ(next_poll),
	[F_ibv_end_poll] = OBJ(end_poll),
	[F_ibv_wc_read_opcode] = OBJ(read_opcode),
	[F_ibv_wc_read_vendor_err] = OBJ(read_vendor_err),
	[F_ibv_wc_read_byte_len] = OBJ(read_byte_len),
	[F_ibv_wc_read_imm_data] = OBJ(read_imm_data),
	[F_ibv_wc_read_invalidated_rkey] = OBJ(read_imm_data),	/* as the original */
	[F_ibv_wc_read_qp_num] = OBJ(read_qp_num),
	[F_ibv_wc_read_src_qp] = OBJ(read_src_qp),
	[F_ibv_wc_read_wc_flags] = OBJ(read_wc_flags),
	[F_ibv_wc_read_slid] = OBJ(read_slid),
	[F_ibv_wc_read_sl] = OBJ(read_sl),
	[F_ibv_wc_read_dlid_path_bits] = OBJ(read_dlid_path_bits),
	[F_ibv_wc_read_completion_ts] = OBJ(read_completion_ts),
	[F_ibv_wc_read_completion_wallclock_ns] = OBJ(read_completion_wallclock_ns),
	[F_ibv_wc_read_cvlan] = OBJ(read_cvlan),
	[F_ibv_wc_read_flow_tag] = OBJ(read_flow_tag),
	[F_ibv_wc_read_tm_info] = OBJ(read_tm_info),
	[F_ibv_post_wq_recv] = OBJ(wq_post_recv),
	[F____ibv_query_port] = CTX(query_port),
	[F_ibv_query_gid_ex] = LIB(_ibv_query_gid_ex),
	[F_ibv_query_gid_table] = LIB(_ibv_query_gid_table),
	[F_ibv_create_flow] = CTX(ibv_create_flow),
	[F_ibv_destroy_flow] = CTX(ibv_destroy_flow),
	[F_ibv_create_flow_action_esp] = CTX(create_flow_action_esp),
	[F_ibv_modify_flow_action_esp] = CTX(modify_flow_action_esp),
	[F_ibv_destroy_flow_action] = CTX(destroy_flow_action),
	[F_ibv_open_xrcd] = CTX(open_xrcd),
	[F_ibv_close_xrcd] = { V_close_xrcd, K_CTX_ANY, OFF(close_xrcd) },
	[F___ibv_reg_mr] = LIB(ibv_reg_mr),
	[F___ibv_reg_mr_iova] = LIB(ibv_reg_mr_iova),
	[F_ibv_alloc_mw] = LEG(alloc_mw),
	[F_ibv_dealloc_mw] = LEG(dealloc_mw),
	[F_ibv_inc_rkey] = { V_NONE, K_PURE, 0 },
	[F_ibv_bind_mw] = LEG(bind_mw),
	[F_ibv_advise_mr] = CTX(advise_mr),
	[F_ibv_alloc_dm] = CTX(alloc_dm),
	[F_ibv_free_dm] = CTX(free_dm),
	[F_ibv_memcpy_to_dm] = OBJ(memcpy_to_dm),
	[F_ibv_memcpy_from_dm] = OBJ(memcpy_from_dm),
	[F_ibv_alloc_null_mr] = CTX(alloc_null_mr),
	[F_ibv_reg_dm_mr] = CTX(reg_dm_mr),
	[F_ibv_create_cq_ex] = CTX(create_cq_ex),
	[F_ibv_poll_cq] = LEG(poll_cq),
	[F_ibv_req_notify_cq] = LEG(req_notify_cq),
	[F_ibv_modify_cq] = CTX(modify_cq),
	[F_ibv_create_srq_ex] = CTX(create_srq_ex),
	[F_ibv_get_srq_num] = CTX(get_srq_num),
	[F_ibv_post_srq_recv] = LEG(post_srq_recv),
	[F_ibv_post_srq_ops] = CTX(post_srq_ops),
	[F_ibv_create_qp_ex] = CTX(create_qp_ex),
	[F_ibv_alloc_td] = CTX(alloc_td),
	[F_ibv_dealloc_td] = CTX(dealloc_td),
	[F_ibv_alloc_parent_domain] = CTX(alloc_parent_domain),
	[F_ibv_query_rt_values_ex] = CTX(query_rt_values),
	[F_ibv_query_device_ex] = CTX(query_device_ex),
	[F_ibv_open_qp] = CTX(open_qp),
	[F_ibv_modify_qp_rate_limit] = CTX(modify_qp_rate_limit),
	[F_ibv_create_wq] = CTX(create_wq),
	[F_ibv_modify_wq] = CTX(modify_wq),
	[F_ibv_destroy_wq] = CTX(destroy_wq),
	[F_ibv_create_rwq_ind_table] = CTX(create_rwq_ind_table),
	[F_ibv_destroy_rwq_ind_table] = CTX(destroy_rwq_ind_table),
	[F_ibv_post_send] = LEG(post_send),
	[F_ibv_post_recv] = LEG(post_recv),
	[F_ibv_is_qpt_supported] = { V_NONE, K_PURE, 0 },
	[F_ibv_create_counters] = CTX(create_counters),
	[F_ibv_destroy_counters] = CTX(destroy_counters),
	[F_ibv_attach_counters_point_flow] = CTX(attach_counters_point_flow),
	[F_ibv_read_counters] = CTX(read_counters),
	[F_ibv_flow_label_to_udp_sport] = { V_NONE, K_PURE, 0 },
};

#define E64 edge(UINT64_MAX)

/* ---- the answers ---- */

/* The ops that make an object (their answer: non-zero made, 0 NULL). */
int op_makes(int op)
{
	switch (op) {
	case V_alloc_null_mr: case V_create_counters: case V_reg_dm_mr: case V_alloc_dm:
	case V_create_flow_action_esp: case V_alloc_parent_domain: case V_alloc_td:
	case V_create_rwq_ind_table: case V_create_wq: case V_create_cq_ex:
	case V_ibv_create_flow: case V_open_qp: case V_create_qp_ex: case V_create_srq_ex:
	case V_open_xrcd: case V_alloc_mw: case V_ibv_reg_mr: case V_ibv_reg_mr_iova:
	case V_ibv_reg_mr_iova2: case V_ibv_create_srq: case V_ibv_create_qp:
		return 1;
	default:
		return 0;
	}
}

void script_ok(struct vscript *s)
{
	int op;

	memset(s, 0, sizeof(*s));
	for (op = 0; op < V_COUNT; op++)
		s->a[op].ret = op_makes(op);
	s->a[V_poll_cq].ret = 1;
	s->a[V__ibv_query_gid_table].ret = 1;
	s->seed = 0x40;
}

static const int errnos[] = { EINVAL, ENOMEM, EOPNOTSUPP, ENOSYS, EPERM, EAGAIN, ENOENT, EFAULT };
#define NERRNOS ((int)(sizeof(errnos) / sizeof(errnos[0])))

/* An errno value, a negative value or an extreme, or 0 two times in three. */
static int int_result(void)
{
	static const int odd[] = { -1, -EINVAL, -ENOMEM, INT_MAX, INT_MIN, 1 };

	if (pick(3))
		return 0;
	return pick(3) ? errnos[pick(NERRNOS)] : odd[pick(6)];
}

void script_random(struct vscript *s)
{
	int op;

	for (op = 0; op < V_COUNT; op++) {
		struct vanswer *a = &s->a[op];

		a->err = pick(3) ? errnos[pick(NERRNOS)] : 0;
		if (op_makes(op))
			a->ret = pick(4) != 0;
		else if (op >= V_read_opcode && op <= V_read_completion_wallclock_ns)
			a->ret = (int64_t)E64;
		else
			a->ret = int_result();
	}
	s->a[V_poll_cq].ret = pick(3) ? pick(5) : pick(2) ? -1 - pick(3) : INT_MIN;
	s->a[V__ibv_query_gid_table].ret = pick(3) ? pick(5) : -(int64_t)errnos[pick(NERRNOS)];
	s->a[V_start_poll].ret = pick(2) ? 0 : pick(2) ? ENOENT : int_result();
	s->a[V_next_poll].ret = pick(2) ? 0 : pick(2) ? ENOENT : int_result();
	s->seed = (uint8_t)case_rnd();
	s->bad = pick(2);
}

/* Directed answers: variant 0 every op succeeding, the others each a way
 * of failing (the same for every op, so that a fallback's answer varies
 * with its first op's). */
void script_variant(struct vscript *s, int k)
{
	static const struct { int ret, err, poll, table; uint64_t value; } v[NVARIANTS] = {
		{ 0, 0, 1, 1, 0x0123456789abcdefull },
		{ EINVAL, 0, 0, 0, 0 },
		{ ENOMEM, ENOMEM, 4, 4, 1 },
		{ EOPNOTSUPP, EOPNOTSUPP, 3, 3, UINT64_MAX },
		{ ENOSYS, 0, -1, -EINVAL, 0x8000000000000000ull },
		{ -1, EINVAL, -2, -ENOMEM, 0x80808080ull },
		{ -EINVAL, 0, INT_MIN, -1, 0xffull },
		{ INT_MAX, EPERM, 2, 2, 0x7fffull },
	};
	int op;

	script_ok(s);
	s->seed = (uint8_t)(0x40 + 17 * k);
	s->bad = k & 1;
	for (op = 0; op < V_COUNT && k; op++) {
		if (op_makes(op)) {
			s->a[op].ret = 0;
			s->a[op].err = k == 1 ? 0 : errnos[k % NERRNOS];
		} else {
			s->a[op].ret = v[k].ret;
			s->a[op].err = v[k].err;
		}
	}
	for (op = V_read_opcode; op <= V_read_completion_wallclock_ns; op++)
		s->a[op].ret = (int64_t)v[k].value;
	s->a[V_poll_cq].ret = v[k].poll;
	s->a[V__ibv_query_gid_table].ret = v[k].table;
}

/* ---- the context ---- */

#define CLOSE_XRCD ((int)(OFF(close_xrcd) / 8))

/* Takes the function's op away from the context, or hides it. */
void apply_config(struct vcase *c)
{
	const struct vinfo *i = &vinfo[c->fn];
	size_t sz = sizeof(struct verbs_context);
	int k;

	if (c->config == C_RANDOM) {
		static const size_t sizes[] = { 0, 8, 320, 328, 640, 647, 648, 649, SIZE_MAX };

		switch (pick(6)) {
		case 0: W.vctx.sz = sizes[pick(9)]; break;
		case 1: W.vctx.sz = vfake_sz_for((size_t)pick(41) * 8) - (size_t)pick(2) * 8; break;
		case 2: W.vctx.sz = (size_t)pick(700); break;
		default: break;
		}
		/* the members before sz, 8 bytes each: ops but for priv (26);
		 * close_xrcd (37), which the original calls blindly, is left */
		for (k = 0; k < CLOSE_XRCD; k++)
			if (!pick(12) && k != 26)
				memset((char *)&W.vctx + k * 8, 0, 8);
		if (!pick(16) && c->fn != F_ibv_close_xrcd)
			W.vctx.context.abi_compat = NULL;
		if (!pick(8))
			W.vctx.context.ops.alloc_mw = NULL;
		return;
	}
	if (c->fn == F_ibv_alloc_mw && c->config == C_OP_NULL) {
		W.vctx.context.ops.alloc_mw = NULL;
		return;
	}
	switch (c->config) {
	case C_EXACT:
		if (i->kind == K_CTX || i->kind == K_CTX_ANY)
			W.vctx.sz = vfake_sz_for(i->offset);
		break;
	case C_SHORT:
		W.vctx.sz = (i->kind == K_CTX || i->kind == K_CTX_ANY ? vfake_sz_for(i->offset) : sz) - 8;
		break;
	case C_OP_NULL:
		if (i->kind == K_CTX || i->kind == K_CTX_ANY)
			memset((char *)&W.vctx + i->offset, 0, sizeof(void *));
		break;
	case C_NOT_EXT:
		W.vctx.context.abi_compat = NULL;
		break;
	default:
		break;
	}
}
