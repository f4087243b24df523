/* libfakeverbs.so (fakeverbs.c): libibverbs' device functions, faked. */
#ifndef RDMAVERBS_FAKEVERBS_H
#define RDMAVERBS_FAKEVERBS_H

#include <infiniband/verbs.h>

/* What the fake saw: opens, closes, calls of each provider op, and of the
 * extended API's (destroyed_wrapped: a QP or CQ destroyed with another's
 * functions in it; start_poll counts only polls that found one). */
struct fakeverbs_calls {
	long open, close, closed_wrapped;
	long post_send, post_recv, post_srq_recv, poll_cq, req_notify_cq;
	long wr_start, wr_send, wr_rdma_write, wr_set_sge, wr_complete, wr_abort;
	long start_poll, next_poll, end_poll, destroyed_wrapped;
};

/* Completions an extended CQ will give: wr_id 100, 101, ... RECV, 64 bytes. */
extern int fakeverbs_pending;
extern struct fakeverbs_calls fakeverbs_calls;
/* Non-zero: the data-path ops count nothing (a benchmark's threads). */
extern int fakeverbs_quiet;

#endif
