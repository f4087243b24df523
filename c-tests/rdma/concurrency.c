/*
 * Several threads posting at once, on separate ids and on one shared id, on
 * a fake provider that records with atomics: every work request arrives
 * exactly once, with its own buffer, on the QP it was posted to. Also built
 * with ThreadSanitizer by `make test`.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <rdma/rdma_verbs.h>

#define THREADS 4
#define PER_THREAD 20000
#define TOTAL (THREADS * PER_THREAD)

struct rec { uint64_t wr_id; uint64_t addr; uint32_t length; const void *qp; };

static struct rec recs[TOTAL];
static atomic_long nrec, ncomp;
static struct ibv_context ctx;
static struct ibv_pd pd;
static struct ibv_qp qps[THREADS];
static struct ibv_cq cqs[THREADS];
static struct rdma_cm_id ids[THREADS];
static struct ibv_mr mr;
static char bufs[THREADS][PER_THREAD];
static int shared;	/* 1: every thread posts on ids[0] */

static void record(const void *qp, uint64_t wr_id, const struct ibv_sge *sge)
{
	long i = atomic_fetch_add(&nrec, 1);

	if (i < TOTAL) {
		recs[i].wr_id = wr_id;
		recs[i].addr = sge->addr;
		recs[i].length = sge->length;
		recs[i].qp = qp;
	}
}

static int ts_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)bad;
	record(qp, wr->wr_id, wr->sg_list);
	return 0;
}

static int ts_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)bad;
	record(qp, wr->wr_id, wr->sg_list);
	return 0;
}

static int ts_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	(void)n;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = (uint64_t)atomic_fetch_add(&ncomp, 1);
	return 1;
}

static void *poster(void *arg)
{
	long t = (long)arg, failures = 0;
	struct rdma_cm_id *id = &ids[shared ? 0 : t];
	uint32_t seq;

	for (seq = 0; seq < PER_THREAD; seq++) {
		void *ctxp = (void *)(uintptr_t)(((uint64_t)t << 32) | seq);
		char *b = &bufs[t][seq];
		struct ibv_sge sge = { (uintptr_t)b, 1, 7 };
		struct ibv_wc wc;

		switch (seq % 4) {
		case 0: failures += rdma_post_send(id, ctxp, b, 1, &mr, 0) != 0; break;
		case 1: failures += rdma_post_recv(id, ctxp, b, 1, &mr) != 0; break;
		case 2: failures += rdma_post_write(id, ctxp, b, 1, NULL, 0, 1, 2) != 0; break;
		default: failures += rdma_post_sendv(id, ctxp, &sge, 1, 0) != 0; break;
		}
		if (seq % 8 == 0)
			failures += rdma_get_send_comp(id, &wc) != 1;
	}
	return (void *)failures;
}

static int run(int shared_id)
{
	static unsigned char seen[THREADS][PER_THREAD];
	pthread_t th[THREADS];
	long t, failures = 0, bad = 0, i;

	shared = shared_id;
	atomic_store(&nrec, 0);
	atomic_store(&ncomp, 0);
	memset(seen, 0, sizeof(seen));
	for (t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, poster, (void *)t);
	for (t = 0; t < THREADS; t++) {
		void *r;

		pthread_join(th[t], &r);
		failures += (long)r;
	}
	for (i = 0; i < atomic_load(&nrec) && i < TOTAL; i++) {
		uint64_t tt = recs[i].wr_id >> 32, seq = recs[i].wr_id & 0xffffffff;

		if (tt >= THREADS || seq >= PER_THREAD || seen[tt][seq]++ ||
		    recs[i].addr != (uintptr_t)&bufs[tt][seq] || recs[i].length != 1 ||
		    recs[i].qp != &qps[shared ? 0 : tt])
			bad++;
	}
	printf("concurrency (%s): %d threads, %ld work requests recorded of %d, "
	       "%ld wrong or duplicated, %ld calls failed, %ld completions\n",
	       shared ? "one shared id" : "one id each", THREADS, atomic_load(&nrec),
	       TOTAL, bad, failures, atomic_load(&ncomp));
	return atomic_load(&nrec) != TOTAL || bad || failures;
}

int main(void)
{
	int t, fail;

	ctx.ops.post_send = ts_post_send;
	ctx.ops.post_recv = ts_post_recv;
	ctx.ops.poll_cq = ts_poll_cq;
	mr.addr = bufs;
	mr.length = sizeof(bufs);
	mr.lkey = 7;
	for (t = 0; t < THREADS; t++) {
		qps[t].context = &ctx;
		cqs[t].context = &ctx;
		ids[t].qp = &qps[t];
		ids[t].send_cq = &cqs[t];
		ids[t].pd = &pd;
	}
	fail = run(0) | run(1);
	printf("concurrency: %d passed, %d failed\n", fail ? 0 : 2, fail ? 1 : 0);
	return fail;
}
