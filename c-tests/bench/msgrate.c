/*
 * make bench, Soft-RoCE: the message rate of small sends in C, through
 * librdmaverbs (built against our header), the row each binding's message
 * rate (the way "rate" of c-tests/bench/pingpong.py, pingpong.js and
 * rust/) is set beside; every one runs this exchange:
 *
 *   the server posts MESSAGES receives of SIZE bytes before it accepts
 *   (all into one slot: only their completions count; the receive queue
 *   never runs dry, so no RNR retry times the run), takes their
 *   completions in batches of up to BATCH (ibv_poll_cq, busy), and then
 *   sends one message back; the client keeps up to WINDOW inline sends of
 *   SIZE bytes in flight, takes their completions in batches of up to
 *   BATCH, then waits for that message.
 *
 * Usage: msgrate server|client ADDR PORT MESSAGES
 * The server prints "msgrate: listening" once it listens; the client
 * prints "msgrate: way=c msgs_s=T" (from its first post to the server's
 * message).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define SIZE 64
#define WINDOW 32	/* sends in flight */
#define MAX_MESSAGES 16384	/* Soft-RoCE's largest queue */
#define BATCH 16	/* completions taken per poll at most */

#define TRY(x) do { if (x) { perror(#x); exit(1); } } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Up to max completions of cq, at least one (busy polling); each checked. */
static int take(struct ibv_cq *cq, int max)
{
	struct ibv_wc wc[BATCH];
	int n, i;

	do
		n = ibv_poll_cq(cq, max, wc);
	while (n == 0);
	TRY(n < 0);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "msgrate: completion %s\n", ibv_wc_status_str(wc[i].status));
			exit(1);
		}
	return n;
}

static char slot[SIZE];

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7 };
	struct ibv_qp_init_attr a = { .cap = { .max_send_wr = WINDOW,
		.max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = SIZE },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1 };
	struct rdma_addrinfo *res;
	struct rdma_cm_id *listen_id = NULL, *id;
	struct ibv_mr *mr;
	char msg[SIZE] = "rate";
	long messages, done = 0, posted = 0, inflight = 0, receives, i;
	int server;
	double t0;

	if (argc != 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: msgrate server|client ADDR PORT MESSAGES\n");
		return 2;
	}
	server = !strcmp(argv[1], "server");
	messages = atol(argv[4]);
	if (messages < 1 || messages > MAX_MESSAGES) {
		fprintf(stderr, "msgrate: MESSAGES from 1 to %d\n", MAX_MESSAGES);
		return 2;
	}
	receives = server ? messages : 1;
	a.cap.max_recv_wr = (uint32_t)receives;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	TRY(rdma_getaddrinfo(argv[2], argv[3], &hints, &res));
	if (server) {
		TRY(rdma_create_ep(&listen_id, res, NULL, &a));
		TRY(rdma_listen(listen_id, 1));
		printf("msgrate: listening\n");
		fflush(stdout);
		TRY(rdma_get_request(listen_id, &id));
	} else {
		TRY(rdma_create_ep(&id, res, NULL, &a));
	}
	mr = rdma_reg_msgs(id, slot, sizeof(slot));
	TRY(!mr);
	for (i = 0; i < receives; i++)
		TRY(rdma_post_recv(id, NULL, slot, SIZE, mr));
	TRY(server ? rdma_accept(id, &param) : rdma_connect(id, &param));
	t0 = now();
	if (server) {
		while (done < messages)
			done += take(id->recv_cq, BATCH);
		TRY(rdma_post_send(id, NULL, msg, SIZE, NULL, IBV_SEND_INLINE));
		take(id->send_cq, 1);
	} else {
		while (posted < messages) {
			if (inflight == WINDOW)
				inflight -= take(id->send_cq, BATCH);
			TRY(rdma_post_send(id, NULL, msg, SIZE, NULL, IBV_SEND_INLINE));
			posted++;
			inflight++;
		}
		while (inflight > 0)
			inflight -= take(id->send_cq, BATCH);
		take(id->recv_cq, 1);	/* the server has them all */
		printf("msgrate: way=c msgs_s=%.0f\n", (double)messages / (now() - t0));
	}
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	if (listen_id)
		rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
	return 0;
}
