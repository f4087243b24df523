/*
 * What the recording provider's files share (bindings/recorder/): the fake
 * objects and their context, the record of the last call, the recording
 * ops that the loopback's ops wrap and the completions of the last post
 * restore. Hidden: the library exports only the recorder_* functions of
 * recorder.c, objects.c, last.c and loopback.c.
 */
#ifndef RECORDER_H
#define RECORDER_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define HIDDEN __attribute__((visibility("hidden")))

struct recorder_fake {
	struct verbs_context vctx;	/* its context: advise_mr set */
	struct ibv_pd pd;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_cq cq;
	struct rdma_cm_id id;
	struct ibv_qp_ex qpx;		/* an extended QP: wr_set_sge_list set */
};
extern HIDDEN struct recorder_fake fake;

/* The fake context (an extended one, for ibv_advise_mr's verbs_get_ctx_op). */
#define CTX (fake.vctx.context)

/* Calls recorded so far; the last one, as text (recorder_last). */
extern HIDDEN int posts;
extern HIDDEN char last[2048];

/* The recording ops of the fake context (recorder.c). */
HIDDEN int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
HIDDEN int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
HIDDEN int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
HIDDEN int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);

/* The record cleared, the recording ops in the fake context (recorder.c). */
HIDDEN void record_start(void);

#endif
