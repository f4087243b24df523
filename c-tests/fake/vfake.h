/*
 * A fake provider for the functions of <infiniband/verbs.h> (RDMAVERBS_1.3):
 * one "world" of objects (a struct verbs_context whose sz and abi_compat a
 * case sets, a PD, QP, SRQ, CQ, memory window, MRs, domains, flows,
 * counters, device memory, work queues, an extended QP and CQ, the inputs
 * a case passes and the outputs a call writes), every op those objects
 * have (struct verbs_context's, the struct ibv_context_ops ops the inlines
 * call, every wr_* of struct ibv_qp_ex, every poll and read_* of struct
 * ibv_cq_ex, struct ibv_wq's post_recv, struct ibv_dm's copies), each
 * recording its call in full in the world's log and answering from the
 * script; and replacements for the libibverbs functions the inlines call
 * (ibv_query_port, _ibv_query_gid_ex, _ibv_query_gid_table, ibv_reg_mr,
 * ibv_reg_mr_iova, ibv_reg_mr_iova2, ibv_create_srq, ibv_create_qp,
 * ibv_query_device, and _ibv_query_comp_cntr_caps where the build has it), which a program linked with -rdynamic defines for
 * itself (original.o) and for librdmaverbs.so.1 alike.
 *
 * Its sources are in c-tests/fake/vfake/: vfake-log.c (the world, the log,
 * the answers), vfake-world.c (vfake_init, the legacy ops), vfake-ctx.c (the
 * context's ops) and vfake-ex.c (the extended QP's and CQ's calls, the
 * WQ's, the DM's, the replaced libibverbs functions). A program on this fake
 * links the four (VFAKE_O in c-tests/fake/fake.mk).
 *
 * Not linked with fake.o: fake.c defines ibv_reg_mr too, with another
 * log; a program has one of them.
 */
#ifndef RDMAVERBS_VFAKE_H
#define RDMAVERBS_VFAKE_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "functions.h"	/* RDMAVERBS_IF_name: the build's functions (build/gen) */

/* The ops of struct verbs_context the inlines reach (all of them but the
 * placeholders and priv), X(member). */
#define VFAKE_CTX_OPS(X)                                                       \
	X(query_port) X(advise_mr) X(alloc_null_mr) X(read_counters)           \
	X(attach_counters_point_flow) X(create_counters) X(destroy_counters)   \
	X(reg_dm_mr) X(alloc_dm) X(free_dm) X(modify_flow_action_esp)          \
	X(destroy_flow_action) X(create_flow_action_esp)                       \
	X(modify_qp_rate_limit) X(alloc_parent_domain) X(dealloc_td)           \
	X(alloc_td) X(modify_cq) X(post_srq_ops) X(destroy_rwq_ind_table)      \
	X(create_rwq_ind_table) X(destroy_wq) X(modify_wq) X(create_wq)        \
	X(query_rt_values) X(create_cq_ex) X(query_device_ex)                  \
	X(ibv_destroy_flow) X(ibv_create_flow) X(open_qp) X(create_qp_ex)      \
	X(get_srq_num) X(create_srq_ex) X(open_xrcd) X(close_xrcd)

/* The ops of struct ibv_context_ops the inlines call. */
#define VFAKE_LEGACY_OPS(X)                                                    \
	X(post_send) X(post_recv) X(post_srq_recv) X(poll_cq)                  \
	X(req_notify_cq) X(alloc_mw) X(dealloc_mw) X(bind_mw)

/* struct ibv_qp_ex's calls. */
#define VFAKE_QP_EX_OPS(X)                                                     \
	X(wr_atomic_cmp_swp) X(wr_atomic_fetch_add) X(wr_bind_mw)              \
	X(wr_local_inv) X(wr_rdma_read) X(wr_rdma_write)                       \
	X(wr_rdma_write_imm) X(wr_send) X(wr_send_imm) X(wr_send_inv)          \
	X(wr_send_tso) X(wr_set_ud_addr) X(wr_set_xrc_srqn)                    \
	X(wr_set_inline_data) X(wr_set_inline_data_list) X(wr_set_sge)         \
	X(wr_set_sge_list) X(wr_start) X(wr_complete) X(wr_abort)              \
	RDMAVERBS_IF_ibv_wr_atomic_write(X(wr_atomic_write))                   \
	RDMAVERBS_IF_ibv_wr_flush(X(wr_flush))

