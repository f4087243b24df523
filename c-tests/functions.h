/*
 * Generated from abi/src/functions.rs by `make header`; do not edit.
 *
 * The exports as X-macro lists: X(return type, name, (parameters),
 * (arguments)), one list per symbol version node (and its functions that
 * return a value, and those that return nothing), then all of them; the
 * exports that may block, X(name); and the provider ops that the preload
 * library wraps too, X(name). No header declares the functions of RDMAVERBS_1.2, RDMAVERBS_1.3:
 * a test reaches ours by dlvsym (<rdma/rdma_cma.h> and
 * <infiniband/verbs.h> define them inline), as they are non-default
 * versions, which dlsym does not find; RDMAVERBS_BY_VERSION_ONLY names
 * those nodes.
 */
#ifndef RDMAVERBS_FUNCTIONS_H
#define RDMAVERBS_FUNCTIONS_H

#define RDMAVERBS_BY_VERSION_ONLY "RDMAVERBS_1.2 RDMAVERBS_1.3"

/* RDMAVERBS_1.0 */
#define RDMAVERBS_1_0_FUNCTIONS(X) \
	X(int, rdma_seterrno, (int ret), (ret)) \
	X(struct ibv_mr *, rdma_reg_msgs, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length)) \
	X(struct ibv_mr *, rdma_reg_read, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length)) \
	X(struct ibv_mr *, rdma_reg_write, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length)) \
	X(int, rdma_dereg_mr, (struct ibv_mr *mr), (mr)) \
	X(int, rdma_post_recvv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge), (id, context, sgl, nsge)) \
	X(int, rdma_post_sendv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags), (id, context, sgl, nsge, flags)) \
	X(int, rdma_post_readv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, sgl, nsge, flags, remote_addr, rkey)) \
	X(int, rdma_post_writev, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, sgl, nsge, flags, remote_addr, rkey)) \
	X(int, rdma_post_recv, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr), (id, context, addr, length, mr)) \
	X(int, rdma_post_send, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags), (id, context, addr, length, mr, flags)) \
	X(int, rdma_post_read, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, addr, length, mr, flags, remote_addr, rkey)) \
	X(int, rdma_post_write, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, addr, length, mr, flags, remote_addr, rkey)) \
	X(int, rdma_post_ud_send, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, struct ibv_ah *ah, uint32_t remote_qpn), (id, context, addr, length, mr, flags, ah, remote_qpn)) \
	X(int, rdma_get_send_comp, (struct rdma_cm_id *id, struct ibv_wc *wc), (id, wc)) \
	X(int, rdma_get_recv_comp, (struct rdma_cm_id *id, struct ibv_wc *wc), (id, wc))

/* RDMAVERBS_1.0, those that return a value */
#define RDMAVERBS_1_0_VALUES(X) \
	X(int, rdma_seterrno, (int ret), (ret)) \
	X(struct ibv_mr *, rdma_reg_msgs, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length)) \
	X(struct ibv_mr *, rdma_reg_read, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length)) \
	X(struct ibv_mr *, rdma_reg_write, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length)) \
	X(int, rdma_dereg_mr, (struct ibv_mr *mr), (mr)) \
	X(int, rdma_post_recvv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge), (id, context, sgl, nsge)) \
	X(int, rdma_post_sendv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags), (id, context, sgl, nsge, flags)) \
	X(int, rdma_post_readv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, sgl, nsge, flags, remote_addr, rkey)) \
	X(int, rdma_post_writev, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, sgl, nsge, flags, remote_addr, rkey)) \
	X(int, rdma_post_recv, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr), (id, context, addr, length, mr)) \
	X(int, rdma_post_send, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags), (id, context, addr, length, mr, flags)) \
	X(int, rdma_post_read, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, addr, length, mr, flags, remote_addr, rkey)) \
	X(int, rdma_post_write, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, addr, length, mr, flags, remote_addr, rkey)) \
	X(int, rdma_post_ud_send, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, struct ibv_ah *ah, uint32_t remote_qpn), (id, context, addr, length, mr, flags, ah, remote_qpn)) \
	X(int, rdma_get_send_comp, (struct rdma_cm_id *id, struct ibv_wc *wc), (id, wc)) \
	X(int, rdma_get_recv_comp, (struct rdma_cm_id *id, struct ibv_wc *wc), (id, wc))

