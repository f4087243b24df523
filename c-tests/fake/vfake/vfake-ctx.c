/* The fake provider of vfake.h: the ops of struct verbs_context, each
 * logging its call and answering from the script; vfake_install_ctx sets
 * them in the world's context. */
#include "../vfake.h"

#include <string.h>

#define U(x) ((uint64_t)(uintptr_t)(x))

/* ---- struct verbs_context ---- */

static int op_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *attr, size_t len)
{
	int ret = (int)vfake_answer(V_query_port);

	vfake_rec(V_query_port, c, 3, U(port), U(attr), U(len));
	if (!ret)
		vfake_fill(attr, len);
	return ret;
}

static int op_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		     struct ibv_sge *sgl, uint32_t n)
{
	vfake_snap(vfake_rec(V_advise_mr, pd, 4, U(advice), U(flags), U(sgl), U(n)), sgl, sizeof(*sgl));
	return (int)vfake_answer(V_advise_mr);
}

static struct ibv_mr *op_alloc_null_mr(struct ibv_pd *pd)
{
	vfake_rec(V_alloc_null_mr, pd, 0);
	return vfake_made(V_alloc_null_mr, &W.new_mr);
}

static int op_read_counters(struct ibv_counters *c, uint64_t *values, uint32_t n, uint32_t flags)
{
	int ret = (int)vfake_answer(V_read_counters);

	vfake_rec(V_read_counters, c, 3, U(values), U(n), U(flags));
	if (!ret)
		vfake_fill(values, (size_t)n * sizeof(*values));
	return ret;
}

static int op_attach_counters_point_flow(struct ibv_counters *c, struct ibv_counter_attach_attr *attr,
				      struct ibv_flow *flow)
{
	vfake_snap(vfake_rec(V_attach_counters_point_flow, c, 2, U(attr), U(flow)), attr, sizeof(*attr));
	return (int)vfake_answer(V_attach_counters_point_flow);
}

static struct ibv_counters *op_create_counters(struct ibv_context *c, struct ibv_counters_init_attr *a)
{
	vfake_snap(vfake_rec(V_create_counters, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_create_counters, &W.counters);
}

static int op_destroy_counters(struct ibv_counters *c)
{
	vfake_rec(V_destroy_counters, c, 0);
	return (int)vfake_answer(V_destroy_counters);
}

static struct ibv_mr *op_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t off, size_t len,
				unsigned int access)
{
	vfake_rec(V_reg_dm_mr, pd, 4, U(dm), U(off), U(len), U(access));
	return vfake_made(V_reg_dm_mr, &W.new_mr);
}

static struct ibv_dm *op_alloc_dm(struct ibv_context *c, struct ibv_alloc_dm_attr *a)
{
	vfake_snap(vfake_rec(V_alloc_dm, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_alloc_dm, &W.dm);
}

static int op_free_dm(struct ibv_dm *dm)
{
	vfake_rec(V_free_dm, dm, 0);
	return (int)vfake_answer(V_free_dm);
}

static int op_modify_flow_action_esp(struct ibv_flow_action *a, struct ibv_flow_action_esp_attr *esp)
{
	vfake_snap(vfake_rec(V_modify_flow_action_esp, a, 1, U(esp)), esp, sizeof(*esp));
	return (int)vfake_answer(V_modify_flow_action_esp);
}

static int op_destroy_flow_action(struct ibv_flow_action *a)
{
	vfake_rec(V_destroy_flow_action, a, 0);
	return (int)vfake_answer(V_destroy_flow_action);
}

static struct ibv_flow_action *op_create_flow_action_esp(struct ibv_context *c,
						      struct ibv_flow_action_esp_attr *esp)
{
	vfake_snap(vfake_rec(V_create_flow_action_esp, c, 1, U(esp)), esp, sizeof(*esp));
	return vfake_made(V_create_flow_action_esp, &W.action);
}

static int op_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *a)
{
	vfake_snap(vfake_rec(V_modify_qp_rate_limit, qp, 1, U(a)), a, sizeof(*a));
	return (int)vfake_answer(V_modify_qp_rate_limit);
}

