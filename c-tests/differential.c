/*
 * The differential test: the inline originals, compiled from the system
 * header in this file under ref_ names, against librdmaverbs' exports, on the
 * fake provider (fake.c). Every case runs both and compares the return
 * value, errno, the completion written, and every provider call in order
 * with every work request field the original sets.
 *
 * Usage: differential [random-cases [seed]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

/* 1. The originals, from the system header (its path from pkg-config,
 *    passed as REF_RDMA_VERBS_H), each renamed to ref_<name>. */
#define rdma_seterrno ref_rdma_seterrno
#define rdma_reg_msgs ref_rdma_reg_msgs
#define rdma_reg_read ref_rdma_reg_read
#define rdma_reg_write ref_rdma_reg_write
#define rdma_dereg_mr ref_rdma_dereg_mr
#define rdma_post_recvv ref_rdma_post_recvv
#define rdma_post_sendv ref_rdma_post_sendv
#define rdma_post_readv ref_rdma_post_readv
#define rdma_post_writev ref_rdma_post_writev
#define rdma_post_recv ref_rdma_post_recv
#define rdma_post_send ref_rdma_post_send
#define rdma_post_read ref_rdma_post_read
#define rdma_post_write ref_rdma_post_write
#define rdma_post_ud_send ref_rdma_post_ud_send
#define rdma_get_send_comp ref_rdma_get_send_comp
#define rdma_get_recv_comp ref_rdma_get_recv_comp
#include REF_RDMA_VERBS_H
#undef rdma_seterrno
#undef rdma_reg_msgs
#undef rdma_reg_read
#undef rdma_reg_write
#undef rdma_dereg_mr
#undef rdma_post_recvv
#undef rdma_post_sendv
#undef rdma_post_readv
#undef rdma_post_writev
#undef rdma_post_recv
#undef rdma_post_send
#undef rdma_post_read
#undef rdma_post_write
#undef rdma_post_ud_send
#undef rdma_get_send_comp
#undef rdma_get_recv_comp

/* 2. Ours, from the include directory pkg-config gives. */
#undef RDMA_VERBS_H
#include <rdma/rdma_verbs.h>

