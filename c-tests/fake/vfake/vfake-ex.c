/* The fake provider of vfake.h, continued: the calls of the extended QP
 * (every wr_*), of the extended CQ (polling and every read_*), of the work
 * queue (post_recv) and of device memory (the copies); the libibverbs
 * functions the inlines call, replaced. */
#include "../vfake.h"

#include <string.h>

#define U(x) ((uint64_t)(uintptr_t)(x))
#define REC vfake_rec
#define IN vfake_snap

/* ---- struct ibv_qp_ex ---- */

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr,
			      uint64_t compare, uint64_t swap)
{
	REC(V_wr_atomic_cmp_swp, qp, 4, U(rkey), raddr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr, uint64_t add)
{
	REC(V_wr_atomic_fetch_add, qp, 3, U(rkey), raddr, add);
}

static void wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *info)
{
	IN(REC(V_wr_bind_mw, qp, 3, U(mw), U(rkey), U(info)), info, sizeof(*info));
}

static void wr_local_inv(struct ibv_qp_ex *qp, uint32_t rkey)
{
	REC(V_wr_local_inv, qp, 1, U(rkey));
}

static void wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr)
{
	REC(V_wr_rdma_read, qp, 2, U(rkey), raddr);
}

static void wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr)
{
	REC(V_wr_rdma_write, qp, 2, U(rkey), raddr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr, __be32 imm)
{
	REC(V_wr_rdma_write_imm, qp, 3, U(rkey), raddr, U(imm));
}

static void wr_send(struct ibv_qp_ex *qp)
{
	REC(V_wr_send, qp, 0);
}

static void wr_send_imm(struct ibv_qp_ex *qp, __be32 imm)
{
	REC(V_wr_send_imm, qp, 1, U(imm));
}

static void wr_send_inv(struct ibv_qp_ex *qp, uint32_t rkey)
{
	REC(V_wr_send_inv, qp, 1, U(rkey));
}

static void wr_send_tso(struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	IN(REC(V_wr_send_tso, qp, 3, U(hdr), U(hdr_sz), U(mss)), hdr, hdr_sz);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	REC(V_wr_set_ud_addr, qp, 3, U(ah), U(qpn), U(qkey));
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *qp, uint32_t srqn)
{
	REC(V_wr_set_xrc_srqn, qp, 1, U(srqn));
}

static void wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)
{
	IN(REC(V_wr_set_inline_data, qp, 2, U(addr), U(length)), addr, length);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t n, const struct ibv_data_buf *l)
{
	IN(REC(V_wr_set_inline_data_list, qp, 2, U(n), U(l)), l, n * sizeof(*l));
}

static void wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	REC(V_wr_set_sge, qp, 3, U(lkey), addr, U(length));
}

static void wr_set_sge_list(struct ibv_qp_ex *qp, size_t n, const struct ibv_sge *l)
{
	IN(REC(V_wr_set_sge_list, qp, 2, U(n), U(l)), l, n * sizeof(*l));
}

static void wr_start(struct ibv_qp_ex *qp)
{
	REC(V_wr_start, qp, 0);
}

static int wr_complete(struct ibv_qp_ex *qp)
{
	REC(V_wr_complete, qp, 0);
	return (int)vfake_answer(V_wr_complete);
}

static void wr_abort(struct ibv_qp_ex *qp)
{
	REC(V_wr_abort, qp, 0);
}

#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
static void wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr, const void *wr)
{
	IN(REC(V_wr_atomic_write, qp, 3, U(rkey), raddr, U(wr)), wr, 8);
}
#endif

#ifdef RDMAVERBS_HAS_ibv_wr_flush
static void wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t raddr, size_t len, uint8_t type,
		     uint8_t level)
{
	REC(V_wr_flush, qp, 5, U(rkey), raddr, U(len), U(type), U(level));
}
#endif

/* ---- struct ibv_cq_ex: each reader returns its scripted value, cut to
 * its type, and leaves errno alone, as a provider's readers do (they read
 * the current completion) ---- */

static int start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	IN(REC(V_start_poll, cq, 1, U(attr)), attr, sizeof(*attr));
	return (int)vfake_answer(V_start_poll);
}

static int next_poll(struct ibv_cq_ex *cq)
{
	REC(V_next_poll, cq, 0);
	return (int)vfake_answer(V_next_poll);
}

static void end_poll(struct ibv_cq_ex *cq)
{
	REC(V_end_poll, cq, 0);
}