/* RDMAVERBS_1.0, those that return nothing */
#define RDMAVERBS_1_0_VOIDS(X)

/* RDMAVERBS_1.1 */
#define RDMAVERBS_1_1_FUNCTIONS(X) \
	X(int, rdma_get_send_comp_timeout, (struct rdma_cm_id *id, struct ibv_wc *wc, int timeout_ms), (id, wc, timeout_ms)) \
	X(int, rdma_get_recv_comp_timeout, (struct rdma_cm_id *id, struct ibv_wc *wc, int timeout_ms), (id, wc, timeout_ms))

/* RDMAVERBS_1.1, those that return a value */
#define RDMAVERBS_1_1_VALUES(X) \
	X(int, rdma_get_send_comp_timeout, (struct rdma_cm_id *id, struct ibv_wc *wc, int timeout_ms), (id, wc, timeout_ms)) \
	X(int, rdma_get_recv_comp_timeout, (struct rdma_cm_id *id, struct ibv_wc *wc, int timeout_ms), (id, wc, timeout_ms))

/* RDMAVERBS_1.1, those that return nothing */
#define RDMAVERBS_1_1_VOIDS(X)

/* RDMAVERBS_1.2 */
#define RDMAVERBS_1_2_FUNCTIONS(X) \
	X(struct sockaddr *, rdma_get_local_addr, (struct rdma_cm_id *id), (id)) \
	X(struct sockaddr *, rdma_get_peer_addr, (struct rdma_cm_id *id), (id))

/* RDMAVERBS_1.2, those that return a value */
#define RDMAVERBS_1_2_VALUES(X) \
	X(struct sockaddr *, rdma_get_local_addr, (struct rdma_cm_id *id), (id)) \
	X(struct sockaddr *, rdma_get_peer_addr, (struct rdma_cm_id *id), (id))

/* RDMAVERBS_1.2, those that return nothing */
#define RDMAVERBS_1_2_VOIDS(X)

