/*
 * The benchmark's hand-written C shim: what a user would write to get real
 * symbols, the inline originals wrapped under their own names. Built by
 * `make bench` with -O2, never installed.
 */
/* The originals, renamed out of the way of the wrappers. */
#define rdma_seterrno inline_rdma_seterrno
#define rdma_reg_msgs inline_rdma_reg_msgs
#define rdma_reg_read inline_rdma_reg_read
#define rdma_reg_write inline_rdma_reg_write
#define rdma_dereg_mr inline_rdma_dereg_mr
#define rdma_post_recvv inline_rdma_post_recvv
#define rdma_post_sendv inline_rdma_post_sendv
#define rdma_post_readv inline_rdma_post_readv
#define rdma_post_writev inline_rdma_post_writev
#define rdma_post_recv inline_rdma_post_recv
#define rdma_post_send inline_rdma_post_send
#define rdma_post_read inline_rdma_post_read
#define rdma_post_write inline_rdma_post_write
#define rdma_post_ud_send inline_rdma_post_ud_send
#define rdma_get_send_comp inline_rdma_get_send_comp
#define rdma_get_recv_comp inline_rdma_get_recv_comp
#include <rdma/rdma_verbs.h>
#undef rdma_seterrno
#undef rdma_reg_msgs
#undef rdma_reg_read
#undef rdma_reg_write
#undef rdma_dereg_mr
#undef rdma_post_recvv
#undef rdma_post_sendv
#undef rdma_post_readv
#undef rdma_post_writev
#undef rdma_post_recv
#undef rdma_post_send
#undef rdma_post_read
#undef rdma_post_write
#undef rdma_post_ud_send
#undef rdma_get_send_comp
#undef rdma_get_recv_comp

#define SHIM1(ret, name, params, args)                                      \
	ret name params;                                                     \
	ret name params { return inline_##name args; }

SHIM1(int, rdma_seterrno, (int ret), (ret))
SHIM1(struct ibv_mr *, rdma_reg_msgs, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length))
SHIM1(struct ibv_mr *, rdma_reg_read, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length))
SHIM1(struct ibv_mr *, rdma_reg_write, (struct rdma_cm_id *id, void *addr, size_t length), (id, addr, length))
SHIM1(int, rdma_dereg_mr, (struct ibv_mr *mr), (mr))
SHIM1(int, rdma_post_recvv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge), (id, context, sgl, nsge))
SHIM1(int, rdma_post_sendv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags), (id, context, sgl, nsge, flags))
SHIM1(int, rdma_post_readv, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, sgl, nsge, flags, remote_addr, rkey))
SHIM1(int, rdma_post_writev, (struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, sgl, nsge, flags, remote_addr, rkey))
SHIM1(int, rdma_post_recv, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr), (id, context, addr, length, mr))
SHIM1(int, rdma_post_send, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags), (id, context, addr, length, mr, flags))
SHIM1(int, rdma_post_read, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, addr, length, mr, flags, remote_addr, rkey))
SHIM1(int, rdma_post_write, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey), (id, context, addr, length, mr, flags, remote_addr, rkey))
SHIM1(int, rdma_post_ud_send, (struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags, struct ibv_ah *ah, uint32_t remote_qpn), (id, context, addr, length, mr, flags, ah, remote_qpn))
SHIM1(int, rdma_get_send_comp, (struct rdma_cm_id *id, struct ibv_wc *wc), (id, wc))
SHIM1(int, rdma_get_recv_comp, (struct rdma_cm_id *id, struct ibv_wc *wc), (id, wc))
