/* libfakeverbs.so (fakeverbs.c): libibverbs' device functions, faked. */
#ifndef RDMAVERBS_FAKEVERBS_H
#define RDMAVERBS_FAKEVERBS_H

#include <infiniband/verbs.h>

/* What the fake saw: opens, closes, calls of each provider op. */
struct fakeverbs_calls {
	long open, close, closed_wrapped;
	long post_send, post_recv, post_srq_recv, poll_cq, req_notify_cq;
};
extern struct fakeverbs_calls fakeverbs_calls;

#endif
