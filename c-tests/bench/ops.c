/*
 * What watching a program that was never rebuilt costs per provider op: a
 * loop of one op, called as a program calls it (libibverbs' inline
 * ibv_post_send, ibv_post_recv, ibv_poll_cq), on the fake libibverbs of the
 * preload tests (c-tests/fake/fakeverbs.c), whose ops answer at once.
 *
 *   ops KIND N           KIND: send (a signalled 2-byte SEND), recv (a
 *                        2-byte receive), empty (a poll that finds nothing),
 *                        poll (a poll that finds one completion)
 *   ops KIND N THREADS   the same loop in THREADS threads at once, each on a
 *                        QP and CQ of its own; prints the nanoseconds the
 *                        slowest thread took ("ns N"), for report.py to put
 *                        over the one-thread run of the same boot
 *
 * report.py runs the first form under callgrind, not preloaded and with the
 * preload library (nothing set, RDMAVERBS_STATS=1, RDMAVERBS_TRACE=FILE),
 * with two values of N: the difference over the difference of N is the
 * instructions per op, without the start and exit of the process. It runs
 * the second form for the counters' scaling with threads (ratios only).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "../fake/fakeverbs.h"

static struct ibv_device dev;
static struct ibv_context *ctx;
static int kind;
static long n;

/* One thread's loop, on its own QP and CQ; the nanoseconds it took. */
static void *loop(void *arg)
{
	struct ibv_qp qp;
	struct ibv_cq cq;
	char buf[64];
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 2, .lkey = 1 };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *sbad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;
	struct timespec t0, t1;
	long i, *ns = arg;
	int ret = 0;

	memset(&qp, 0, sizeof(qp));
	memset(&cq, 0, sizeof(cq));
	qp.context = cq.context = ctx;
	qp.qp_num = 17;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		switch (kind) {
		case 0: ret |= ibv_post_send(&qp, &swr, &sbad); break;
		case 1: ret |= ibv_post_recv(&qp, &rwr, &rbad); break;
		case 2: ret |= ibv_poll_cq(&cq, 0, &wc); break;	/* the fake finds none */
		default: ret |= ibv_poll_cq(&cq, 1, &wc) != 1; break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ns = ret ? -1 : (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long ns[64], slowest = 0;
	int threads = argc == 4 ? atoi(argv[3]) : 0, i;

	if ((argc != 3 && argc != 4) || (n = atol(argv[2])) < 1 || threads < 0 || threads > 64) {
		fprintf(stderr, "usage: ops send|recv|empty|poll N [THREADS]\n");
		return 2;
	}
	kind = !strcmp(argv[1], "send") ? 0 : !strcmp(argv[1], "recv") ? 1 :
	       !strcmp(argv[1], "empty") ? 2 : !strcmp(argv[1], "poll") ? 3 : -1;
	if (kind < 0 || !(ctx = ibv_open_device(&dev))) {
		fprintf(stderr, "ops: bad kind, or no context\n");
		return 2;
	}
	if (!threads) {
		loop(ns);
	} else {
		fakeverbs_quiet = 1;	/* no line shared by the fake's own counts */
		for (i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, loop, &ns[i]);
		for (i = 0; i < threads; i++) {
			pthread_join(t[i], NULL);
			slowest = ns[i] < 0 || slowest < 0 ? -1 : ns[i] > slowest ? ns[i] : slowest;
		}
		ns[0] = slowest;
		printf("ns %ld\n", slowest);
	}
	ibv_close_device(ctx);
	if (ns[0] < 0) {
		fprintf(stderr, "ops: an op failed\n");
		return 1;
	}
	return 0;
}
