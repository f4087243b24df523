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
	long wr_send_imm, wr_rdma_write_imm, wr_rdma_read, wr_set_sge_list, wr_set_inline_data;
	long start_poll, next_poll, end_poll, destroyed_wrapped;
};

/* Completions an extended CQ will give: wr_id 100, 101, ... RECV, 64 bytes,
 * unless fakeverbs_script.nex is set. */
extern int fakeverbs_pending;

/* With fakeverbs_scripted set, what the ops answer instead: the posts'
 * result; poll_cq's result and the completions it writes (up to 4); the
 * arming's result; an extended CQ's completions, in order (then ENOENT). */
struct fakeverbs_script {
	int post_ret, poll_ret, notify_ret, complete_ret;
	struct ibv_wc wc[4];
	int nex, ex_next;
	struct ibv_wc ex[4];
};
extern int fakeverbs_scripted;
extern struct fakeverbs_script fakeverbs_script;
extern struct fakeverbs_calls fakeverbs_calls;
/* Non-zero: the data-path ops count nothing (a benchmark's threads). */
extern int fakeverbs_quiet;

#endif
