/*
 * libfakeverbs.so: a stand-in for libibverbs' device functions, so that the
 * preload library can be tested on a machine without RDMA devices.
 *
 * A test program linked with -lfakeverbs ahead of -libverbs, and run with
 * LD_PRELOAD=librdmaverbs-preload.so, has the search order [program, preload
 * library, libfakeverbs, libibverbs]: the preload library's RTLD_NEXT finds
 * the functions here, which libfakeverbs.map gives libibverbs' version
 * IBVERBS_1.1. Each "device" context is a struct verbs_context whose data-path
 * ops count their calls in fakeverbs_calls and answer at once: posts return
 * 0, poll_cq returns one successful completion (wr_id 7, byte_len 64,
 * opcode RECV), req_notify_cq returns 0.
 */
#include <stdlib.h>
#include <string.h>

#include "fakeverbs.h"

struct fakeverbs_calls fakeverbs_calls;

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	__atomic_add_fetch(&fakeverbs_calls.post_send, 1, __ATOMIC_RELAXED);
	return 0;
}

static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	__atomic_add_fetch(&fakeverbs_calls.post_recv, 1, __ATOMIC_RELAXED);
	return 0;
}

static int f_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq; (void)wr; (void)bad;
	__atomic_add_fetch(&fakeverbs_calls.post_srq_recv, 1, __ATOMIC_RELAXED);
	return 0;
}

static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	__atomic_add_fetch(&fakeverbs_calls.poll_cq, 1, __ATOMIC_RELAXED);
	if (n < 1)
		return 0;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = 7;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = IBV_WC_RECV;
	wc->byte_len = 64;
	return 1;
}

static int f_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	__atomic_add_fetch(&fakeverbs_calls.req_notify_cq, 1, __ATOMIC_RELAXED);
	return 0;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct verbs_context *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->sz = sizeof(*v);
	v->context.device = device;
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->context.ops.post_send = f_post_send;
	v->context.ops.post_recv = f_post_recv;
	v->context.ops.post_srq_recv = f_post_srq_recv;
	v->context.ops.poll_cq = f_poll_cq;
	v->context.ops.req_notify_cq = f_req_notify_cq;
	__atomic_add_fetch(&fakeverbs_calls.open, 1, __ATOMIC_RELAXED);
	return &v->context;
}

int ibv_close_device(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx(ctx);

	/* The preload library must have put the provider's ops back. */
	if (ctx->ops.post_send != f_post_send || ctx->ops.poll_cq != f_poll_cq)
		__atomic_add_fetch(&fakeverbs_calls.closed_wrapped, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fakeverbs_calls.close, 1, __ATOMIC_RELAXED);
	free(v);
	return 0;
}
