/* The cases of cases.h: the names, the fake and its objects, and one case run
 * on the inline original or on ours (run). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ours, from the include directory pkg-config gives. */
#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>

#include "cases.h"
#include "ours.h"

/* Each export has exactly the original's type (see original.h). */
RDMAVERBS_1_0_FUNCTIONS(RDMAVERBS_SAME_TYPE)

#define RDMAVERBS_NAME(ret, name, params, args) #name,
const char *const fn_name[F_COUNT] = {
	RDMAVERBS_1_0_FUNCTIONS(RDMAVERBS_NAME) RDMAVERBS_1_2_FUNCTIONS(RDMAVERBS_NAME)
};

#define ERRNO_SENTINEL 4242

struct fake F;
static struct rdma_cm_id F_id;	/* the id as fake_init made it */
struct ibv_cq other_cq;
char mr_buf[4096];

void cases_init(void)
{
	fake_init(&F);
	F_id = F.id;
}

#define CALL(name, ...) (ours ? name(__VA_ARGS__) : original_##name(__VA_ARGS__))

void run(const struct args *a, int ours, struct outcome *o)
{
	struct rdma_cm_id *id = &F.id;
	struct ibv_mr *mr = a->mr_null ? NULL : &F.mr;
	struct ibv_mr *req_mr = &F.mr;	/* where the original requires one */
	struct ibv_sge *sgl = a->sgl_null ? NULL : (struct ibv_sge *)a->sgl;
	void *addr = (void *)(uintptr_t)a->addr;
	/* integer arithmetic: a->addr is arbitrary unless fn is rdma_post_recv */
	char *recv_addr = (char *)((uintptr_t)mr_buf + a->addr);
	struct ibv_wc *wc = &o->wc;

	F.id = F_id;
	F.id.srq = a->srq ? &F.srq : NULL;
	F.mr.addr = mr_buf;
	F.mr.length = sizeof(mr_buf);
	fake_reset(&F, &a->script);
	switch (a->brk) {
	case BRK_NULL_ID: id = NULL; break;
	case BRK_NO_QP: F.id.qp = NULL; F.id.srq = NULL; break;
	case BRK_NULL_SGL: sgl = NULL; break;
	case BRK_NULL_MR: req_mr = NULL; break;
	case BRK_OUTSIDE_MR:
		recv_addr = (char *)((uintptr_t)mr_buf + sizeof(mr_buf) - a->length + 1);
		break;
	case BRK_NULL_WC: wc = NULL; break;
	case BRK_NULL_CQ: F.id.send_cq = F.id.recv_cq = NULL; break;
	case BRK_NULL_CHANNEL: F.id.send_cq_channel = F.id.recv_cq_channel = NULL; break;
	case BRK_NULL_PD: F.id.pd = NULL; break;
	case BRK_FOREIGN_EVENT: F.script.event_cq = &other_cq; break;
	default: break;	/* the others are in the arguments */
	}
	memset(o, 0, sizeof(*o));
	memset(&o->wc, 0xa5, sizeof(o->wc));
	errno = ERRNO_SENTINEL;

	switch (a->fn) {
	case F_rdma_seterrno:
		o->ret = CALL(rdma_seterrno, a->seterrno_arg);
		break;
	case F_rdma_reg_msgs:
		o->pret = CALL(rdma_reg_msgs, id, addr, a->length);
		break;
	case F_rdma_reg_read:
		o->pret = CALL(rdma_reg_read, id, addr, a->length);
		break;
	case F_rdma_reg_write:
		o->pret = CALL(rdma_reg_write, id, addr, a->length);
		break;
	case F_rdma_dereg_mr:
		o->ret = CALL(rdma_dereg_mr, a->brk == BRK_NULL_MR ? NULL : &F.mr);
		break;
	case F_rdma_post_recvv:
		o->ret = CALL(rdma_post_recvv, id, a->ctx, sgl, a->nsge);
		break;
	case F_rdma_post_sendv:
		o->ret = CALL(rdma_post_sendv, id, a->ctx, sgl, a->nsge, a->flags);
		break;
	case F_rdma_post_readv:
		o->ret = CALL(rdma_post_readv, id, a->ctx, sgl, a->nsge, a->flags,
			      a->raddr, a->rkey);
		break;
	case F_rdma_post_writev:
		o->ret = CALL(rdma_post_writev, id, a->ctx, sgl, a->nsge, a->flags,
			      a->raddr, a->rkey);
		break;
	case F_rdma_post_recv:
		/* the original asserts that the buffer lies inside mr */
		o->ret = CALL(rdma_post_recv, id, a->ctx, recv_addr, a->length, req_mr);
		break;
	case F_rdma_post_send:
		o->ret = CALL(rdma_post_send, id, a->ctx, addr, a->length, mr,
			      a->flags);
		break;
	case F_rdma_post_read:
		o->ret = CALL(rdma_post_read, id, a->ctx, addr, a->length, req_mr,
			      a->flags, a->raddr, a->rkey);
		break;
	case F_rdma_post_write:
		o->ret = CALL(rdma_post_write, id, a->ctx, addr, a->length, mr,
			      a->flags, a->raddr, a->rkey);
		break;
	case F_rdma_post_ud_send:
		o->ret = CALL(rdma_post_ud_send, id, a->ctx, addr, a->length, mr,
			      a->flags, a->ah, a->qpn);
		break;
	/* The bounded forms, with a time-out that is never reached (the fake's
	 * channel is always readable), must do exactly what the originals do. */
	case F_rdma_get_send_comp:
		o->ret = ours && a->bounded ? rdma_get_send_comp_timeout(id, wc, a->timeout_ms) :
		         CALL(rdma_get_send_comp, id, wc);
		break;
	case F_rdma_get_recv_comp:
		o->ret = ours && a->bounded ? rdma_get_recv_comp_timeout(id, wc, a->timeout_ms) :
		         CALL(rdma_get_recv_comp, id, wc);
		break;
	/* RDMAVERBS_1.2: ours by name (the header's are the inline ones). */
	case F_rdma_get_local_addr:
		o->pret = ours ? ours_rdma_get_local_addr()(id) : original_rdma_get_local_addr(id);
		break;
	case F_rdma_get_peer_addr:
		o->pret = ours ? ours_rdma_get_peer_addr()(id) : original_rdma_get_peer_addr(id);
		break;
	case F_COUNT:
		abort();
	}
	o->err = errno;
	o->nlog = F.nlog;
	memcpy(o->log, F.log, sizeof(o->log));
}

int returns_pointer(enum fn f)
{
	return (f >= F_rdma_reg_msgs && f <= F_rdma_reg_write) || f == F_rdma_get_local_addr ||
	       f == F_rdma_get_peer_addr;
}

int is_vectored(enum fn f)
{
	return f >= F_rdma_post_recvv && f <= F_rdma_post_writev;
}
