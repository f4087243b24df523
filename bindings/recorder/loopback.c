/*
 * The recording provider (recorder.c): loopback (Python's test of buffers kept alive, bindings/python/tests):
 * recorder_loopback() puts ops in the fake context that record as above
 * and also queue each work request posted to the QP or the SRQ; a poll
 * then completes them in the order posted, as a device would, touching
 * their memory only then: a send's SGEs are read (the bytes kept for
 * recorder_wire) and written into the SGEs of the oldest receive not yet
 * filled. A completion: wr_id, SUCCESS, IBV_WC_SEND or IBV_WC_RECV,
 * byte_len, the QP's qp_num, all else 0. recorder_id() ends it.
 *
 *   void recorder_loopback(void)            the queue and the wire emptied
 *   size_t recorder_wire(void *out, size_t max)  the last send's bytes, as read
 */
#include <stdint.h>
#include <string.h>
#include "recorder.h"

#define LOOP_WRS 32
#define LOOP_SGES 4

static struct loop_wr {
	uint64_t wr_id;
	int recv, filled;
	uint32_t byte_len;
	int n;
	struct ibv_sge sge[LOOP_SGES];
} loop[LOOP_WRS];
static int loop_len;
static unsigned char wire[4096];
static size_t wire_len;

static void loop_queue(uint64_t wr_id, int recv, const struct ibv_sge *sge, int n)
{
	struct loop_wr *w = &loop[loop_len++];

	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->recv = recv;
	w->n = n < LOOP_SGES ? n : LOOP_SGES;
	if (w->n > 0)
		memcpy(w->sge, sge, sizeof(*sge) * (size_t)w->n);
	else
		w->n = 0;
}

static int loop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int err = post_send(qp, wr, bad);

	for (; !err && wr && loop_len < LOOP_WRS; wr = wr->next)
		loop_queue(wr->wr_id, 0, wr->sg_list, wr->num_sge);
	return err;
}

static int loop_recvs(struct ibv_recv_wr *wr)
{
	for (; wr && loop_len < LOOP_WRS; wr = wr->next)
		loop_queue(wr->wr_id, 1, wr->sg_list, wr->num_sge);
	return 0;
}

static int loop_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int err = post_recv(qp, wr, bad);

	return err ? err : loop_recvs(wr);
}

static int loop_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int err = post_srq_recv(srq, wr, bad);

	return err ? err : loop_recvs(wr);
}

/* The device's work for a send: its bytes read now, into the wire and the
 * oldest receive not yet filled. */
static void loop_deliver(struct loop_wr *w)
{
	size_t at = 0;

	wire_len = 0;
	for (int i = 0; i < w->n; i++) {
		size_t len = w->sge[i].length;

		if (wire_len + len > sizeof(wire))
			len = sizeof(wire) - wire_len;
		memcpy(wire + wire_len, (const void *)(uintptr_t)w->sge[i].addr, len);
		wire_len += len;
	}
	w->byte_len = (uint32_t)wire_len;
	for (int k = 0; k < loop_len; k++) {
		struct loop_wr *r = &loop[k];

		if (!r->recv || r->filled)
			continue;
		for (int i = 0; i < r->n && at < wire_len; i++) {
			size_t len = r->sge[i].length < wire_len - at ? r->sge[i].length : wire_len - at;

			memcpy((void *)(uintptr_t)r->sge[i].addr, wire + at, len);
			at += len;
		}
		r->byte_len = (uint32_t)at;
		r->filled = 1;
		break;
	}
}

static int loop_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0;

	(void)cq;
	posts++;
	while (got < n) {
		int k = 0;

		/* the first work request that can complete: a send, or a receive filled */
		while (k < loop_len && loop[k].recv && !loop[k].filled)
			k++;
		if (k == loop_len)
			break;
		if (!loop[k].recv)
			loop_deliver(&loop[k]);
		memset(&wc[got], 0, sizeof(wc[got]));
		wc[got].wr_id = loop[k].wr_id;
		wc[got].status = IBV_WC_SUCCESS;
		wc[got].opcode = loop[k].recv ? IBV_WC_RECV : IBV_WC_SEND;
		wc[got].byte_len = loop[k].byte_len;
		wc[got].qp_num = fake.qp.qp_num;
		got++;
		memmove(&loop[k], &loop[k + 1], sizeof(loop[k]) * (size_t)(loop_len - k - 1));
		loop_len--;
	}
	return got;
}

void recorder_loopback(void)
{
	CTX.ops.post_send = loop_post_send;
	CTX.ops.post_recv = loop_post_recv;
	CTX.ops.post_srq_recv = loop_post_srq_recv;
	CTX.ops.poll_cq = loop_poll_cq;
	loop_len = 0;
	wire_len = 0;
}

size_t recorder_wire(void *out, size_t max)
{
	size_t n = wire_len < max ? wire_len : max;

	memcpy(out, wire, n);
	return n;
}