/* struct ibv_cq_ex's calls. */
#define VFAKE_CQ_EX_OPS(X)                                                     \
	X(start_poll) X(next_poll) X(end_poll) X(read_opcode)                  \
	X(read_vendor_err) X(read_byte_len) X(read_imm_data) X(read_qp_num)    \
	X(read_src_qp) X(read_wc_flags) X(read_slid) X(read_sl)                \
	X(read_dlid_path_bits) X(read_completion_ts) X(read_cvlan)             \
	X(read_flow_tag) X(read_tm_info) X(read_completion_wallclock_ns)

/* struct ibv_wq's and struct ibv_dm's calls (wq_post_recv is wq->post_recv). */
#define VFAKE_OBJECT_OPS(X) X(wq_post_recv) X(memcpy_to_dm) X(memcpy_from_dm)

/* The libibverbs functions replaced. */
#define VFAKE_LIBRARY(X)                                                       \
	X(ibv_query_port) X(_ibv_query_gid_ex) X(_ibv_query_gid_table)         \
	X(ibv_reg_mr) X(ibv_reg_mr_iova) X(ibv_reg_mr_iova2) X(ibv_create_srq) \
	X(ibv_create_qp) X(ibv_query_device)                                   \
	RDMAVERBS_IF_ibv_query_comp_cntr_caps(X(_ibv_query_comp_cntr_caps))

#define VFAKE_ALL(X)                                                           \
	VFAKE_CTX_OPS(X) VFAKE_LEGACY_OPS(X) VFAKE_QP_EX_OPS(X)                \
	VFAKE_CQ_EX_OPS(X) VFAKE_OBJECT_OPS(X) VFAKE_LIBRARY(X)

#define VFAKE_ENUM(n) V_##n,
enum vop { V_NONE, VFAKE_ALL(VFAKE_ENUM) V_COUNT };
extern const char *const vop_name[V_COUNT];

/* One recorded call: the op, its first argument (the object), the others
 * as integers (pointers by address), and the first bytes of the input
 * struct it was given, as they were at the call. */
#define VFAKE_IN 48
struct vrec {
	int op;
	int nin;
	const void *obj;
	uint64_t arg[6];
	unsigned char in[VFAKE_IN];
};

/* What each op answers: `ret` (an errno value, a count, a value read, or
 * for an op that makes an object, non-zero for the object and 0 for NULL),
 * and `err`, set in errno when not 0. Outputs are filled with bytes made
 * from `seed`; a failing post names its `bad`-th work request (0 the
 * first, 1 the second). */
struct vanswer {
	int64_t ret;
	int err;
};
struct vscript {
	struct vanswer a[V_COUNT];
	uint8_t seed;
	int bad;
};

#define VFAKE_LOG 8
#define VFAKE_GUARD 32

/* Everything a call may touch, copied whole before each run and compared
 * byte by byte after it. */
struct vworld {
	struct verbs_context vctx;	/* the context is &vctx.context */
	struct ibv_device dev;
	struct ibv_pd pd, other_pd, parent_pd;
	struct ibv_qp qp, new_qp;
	struct ibv_srq srq, new_srq;
	struct ibv_cq cq;
	struct ibv_mw mw, new_mw;
	struct ibv_mr mr, other_mr, new_mr;
	struct ibv_xrcd xrcd;
	struct ibv_td td;
	struct ibv_flow flow;
	struct ibv_flow_action action;
	struct ibv_counters counters;
	struct ibv_dm dm;
	struct ibv_wq wq, new_wq;
	struct ibv_rwq_ind_table table;
	struct ibv_qp_ex qpx;
	struct ibv_cq_ex cqx;
	struct ibv_ah ah;

