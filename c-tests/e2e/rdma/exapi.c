/*
 * The extended verbs API on Soft-RoCE, for the preload library to watch: a
 * client whose QP is made with rdma_create_qp_ex and send operations posts
 * sends and RDMA writes with ibv_wr_start / ibv_wr_send / ibv_wr_rdma_write
 * / ibv_wr_set_sge / ibv_wr_complete, and polls an ibv_cq_ex with
 * ibv_start_poll / ibv_end_poll; a server thread (the classic API) checks
 * every message and, at the end, every byte written.
 *
 * It is built against the stock header and run unmodified; it prints how
 * many times it called each extended call ("calls: NAME N BYTES"), for the
 * exit table of the preload library to be compared with.
 *
 * ibv_next_poll is not called: in rdma-core 44's rxe provider, a next_poll
 * that finds nothing unlocks the CQ and moves its consumer index, and the
 * end_poll that must follow does both again (fixed in rdma-core 55 and 59);
 * the fake-provider test covers it.
 *
 * Usage: exapi PORT N      (N requests, sends and writes in turn)
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define ADDR "192.0.2.1"
#define SIZE 128
#define WINDOW 32
#define BATCH 8

static const char *port;
static int n;
static sem_t listening;

struct region {
	uint64_t addr;
	uint32_t rkey;
};

/* Request i is a send if even, or the last one (posted after every write
 * completed, so that the server checks the writes after it); else a write. */
static int is_send(int i)
{
	return i % 2 == 0 || i == n - 1;
}

static void die(const char *what)
{
	printf("exapi: FAIL: %s (errno %d %s)\n", what, errno, strerror(errno));
	exit(1);
}

static uint8_t pattern(int i, int j)
{
	return (uint8_t)(i * 29 + j * 3 + 5);
}

static struct rdma_addrinfo *resolve(int passive)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	hints.ai_flags = passive ? RAI_PASSIVE : 0;
	if (rdma_getaddrinfo(ADDR, port, &hints, &res))
		die("rdma_getaddrinfo");
	return res;
}

