/*
 * Generated from abi/src/functions.rs by `make header`; do not edit.
 *
 * The exports as X-macro lists: X(return type, name, (parameters),
 * (arguments)), one list per symbol version node, then all of them; the
 * exports that may block, X(name); and the provider ops that the preload
 * library wraps, X(name). No header declares the functions of RDMAVERBS_1.2: a
 * test reaches ours by dlsym (<rdma/rdma_cma.h> defines them inline).
 */
#ifndef RDMAVERBS_FUNCTIONS_H
#define RDMAVERBS_FUNCTIONS_H

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

/* RDMAVERBS_1.1 */
#define RDMAVERBS_1_1_FUNCTIONS(X) \
	X(int, rdma_get_send_comp_timeout, (struct rdma_cm_id *id, struct ibv_wc *wc, int timeout_ms), (id, wc, timeout_ms)) \
	X(int, rdma_get_recv_comp_timeout, (struct rdma_cm_id *id, struct ibv_wc *wc, int timeout_ms), (id, wc, timeout_ms))

/* RDMAVERBS_1.2 */
#define RDMAVERBS_1_2_FUNCTIONS(X) \
	X(struct sockaddr *, rdma_get_local_addr, (struct rdma_cm_id *id), (id)) \
	X(struct sockaddr *, rdma_get_peer_addr, (struct rdma_cm_id *id), (id))

/* Every export. */
#define RDMAVERBS_FUNCTIONS(X) \
	RDMAVERBS_1_0_FUNCTIONS(X) \
	RDMAVERBS_1_1_FUNCTIONS(X) \
	RDMAVERBS_1_2_FUNCTIONS(X)

/* The exports that may wait for a completion event. */
#define RDMAVERBS_MAY_BLOCK(X) \
	X(rdma_get_send_comp) \
	X(rdma_get_recv_comp) \
	X(rdma_get_send_comp_timeout) \
	X(rdma_get_recv_comp_timeout)

/* The wrapped provider ops. */
#define RDMAVERBS_OPS(X) \
	X(ibv_post_send) \
	X(ibv_post_recv) \
	X(ibv_post_srq_recv) \
	X(ibv_poll_cq) \
	X(ibv_req_notify_cq) \
	X(ibv_wr_start) \
	X(ibv_wr_send) \
	X(ibv_wr_send_imm) \
	X(ibv_wr_rdma_write) \
	X(ibv_wr_rdma_write_imm) \
	X(ibv_wr_rdma_read) \
	X(ibv_wr_set_sge) \
	X(ibv_wr_set_sge_list) \
	X(ibv_wr_set_inline_data) \
	X(ibv_wr_complete) \
	X(ibv_wr_abort) \
	X(ibv_start_poll) \
	X(ibv_next_poll) \
	X(ibv_end_poll)

#endif
