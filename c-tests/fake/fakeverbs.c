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
 * opcode RECV), req_notify_cq returns 0; or, with fakeverbs_scripted, what
 * fakeverbs_script says. Its create_qp_ex and create_cq_ex (struct
 * verbs_context) make an ibv_qp_ex and an ibv_cq_ex whose functions count
 * their calls too; ibv_close_device, ibv_destroy_qp and ibv_destroy_cq check
 * that the preload library put every one of the originals back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakeverbs.h"

struct fakeverbs_calls fakeverbs_calls;
int fakeverbs_scripted;
struct fakeverbs_script fakeverbs_script;
/* Set by a benchmark whose threads post at once: the data-path ops then
 * count nothing, so that no cache line is shared by the fake itself. */
int fakeverbs_quiet;

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	if (!fakeverbs_quiet)
		__atomic_add_fetch(&fakeverbs_calls.post_send, 1, __ATOMIC_RELAXED);
	return fakeverbs_scripted ? fakeverbs_script.post_ret : 0;
}

static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	if (!fakeverbs_quiet)
		__atomic_add_fetch(&fakeverbs_calls.post_recv, 1, __ATOMIC_RELAXED);
	return fakeverbs_scripted ? fakeverbs_script.post_ret : 0;
}

static int f_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq; (void)wr; (void)bad;
	if (!fakeverbs_quiet)
		__atomic_add_fetch(&fakeverbs_calls.post_srq_recv, 1, __ATOMIC_RELAXED);
	return fakeverbs_scripted ? fakeverbs_script.post_ret : 0;
}

static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	if (!fakeverbs_quiet)
		__atomic_add_fetch(&fakeverbs_calls.poll_cq, 1, __ATOMIC_RELAXED);
	if (fakeverbs_scripted) {
		int i, r = fakeverbs_script.poll_ret;

		for (i = 0; i < r && i < n && i < 4; i++)
			wc[i] = fakeverbs_script.wc[i];
		return r;
	}
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
	if (!fakeverbs_quiet)
		__atomic_add_fetch(&fakeverbs_calls.req_notify_cq, 1, __ATOMIC_RELAXED);
	return fakeverbs_scripted ? fakeverbs_script.notify_ret : 0;
}

/* ---- the extended API ---- */

int fakeverbs_pending;

#define COUNT(x) __atomic_add_fetch(&fakeverbs_calls.x, 1, __ATOMIC_RELAXED)

static void x_wr_start(struct ibv_qp_ex *q) { (void)q; COUNT(wr_start); }
static void x_wr_send(struct ibv_qp_ex *q) { (void)q; COUNT(wr_send); }
static void x_wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t a)
{
	(void)q; (void)rkey; (void)a;
	COUNT(wr_rdma_write);
}
static void x_wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t a, uint32_t len)
{
	(void)q; (void)lkey; (void)a; (void)len;
	COUNT(wr_set_sge);
}
static int x_wr_complete(struct ibv_qp_ex *q)
{
	(void)q;
	COUNT(wr_complete);
	return fakeverbs_scripted ? fakeverbs_script.complete_ret : 0;
}
static void x_wr_abort(struct ibv_qp_ex *q) { (void)q; COUNT(wr_abort); }
static void x_wr_send_imm(struct ibv_qp_ex *q, __be32 imm) { (void)q; (void)imm; COUNT(wr_send_imm); }
static void x_wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey, uint64_t a, __be32 imm)
{
	(void)q; (void)rkey; (void)a; (void)imm;
	COUNT(wr_rdma_write_imm);
}
static void x_wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t a)
{
	(void)q; (void)rkey; (void)a;
	COUNT(wr_rdma_read);
}
static void x_wr_set_sge_list(struct ibv_qp_ex *q, size_t n, const struct ibv_sge *l)
{
	(void)q; (void)n; (void)l;
	COUNT(wr_set_sge_list);
}
static void x_wr_set_inline_data(struct ibv_qp_ex *q, void *a, size_t len)
{
	(void)q; (void)a; (void)len;
	COUNT(wr_set_inline_data);
}

/* The scripted completion the CQ is on (the last one given). */
static struct ibv_wc *ex_now;

