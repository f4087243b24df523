/*
 * Soft-RoCE timing for the benchmark: ping-pong latency (a 64-byte inline
 * rdma_post_send answered by the peer, completions through the blocking
 * rdma_get_send_comp / rdma_get_recv_comp) and small-message throughput (a
 * window of sends in flight). Built against our header and against the
 * stock one; the two are compared as a ratio in one guest boot.
 *
 * Usage: pingpong PORT ROUNDTRIPS MESSAGES
 * Prints: "pingpong: latency_us=L throughput_msgs_s=T"
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define ADDR "192.0.2.1"
#define SIZE 64
#define DEPTH 128	/* receives kept posted */
#define WINDOW 32	/* sends in flight */

static const char *port;
static long roundtrips, messages;
static sem_t listening, teardown;

#define TRY(x) do { if (x) { perror(#x); exit(1); } } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void attr(struct ibv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->cap.max_send_wr = a->cap.max_recv_wr = DEPTH;
	a->cap.max_send_sge = a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = SIZE;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 1;
}

static struct rdma_conn_param param = { .responder_resources = 1,
	.initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7 };

static void comp(struct rdma_cm_id *id, int send)
{
	struct ibv_wc wc;
	int n = send ? rdma_get_send_comp(id, &wc) : rdma_get_recv_comp(id, &wc);

	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "pingpong: completion %d %s\n", n, ibv_wc_status_str(wc.status));
		exit(1);
	}
}

static char rbuf[DEPTH][SIZE];
static char sbuf[DEPTH][SIZE];	/* the server's receive slots */

/* Receives slot i again. */
static void repost(struct rdma_cm_id *id, struct ibv_mr *mr, char (*buf)[SIZE], long i)
{
	TRY(rdma_post_recv(id, buf[i % DEPTH], buf[i % DEPTH], SIZE, mr));
}

static void *server(void *arg)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_qp_init_attr a;
	struct ibv_mr *mr;
	char msg[SIZE] = "pong";
	long i;

	(void)arg;
	attr(&a);
	TRY(rdma_getaddrinfo(ADDR, port, &hints, &res));
	TRY(rdma_create_ep(&listen_id, res, NULL, &a));
	TRY(rdma_listen(listen_id, 1));
	sem_post(&listening);
	TRY(rdma_get_request(listen_id, &id));
	mr = rdma_reg_msgs(id, sbuf, sizeof(sbuf));
	TRY(!mr);
	for (i = 0; i < DEPTH; i++)
		repost(id, mr, sbuf, i);
	TRY(rdma_accept(id, &param));
	for (i = 0; i < roundtrips; i++) {	/* ping-pong */
		comp(id, 0);
		repost(id, mr, sbuf, i);
		TRY(rdma_post_send(id, NULL, msg, SIZE, NULL, IBV_SEND_INLINE));
		comp(id, 1);
	}
	for (i = 0; i < messages; i++) {	/* stream */
		comp(id, 0);
		repost(id, mr, sbuf, roundtrips + i);
	}
	TRY(rdma_post_send(id, NULL, msg, SIZE, NULL, IBV_SEND_INLINE));	/* done */
	comp(id, 1);
	/* Both sides disconnect at once: a lone rdma_disconnect on a
	 * synchronous id waits about 100 s for the peer. */
	sem_wait(&teardown);
	rdma_disconnect(id);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;
	struct ibv_qp_init_attr a;
	struct ibv_mr *mr;
	char msg[SIZE] = "ping";
	pthread_t t;
	double t0, lat, thr;
	long i, inflight = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT ROUNDTRIPS MESSAGES\n", argv[0]);
		return 2;
	}
	port = argv[1];
	roundtrips = atol(argv[2]);
	messages = atol(argv[3]);
	sem_init(&listening, 0, 0);
	sem_init(&teardown, 0, 0);
	pthread_create(&t, NULL, server, NULL);
	sem_wait(&listening);
	attr(&a);
	TRY(rdma_getaddrinfo(ADDR, port, &hints, &res));
	TRY(rdma_create_ep(&id, res, NULL, &a));
	mr = rdma_reg_msgs(id, rbuf, sizeof(rbuf));
	TRY(!mr);
	for (i = 0; i < DEPTH; i++)
		repost(id, mr, rbuf, i);
	TRY(rdma_connect(id, &param));

	t0 = now();
	for (i = 0; i < roundtrips; i++) {
		TRY(rdma_post_send(id, NULL, msg, SIZE, NULL, IBV_SEND_INLINE));
		comp(id, 1);
		comp(id, 0);
		repost(id, mr, rbuf, i);
	}
	lat = (now() - t0) / (double)roundtrips * 1e6;

	t0 = now();
	for (i = 0; i < messages; i++) {
		if (inflight == WINDOW) {
			comp(id, 1);
			inflight--;
		}
		TRY(rdma_post_send(id, NULL, msg, SIZE, NULL, IBV_SEND_INLINE));
		inflight++;
	}
	while (inflight--)
		comp(id, 1);
	comp(id, 0);	/* the server has them all */
	thr = (double)messages / (now() - t0);

	printf("pingpong: latency_us=%.2f throughput_msgs_s=%.0f\n", lat, thr);
	sem_post(&teardown);
	rdma_disconnect(id);
	pthread_join(t, NULL);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
	return 0;
}
