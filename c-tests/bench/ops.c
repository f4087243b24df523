/*
 * What watching a program that was never rebuilt costs per provider op: a
 * loop of one op, called as a program calls it (libibverbs' inline
 * ibv_post_send, ibv_post_recv, ibv_poll_cq), on the fake libibverbs of the
 * preload tests (c-tests/fake/fakeverbs.c), whose ops answer at once.
 *
 *   ops KIND N   KIND: send (a signalled 2-byte SEND), recv (a 2-byte
 *                receive), empty (a poll that finds nothing), poll (a poll
 *                that finds one completion)
 *
 * report.py runs it under callgrind, not preloaded and with the preload
 * library (nothing set, RDMAVERBS_STATS=1, RDMAVERBS_TRACE=FILE), with two
 * values of N: the difference over the difference of N is the instructions
 * per op, without the start and exit of the process.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static struct ibv_device dev;

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
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
	long n, i;
	int kind, ret = 0;

	if (argc != 3 || (n = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: ops send|recv|empty|poll N\n");
		return 2;
	}
	kind = !strcmp(argv[1], "send") ? 0 : !strcmp(argv[1], "recv") ? 1 :
	       !strcmp(argv[1], "empty") ? 2 : !strcmp(argv[1], "poll") ? 3 : -1;
	if (kind < 0 || !(ctx = ibv_open_device(&dev))) {
		fprintf(stderr, "ops: bad kind, or no context\n");
		return 2;
	}
	memset(&qp, 0, sizeof(qp));
	memset(&cq, 0, sizeof(cq));
	qp.context = cq.context = ctx;
	qp.qp_num = 17;
	for (i = 0; i < n; i++) {
		switch (kind) {
		case 0: ret |= ibv_post_send(&qp, &swr, &sbad); break;
		case 1: ret |= ibv_post_recv(&qp, &rwr, &rbad); break;
		case 2: ret |= ibv_poll_cq(&cq, 0, &wc); break;	/* the fake finds none */
		default: ret |= ibv_poll_cq(&cq, 1, &wc) != 1; break;
		}
	}
	ibv_close_device(ctx);
	if (ret) {
		fprintf(stderr, "ops: an op failed\n");
		return 1;
	}
	return 0;
}
