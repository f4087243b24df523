/* The fake provider of vfake.h: the world, its ops, the replaced functions. */
#include "vfake.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

struct vworld W;
const struct vscript *vfake_script;

#define VFAKE_NAME(n) #n,
const char *const vop_name[V_COUNT] = { "none", VFAKE_ALL(VFAKE_NAME) };

#define U(x) ((uint64_t)(uintptr_t)(x))

/* How much of the world lies from p on, up to its log: the fake reads and
 * writes nothing else (a case may pass any address where the function only
 * passes it on, and any length). */
size_t vfake_room(const void *p)
{
	uintptr_t a = (uintptr_t)p, w = (uintptr_t)&W, end = w + offsetof(struct vworld, nlog);

	return a >= w && a < end ? end - a : 0;
}

static size_t cap(const void *p, size_t n)
{
	size_t r = vfake_room(p);

	return n < r ? n : r;
}

/* Logs a call: the op, its object, its other arguments. */
struct vrec *vfake_rec(int op, const void *obj, int n, ...)
{
	struct vrec *r;
	va_list ap;
	int i;

	if (W.nlog == VFAKE_LOG) {
		W.overflow++;
		return &W.log[VFAKE_LOG - 1];	/* overwritten: the comparison sees it */
	}
	r = &W.log[W.nlog++];
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->obj = obj;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		r->arg[i] = va_arg(ap, uint64_t);
	va_end(ap);
	return r;
}

/* The first bytes of an input struct, as the op sees it. */
void vfake_snap(struct vrec *r, const void *p, size_t n)
{
	n = cap(p, n < VFAKE_IN ? n : VFAKE_IN);
	if (n)
		memcpy(r->in, p, n);
	r->nin = (int)n;
}

/* The scripted answer of `op`; errno set when the script says so. */
int64_t vfake_answer(int op)
{
	const struct vanswer *a = &vfake_script->a[op];

	if (a->err)
		errno = a->err;
	return a->ret;
}

/* An output written: bytes made from the script's seed. */
void vfake_fill(void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;

	n = cap(p, n);
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(vfake_script->seed + 13 * i + 1);
}

static void *made(int op, void *obj)
{
	return vfake_answer(op) ? obj : NULL;
}

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
	return made(V_alloc_null_mr, &W.new_mr);
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
	return made(V_create_counters, &W.counters);
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
	return made(V_reg_dm_mr, &W.new_mr);
}

static struct ibv_dm *op_alloc_dm(struct ibv_context *c, struct ibv_alloc_dm_attr *a)
{
	vfake_snap(vfake_rec(V_alloc_dm, c, 1, U(a)), a, sizeof(*a));
	return made(V_alloc_dm, &W.dm);
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
	return made(V_create_flow_action_esp, &W.action);
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
	return made(V_alloc_parent_domain, &W.parent_pd);
}

static int op_dealloc_td(struct ibv_td *td)
{
	vfake_rec(V_dealloc_td, td, 0);
	return (int)vfake_answer(V_dealloc_td);
}

static struct ibv_td *op_alloc_td(struct ibv_context *c, struct ibv_td_init_attr *a)
{
	vfake_snap(vfake_rec(V_alloc_td, c, 1, U(a)), a, sizeof(*a));
	return made(V_alloc_td, &W.td);
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
	return made(V_create_rwq_ind_table, &W.table);
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
	return made(V_create_wq, &W.new_wq);
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
	return made(V_create_cq_ex, &W.cqx);
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
	return made(V_ibv_create_flow, &W.flow);
}

static struct ibv_qp *op_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	vfake_snap(vfake_rec(V_open_qp, c, 1, U(a)), a, sizeof(*a));
	return made(V_open_qp, &W.new_qp);
}

static struct ibv_qp *op_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a)
{
	vfake_snap(vfake_rec(V_create_qp_ex, c, 1, U(a)), a, sizeof(*a));
	return made(V_create_qp_ex, &W.new_qp);
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
	return made(V_create_srq_ex, &W.new_srq);
}

static struct ibv_xrcd *op_open_xrcd(struct ibv_context *c, struct ibv_xrcd_init_attr *a)
{
	vfake_snap(vfake_rec(V_open_xrcd, c, 1, U(a)), a, sizeof(*a));
	return made(V_open_xrcd, &W.xrcd);
}

static int op_close_xrcd(struct ibv_xrcd *xrcd)
{
	vfake_rec(V_close_xrcd, xrcd, 0);
	return (int)vfake_answer(V_close_xrcd);
}

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
	return made(V_alloc_mw, &W.new_mw);
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
#define SET(n) v->n = op_##n;
	VFAKE_CTX_OPS(SET)
#undef SET
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

/* The world's parts by name. */
#define REGIONS(X)                                                             \
	X(vctx) X(dev) X(pd) X(other_pd) X(parent_pd) X(qp) X(new_qp) X(srq)  \
	X(new_srq) X(cq) X(mw) X(new_mw) X(mr) X(other_mr) X(new_mr) X(xrcd)  \
	X(td) X(flow) X(action) X(counters) X(dm) X(wq) X(new_wq) X(table)     \
	X(qpx) X(cqx) X(ah) X(swr) X(rwr) X(ops_wr) X(sge) X(bufs) X(mw_bind)  \
	X(bind_info) X(cq_attr) X(srq_attr) X(qp_attr) X(qp_open_attr)         \
	X(wq_attr) X(wq_mod) X(table_attr) X(td_attr) X(parent_attr)           \
	X(xrcd_attr) X(flow_attr) X(esp) X(counters_attr) X(attach_attr)       \
	X(dm_attr) X(cq_mod) X(rate) X(poll_attr) X(qd_input) X(data) X(port)  \
	X(port_guard) X(gid) X(gid_guard) X(dev_attr) X(dev_attr_guard)        \
	X(values) X(srq_num) X(counter_values) X(wc) X(wc_guard) X(tm_info)    \
	X(host) X(bad_swr) X(bad_rwr) X(bad_op) X(nlog) X(overflow) X(log)     \
	RDMAVERBS_IF_ibv_query_comp_cntr_caps(X(cntr_caps) X(cntr_caps_guard))

const char *vfake_region(size_t offset, size_t *start)
{
	static const struct { const char *name; size_t off, size; } r[] = {
#define REGION(m) { #m, offsetof(struct vworld, m), sizeof(W.m) },
		REGIONS(REGION)
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if (offset >= r[i].off && offset < r[i].off + r[i].size) {
			*start = r[i].off;
			return r[i].name;
		}
	}
	*start = offset;
	return "padding";
}
