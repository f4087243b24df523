/* The benchmark's fake provider (bench-fake.c). */
#ifndef BENCH_FAKE_H
#define BENCH_FAKE_H

#include <infiniband/verbs.h>

int op_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int op_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int op_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *w);

/* The context's ops (v's context is the one of every object), the work
 * queue's, the extended QP's and CQ's calls: all set. */
void bench_fake_verbs(struct verbs_context *v, struct ibv_wq *wq, struct ibv_qp_ex *qp,
		      struct ibv_cq_ex *cq);

#endif