	/* inputs */
	struct ibv_send_wr swr[2];
	struct ibv_recv_wr rwr[2];
	struct ibv_ops_wr ops_wr[2];
	struct ibv_sge sge[4];
	struct ibv_data_buf bufs[4];
	struct ibv_mw_bind mw_bind;
	struct ibv_mw_bind_info bind_info;
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_srq_init_attr_ex srq_attr;
	struct ibv_qp_init_attr_ex qp_attr;
	struct ibv_qp_open_attr qp_open_attr;
	struct ibv_wq_init_attr wq_attr;
	struct ibv_wq_attr wq_mod;
	struct ibv_rwq_ind_table_init_attr table_attr;
	struct ibv_td_init_attr td_attr;
	struct ibv_parent_domain_init_attr parent_attr;
	struct ibv_xrcd_init_attr xrcd_attr;
	struct ibv_flow_attr flow_attr;
	struct ibv_flow_action_esp_attr esp;
	struct ibv_counters_init_attr counters_attr;
	struct ibv_counter_attach_attr attach_attr;
	struct ibv_alloc_dm_attr dm_attr;
	struct ibv_modify_cq_attr cq_mod;
	struct ibv_qp_rate_limit_attr rate;
	struct ibv_poll_cq_attr poll_attr;
	struct ibv_query_device_ex_input qd_input;
	_Alignas(16) unsigned char data[64];	/* buffers, headers, atomic data */

	/* outputs, each followed by room the call must not write */
	struct ibv_port_attr port;
	unsigned char port_guard[VFAKE_GUARD];
	struct ibv_gid_entry gid[4];
	unsigned char gid_guard[VFAKE_GUARD];
	struct ibv_device_attr_ex dev_attr;
	unsigned char dev_attr_guard[VFAKE_GUARD];
#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
	struct ibv_comp_cntr_caps cntr_caps;
	unsigned char cntr_caps_guard[VFAKE_GUARD];
#endif
	struct ibv_values_ex values;
	uint32_t srq_num;
	uint64_t counter_values[8];
	struct ibv_wc wc[4];
	unsigned char wc_guard[VFAKE_GUARD];
	struct ibv_wc_tm_info tm_info;
	unsigned char host[64];
	struct ibv_send_wr *bad_swr;
	struct ibv_recv_wr *bad_rwr;
	struct ibv_ops_wr *bad_op;

	/* the calls made */
	int nlog;
	int overflow;
	struct vrec log[VFAKE_LOG];
};

/* The world the ops act on, and the script they answer from. */
extern struct vworld W;
extern const struct vscript *vfake_script;

/* The context of the world. */
#define VCTX (&W.vctx.context)

/* Builds the world in W: a full extended context (sz the whole struct),
 * every op set, every object's context the world's, the inputs valid. */
void vfake_init(void);

/* sz that has the verbs_context op at `offset` and nothing before it. */
size_t vfake_sz_for(size_t offset);

/* For the ops (vfake-log.c, used by the others): a call logged (the op, its object,
 * its n other arguments as uint64_t), the first bytes of its input struct
 * (only what lies in the world), the op's scripted answer (errno set when
 * scripted), an output filled from the script's seed (only what lies in
 * the world), how much of the world lies from p on (0: not in it). */
struct vrec *vfake_rec(int op, const void *obj, int n, ...);
void vfake_snap(struct vrec *r, const void *p, size_t n);
int64_t vfake_answer(int op);
void vfake_fill(void *p, size_t n);
size_t vfake_room(const void *p);
void *vfake_made(int op, void *obj);
/* The ops of struct verbs_context (vfake-ctx.c), and of the extended QP and
 * CQ, the WQ and the DM (vfake-ex.c), set in the world; vfake_init calls
 * both. */
void vfake_install_ctx(void);
void vfake_install_ex(void);

/* A region of the world by name (for saying where two worlds differ). */
const char *vfake_region(size_t offset, size_t *start);

#endif
