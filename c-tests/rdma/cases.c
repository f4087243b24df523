/* The cases of cases.h. */
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
uint64_t (*case_rnd)(void);

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

static int is_rdma(enum fn f)
{
	return f == F_rdma_post_readv || f == F_rdma_post_writev || f == F_rdma_post_read ||
	       f == F_rdma_post_write;
}

char why[512];

#define DIFF(field, fmt, r, o)                                                \
	do {                                                                  \
		if ((r) != (o)) {                                             \
			snprintf(why, sizeof(why), "%s: original " fmt        \
				 ", ours " fmt, field, r, o);                 \
			return 0;                                             \
		}                                                             \
	} while (0)

/* The fields the original sets, compared; `why` says where they differ. */
static int same_rec(enum fn f, const struct fake_rec *r, const struct fake_rec *o)
{
	int i;

	DIFF("call", "%d", r->call, o->call);
	DIFF("object", "%p", r->obj, o->obj);
	DIFF("argument", "%ld", r->arg, o->arg);
	DIFF("reg addr", "%p", r->addr, o->addr);
	DIFF("reg length", "%zu", r->length, o->length);
	DIFF("SGEs recorded", "%d", r->nsge, o->nsge);
	for (i = 0; i < r->nsge; i++) {
		DIFF("sge.addr", "%llx", (unsigned long long)r->sge[i].addr,
		     (unsigned long long)o->sge[i].addr);
		DIFF("sge.length", "%u", r->sge[i].length, o->sge[i].length);
		DIFF("sge.lkey", "%u", r->sge[i].lkey, o->sge[i].lkey);
	}
	if (r->call == FC_POST_SEND) {
		DIFF("wr_id", "%llx", (unsigned long long)r->swr.wr_id,
		     (unsigned long long)o->swr.wr_id);
		DIFF("next", "%p", (void *)r->swr.next, (void *)o->swr.next);
		DIFF("num_sge", "%d", r->swr.num_sge, o->swr.num_sge);
		DIFF("opcode", "%d", r->swr.opcode, o->swr.opcode);
		DIFF("send_flags", "%u", r->swr.send_flags, o->swr.send_flags);
		if (is_vectored(f))
			DIFF("sg_list", "%p", (void *)r->swr.sg_list,
			     (void *)o->swr.sg_list);
		if (is_rdma(f)) {
			DIFF("wr.rdma.remote_addr", "%llx",
			     (unsigned long long)r->swr.wr.rdma.remote_addr,
			     (unsigned long long)o->swr.wr.rdma.remote_addr);
			DIFF("wr.rdma.rkey", "%u", r->swr.wr.rdma.rkey,
			     o->swr.wr.rdma.rkey);
		}
		if (f == F_rdma_post_ud_send) {
			DIFF("wr.ud.ah", "%p", (void *)r->swr.wr.ud.ah,
			     (void *)o->swr.wr.ud.ah);
			DIFF("wr.ud.remote_qpn", "%u", r->swr.wr.ud.remote_qpn,
			     o->swr.wr.ud.remote_qpn);
			DIFF("wr.ud.remote_qkey", "%u", r->swr.wr.ud.remote_qkey,
			     o->swr.wr.ud.remote_qkey);
		}
	}
	if (r->call == FC_POST_RECV || r->call == FC_POST_SRQ_RECV) {
		DIFF("wr_id", "%llx", (unsigned long long)r->rwr.wr_id,
		     (unsigned long long)o->rwr.wr_id);
		DIFF("next", "%p", (void *)r->rwr.next, (void *)o->rwr.next);
		DIFF("num_sge", "%d", r->rwr.num_sge, o->rwr.num_sge);
		if (is_vectored(f))
			DIFF("sg_list", "%p", (void *)r->rwr.sg_list,
			     (void *)o->rwr.sg_list);
	}
	return 1;
}