/* RDMAVERBS_1.3 */
#define RDMAVERBS_1_3_FUNCTIONS(X) \
	X(void, ibv_wr_atomic_cmp_swp, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap), (qp, rkey, remote_addr, compare, swap)) \
	X(void, ibv_wr_atomic_fetch_add, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add), (qp, rkey, remote_addr, add)) \
	X(void, ibv_wr_bind_mw, (struct ibv_qp_ex *qp, struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *bind_info), (qp, mw, rkey, bind_info)) \
	X(void, ibv_wr_local_inv, (struct ibv_qp_ex *qp, uint32_t invalidate_rkey), (qp, invalidate_rkey)) \
	X(void, ibv_wr_rdma_read, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr), (qp, rkey, remote_addr)) \
	X(void, ibv_wr_rdma_write, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr), (qp, rkey, remote_addr)) \
	X(void, ibv_wr_rdma_write_imm, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint32_t imm_data), (qp, rkey, remote_addr, imm_data)) \
	X(void, ibv_wr_send, (struct ibv_qp_ex *qp), (qp)) \
	X(void, ibv_wr_send_imm, (struct ibv_qp_ex *qp, uint32_t imm_data), (qp, imm_data)) \
	X(void, ibv_wr_send_inv, (struct ibv_qp_ex *qp, uint32_t invalidate_rkey), (qp, invalidate_rkey)) \
	X(void, ibv_wr_send_tso, (struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss), (qp, hdr, hdr_sz, mss)) \
	X(void, ibv_wr_set_ud_addr, (struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey), (qp, ah, remote_qpn, remote_qkey)) \
	X(void, ibv_wr_set_xrc_srqn, (struct ibv_qp_ex *qp, uint32_t remote_srqn), (qp, remote_srqn)) \
	X(void, ibv_wr_set_inline_data, (struct ibv_qp_ex *qp, void *addr, size_t length), (qp, addr, length)) \
	X(void, ibv_wr_set_inline_data_list, (struct ibv_qp_ex *qp, size_t num_buf, const struct ibv_data_buf *buf_list), (qp, num_buf, buf_list)) \
	X(void, ibv_wr_set_sge, (struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length), (qp, lkey, addr, length)) \
	X(void, ibv_wr_set_sge_list, (struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *sg_list), (qp, num_sge, sg_list)) \
	X(void, ibv_wr_start, (struct ibv_qp_ex *qp), (qp)) \
	X(int, ibv_wr_complete, (struct ibv_qp_ex *qp), (qp)) \
	X(void, ibv_wr_abort, (struct ibv_qp_ex *qp), (qp)) \
	X(void, ibv_wr_atomic_write, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr), (qp, rkey, remote_addr, atomic_wr)) \
	X(struct ibv_cq *, ibv_cq_ex_to_cq, (struct ibv_cq_ex *cq), (cq)) \
	X(int, ibv_start_poll, (struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr), (cq, attr)) \
	X(int, ibv_next_poll, (struct ibv_cq_ex *cq), (cq)) \
	X(void, ibv_end_poll, (struct ibv_cq_ex *cq), (cq)) \
	X(unsigned int, ibv_wc_read_opcode, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_vendor_err, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_byte_len, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_imm_data, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_invalidated_rkey, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_qp_num, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_src_qp, (struct ibv_cq_ex *cq), (cq)) \
	X(unsigned int, ibv_wc_read_wc_flags, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_slid, (struct ibv_cq_ex *cq), (cq)) \
	X(uint8_t, ibv_wc_read_sl, (struct ibv_cq_ex *cq), (cq)) \
	X(uint8_t, ibv_wc_read_dlid_path_bits, (struct ibv_cq_ex *cq), (cq)) \
	X(uint64_t, ibv_wc_read_completion_ts, (struct ibv_cq_ex *cq), (cq)) \
	X(uint64_t, ibv_wc_read_completion_wallclock_ns, (struct ibv_cq_ex *cq), (cq)) \
	X(uint16_t, ibv_wc_read_cvlan, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_flow_tag, (struct ibv_cq_ex *cq), (cq)) \
	X(void, ibv_wc_read_tm_info, (struct ibv_cq_ex *cq, struct ibv_wc_tm_info *tm_info), (cq, tm_info)) \
	X(int, ibv_post_wq_recv, (struct ibv_wq *wq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr), (wq, recv_wr, bad_recv_wr)) \
	X(int, ___ibv_query_port, (struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr), (context, port_num, port_attr)) \
	X(int, ibv_query_gid_ex, (struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry, uint32_t flags), (context, port_num, gid_index, entry, flags)) \
	X(ssize_t, ibv_query_gid_table, (struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags), (context, entries, max_entries, flags)) \
	X(struct ibv_flow *, ibv_create_flow, (struct ibv_qp *qp, struct ibv_flow_attr *flow), (qp, flow)) \
	X(int, ibv_destroy_flow, (struct ibv_flow *flow_id), (flow_id)) \
	X(struct ibv_flow_action *, ibv_create_flow_action_esp, (struct ibv_context *ctx, struct ibv_flow_action_esp_attr *esp), (ctx, esp)) \
	X(int, ibv_modify_flow_action_esp, (struct ibv_flow_action *action, struct ibv_flow_action_esp_attr *esp), (action, esp)) \
	X(int, ibv_destroy_flow_action, (struct ibv_flow_action *action), (action)) \
	X(struct ibv_xrcd *, ibv_open_xrcd, (struct ibv_context *context, struct ibv_xrcd_init_attr *xrcd_init_attr), (context, xrcd_init_attr)) \
	X(int, ibv_close_xrcd, (struct ibv_xrcd *xrcd), (xrcd)) \
	X(struct ibv_mr *, __ibv_reg_mr, (struct ibv_pd *pd, void *addr, size_t length, unsigned int access, int is_access_const), (pd, addr, length, access, is_access_const)) \
	X(struct ibv_mr *, __ibv_reg_mr_iova, (struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access, int is_access_const), (pd, addr, length, iova, access, is_access_const)) \
	X(struct ibv_mw *, ibv_alloc_mw, (struct ibv_pd *pd, unsigned int type_), (pd, type_)) \
	X(int, ibv_dealloc_mw, (struct ibv_mw *mw), (mw)) \
	X(uint32_t, ibv_inc_rkey, (uint32_t rkey), (rkey)) \
	X(int, ibv_bind_mw, (struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind), (qp, mw, mw_bind)) \
	X(int, ibv_advise_mr, (struct ibv_pd *pd, unsigned int advice, uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge), (pd, advice, flags, sg_list, num_sge)) \
	X(struct ibv_dm *, ibv_alloc_dm, (struct ibv_context *context, struct ibv_alloc_dm_attr *attr), (context, attr)) \
	X(int, ibv_free_dm, (struct ibv_dm *dm), (dm)) \
	X(int, ibv_memcpy_to_dm, (struct ibv_dm *dm, uint64_t dm_offset, const void *host_addr, size_t length), (dm, dm_offset, host_addr, length)) \
	X(int, ibv_memcpy_from_dm, (void *host_addr, struct ibv_dm *dm, uint64_t dm_offset, size_t length), (host_addr, dm, dm_offset, length)) \
	X(struct ibv_mr *, ibv_alloc_null_mr, (struct ibv_pd *pd), (pd)) \
	X(struct ibv_mr *, ibv_reg_dm_mr, (struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset, size_t length, unsigned int access), (pd, dm, dm_offset, length, access)) \
	X(struct ibv_cq_ex *, ibv_create_cq_ex, (struct ibv_context *context, struct ibv_cq_init_attr_ex *cq_attr), (context, cq_attr)) \
	X(int, ibv_poll_cq, (struct ibv_cq *cq, int num_entries, struct ibv_wc *wc), (cq, num_entries, wc)) \
	X(int, ibv_req_notify_cq, (struct ibv_cq *cq, int solicited_only), (cq, solicited_only)) \
	X(int, ibv_modify_cq, (struct ibv_cq *cq, struct ibv_modify_cq_attr *attr), (cq, attr)) \
	X(struct ibv_srq *, ibv_create_srq_ex, (struct ibv_context *context, struct ibv_srq_init_attr_ex *srq_init_attr_ex), (context, srq_init_attr_ex)) \
	X(int, ibv_get_srq_num, (struct ibv_srq *srq, uint32_t *srq_num), (srq, srq_num)) \
	X(int, ibv_post_srq_recv, (struct ibv_srq *srq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr), (srq, recv_wr, bad_recv_wr)) \
	X(int, ibv_post_srq_ops, (struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad_op), (srq, op, bad_op)) \
	X(struct ibv_qp *, ibv_create_qp_ex, (struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_init_attr_ex), (context, qp_init_attr_ex)) \
	X(struct ibv_td *, ibv_alloc_td, (struct ibv_context *context, struct ibv_td_init_attr *init_attr), (context, init_attr)) \
	X(int, ibv_dealloc_td, (struct ibv_td *td), (td)) \
	X(struct ibv_pd *, ibv_alloc_parent_domain, (struct ibv_context *context, struct ibv_parent_domain_init_attr *attr), (context, attr)) \
	X(int, ibv_query_rt_values_ex, (struct ibv_context *context, struct ibv_values_ex *values), (context, values)) \
	X(int, ibv_query_device_ex, (struct ibv_context *context, const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr), (context, input, attr)) \
	X(struct ibv_qp *, ibv_open_qp, (struct ibv_context *context, struct ibv_qp_open_attr *qp_open_attr), (context, qp_open_attr)) \
	X(int, ibv_modify_qp_rate_limit, (struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr), (qp, attr)) \
	X(struct ibv_wq *, ibv_create_wq, (struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr), (context, wq_init_attr)) \
	X(int, ibv_modify_wq, (struct ibv_wq *wq, struct ibv_wq_attr *wq_attr), (wq, wq_attr)) \
	X(int, ibv_destroy_wq, (struct ibv_wq *wq), (wq)) \
	X(struct ibv_rwq_ind_table *, ibv_create_rwq_ind_table, (struct ibv_context *context, struct ibv_rwq_ind_table_init_attr *init_attr), (context, init_attr)) \
	X(int, ibv_destroy_rwq_ind_table, (struct ibv_rwq_ind_table *rwq_ind_table), (rwq_ind_table)) \
	X(int, ibv_post_send, (struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr), (qp, wr, bad_wr)) \
	X(int, ibv_post_recv, (struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr), (qp, wr, bad_wr)) \
	X(int, ibv_is_qpt_supported, (uint32_t caps, unsigned int qpt), (caps, qpt)) \
	X(struct ibv_counters *, ibv_create_counters, (struct ibv_context *context, struct ibv_counters_init_attr *init_attr), (context, init_attr)) \
	X(int, ibv_destroy_counters, (struct ibv_counters *counters), (counters)) \
	X(int, ibv_attach_counters_point_flow, (struct ibv_counters *counters, struct ibv_counter_attach_attr *attr, struct ibv_flow *flow), (counters, attr, flow)) \
	X(int, ibv_read_counters, (struct ibv_counters *counters, uint64_t *counters_value, uint32_t ncounters, uint32_t flags), (counters, counters_value, ncounters, flags)) \
	X(uint16_t, ibv_flow_label_to_udp_sport, (uint32_t fl), (fl))