static int next_one(struct ibv_cq_ex *cq)
{
	static int n;

	if (fakeverbs_scripted && fakeverbs_script.nex) {
		if (fakeverbs_script.ex_next >= fakeverbs_script.nex)
			return ENOENT;
		ex_now = &fakeverbs_script.ex[fakeverbs_script.ex_next++];
		cq->wr_id = ex_now->wr_id;
		cq->status = ex_now->status;
		return 0;
	}
	if (fakeverbs_pending <= 0)
		return ENOENT;
	fakeverbs_pending--;
	ex_now = NULL;
	cq->wr_id = 100 + n++;
	cq->status = IBV_WC_SUCCESS;
	return 0;
}
static int x_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	int ret = next_one(cq);

	(void)attr;
	if (!ret)
		COUNT(start_poll);
	return ret;
}
static int x_next_poll(struct ibv_cq_ex *cq) { COUNT(next_poll); return next_one(cq); }
static void x_end_poll(struct ibv_cq_ex *cq) { (void)cq; COUNT(end_poll); }
static enum ibv_wc_opcode x_read_opcode(struct ibv_cq_ex *cq)
{
	(void)cq;
	return ex_now ? ex_now->opcode : IBV_WC_RECV;
}
static uint32_t x_read_byte_len(struct ibv_cq_ex *cq)
{
	(void)cq;
	return ex_now ? ex_now->byte_len : 64;
}
static uint32_t x_read_vendor_err(struct ibv_cq_ex *cq)
{
	(void)cq;
	return ex_now ? ex_now->vendor_err : 0;
}

static struct ibv_qp *x_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *q = calloc(1, sizeof(*q));

	(void)attr;
	if (!q)
		return NULL;
	q->qp_base.context = ctx;
	q->qp_base.qp_num = 77;
	q->wr_start = x_wr_start;
	q->wr_send = x_wr_send;
	q->wr_rdma_write = x_wr_rdma_write;
	q->wr_set_sge = x_wr_set_sge;
	q->wr_complete = x_wr_complete;
	q->wr_abort = x_wr_abort;
	q->wr_send_imm = x_wr_send_imm;
	q->wr_rdma_write_imm = x_wr_rdma_write_imm;
	q->wr_rdma_read = x_wr_rdma_read;
	q->wr_set_sge_list = x_wr_set_sge_list;
	q->wr_set_inline_data = x_wr_set_inline_data;
	return &q->qp_base;
}

static struct ibv_cq_ex *x_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *c = calloc(1, sizeof(*c));

	(void)attr;
	if (!c)
		return NULL;
	c->context = ctx;
	c->start_poll = x_start_poll;
	c->next_poll = x_next_poll;
	c->end_poll = x_end_poll;
	c->read_opcode = x_read_opcode;
	c->read_byte_len = x_read_byte_len;
	c->read_vendor_err = x_read_vendor_err;
	return c;
}

/* Every QP of this fake is made by create_qp_ex: it is an ibv_qp_ex. */
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return (struct ibv_qp_ex *)qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct ibv_qp_ex *q = (struct ibv_qp_ex *)qp;

	if (q->wr_start != x_wr_start || q->wr_send != x_wr_send ||
	    q->wr_send_imm != x_wr_send_imm || q->wr_rdma_write != x_wr_rdma_write ||
	    q->wr_rdma_write_imm != x_wr_rdma_write_imm || q->wr_rdma_read != x_wr_rdma_read ||
	    q->wr_set_sge != x_wr_set_sge || q->wr_set_sge_list != x_wr_set_sge_list ||
	    q->wr_set_inline_data != x_wr_set_inline_data || q->wr_complete != x_wr_complete ||
	    q->wr_abort != x_wr_abort)
		COUNT(destroyed_wrapped);
	free(q);
	return 0;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_cq_ex *c = (struct ibv_cq_ex *)cq;

	if (c->start_poll != x_start_poll || c->next_poll != x_next_poll ||
	    c->end_poll != x_end_poll)
		COUNT(destroyed_wrapped);
	free(c);
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
	v->create_qp_ex = x_create_qp_ex;
	v->create_cq_ex = x_create_cq_ex;
	__atomic_add_fetch(&fakeverbs_calls.open, 1, __ATOMIC_RELAXED);
	return &v->context;
}

int ibv_close_device(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx(ctx);

	/* The preload library must have put the provider's ops back. */
	if (ctx->ops.post_send != f_post_send || ctx->ops.post_recv != f_post_recv ||
	    ctx->ops.post_srq_recv != f_post_srq_recv || ctx->ops.poll_cq != f_poll_cq ||
	    ctx->ops.req_notify_cq != f_req_notify_cq)
		__atomic_add_fetch(&fakeverbs_calls.closed_wrapped, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fakeverbs_calls.close, 1, __ATOMIC_RELAXED);
	free(v);
	return 0;
}