static int same(enum fn f, const struct outcome *r, const struct outcome *o)
{
	int i;

	DIFF("return value", "%d", r->ret, o->ret);
	DIFF("returned pointer", "%p", r->pret, o->pret);
	DIFF("errno", "%d", r->err, o->err);
	if (memcmp(&r->wc, &o->wc, sizeof(r->wc))) {
		snprintf(why, sizeof(why), "the work completion written");
		return 0;
	}
	DIFF("number of provider calls", "%d", r->nlog, o->nlog);
	for (i = 0; i < r->nlog; i++) {
		if (!same_rec(f, &r->log[i], &o->log[i])) {
			size_t n = strlen(why);

			snprintf(why + n, sizeof(why) - n, " (provider call %d)", i + 1);
			return 0;
		}
	}
	return 1;
}

/* ---- Case generation ---- */

int pick(int n)
{
	return (int)(case_rnd() % (uint64_t)n);
}

/* A provider result: mostly 0, else a positive errno or a negative value. */
static int op_result(void)
{
	static const int bad[] = { ENOMEM, EINVAL, EAGAIN, EOPNOTSUPP, -1,
				   -ENOMEM, -EINVAL, 0x7fffffff, -0x7fffffff - 1 };

	return pick(3) ? 0 : bad[pick((int)(sizeof(bad) / sizeof(bad[0])))];
}

/* A completion loop script that ends: each step may end the call. */
static void comp_script(struct fake_script *s)
{
	static const int ev_err[] = { EINTR, EAGAIN, EBADF };
	int it;

	for (it = 0;; it++) {
		int force = it == 4;

		if (force || !pick(3)) {	/* first poll ends it */
			s->poll_ret[s->npoll++] = pick(4) ? 1 : -pick(100) - 1;
			return;
		}
		s->poll_ret[s->npoll++] = 0;
		if (!pick(6)) {			/* arming fails */
			int r = op_result();

			s->notify_ret[s->nnotify++] = r ? r : EINVAL;
			return;
		}
		s->notify_ret[s->nnotify++] = 0;
		if (!pick(3)) {			/* second poll ends it */
			s->poll_ret[s->npoll++] = pick(4) ? 1 : -pick(100) - 1;
			return;
		}
		s->poll_ret[s->npoll++] = 0;
		if (!pick(6)) {			/* waiting fails */
			s->event_ret[s->nevent] = -1;
			s->event_errno[s->nevent++] = ev_err[pick(3)];
			return;
		}
		s->event_ret[s->nevent++] = 0;
	}
}

uint64_t edge(uint64_t max)
{
	uint64_t v = case_rnd();

	switch (pick(15)) {
	case 0: return 0;
	case 1: return 1 & max;
	case 2: return max - 1;
	case 3: return max;
	case 4: return max / 2 + 1;
	default: return max == UINT64_MAX ? v : v % (max + 1);
	}
}

/* An int at its boundaries (0, 1, -1, INT_MAX, INT_MIN) one time in three. */
static int edge_int(void)
{
	static const int e[] = { 0, 1, -1, 0x7fffffff, -0x7fffffff - 1 };

	return pick(3) ? (int)case_rnd() : e[pick(5)];
}

/* Where a receive buffer lies in its MR (the original asserts that it is
 * inside): the exact ends, empty, whole, or anywhere inside. */
static void recv_place(struct args *a)
{
	uint64_t size = sizeof(mr_buf);

	switch (pick(6)) {
	case 0: a->length = (size_t)pick((int)size) + 1; a->addr = size - a->length; break;	/* ends at the MR's end */
	case 1: a->addr = 0; a->length = (size_t)size; break;					/* the whole MR */
	case 2: a->addr = size; a->length = 0; break;						/* empty, at the end */
	case 3: a->addr = (uint64_t)pick((int)size + 1); a->length = 0; break;			/* empty */
	default:
		a->addr = (uint64_t)pick((int)size + 1);
		a->length = (size_t)pick((int)(size - a->addr) + 1);
	}
}