/* RDMAVERBS_1.3, those that return a value */
#define RDMAVERBS_1_3_VALUES(X) \
	X(int, ibv_wr_complete, (struct ibv_qp_ex *qp), (qp)) \
	X(struct ibv_cq *, ibv_cq_ex_to_cq, (struct ibv_cq_ex *cq), (cq)) \
	X(int, ibv_start_poll, (struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr), (cq, attr)) \
	X(int, ibv_next_poll, (struct ibv_cq_ex *cq), (cq)) \
	X(unsigned int, ibv_wc_read_opcode, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_vendor_err, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_byte_len, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_imm_data, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_invalidated_rkey, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_qp_num, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_src_qp, (struct ibv_cq_ex *cq), (cq)) \
	X(unsigned int, ibv_wc_read_wc_flags, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_slid, (struct ibv_cq_ex *cq), (cq)) \
	X(uint8_t, ibv_wc_read_sl, (struct ibv_cq_ex *cq), (cq)) \
	X(uint8_t, ibv_wc_read_dlid_path_bits, (struct ibv_cq_ex *cq), (cq)) \
	X(uint64_t, ibv_wc_read_completion_ts, (struct ibv_cq_ex *cq), (cq)) \
	X(uint64_t, ibv_wc_read_completion_wallclock_ns, (struct ibv_cq_ex *cq), (cq)) \
	X(uint16_t, ibv_wc_read_cvlan, (struct ibv_cq_ex *cq), (cq)) \
	X(uint32_t, ibv_wc_read_flow_tag, (struct ibv_cq_ex *cq), (cq)) \
	X(int, ibv_post_wq_recv, (struct ibv_wq *wq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr), (wq, recv_wr, bad_recv_wr)) \
	X(int, ___ibv_query_port, (struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr), (context, port_num, port_attr)) \
	X(int, ibv_query_gid_ex, (struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry, uint32_t flags), (context, port_num, gid_index, entry, flags)) \
	X(ssize_t, ibv_query_gid_table, (struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags), (context, entries, max_entries, flags)) \
	X(struct ibv_flow *, ibv_create_flow, (struct ibv_qp *qp, struct ibv_flow_attr *flow), (qp, flow)) \
	X(int, ibv_destroy_flow, (struct ibv_flow *flow_id), (flow_id)) \
	X(struct ibv_flow_action *, ibv_create_flow_action_esp, (struct ibv_context *ctx, struct ibv_flow_action_esp_attr *esp), (ctx, esp)) \
	X(int, ibv_modify_flow_action_esp, (struct ibv_flow_action *action, struct ibv_flow_action_esp_attr *esp), (action, esp)) \
	X(int, ibv_destroy_flow_action, (struct ibv_flow_action *action), (action)) \
	X(struct ibv_xrcd *, ibv_open_xrcd, (struct ibv_context *context, struct ibv_xrcd_init_attr *xrcd_init_attr), (context, xrcd_init_attr)) \
	X(int, ibv_close_xrcd, (struct ibv_xrcd *xrcd), (xrcd)) \
	X(struct ibv_mr *, __ibv_reg_mr, (struct ibv_pd *pd, void *addr, size_t length, unsigned int access, int is_access_const), (pd, addr, length, access, is_access_const)) \
	X(struct ibv_mr *, __ibv_reg_mr_iova, (struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access, int is_access_const), (pd, addr, length, iova, access, is_access_const)) \
	X(struct ibv_mw *, ibv_alloc_mw, (struct ibv_pd *pd, unsigned int type_), (pd, type_)) \
	X(int, ibv_dealloc_mw, (struct ibv_mw *mw), (mw)) \
	X(uint32_t, ibv_inc_rkey, (uint32_t rkey), (rkey)) \
	X(int, ibv_bind_mw, (struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind), (qp, mw, mw_bind)) \
	X(int, ibv_advise_mr, (struct ibv_pd *pd, unsigned int advice, uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge), (pd, advice, flags, sg_list, num_sge)) \
	X(struct ibv_dm *, ibv_alloc_dm, (struct ibv_context *context, struct ibv_alloc_dm_attr *attr), (context, attr)) \
	X(int, ibv_free_dm, (struct ibv_dm *dm), (dm)) \
	X(int, ibv_memcpy_to_dm, (struct ibv_dm *dm, uint64_t dm_offset, const void *host_addr, size_t length), (dm, dm_offset, host_addr, length)) \
	X(int, ibv_memcpy_from_dm, (void *host_addr, struct ibv_dm *dm, uint64_t dm_offset, size_t length), (host_addr, dm, dm_offset, length)) \
	X(struct ibv_mr *, ibv_alloc_null_mr, (struct ibv_pd *pd), (pd)) \
	X(struct ibv_mr *, ibv_reg_dm_mr, (struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset, size_t length, unsigned int access), (pd, dm, dm_offset, length, access)) \
	X(struct ibv_cq_ex *, ibv_create_cq_ex, (struct ibv_context *context, struct ibv_cq_init_attr_ex *cq_attr), (context, cq_attr)) \
	X(int, ibv_poll_cq, (struct ibv_cq *cq, int num_entries, struct ibv_wc *wc), (cq, num_entries, wc)) \
	X(int, ibv_req_notify_cq, (struct ibv_cq *cq, int solicited_only), (cq, solicited_only)) \
	X(int, ibv_modify_cq, (struct ibv_cq *cq, struct ibv_modify_cq_attr *attr), (cq, attr)) \
	X(struct ibv_srq *, ibv_create_srq_ex, (struct ibv_context *context, struct ibv_srq_init_attr_ex *srq_init_attr_ex), (context, srq_init_attr_ex)) \
	X(int, ibv_get_srq_num, (struct ibv_srq *srq, uint32_t *srq_num), (srq, srq_num)) \
	X(int, ibv_post_srq_recv, (struct ibv_srq *srq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr), (srq, recv_wr, bad_recv_wr)) \
	X(int, ibv_post_srq_ops, (struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad_op), (srq, op, bad_op)) \
	X(struct ibv_qp *, ibv_create_qp_ex, (struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_init_attr_ex), (context, qp_init_attr_ex)) \
	X(struct ibv_td *, ibv_alloc_td, (struct ibv_context *context, struct ibv_td_init_attr *init_attr), (context, init_attr)) \
	X(int, ibv_dealloc_td, (struct ibv_td *td), (td)) \
	X(struct ibv_pd *, ibv_alloc_parent_domain, (struct ibv_context *context, struct ibv_parent_domain_init_attr *attr), (context, attr)) \
	X(int, ibv_query_rt_values_ex, (struct ibv_context *context, struct ibv_values_ex *values), (context, values)) \
	X(int, ibv_query_device_ex, (struct ibv_context *context, const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr), (context, input, attr)) \
	X(struct ibv_qp *, ibv_open_qp, (struct ibv_context *context, struct ibv_qp_open_attr *qp_open_attr), (context, qp_open_attr)) \
	X(int, ibv_modify_qp_rate_limit, (struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr), (qp, attr)) \
	X(struct ibv_wq *, ibv_create_wq, (struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr), (context, wq_init_attr)) \
	X(int, ibv_modify_wq, (struct ibv_wq *wq, struct ibv_wq_attr *wq_attr), (wq, wq_attr)) \
	X(int, ibv_destroy_wq, (struct ibv_wq *wq), (wq)) \
	X(struct ibv_rwq_ind_table *, ibv_create_rwq_ind_table, (struct ibv_context *context, struct ibv_rwq_ind_table_init_attr *init_attr), (context, init_attr)) \
	X(int, ibv_destroy_rwq_ind_table, (struct ibv_rwq_ind_table *rwq_ind_table), (rwq_ind_table)) \
	X(int, ibv_post_send, (struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr), (qp, wr, bad_wr)) \
	X(int, ibv_post_recv, (struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr), (qp, wr, bad_wr)) \
	X(int, ibv_is_qpt_supported, (uint32_t caps, unsigned int qpt), (caps, qpt)) \
	X(struct ibv_counters *, ibv_create_counters, (struct ibv_context *context, struct ibv_counters_init_attr *init_attr), (context, init_attr)) \
	X(int, ibv_destroy_counters, (struct ibv_counters *counters), (counters)) \
	X(int, ibv_attach_counters_point_flow, (struct ibv_counters *counters, struct ibv_counter_attach_attr *attr, struct ibv_flow *flow), (counters, attr, flow)) \
	X(int, ibv_read_counters, (struct ibv_counters *counters, uint64_t *counters_value, uint32_t ncounters, uint32_t flags), (counters, counters_value, ncounters, flags)) \
	X(uint16_t, ibv_flow_label_to_udp_sport, (uint32_t fl), (fl))

