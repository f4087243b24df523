/*
 * The RDMAVERBS_1.3 exports that verbs-preload.c calls, as a table of
 * function pointers: filled by verbs-linked.c with the symbols a program
 * linked with librdmaverbs.so.1 binds by name and version (as an FFI
 * declares them: no <infiniband/verbs.h> there, whose inline functions
 * have the same names), or by dlvsym in librdmaverbs.so.1 itself.
 */
#ifndef RDMAVERBS_VERBS_LINKED_H
#define RDMAVERBS_VERBS_LINKED_H

#include <stdint.h>

struct ibv_context;
struct ibv_qp;
struct ibv_qp_ex;
struct ibv_qp_init_attr_ex;
struct ibv_srq;
struct ibv_cq;
struct ibv_cq_ex;
struct ibv_cq_init_attr_ex;
struct ibv_poll_cq_attr;
struct ibv_send_wr;
struct ibv_recv_wr;
struct ibv_wc;

/* X(return type, name without its ibv_, parameters) */
#define VERBS_LINKED(X)                                                                \
	X(int, post_send, (struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)) \
	X(int, post_recv, (struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)) \
	X(int, post_srq_recv, (struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **)) \
	X(int, poll_cq, (struct ibv_cq *, int, struct ibv_wc *))                       \
	X(int, req_notify_cq, (struct ibv_cq *, int))                                   \
	X(struct ibv_qp *, create_qp_ex, (struct ibv_context *, struct ibv_qp_init_attr_ex *)) \
	X(struct ibv_cq_ex *, create_cq_ex, (struct ibv_context *, struct ibv_cq_init_attr_ex *)) \
	X(void, wr_start, (struct ibv_qp_ex *))                                         \
	X(void, wr_send, (struct ibv_qp_ex *))                                          \
	X(void, wr_rdma_write, (struct ibv_qp_ex *, uint32_t, uint64_t))                \
	X(void, wr_set_sge, (struct ibv_qp_ex *, uint32_t, uint64_t, uint32_t))         \
	X(int, wr_complete, (struct ibv_qp_ex *))                                       \
	X(int, start_poll, (struct ibv_cq_ex *, struct ibv_poll_cq_attr *))             \
	X(int, next_poll, (struct ibv_cq_ex *))                                         \
	X(void, end_poll, (struct ibv_cq_ex *))                                         \
	X(uint32_t, wc_read_byte_len, (struct ibv_cq_ex *))

#define VERBS_LINKED_FIELD(ret, name, params) ret (*name) params;
struct verbs_linked {
	VERBS_LINKED(VERBS_LINKED_FIELD)
};

/* The table, with the functions the program was linked with (the dynamic
 * linker's choice: the first library in the process that defines each). */
void verbs_linked(struct verbs_linked *t);

#endif
