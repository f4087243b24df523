/* The cases of cases.h compared: a case run on both, the outcomes and every
 * provider call compared field by field (check), a difference printed. */
#include <stdio.h>
#include <string.h>

#include "cases.h"

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