/* RDMAVERBS_1.3, those that return nothing */
#define RDMAVERBS_1_3_VOIDS(X) \
	X(void, ibv_wr_atomic_cmp_swp, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap), (qp, rkey, remote_addr, compare, swap)) \
	X(void, ibv_wr_atomic_fetch_add, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add), (qp, rkey, remote_addr, add)) \
	X(void, ibv_wr_bind_mw, (struct ibv_qp_ex *qp, struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *bind_info), (qp, mw, rkey, bind_info)) \
	X(void, ibv_wr_local_inv, (struct ibv_qp_ex *qp, uint32_t invalidate_rkey), (qp, invalidate_rkey)) \
	X(void, ibv_wr_rdma_read, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr), (qp, rkey, remote_addr)) \
	X(void, ibv_wr_rdma_write, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr), (qp, rkey, remote_addr)) \
	X(void, ibv_wr_rdma_write_imm, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint32_t imm_data), (qp, rkey, remote_addr, imm_data)) \
	X(void, ibv_wr_send, (struct ibv_qp_ex *qp), (qp)) \
	X(void, ibv_wr_send_imm, (struct ibv_qp_ex *qp, uint32_t imm_data), (qp, imm_data)) \
	X(void, ibv_wr_send_inv, (struct ibv_qp_ex *qp, uint32_t invalidate_rkey), (qp, invalidate_rkey)) \
	X(void, ibv_wr_send_tso, (struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss), (qp, hdr, hdr_sz, mss)) \
	X(void, ibv_wr_set_ud_addr, (struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey), (qp, ah, remote_qpn, remote_qkey)) \
	X(void, ibv_wr_set_xrc_srqn, (struct ibv_qp_ex *qp, uint32_t remote_srqn), (qp, remote_srqn)) \
	X(void, ibv_wr_set_inline_data, (struct ibv_qp_ex *qp, void *addr, size_t length), (qp, addr, length)) \
	X(void, ibv_wr_set_inline_data_list, (struct ibv_qp_ex *qp, size_t num_buf, const struct ibv_data_buf *buf_list), (qp, num_buf, buf_list)) \
	X(void, ibv_wr_set_sge, (struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length), (qp, lkey, addr, length)) \
	X(void, ibv_wr_set_sge_list, (struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *sg_list), (qp, num_sge, sg_list)) \
	X(void, ibv_wr_start, (struct ibv_qp_ex *qp), (qp)) \
	X(void, ibv_wr_abort, (struct ibv_qp_ex *qp), (qp)) \
	X(void, ibv_wr_atomic_write, (struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr), (qp, rkey, remote_addr, atomic_wr)) \
	X(void, ibv_end_poll, (struct ibv_cq_ex *cq), (cq)) \
	X(void, ibv_wc_read_tm_info, (struct ibv_cq_ex *cq, struct ibv_wc_tm_info *tm_info), (cq, tm_info))