/* The server: receives every send and checks it, then every write. */
static void *server(void *arg)
{
	static uint8_t rbuf[64][SIZE];
	uint8_t *wregion = calloc((size_t)n, SIZE);
	struct rdma_addrinfo *res = resolve(1);
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *listen_id, *id;
	struct rdma_conn_param param;
	struct region reg;
	struct ibv_mr *mr, *wmr;
	struct ibv_wc wc;
	int i, j, bad = 0, sends = 0, writes = 0;

	(void)arg;
	for (i = 0; i < n; i++)
		sends += is_send(i);
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 64;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	if (!wregion || rdma_create_ep(&listen_id, res, NULL, &attr) || rdma_listen(listen_id, 1))
		die("server listen");
	sem_post(&listening);
	if (rdma_get_request(listen_id, &id))
		die("rdma_get_request");
	mr = rdma_reg_msgs(id, rbuf, sizeof(rbuf));
	wmr = rdma_reg_write(id, wregion, (size_t)n * SIZE);
	if (!mr || !wmr)
		die("server registration");
	for (i = 0; i < 64; i++)
		if (rdma_post_recv(id, (void *)(uintptr_t)i, rbuf[i], SIZE, mr))
			die("rdma_post_recv");
	reg.addr = (uintptr_t)wregion;
	reg.rkey = wmr->rkey;
	memset(&param, 0, sizeof(param));
	param.private_data = &reg;
	param.private_data_len = sizeof(reg);
	param.responder_resources = param.initiator_depth = 4;
	param.retry_count = param.rnr_retry_count = 7;
	if (rdma_accept(id, &param))
		die("rdma_accept");
	for (i = 0; i < sends; i++) {
		int slot, seq;

		if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
			die("server receive");
		slot = (int)wc.wr_id;
		seq = rbuf[slot][0] | rbuf[slot][1] << 8;
		for (j = 2; j < SIZE; j++)
			bad += rbuf[slot][j] != pattern(seq, j);
		if (rdma_post_recv(id, (void *)(uintptr_t)slot, rbuf[slot], SIZE, mr))
			die("rdma_post_recv");
	}
	/* the client's last send comes after its last write completed */
	for (i = 0; i < n; i++) {
		if (is_send(i))
			continue;
		writes++;
		for (j = 0; j < SIZE; j++)
			bad += wregion[(size_t)i * SIZE + j] != pattern(i, j);
	}
	printf("exapi: server: %d sends received, %d writes checked, %d bad bytes\n", sends,
	       writes, bad);
	rdma_disconnect(id);
	if (bad)
		exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr_ex attr;
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_poll_cq_attr poll_attr = { 0 };
	struct rdma_conn_param param;
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;
	const struct region *reg;
	struct ibv_qp_ex *qpx;
	struct ibv_cq_ex *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	pthread_t t;
	long starts = 0, ends = 0, batches = 0, sge_bytes = 0, sends = 0, writes = 0;
	int next = 0, done = 0, outstanding = 0, j;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (n = atoi(argv[2])) < 2)
		return 2;
	port = argv[1];
	sem_init(&listening, 0, 0);
	pthread_create(&t, NULL, server, NULL);
	sem_wait(&listening);

	res = resolve(0);
	if (rdma_create_ep(&id, res, NULL, NULL))	/* no QP yet */
		die("rdma_create_ep");
	pd = ibv_alloc_pd(id->verbs);
	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = 2 * WINDOW;
	cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	cq = ibv_create_cq_ex(id->verbs, &cq_attr);
	buf = calloc((size_t)n, SIZE);
	if (!pd || !cq || !buf)
		die("pd, cq_ex");
	memset(&attr, 0, sizeof(attr));
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.pd = pd;
	attr.send_cq = attr.recv_cq = ibv_cq_ex_to_cq(cq);
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 2 * WINDOW;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	if (rdma_create_qp_ex(id, &attr))
		die("rdma_create_qp_ex");
	qpx = ibv_qp_to_qp_ex(id->qp);
	mr = ibv_reg_mr(pd, buf, (size_t)n * SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!qpx || !mr)
		die("qp_ex, mr");
	memset(&param, 0, sizeof(param));
	param.responder_resources = param.initiator_depth = 4;
	param.retry_count = param.rnr_retry_count = 7;
	if (rdma_connect(id, &param))
		die("rdma_connect");
	reg = id->event->param.conn.private_data;
	if (!reg)
		die("no region from the server");

	/* Sends and writes by is_send(); the last one posted last of all. */
	while (done < n) {
		if (next < n && outstanding < WINDOW && (next != n - 1 || done == n - 1)) {
			int b = 0;

			ibv_wr_start(qpx);
			batches++;
			while (b < BATCH && next < n && outstanding < WINDOW &&
			       (next != n - 1 || done == n - 1)) {
				uint8_t *p = buf + (size_t)next * SIZE;

				for (j = 0; j < SIZE; j++)
					p[j] = pattern(next, j);
				qpx->wr_id = (uint64_t)next;
				qpx->wr_flags = IBV_SEND_SIGNALED;
				if (is_send(next)) {
					p[0] = (uint8_t)next;
					p[1] = (uint8_t)(next >> 8);
					ibv_wr_send(qpx);
					sends++;
				} else {
					ibv_wr_rdma_write(qpx, reg->rkey,
							  reg->addr + (uint64_t)next * SIZE);
					writes++;
				}
				ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)p, SIZE);
				sge_bytes += SIZE;
				next++, b++, outstanding++;
			}
			if (ibv_wr_complete(qpx))
				die("ibv_wr_complete");
		}
		starts++;
		if (ibv_start_poll(cq, &poll_attr))
			continue;
		if (cq->status != IBV_WC_SUCCESS)
			die(ibv_wc_status_str(cq->status));
		ibv_end_poll(cq);
		ends++;
		done++;
		outstanding--;
	}
	pthread_join(t, NULL);
	printf("calls: ibv_wr_start %ld 0\n", batches);
	printf("calls: ibv_wr_send %ld 0\n", sends);
	printf("calls: ibv_wr_rdma_write %ld 0\n", writes);
	printf("calls: ibv_wr_set_sge %ld %ld\n", sends + writes, sge_bytes);
	printf("calls: ibv_wr_complete %ld 0\n", batches);
	printf("calls: ibv_start_poll %ld 0\n", starts);
	printf("calls: ibv_end_poll %ld 0\n", ends);
	rdma_disconnect(id);
	ibv_dereg_mr(mr);
	rdma_destroy_qp(id);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ibv_dealloc_pd(pd);
	rdma_destroy_ep(id);
	printf("exapi: PASS %d requests (%ld sends, %ld writes) in %ld batches\n", n, sends, writes,
	       batches);
	return 0;
}
