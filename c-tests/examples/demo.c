/*
 * The demo: a short client/server session over Soft-RoCE through
 * librdmaverbs. The server registers a buffer the client may write and read;
 * the client sends messages, writes into the server's memory, reads it back,
 * and both sides check every byte.
 *
 * Usage: demo [PORT]      (inside the guest, where 192.0.2.1 is rxe0)
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define ADDR "192.0.2.1"
#define MSGS 3
#define AREA 4096

static const char *port = "7999";
static sem_t listening;
static long verified;

struct keys { uint64_t addr; uint32_t wkey, rkey; };

#define TRY(call) do { if (call) { perror(#call); exit(1); } } while (0)
#define NOTNULL(x) do { if (!(x)) { perror(#x); exit(1); } } while (0)

static void qp_attr(struct ibv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->cap.max_send_wr = a->cap.max_recv_wr = 8;
	a->cap.max_send_sge = a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = 64;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 1;
}

static struct rdma_conn_param param = { .responder_resources = 1,
					.initiator_depth = 1, .retry_count = 3 };

/* Waits for one completion and checks it is the request we posted. */
static struct ibv_wc wait_for(struct rdma_cm_id *id, int send, void *ctx)
{
	struct ibv_wc wc;
	int n = send ? rdma_get_send_comp(id, &wc) : rdma_get_recv_comp(id, &wc);

	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != (uintptr_t)ctx) {
		fprintf(stderr, "bad completion: %d %s\n", n, ibv_wc_status_str(wc.status));
		exit(1);
	}
	return wc;
}

static void *server(void *arg)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_qp_init_attr attr;
	static char inbox[MSGS][64], area[AREA];
	static struct keys keys;
	struct ibv_mr *in_mr, *w_mr, *r_mr, *k_mr;
	int i;

	(void)arg;
	qp_attr(&attr);
	TRY(rdma_getaddrinfo(ADDR, port, &hints, &res));
	TRY(rdma_create_ep(&listen_id, res, NULL, &attr));
	rdma_freeaddrinfo(res);
	TRY(rdma_listen(listen_id, 1));
	sem_post(&listening);
	TRY(rdma_get_request(listen_id, &id));

	NOTNULL(in_mr = rdma_reg_msgs(id, inbox, sizeof(inbox)));
	NOTNULL(w_mr = rdma_reg_write(id, area, sizeof(area)));
	NOTNULL(r_mr = rdma_reg_read(id, area, sizeof(area)));
	NOTNULL(k_mr = rdma_reg_msgs(id, &keys, sizeof(keys)));
	for (i = 0; i < MSGS; i++)
		TRY(rdma_post_recv(id, inbox[i], inbox[i], sizeof(inbox[i]), in_mr));
	TRY(rdma_accept(id, &param));
	printf("[server] accepted a connection; %d receives posted\n", MSGS);

	keys.addr = (uintptr_t)area;
	keys.wkey = w_mr->rkey;
	keys.rkey = r_mr->rkey;
	TRY(rdma_post_send(id, &keys, &keys, sizeof(keys), k_mr, 0));
	wait_for(id, 1, &keys);
	printf("[server] sent the client the address and keys of a %d-byte area\n", AREA);

	for (i = 0; i < MSGS; i++) {
		struct ibv_wc wc = wait_for(id, 0, inbox[i]);

		printf("[server] received message %d (%u bytes): \"%s\"\n", i + 1,
		       wc.byte_len, inbox[i]);
		verified += wc.byte_len;
	}
	/* the last message says the client has written the area */
	for (i = 0; i < AREA; i++) {
		if (area[i] != (char)('A' + i % 26)) {
			fprintf(stderr, "[server] byte %d of the area is wrong\n", i);
			exit(1);
		}
	}
	verified += AREA;
	printf("[server] the area holds the %d bytes the client wrote with RDMA\n", AREA);
	rdma_dereg_mr(in_mr);
	rdma_dereg_mr(w_mr);
	rdma_dereg_mr(r_mr);
	rdma_dereg_mr(k_mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	return NULL;
}

static void client(void)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;
	struct ibv_qp_init_attr attr;
	static char src[AREA], dst[AREA];
	static struct keys keys;
	struct ibv_mr *k_mr, *s_mr, *d_mr;
	char msg[64];
	int i;

	qp_attr(&attr);
	sem_wait(&listening);
	TRY(rdma_getaddrinfo(ADDR, port, &hints, &res));
	TRY(rdma_create_ep(&id, res, NULL, &attr));
	rdma_freeaddrinfo(res);
	NOTNULL(k_mr = rdma_reg_msgs(id, &keys, sizeof(keys)));
	NOTNULL(s_mr = rdma_reg_msgs(id, src, sizeof(src)));
	NOTNULL(d_mr = rdma_reg_msgs(id, dst, sizeof(dst)));
	TRY(rdma_post_recv(id, &keys, &keys, sizeof(keys), k_mr));
	TRY(rdma_connect(id, &param));
	printf("[client] connected to %s:%s\n", ADDR, port);
	wait_for(id, 0, &keys);
	printf("[client] got the server's area address and keys\n");

	for (i = 0; i < AREA; i++)
		src[i] = (char)('A' + i % 26);
	TRY(rdma_post_write(id, src, src, AREA, s_mr, 0, keys.addr, keys.wkey));
	wait_for(id, 1, src);
	printf("[client] rdma_post_write: wrote %d bytes into the server's memory\n", AREA);
	TRY(rdma_post_read(id, dst, dst, AREA, d_mr, 0, keys.addr, keys.rkey));
	wait_for(id, 1, dst);
	if (memcmp(src, dst, AREA)) {
		fprintf(stderr, "[client] what was read back differs\n");
		exit(1);
	}
	verified += AREA;
	printf("[client] rdma_post_read: read the %d bytes back, all equal\n", AREA);

	for (i = 0; i < MSGS; i++) {
		/* inline: the bytes are copied at post time, no registration */
		snprintf(msg, sizeof(msg), "hello #%d from the client", i + 1);
		TRY(rdma_post_send(id, msg, msg, strlen(msg) + 1, NULL, IBV_SEND_INLINE));
		wait_for(id, 1, msg);
		printf("[client] rdma_post_send (inline): \"%s\"\n", msg);
	}
	rdma_dereg_mr(k_mr);
	rdma_dereg_mr(s_mr);
	rdma_dereg_mr(d_mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

int main(int argc, char **argv)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		port = argv[1];
	sem_init(&listening, 0, 0);
	pthread_create(&t, NULL, server, NULL);
	client();
	pthread_join(t, NULL);
	printf("demo: done; %ld bytes verified, every completion's wr_id matched\n",
	       verified);
	return 0;
}
