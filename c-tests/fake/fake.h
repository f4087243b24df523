/*
 * A fake verbs provider for the tests: a device context whose ops record
 * every call in full (every work request field, every SGE) and return
 * scripted results, plus replacements for the exported libibverbs functions
 * that the API calls (ibv_reg_mr, ibv_dereg_mr, ibv_get_cq_event,
 * ibv_ack_cq_events). A test program that links fake.c and is linked with
 * -rdynamic replaces those four for itself and for librdmaverbs.so.1 alike.
 */
#ifndef RDMAVERBS_FAKE_H
#define RDMAVERBS_FAKE_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define FAKE_MAX_SGE 16
#define FAKE_MAX_LOG 32
#define FAKE_MAX_SCRIPT 16

enum fake_call {
	FC_POST_SEND = 1,
	FC_POST_RECV,
	FC_POST_SRQ_RECV,
	FC_POLL_CQ,
	FC_REQ_NOTIFY_CQ,
	FC_GET_CQ_EVENT,
	FC_ACK_CQ_EVENTS,
	FC_REG_MR,
	FC_DEREG_MR,
};

/* One recorded call: which op, on which object, with what. */
struct fake_rec {
	enum fake_call call;
	const void *obj;	/* qp, srq, cq, channel, pd or mr */
	long arg;		/* num_entries, solicited_only, nevents or access */
	void *addr;		/* ibv_reg_mr */
	size_t length;		/* ibv_reg_mr */
	struct ibv_send_wr swr;	/* post_send: the work request, copied */
	struct ibv_recv_wr rwr;	/* post_recv, post_srq_recv */
	int nsge;		/* SGEs copied from sg_list */
	struct ibv_sge sge[FAKE_MAX_SGE];
};

/* What the fake answers. Each list is consumed in order; running past the
 * end of a list fails the test (a loop that should have ended). */
struct fake_script {
	int post_ret;				/* every post op */
	int npoll;
	int poll_ret[FAKE_MAX_SCRIPT];		/* 1 writes `wc` */
	struct ibv_wc wc;
	int nnotify;
	int notify_ret[FAKE_MAX_SCRIPT];
	int nevent;
	int event_ret[FAKE_MAX_SCRIPT];		/* 0, or -1 with event_errno */
	int event_errno[FAKE_MAX_SCRIPT];
	struct ibv_cq *event_cq;		/* NULL: the CQ of the channel */
	void *event_ctx;			/* NULL: that CQ's cq_context */
	struct ibv_mr *reg_ret;			/* NULL: fails with reg_errno */
	int reg_errno;
	int dereg_ret;
};

/* The object graph of one rdma_cm_id, as librdmacm would build it. */
struct fake {
	struct ibv_device dev;
	struct ibv_context ctx;
	struct ibv_pd pd;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_cq send_cq, recv_cq;
	struct ibv_comp_channel send_ch, recv_ch;
	struct ibv_mr mr;
	struct rdma_cm_id id;

	struct fake_script script;
	int poll_i, notify_i, event_i;
	int nlog;
	struct fake_rec log[FAKE_MAX_LOG];
	int overflow;	/* a script list or the log ran out */
	int polled_nothing;	/* the last call was a poll that found nothing */
	long spins;	/* polls of RDMAVERBS_POLL_SPIN, not logged */
};

/* The fake that the ops and the replaced functions act on. */
extern struct fake *fake_current;

/* Builds the object graph (no SRQ; set f->id.srq = &f->srq for one) and
 * makes f current. */
void fake_init(struct fake *f);

/* Clears the log and the script positions and installs `s`. */
void fake_reset(struct fake *f, const struct fake_script *s);

/* Sets every op of the context's table to NULL, or to the recording ops. */
void fake_clear_ops(struct fake *f);
void fake_default_ops(struct fake *f);

#endif