void random_case(struct args *a)
{
	static const uint32_t opcodes[] = { IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
		IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD, IBV_WC_BIND_MW, IBV_WC_LOCAL_INV, IBV_WC_TSO,
		IBV_WC_RECV, IBV_WC_RECV_RDMA_WITH_IMM };
	int i;

	memset(a, 0, sizeof(*a));
	a->fn = (enum fn)pick(F_COUNT);
	a->seterrno_arg = pick(2) ? 0 : edge_int();
	a->ctx = pick(4) ? (void *)(uintptr_t)edge(UINT64_MAX) : NULL;
	a->nsge = pick(9);
	a->sgl_null = a->nsge == 0 && pick(2);
	for (i = 0; i < 8; i++) {
		a->sgl[i].addr = edge(UINT64_MAX);
		a->sgl[i].length = (uint32_t)edge(UINT32_MAX);
		a->sgl[i].lkey = (uint32_t)edge(UINT32_MAX);
	}
	a->flags = pick(2) ? pick(32) : edge_int();
	a->raddr = edge(UINT64_MAX);
	a->rkey = (uint32_t)edge(UINT32_MAX);
	a->mr_null = pick(2);
	a->srq = pick(2);
	a->ah = (struct ibv_ah *)(uintptr_t)(case_rnd() | 1);
	a->qpn = (uint32_t)edge(0xffffff);
	a->addr = edge(UINT64_MAX) >> pick(64);
	a->length = (size_t)edge(UINT32_MAX);
	if (a->fn == F_rdma_post_recv)
		recv_place(a);
	a->script.post_ret = op_result();
	a->script.wc.wr_id = edge(UINT64_MAX);
	a->script.wc.status = (enum ibv_wc_status)pick(22);
	a->script.wc.opcode = (enum ibv_wc_opcode)opcodes[pick(10)];
	a->script.wc.byte_len = (uint32_t)edge(UINT32_MAX);
	a->script.wc.qp_num = (uint32_t)edge(0xffffff);
	a->script.reg_ret = pick(4) ? &F.mr : NULL;
	a->script.reg_errno = pick(2) ? ENOMEM : EINVAL;
	a->script.dereg_ret = op_result();
	if (a->fn == F_rdma_get_send_comp || a->fn == F_rdma_get_recv_comp) {
		static const int timeouts[] = { -1, 60000, 0x7fffffff };

		comp_script(&a->script);
		a->bounded = !pick(3);
		a->timeout_ms = timeouts[pick(3)];
	}
}

static void print_case(const struct args *a)
{
	int i;

	if (a->bounded)
		fprintf(stderr, "  (ours: the _timeout form, timeout_ms=%d)\n", a->timeout_ms);
	fprintf(stderr, "  %s: ctx=%p nsge=%d%s flags=%d raddr=%llx rkey=%u addr=%llx "
		"length=%zu mr_null=%d srq=%d post_ret=%d\n", fn_name[a->fn],
		a->ctx, a->nsge, a->sgl_null ? " (sgl NULL)" : "", a->flags,
		(unsigned long long)a->raddr, a->rkey,
		(unsigned long long)a->addr, a->length, a->mr_null, a->srq,
		a->script.post_ret);
	fprintf(stderr, "  script: poll");
	for (i = 0; i < a->script.npoll; i++)
		fprintf(stderr, " %d", a->script.poll_ret[i]);
	fprintf(stderr, "; notify");
	for (i = 0; i < a->script.nnotify; i++)
		fprintf(stderr, " %d", a->script.notify_ret[i]);
	fprintf(stderr, "; event");
	for (i = 0; i < a->script.nevent; i++)
		fprintf(stderr, " %d", a->script.event_ret[i]);
	fprintf(stderr, "\n");
}

long compared, failed;

int check(const struct args *a, const struct outcome **ref)
{
	static struct outcome r, o;

	run(a, 0, &r);
	run(a, 1, &o);
	compared++;
	*ref = &r;
	if (same(a->fn, &r, &o))
		return 1;
	if (failed++ < 10) {
		fprintf(stderr, "DIFFERENT: %s: %s\n", fn_name[a->fn], why);
		print_case(a);
	}
	return 0;
}

