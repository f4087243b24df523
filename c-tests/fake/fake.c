/* The fake provider of fake.h. */
#include "fake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

struct fake *fake_current;

static struct fake_rec *rec(enum fake_call call, const void *obj, long arg)
{
	struct fake *f = fake_current;
	struct fake_rec *r;

	f->polled_nothing = 0;
	if (f->nlog == FAKE_MAX_LOG) {
		f->overflow = 1;
		return NULL;
	}
	r = &f->log[f->nlog++];
	memset(r, 0, sizeof(*r));
	r->call = call;
	r->obj = obj;
	r->arg = arg;
	return r;
}

static void copy_sges(struct fake_rec *r, const struct ibv_sge *sgl, int n)
{
	if (!sgl || n <= 0)
		return;
	if (n > FAKE_MAX_SGE)
		n = FAKE_MAX_SGE;
	memcpy(r->sge, sgl, (size_t)n * sizeof(*sgl));
	r->nsge = n;
}

/* The next entry of a script list, or fail the test at its end. */
static int next(const int *list, int n, int *i)
{
	if (*i >= n) {
		fake_current->overflow = 1;
		fprintf(stderr, "fake: script ran out (a loop that should have ended)\n");
		abort();
	}
	return list[(*i)++];
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	struct fake_rec *r = rec(FC_POST_SEND, qp, 0);

	if (r) {
		r->swr = *wr;
		copy_sges(r, wr->sg_list, wr->num_sge);
	}
	if (fake_current->script.post_ret)
		*bad = wr;
	return fake_current->script.post_ret;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	struct fake_rec *r = rec(FC_POST_RECV, qp, 0);

	if (r) {
		r->rwr = *wr;
		copy_sges(r, wr->sg_list, wr->num_sge);
	}
	if (fake_current->script.post_ret)
		*bad = wr;
	return fake_current->script.post_ret;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	struct fake_rec *r = rec(FC_POST_SRQ_RECV, srq, 0);

	if (r) {
		r->rwr = *wr;
		copy_sges(r, wr->sg_list, wr->num_sge);
	}
	if (fake_current->script.post_ret)
		*bad = wr;
	return fake_current->script.post_ret;
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct fake *f = fake_current;
	int ret;

	/* A poll right after a poll that found nothing is a spin poll
	 * (RDMAVERBS_POLL_SPIN): the original never polls twice in a row. It
	 * finds nothing, as a poll a moment earlier would, and is neither
	 * logged nor given a script step, so that the log stays comparable. */
	if (f->polled_nothing) {
		f->spins++;
		return 0;
	}
	rec(FC_POLL_CQ, cq, num_entries);
	ret = next(f->script.poll_ret, f->script.npoll, &f->poll_i);
	f->polled_nothing = ret == 0;
	if (ret > 0)
		*wc = f->script.wc;
	return ret;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct fake *f = fake_current;

	rec(FC_REQ_NOTIFY_CQ, cq, solicited_only);
	return next(f->script.notify_ret, f->script.nnotify, &f->notify_i);
}

/* The exported libibverbs functions, replaced. (ibv_reg_mr) in parentheses:
 * verbs.h also defines a macro of that name. */
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	struct fake *f = fake_current;
	int i = f->event_i;
	int ret;

	rec(FC_GET_CQ_EVENT, channel, 0);
	ret = next(f->script.event_ret, f->script.nevent, &f->event_i);
	if (ret) {
		errno = f->script.event_errno[i];
		return ret;
	}
	*cq = f->script.event_cq ? f->script.event_cq :
	      channel == &f->send_ch ? &f->send_cq : &f->recv_cq;
	*cq_context = f->script.event_ctx ? f->script.event_ctx : (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	rec(FC_ACK_CQ_EVENTS, cq, (long)nevents);
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
			    int access)
{
	struct fake_rec *r = rec(FC_REG_MR, pd, access);

	if (r) {
		r->addr = addr;
		r->length = length;
	}
	if (!fake_current->script.reg_ret)
		errno = fake_current->script.reg_errno;
	return fake_current->script.reg_ret;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	rec(FC_DEREG_MR, mr, 0);
	return fake_current->script.dereg_ret;
}

void fake_clear_ops(struct fake *f)
{
	memset(&f->ctx.ops, 0, sizeof(f->ctx.ops));
}

void fake_default_ops(struct fake *f)
{
	fake_clear_ops(f);
	f->ctx.ops.post_send = fake_post_send;
	f->ctx.ops.post_recv = fake_post_recv;
	f->ctx.ops.post_srq_recv = fake_post_srq_recv;
	f->ctx.ops.poll_cq = fake_poll_cq;
	f->ctx.ops.req_notify_cq = fake_req_notify_cq;
}

/* A descriptor that is always readable (an eventfd never read): the
 * completion channels' fd, so that a bounded wait's poll(2) returns at once
 * and the scripted ibv_get_cq_event answers, as for the blocking original. */
static int ready_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = eventfd(1, EFD_CLOEXEC);
	return fd;
}

void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->ctx.device = &f->dev;
	fake_default_ops(f);
	f->pd.context = &f->ctx;
	f->qp.context = &f->ctx;
	f->qp.pd = &f->pd;
	f->qp.send_cq = &f->send_cq;
	f->qp.recv_cq = &f->recv_cq;
	f->qp.qp_num = 0x1234;
	f->qp.qp_type = IBV_QPT_RC;
	f->srq.context = &f->ctx;
	f->srq.pd = &f->pd;
	f->send_ch.context = &f->ctx;
	f->recv_ch.context = &f->ctx;
	f->send_ch.fd = f->recv_ch.fd = ready_fd();
	f->send_cq.context = &f->ctx;
	f->send_cq.channel = &f->send_ch;
	f->send_cq.cq_context = &f->id;	/* librdmacm makes CQs with the id as context */
	f->recv_cq.context = &f->ctx;
	f->recv_cq.channel = &f->recv_ch;
	f->recv_cq.cq_context = &f->id;
	f->mr.context = &f->ctx;
	f->mr.pd = &f->pd;
	f->mr.lkey = 0x1111;
	f->mr.rkey = 0x2222;

	f->id.verbs = &f->ctx;
	f->id.qp = &f->qp;
	f->id.send_cq_channel = &f->send_ch;
	f->id.send_cq = &f->send_cq;
	f->id.recv_cq_channel = &f->recv_ch;
	f->id.recv_cq = &f->recv_cq;
	f->id.pd = &f->pd;
	f->id.qp_type = IBV_QPT_RC;
	fake_current = f;
}

void fake_reset(struct fake *f, const struct fake_script *s)
{
	f->script = *s;
	f->poll_i = f->notify_i = f->event_i = 0;
	f->nlog = 0;
	f->overflow = 0;
	f->polled_nothing = 0;
	fake_current = f;
}