#define READER(type, name)                                                     \
	static type name(struct ibv_cq_ex *cq)                                 \
	{                                                                      \
		REC(V_##name, cq, 0);                                          \
		return (type)vfake_script->a[V_##name].ret;                    \
	}
READER(enum ibv_wc_opcode, read_opcode)
READER(uint32_t, read_vendor_err)
READER(uint32_t, read_byte_len)
READER(__be32, read_imm_data)
READER(uint32_t, read_qp_num)
READER(uint32_t, read_src_qp)
READER(unsigned int, read_wc_flags)
READER(uint32_t, read_slid)
READER(uint8_t, read_sl)
READER(uint8_t, read_dlid_path_bits)
READER(uint64_t, read_completion_ts)
READER(uint16_t, read_cvlan)
READER(uint32_t, read_flow_tag)
READER(uint64_t, read_completion_wallclock_ns)

static void read_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *tm_info)
{
	REC(V_read_tm_info, cq, 1, U(tm_info));
	vfake_fill(tm_info, sizeof(*tm_info));
}

/* ---- struct ibv_wq, struct ibv_dm ---- */

static int wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int ret = (int)vfake_answer(V_wq_post_recv);

	IN(REC(V_wq_post_recv, wq, 2, U(wr), U(bad)), wr, sizeof(*wr));
	if (ret && vfake_room(bad) && vfake_room(wr))
		*bad = vfake_script->bad && wr->next ? wr->next : wr;
	return ret;
}

static int memcpy_to_dm(struct ibv_dm *dm, uint64_t off, const void *host, size_t length)
{
	IN(REC(V_memcpy_to_dm, dm, 3, off, U(host), U(length)), host, length);
	return (int)vfake_answer(V_memcpy_to_dm);
}

/* Copies out on success (the host buffer filled). */
static int memcpy_from_dm(void *host, struct ibv_dm *dm, uint64_t off, size_t length)
{
	int ret = (int)vfake_answer(V_memcpy_from_dm);

	REC(V_memcpy_from_dm, dm, 3, U(host), off, U(length));
	if (!ret)
		vfake_fill(host, length);
	return ret;
}

/* ---- the libibverbs functions the inlines call, replaced ---- */

/* libibverbs' compat ibv_query_port fills struct _compat_ibv_port_attr:
 * struct ibv_port_attr without port_cap_flags2 and what follows it. */
#define COMPAT_PORT_ATTR 48

int (ibv_query_port)(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *attr)
{
	int ret = (int)vfake_answer(V_ibv_query_port);

	REC(V_ibv_query_port, c, 2, U(port), U(attr));
	if (!ret)
		vfake_fill(attr, COMPAT_PORT_ATTR);
	return ret;
}

int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	int ret = (int)vfake_answer(V__ibv_query_gid_ex);

	REC(V__ibv_query_gid_ex, c, 5, U(port), U(index), U(entry), U(flags), U(entry_size));
	if (!ret)
		vfake_fill(entry, entry_size);
	return ret;
}

ssize_t _ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size)
{
	ssize_t ret = (ssize_t)vfake_answer(V__ibv_query_gid_table);

	REC(V__ibv_query_gid_table, c, 4, U(entries), U(max_entries), U(flags), U(entry_size));
	if (ret > 0)
		vfake_fill(entries, ((size_t)ret < max_entries ? (size_t)ret : max_entries) * entry_size);
	return ret;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	REC(V_ibv_reg_mr, pd, 3, U(addr), U(length), U(access));
	return vfake_made(V_ibv_reg_mr, &W.new_mr);
}

struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				  int access)
{
	REC(V_ibv_reg_mr_iova, pd, 4, U(addr), U(length), U(iova), U(access));
	return vfake_made(V_ibv_reg_mr_iova, &W.new_mr);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	REC(V_ibv_reg_mr_iova2, pd, 4, U(addr), U(length), U(iova), U(access));
	return vfake_made(V_ibv_reg_mr_iova2, &W.new_mr);
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{
	IN(REC(V_ibv_create_srq, pd, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_ibv_create_srq, &W.new_srq);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	IN(REC(V_ibv_create_qp, pd, 1, U(a)), a, sizeof(*a));
	return vfake_made(V_ibv_create_qp, &W.new_qp);
}

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *attr)
{
	int ret = (int)vfake_answer(V_ibv_query_device);

	REC(V_ibv_query_device, c, 1, U(attr));
	if (!ret)
		vfake_fill(attr, sizeof(*attr));
	return ret;
}

#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
/* libibverbs clears caps_size bytes and asks the provider. */
int _ibv_query_comp_cntr_caps(struct ibv_context *c, struct ibv_comp_cntr_caps *caps, size_t caps_size)
{
	int ret = (int)vfake_answer(V__ibv_query_comp_cntr_caps);

	REC(V__ibv_query_comp_cntr_caps, c, 2, U(caps), U(caps_size));
	memset(caps, 0, caps_size);
	if (!ret)
		vfake_fill(caps, caps_size);
	return ret;
}
#endif

void vfake_install_ex(void)
{
	struct ibv_qp_ex *q = &W.qpx;
	struct ibv_cq_ex *c = &W.cqx;

#define SET(n) q->n = n;
	VFAKE_QP_EX_OPS(SET)
#undef SET
#define SET(n) c->n = n;
	VFAKE_CQ_EX_OPS(SET)
#undef SET
	q->qp_base.context = VCTX;
	q->qp_base.pd = &W.pd;
	q->qp_base.qp_num = 0x5678;
	c->context = VCTX;
	W.wq.post_recv = wq_post_recv;
	W.new_wq.post_recv = wq_post_recv;
	W.dm.memcpy_to_dm = memcpy_to_dm;
	W.dm.memcpy_from_dm = memcpy_from_dm;
}