static struct ibv_pd *op_alloc_parent_domain(struct ibv_context *c,
					  struct ibv_parent_domain_init_attr *a)
{
	vfake_snap(vfake_rec(V_alloc_parent_domain, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_alloc_parent_domain, &W.parent_pd);
}

static int op_dealloc_td(struct ibv_td *td)
{
	vfake_rec(V_dealloc_td, td, 0);
	return (int)vfake_answer(V_dealloc_td);
}

static struct ibv_td *op_alloc_td(struct ibv_context *c, struct ibv_td_init_attr *a)
{
	vfake_snap(vfake_rec(V_alloc_td, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_alloc_td, &W.td);
}

static int op_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
{
	vfake_snap(vfake_rec(V_modify_cq, cq, 1, U(a)), a, sizeof(*a));
	return (int)vfake_answer(V_modify_cq);
}

static int op_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad)
{
	int ret = (int)vfake_answer(V_post_srq_ops);

	vfake_snap(vfake_rec(V_post_srq_ops, srq, 2, U(op), U(bad)), op, sizeof(*op));
	if (ret && vfake_room(bad) && vfake_room(op))
		*bad = vfake_script->bad && op->next ? op->next : op;
	return ret;
}

static int op_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	vfake_rec(V_destroy_rwq_ind_table, t, 0);
	return (int)vfake_answer(V_destroy_rwq_ind_table);
}

static struct ibv_rwq_ind_table *op_create_rwq_ind_table(struct ibv_context *c,
						      struct ibv_rwq_ind_table_init_attr *a)
{
	vfake_snap(vfake_rec(V_create_rwq_ind_table, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_create_rwq_ind_table, &W.table);
}

static int op_destroy_wq(struct ibv_wq *wq)
{
	vfake_rec(V_destroy_wq, wq, 0);
	return (int)vfake_answer(V_destroy_wq);
}

static int op_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *a)
{
	vfake_snap(vfake_rec(V_modify_wq, wq, 1, U(a)), a, sizeof(*a));
	return (int)vfake_answer(V_modify_wq);
}

static struct ibv_wq *op_create_wq(struct ibv_context *c, struct ibv_wq_init_attr *a)
{
	vfake_snap(vfake_rec(V_create_wq, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_create_wq, &W.new_wq);
}

static int op_query_rt_values(struct ibv_context *c, struct ibv_values_ex *v)
{
	int ret = (int)vfake_answer(V_query_rt_values);

	vfake_snap(vfake_rec(V_query_rt_values, c, 1, U(v)), v, sizeof(*v));
	if (!ret)
		vfake_fill(&v->raw_clock, sizeof(v->raw_clock));
	return ret;
}

static struct ibv_cq_ex *op_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
{
	vfake_snap(vfake_rec(V_create_cq_ex, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_create_cq_ex, &W.cqx);
}

/* Fills what it is given the size of on success; on failure some of it,
 * which the legacy fallback's memset must clear. */
static int op_query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *in,
			   struct ibv_device_attr_ex *attr, size_t size)
{
	int ret = (int)vfake_answer(V_query_device_ex);

	vfake_snap(vfake_rec(V_query_device_ex, c, 3, U(in), U(attr), U(size)), in, sizeof(*in));
	vfake_fill(attr, ret ? 16 : size);
	return ret;
}

static int op_ibv_destroy_flow(struct ibv_flow *flow)
{
	vfake_rec(V_ibv_destroy_flow, flow, 0);
	return (int)vfake_answer(V_ibv_destroy_flow);
}

static struct ibv_flow *op_ibv_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *a)
{
	vfake_snap(vfake_rec(V_ibv_create_flow, qp, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_ibv_create_flow, &W.flow);
}

static struct ibv_qp *op_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	vfake_snap(vfake_rec(V_open_qp, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_open_qp, &W.new_qp);
}

static struct ibv_qp *op_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a)
{
	vfake_snap(vfake_rec(V_create_qp_ex, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_create_qp_ex, &W.new_qp);
}

static int op_get_srq_num(struct ibv_srq *srq, uint32_t *num)
{
	int ret = (int)vfake_answer(V_get_srq_num);

	vfake_rec(V_get_srq_num, srq, 1, U(num));
	if (!ret)
		vfake_fill(num, sizeof(*num));
	return ret;
}

static struct ibv_srq *op_create_srq_ex(struct ibv_context *c, struct ibv_srq_init_attr_ex *a)
{
	vfake_snap(vfake_rec(V_create_srq_ex, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_create_srq_ex, &W.new_srq);
}

static struct ibv_xrcd *op_open_xrcd(struct ibv_context *c, struct ibv_xrcd_init_attr *a)
{
	vfake_snap(vfake_rec(V_open_xrcd, c, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_open_xrcd, &W.xrcd);
}

static int op_close_xrcd(struct ibv_xrcd *xrcd)
{
	vfake_rec(V_close_xrcd, xrcd, 0);
	return (int)vfake_answer(V_close_xrcd);
}

void vfake_install_ctx(void)
{
	struct verbs_context *v = &W.vctx;

#define SET(n) v->n = op_##n;
	VFAKE_CTX_OPS(SET)
#undef SET
}