/* Every export. */
#define RDMAVERBS_FUNCTIONS(X) \
	RDMAVERBS_1_0_FUNCTIONS(X) \
	RDMAVERBS_1_1_FUNCTIONS(X) \
	RDMAVERBS_1_2_FUNCTIONS(X) \
	RDMAVERBS_1_3_FUNCTIONS(X)

/* The exports that may wait for a completion event. */
#define RDMAVERBS_MAY_BLOCK(X) \
	X(rdma_get_send_comp) \
	X(rdma_get_recv_comp) \
	X(rdma_get_send_comp_timeout) \
	X(rdma_get_recv_comp_timeout)

/* The exports whose provider ops the preload library wraps too. */
#define RDMAVERBS_OPS(X) \
	X(ibv_wr_rdma_read) \
	X(ibv_wr_rdma_write) \
	X(ibv_wr_rdma_write_imm) \
	X(ibv_wr_send) \
	X(ibv_wr_send_imm) \
	X(ibv_wr_set_inline_data) \
	X(ibv_wr_set_sge) \
	X(ibv_wr_set_sge_list) \
	X(ibv_wr_start) \
	X(ibv_wr_complete) \
	X(ibv_wr_abort) \
	X(ibv_start_poll) \
	X(ibv_next_poll) \
	X(ibv_end_poll) \
	X(ibv_poll_cq) \
	X(ibv_req_notify_cq) \
	X(ibv_post_srq_recv) \
	X(ibv_post_send) \
	X(ibv_post_recv)

#endif