/* Each export has exactly the original's type. */
#define SAME_TYPE(name)                                                       \
	_Static_assert(__builtin_types_compatible_p(__typeof__(ref_##name),   \
						    __typeof__(name)),        \
		       #name " has the type of the original")
SAME_TYPE(rdma_seterrno);
SAME_TYPE(rdma_reg_msgs);
SAME_TYPE(rdma_reg_read);
SAME_TYPE(rdma_reg_write);
SAME_TYPE(rdma_dereg_mr);
SAME_TYPE(rdma_post_recvv);
SAME_TYPE(rdma_post_sendv);
SAME_TYPE(rdma_post_readv);
SAME_TYPE(rdma_post_writev);
SAME_TYPE(rdma_post_recv);
SAME_TYPE(rdma_post_send);
SAME_TYPE(rdma_post_read);
SAME_TYPE(rdma_post_write);
SAME_TYPE(rdma_post_ud_send);
SAME_TYPE(rdma_get_send_comp);
SAME_TYPE(rdma_get_recv_comp);

enum fn {
	F_SETERRNO, F_REG_MSGS, F_REG_READ, F_REG_WRITE, F_DEREG_MR,
	F_POST_RECVV, F_POST_SENDV, F_POST_READV, F_POST_WRITEV,
	F_POST_RECV, F_POST_SEND, F_POST_READ, F_POST_WRITE, F_POST_UD_SEND,
	F_GET_SEND_COMP, F_GET_RECV_COMP, F_COUNT
};

static const char *const fn_name[F_COUNT] = {
	"rdma_seterrno", "rdma_reg_msgs", "rdma_reg_read", "rdma_reg_write",
	"rdma_dereg_mr", "rdma_post_recvv", "rdma_post_sendv",
	"rdma_post_readv", "rdma_post_writev", "rdma_post_recv",
	"rdma_post_send", "rdma_post_read", "rdma_post_write",
	"rdma_post_ud_send", "rdma_get_send_comp", "rdma_get_recv_comp",
};

/* One case: the function, its arguments, and what the fake answers. */
struct args {
	enum fn fn;
	int seterrno_arg;
	void *ctx;
	struct ibv_sge sgl[8];
	int nsge;
	int flags;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t addr;		/* offset into the MR for rdma_post_recv */
	size_t length;
	int mr_null;
	int srq;
	struct ibv_ah *ah;
	uint32_t qpn;
	struct fake_script script;
	int brk;		/* fuzzing: one thing made invalid (enum brk) */
};

struct outcome {
	int ret;
	void *pret;
	int err;
	struct ibv_wc wc;
	int nlog;
	struct fake_rec log[FAKE_MAX_LOG];
};

#define ERRNO_SENTINEL 4242

/* For fuzzing: input the original would crash on, assert on or truncate
 * (the robustness issue's list), one kind per case. */
enum brk {
	BRK_NONE, BRK_NULL_ID, BRK_NO_QP, BRK_NULL_SGL, BRK_NEG_NSGE,
	BRK_BIG_LENGTH, BRK_NULL_MR, BRK_OUTSIDE_MR, BRK_NULL_AH, BRK_NULL_WC,
	BRK_NULL_CQ, BRK_NULL_CHANNEL, BRK_NULL_PD, BRK_FOREIGN_EVENT, BRK_COUNT
};

static struct fake F;
static struct rdma_cm_id F_id;	/* the id as fake_init made it */
static struct ibv_cq other_cq;
static char mr_buf[4096];

#define CALL(name, ...) (ours ? name(__VA_ARGS__) : ref_##name(__VA_ARGS__))

static void run(const struct args *a, int ours, struct outcome *o)
{
	struct rdma_cm_id *id = &F.id;
	struct ibv_mr *mr = a->mr_null ? NULL : &F.mr;
	struct ibv_mr *req_mr = &F.mr;	/* where the original requires one */
	struct ibv_sge *sgl = (struct ibv_sge *)a->sgl;
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
	case F_SETERRNO:
		o->ret = CALL(rdma_seterrno, a->seterrno_arg);
		break;
	case F_REG_MSGS:
		o->pret = CALL(rdma_reg_msgs, id, addr, a->length);
		break;
	case F_REG_READ:
		o->pret = CALL(rdma_reg_read, id, addr, a->length);
		break;
	case F_REG_WRITE:
		o->pret = CALL(rdma_reg_write, id, addr, a->length);
		break;
	case F_DEREG_MR:
		o->ret = CALL(rdma_dereg_mr, a->brk == BRK_NULL_MR ? NULL : &F.mr);
		break;
	case F_POST_RECVV:
		o->ret = CALL(rdma_post_recvv, id, a->ctx, sgl, a->nsge);
		break;
	case F_POST_SENDV:
		o->ret = CALL(rdma_post_sendv, id, a->ctx, sgl, a->nsge, a->flags);
		break;
	case F_POST_READV:
		o->ret = CALL(rdma_post_readv, id, a->ctx, sgl, a->nsge, a->flags,
			      a->raddr, a->rkey);
		break;
	case F_POST_WRITEV:
		o->ret = CALL(rdma_post_writev, id, a->ctx, sgl, a->nsge, a->flags,
			      a->raddr, a->rkey);
		break;
	case F_POST_RECV:
		/* the original asserts that the buffer lies inside mr */
		o->ret = CALL(rdma_post_recv, id, a->ctx, recv_addr, a->length, req_mr);
		break;
	case F_POST_SEND:
		o->ret = CALL(rdma_post_send, id, a->ctx, addr, a->length, mr,
			      a->flags);
		break;
	case F_POST_READ:
		o->ret = CALL(rdma_post_read, id, a->ctx, addr, a->length, req_mr,
			      a->flags, a->raddr, a->rkey);
		break;
	case F_POST_WRITE:
		o->ret = CALL(rdma_post_write, id, a->ctx, addr, a->length, mr,
			      a->flags, a->raddr, a->rkey);
		break;
	case F_POST_UD_SEND:
		o->ret = CALL(rdma_post_ud_send, id, a->ctx, addr, a->length, mr,
			      a->flags, a->ah, a->qpn);
		break;
	case F_GET_SEND_COMP:
		o->ret = CALL(rdma_get_send_comp, id, wc);
		break;
	case F_GET_RECV_COMP:
		o->ret = CALL(rdma_get_recv_comp, id, wc);
		break;
	case F_COUNT:
		abort();
	}
	o->err = errno;
	o->nlog = F.nlog;
	memcpy(o->log, F.log, sizeof(o->log));
}

static int is_vectored(enum fn f)
{
	return f >= F_POST_RECVV && f <= F_POST_WRITEV;
}

static int is_rdma(enum fn f)
{
	return f == F_POST_READV || f == F_POST_WRITEV || f == F_POST_READ ||
	       f == F_POST_WRITE;
}

static char why[512];

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
		if (f == F_POST_UD_SEND) {
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

#ifdef FUZZ
/* Fuzzing: the "random" numbers are the fuzzer's input, 8 bytes each. */
static const uint8_t *fuzz_data;
static size_t fuzz_left;

static uint64_t rnd(void)
{
	uint64_t v = 0;
	size_t n = fuzz_left < 8 ? fuzz_left : 8;

	memcpy(&v, fuzz_data, n);
	fuzz_data += n;
	fuzz_left -= n;
	return v;
}
#else
static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}
#endif

static int pick(int n)
{
	return (int)(rnd() % (uint64_t)n);
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

static void random_case(struct args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->fn = (enum fn)pick(F_COUNT);
	a->seterrno_arg = pick(2) ? 0 : (int)rnd();
	a->ctx = pick(4) ? (void *)(uintptr_t)rnd() : NULL;
	a->nsge = pick(9);
	for (i = 0; i < 8; i++) {
		a->sgl[i].addr = rnd();
		a->sgl[i].length = (uint32_t)rnd();
		a->sgl[i].lkey = (uint32_t)rnd();
	}
	a->flags = pick(2) ? pick(32) : (int)rnd();
	a->raddr = rnd();
	a->rkey = (uint32_t)rnd();
	a->mr_null = pick(2);
	a->srq = pick(2);
	a->ah = (struct ibv_ah *)(uintptr_t)(rnd() | 1);
	a->qpn = (uint32_t)rnd() & 0xffffff;
	a->addr = rnd() >> pick(64);
	a->length = (size_t)(rnd() & UINT32_MAX);
	if (a->fn == F_POST_RECV) {	/* inside the MR, as the original asserts */
		a->addr = (uint64_t)pick((int)sizeof(mr_buf) + 1);
		a->length = (size_t)pick((int)(sizeof(mr_buf) - a->addr) + 1);
	}
	a->script.post_ret = op_result();
	a->script.wc.wr_id = rnd();
	a->script.wc.status = (enum ibv_wc_status)pick(22);
	a->script.wc.opcode = (enum ibv_wc_opcode)pick(8);
	a->script.wc.byte_len = (uint32_t)rnd();
	a->script.wc.qp_num = (uint32_t)rnd();
	a->script.reg_ret = pick(4) ? &F.mr : NULL;
	a->script.reg_errno = pick(2) ? ENOMEM : EINVAL;
	a->script.dereg_ret = op_result();
	if (a->fn == F_GET_SEND_COMP || a->fn == F_GET_RECV_COMP)
		comp_script(&a->script);
}

/* Branch coverage: each case is counted under the branch it takes. */
enum branch {
	B_SRQ, B_QP, B_MR_NULL, B_MR, B_OP_OK, B_OP_POSITIVE, B_OP_NEGATIVE,
	B_POLL_FIRST, B_POLL_SECOND, B_POLL_LATER, B_POLL_NEGATIVE,
	B_ARM_FAILS, B_WAIT_FAILS, B_REG_FAILS, B_COUNT
};

#ifndef FUZZ
static const char *const branch_name[B_COUNT] = {
	"recv to SRQ", "recv to QP", "mr NULL", "mr set", "op returns 0",
	"op returns errno", "op returns negative", "completion at 1st poll",
	"completion at 2nd poll", "completion at a later poll",
	"poll negative", "arming fails", "event wait fails",
	"registration fails",
};
#endif

static long covered[F_COUNT][B_COUNT];

static void count_branches(const struct args *a, const struct outcome *o)
{
	long *c = covered[a->fn];
	int i, polls = 0;

	if (a->fn == F_POST_RECVV || a->fn == F_POST_RECV)
		c[a->srq ? B_SRQ : B_QP]++;
	if (a->fn == F_POST_SEND || a->fn == F_POST_WRITE || a->fn == F_POST_UD_SEND)
		c[a->mr_null ? B_MR_NULL : B_MR]++;
	if (a->fn >= F_POST_RECVV && a->fn <= F_POST_UD_SEND)
		c[!a->script.post_ret ? B_OP_OK : a->script.post_ret > 0 ?
		  B_OP_POSITIVE : B_OP_NEGATIVE]++;
	if (a->fn == F_DEREG_MR)
		c[!a->script.dereg_ret ? B_OP_OK : a->script.dereg_ret > 0 ?
		  B_OP_POSITIVE : B_OP_NEGATIVE]++;
	if (a->fn >= F_REG_MSGS && a->fn <= F_REG_WRITE && !a->script.reg_ret)
		c[B_REG_FAILS]++;
	if (a->fn == F_GET_SEND_COMP || a->fn == F_GET_RECV_COMP) {
		for (i = 0; i < o->nlog; i++)
			polls += o->log[i].call == FC_POLL_CQ;
		if (o->ret == 1)
			c[polls == 1 ? B_POLL_FIRST : polls == 2 ? B_POLL_SECOND :
			  B_POLL_LATER]++;
		else if (o->log[o->nlog - 1].call == FC_POLL_CQ)
			c[B_POLL_NEGATIVE]++;
		else if (o->log[o->nlog - 1].call == FC_REQ_NOTIFY_CQ)
			c[B_ARM_FAILS]++;
		else
			c[B_WAIT_FAILS]++;
	}
}

#ifndef FUZZ
static int expected(enum fn f, enum branch b)
{
	int post = f >= F_POST_RECVV && f <= F_POST_UD_SEND;
	int comp = f == F_GET_SEND_COMP || f == F_GET_RECV_COMP;

	switch (b) {
	case B_SRQ: case B_QP:
		return f == F_POST_RECVV || f == F_POST_RECV;
	case B_MR_NULL: case B_MR:
		return f == F_POST_SEND || f == F_POST_WRITE || f == F_POST_UD_SEND;
	case B_OP_OK: case B_OP_POSITIVE: case B_OP_NEGATIVE:
		return post || f == F_DEREG_MR;
	case B_REG_FAILS:
		return f >= F_REG_MSGS && f <= F_REG_WRITE;
	case B_COUNT:
		return 0;
	default:
		return comp;
	}
}
#endif

static void print_case(const struct args *a)
{
	int i;

	fprintf(stderr, "  %s: ctx=%p nsge=%d flags=%d raddr=%llx rkey=%u addr=%llx "
		"length=%zu mr_null=%d srq=%d post_ret=%d\n", fn_name[a->fn],
		a->ctx, a->nsge, a->flags, (unsigned long long)a->raddr, a->rkey,
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

static long compared, failed;

static void check(const struct args *a)
{
	static struct outcome r, o;

	run(a, 0, &r);
	run(a, 1, &o);
	compared++;
	count_branches(a, &r);
	if (!same(a->fn, &r, &o)) {
		if (failed++ < 10) {
			fprintf(stderr, "DIFFERENT: %s: %s\n", fn_name[a->fn], why);
			print_case(a);
		}
	}
}

#ifdef FUZZ
/* Whether breakage `b` makes a call of `f` invalid (else it is valid input,
 * compared with the original like any other case). */
static int applies(const struct args *a, enum brk b)
{
	enum fn f = a->fn;
	int post = f >= F_POST_RECVV && f <= F_POST_UD_SEND;
	int comp = f == F_GET_SEND_COMP || f == F_GET_RECV_COMP;
	int waits = a->script.nevent > 0;	/* the loop reaches the event wait */

	switch (b) {
	case BRK_NULL_ID: return f != F_SETERRNO && f != F_DEREG_MR;
	case BRK_NO_QP: return post;
	case BRK_NULL_SGL: return is_vectored(f) && a->nsge > 0;
	case BRK_NEG_NSGE: return is_vectored(f);
	case BRK_BIG_LENGTH: return post && !is_vectored(f);
	case BRK_NULL_MR: return f == F_POST_RECV || f == F_POST_READ || f == F_DEREG_MR;
	case BRK_OUTSIDE_MR: return f == F_POST_RECV && a->length > 0;
	case BRK_NULL_AH: return f == F_POST_UD_SEND;
	case BRK_NULL_WC: case BRK_NULL_CQ: return comp;
	case BRK_NULL_CHANNEL: return comp && waits;
	case BRK_NULL_PD: return f >= F_REG_MSGS && f <= F_REG_WRITE;
	case BRK_FOREIGN_EVENT: return comp && waits && a->script.event_ret[0] == 0;
	default: return 0;
	}
}

/* Invalid input: ours alone (the original would crash). The properties: a
 * clear error (-1 or NULL, errno EINVAL, EIO for a foreign event), nothing
 * posted or registered, no wait on a NULL channel. */
static int clear_error(const struct args *a, const struct outcome *o)
{
	int want = a->brk == BRK_FOREIGN_EVENT ? EIO : EINVAL;
	int i, ret = a->fn >= F_REG_MSGS && a->fn <= F_REG_WRITE ? (o->pret ? 0 : -1) : o->ret;

	if (ret != -1 || o->err != want)
		return 0;
	for (i = 0; i < o->nlog; i++) {
		enum fake_call c = o->log[i].call;

		if (c == FC_POST_SEND || c == FC_POST_RECV || c == FC_POST_SRQ_RECV ||
		    c == FC_REG_MR || c == FC_DEREG_MR)
			return 0;
		if (c == FC_GET_CQ_EVENT && a->brk == BRK_NULL_CHANNEL)
			return 0;
	}
	/* a foreign event is acknowledged on its own CQ */
	if (a->brk == BRK_FOREIGN_EVENT &&
	    (o->log[o->nlog - 1].call != FC_ACK_CQ_EVENTS || o->log[o->nlog - 1].obj != &other_cq))
		return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct args a;

	if (!ready) {
		fake_init(&F);
		F_id = F.id;
		ready = 1;
	}
	fuzz_data = data;
	fuzz_left = size;
	random_case(&a);
	a.brk = pick(BRK_COUNT);
	if (a.brk == BRK_NEG_NSGE)
		a.nsge = (int)(rnd() | 0x80000000u);
	if (a.brk == BRK_BIG_LENGTH)
		a.length = (size_t)UINT32_MAX + 1 + (size_t)(rnd() >> 1);
	if (a.brk == BRK_NULL_AH)
		a.ah = NULL;
	if (!applies(&a, (enum brk)a.brk))
		a.brk = BRK_NONE;
	if (a.brk == BRK_NONE) {
		check(&a);
		if (failed) {
			fprintf(stderr, "valid input, different results: %s\n", why);
			abort();
		}
	} else {
		static struct outcome o;

		run(&a, 1, &o);
		if (!clear_error(&a, &o)) {
			fprintf(stderr, "invalid input (kind %d) on %s: returned %d errno %d "
				"after %d provider calls\n", a.brk, fn_name[a.fn], o.ret,
				o.err, o.nlog);
			abort();
		}
	}
	return 0;
}
#else
/* Directed cases: the completion loop's every exit, on both queues. */
static void directed(void)
{
	static const struct { int npoll, poll[6], nnotify, notify[3], nevent,
			      event[3], event_errno; } scripts[] = {
		{ 1, { 1 }, 0, { 0 }, 0, { 0 }, 0 },		/* 1st poll */
		{ 2, { 0, 1 }, 1, { 0 }, 0, { 0 }, 0 },		/* 2nd poll */
		{ 3, { 0, 0, 1 }, 1, { 0 }, 1, { 0 }, 0 },	/* after a wait */
		{ 5, { 0, 0, 0, 0, 1 }, 2, { 0, 0 }, 2, { 0, 0 }, 0 },
		{ 1, { -5 }, 0, { 0 }, 0, { 0 }, 0 },		/* negative poll */
		{ 2, { 0, -1 }, 1, { 0 }, 0, { 0 }, 0 },
		{ 1, { 0 }, 1, { ENOMEM }, 0, { 0 }, 0 },	/* arming fails */
		{ 1, { 0 }, 1, { -22 }, 0, { 0 }, 0 },
		{ 2, { 0, 0 }, 1, { 0 }, 1, { -1 }, EINTR },	/* wait fails */
		{ 2, { 0, 0 }, 1, { 0 }, 1, { -1 }, EAGAIN },
		{ 2, { 0, 0 }, 1, { 0 }, 1, { -1 }, EBADF },
	};
	size_t i;
	int q, k;

	for (q = 0; q < 2; q++) {
		for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
			struct args a;

			memset(&a, 0, sizeof(a));
			a.fn = q ? F_GET_RECV_COMP : F_GET_SEND_COMP;
			a.script.npoll = scripts[i].npoll;
			for (k = 0; k < scripts[i].npoll; k++)
				a.script.poll_ret[k] = scripts[i].poll[k];
			a.script.nnotify = scripts[i].nnotify;
			for (k = 0; k < scripts[i].nnotify; k++)
				a.script.notify_ret[k] = scripts[i].notify[k];
			a.script.nevent = scripts[i].nevent;
			for (k = 0; k < scripts[i].nevent; k++) {
				a.script.event_ret[k] = scripts[i].event[k];
				a.script.event_errno[k] = scripts[i].event_errno;
			}
			a.script.wc.wr_id = 0xc0ffee + i;
			a.script.wc.byte_len = 64;
			check(&a);
		}
	}
}

/* libibverbs fills every op a provider leaves unset with a stub that returns
 * EOPNOTSUPP (positive, poll_cq's included): the same stubs here. */
static int stub_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int stub_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int stub_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	(void)srq; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int stub_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq; (void)n; (void)wc;
	return EOPNOTSUPP;
}

static int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	return EOPNOTSUPP;
}

/* Fault injection: every provider op and replaced libibverbs function
 * failing in each way it can, on every function that calls it. */
static long faults(void)
{
	static const int op_fail[] = { EINVAL, ENOMEM, EAGAIN, EOPNOTSUPP, -1, -EINVAL };
	static const int ev_errno[] = { EINTR, EAGAIN, EBADF };
	long before = compared;
	struct args a;
	int f, k, srq;

	for (f = 0; f < F_COUNT; f++) {
		for (k = 0; k < 6; k++) {
			for (srq = 0; srq < 2; srq++) {
				memset(&a, 0, sizeof(a));
				a.fn = (enum fn)f;
				a.srq = srq;
				a.nsge = 1;
				a.length = 16;
				a.ah = (struct ibv_ah *)&F;
				a.script.post_ret = op_fail[k];	/* posting ops */
				a.script.dereg_ret = op_fail[k];	/* ibv_dereg_mr */
				a.script.reg_errno = op_fail[k] > 0 ? op_fail[k] : ENOMEM;
				if (f == F_GET_SEND_COMP || f == F_GET_RECV_COMP) {
					/* arming fails */
					a.script.npoll = 1;
					a.script.nnotify = 1;
					a.script.notify_ret[0] = op_fail[k];
					check(&a);
					/* the first, then the second poll fails */
					memset(&a.script, 0, sizeof(a.script));
					a.script.npoll = 1;
					a.script.poll_ret[0] = op_fail[k] < 0 ? op_fail[k] : -op_fail[k];
					check(&a);
					a.script.npoll = 2;
					a.script.poll_ret[1] = a.script.poll_ret[0];
					a.script.poll_ret[0] = 0;
					a.script.nnotify = 1;
					check(&a);
					/* the event wait fails */
					if (k < 3) {
						memset(&a.script, 0, sizeof(a.script));
						a.script.npoll = 2;
						a.script.nnotify = 1;
						a.script.nevent = 1;
						a.script.event_ret[0] = -1;
						a.script.event_errno[0] = ev_errno[k];
						check(&a);
					}
					continue;
				}
				check(&a);
			}
		}
	}
	/* every op left unset by the provider: libibverbs' stubs */
	F.ctx.ops.post_send = stub_post_send;
	F.ctx.ops.post_recv = stub_post_recv;
	F.ctx.ops.post_srq_recv = stub_post_srq_recv;
	F.ctx.ops.poll_cq = stub_poll_cq;
	F.ctx.ops.req_notify_cq = stub_req_notify_cq;
	for (f = 0; f < F_COUNT; f++) {
		for (srq = 0; srq < 2; srq++) {
			memset(&a, 0, sizeof(a));
			a.fn = (enum fn)f;
			a.srq = srq;
			a.nsge = 1;
			a.ah = (struct ibv_ah *)&F;
			check(&a);
		}
	}
	fake_default_ops(&F);
	return compared - before;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 100000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed;
	int f, b, missing = 0;
	const char *spin;
	long i;

	rng_state = seed ? seed : 1;
	long nfaults;

	fake_init(&F);
	F_id = F.id;
	directed();
	nfaults = faults();
	for (i = 0; i < n; i++) {
		struct args a;

		random_case(&a);
		check(&a);
	}
	for (f = 0; f < F_COUNT; f++) {
		for (b = 0; b < B_COUNT; b++) {
			if (expected((enum fn)f, (enum branch)b) && !covered[f][b]) {
				fprintf(stderr, "NOT COVERED: %s: %s\n", fn_name[f],
					branch_name[b]);
				missing++;
			}
		}
	}
	printf("differential: %ld cases compared (%ld of them fault injection; seed "
	       "%#llx), %ld different, %d branches not covered\n", compared, nfaults,
	       (unsigned long long)seed, failed, missing);
	/* Run with RDMAVERBS_POLL_SPIN: the spin polls really ran (and were
	 * invisible in the comparison, as fake.c arranges). */
	spin = getenv("RDMAVERBS_POLL_SPIN");
	if (spin && atoi(spin) > 0) {
		printf("differential: with RDMAVERBS_POLL_SPIN=%s: %ld spin polls\n",
		       spin, F.spins);
		if (F.spins == 0)
			missing++;
	}
	return failed || missing;
}
#endif
