/*
 * wire.c's server: receives (at most --recv-limit), every message's
 * checksum and every write slot checked, and its RESULT line.
 */
#include "wire-common.h"

/* ---- the server ---- */

int server(const char *port, int recv_limit, int rnr_retry, int time_limit)
{
	static uint8_t wregion[MAX_N * SIZE], rregion[MAX_N * SIZE];
	static struct msg rbuf[32];
	struct rdma_addrinfo *res = resolve(NULL, port, 1);
	struct rdma_cm_id *listen_id, *id;
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct ibv_mr *wmr, *rmr, *mmr;
	struct regions reg;
	struct ibv_wc wc;
	long received = 0, bad = 0, writes = 0, posted = 0, done_n = -1;
	const char *end = "?";
	int i, ret;

	qp_attr(&attr);
	if (rdma_create_ep(&listen_id, res, NULL, &attr) || rdma_listen(listen_id, 1))
		die("server listen");
	printf("listening on port %s\n", port);
	fflush(stdout);
	if (rdma_get_request(listen_id, &id))
		die("rdma_get_request");
	for (i = 0; i < MAX_N; i++)
		fill_slot(rregion + (size_t)i * SIZE, (uint32_t)i);
	wmr = rdma_reg_write(id, wregion, sizeof(wregion));
	rmr = rdma_reg_read(id, rregion, sizeof(rregion));
	mmr = rdma_reg_msgs(id, rbuf, sizeof(rbuf));
	if (!wmr || !rmr || !mmr)
		die("registration");
	for (i = 0; i < 32 && (recv_limit < 0 || posted < recv_limit); i++, posted++)
		if (rdma_post_recv(id, (void *)(uintptr_t)i, &rbuf[i], sizeof(rbuf[i]), mmr))
			die("rdma_post_recv");
	reg.write_addr = (uintptr_t)wregion;
	reg.read_addr = (uintptr_t)rregion;
	reg.write_rkey = wmr->rkey;
	reg.read_rkey = rmr->rkey;
	memset(&param, 0, sizeof(param));
	param.private_data = &reg;
	param.private_data_len = sizeof(reg);
	param.responder_resources = param.initiator_depth = 4;
	param.retry_count = 6;
	param.rnr_retry_count = (uint8_t)rnr_retry;
	if (rdma_accept(id, &param))
		die("rdma_accept");
	signal(SIGALRM, watchdog);
	for (;;) {
		int slot;
		struct msg *m;

		alarm((unsigned)time_limit);
		ret = next_comp(id, 1, &wc, time_limit * 1000 / 2);
		alarm(0);
		if (ret < 0 && errno == ETIMEDOUT) {
			end = "timed out (rdma_get_recv_comp_timeout: ETIMEDOUT)";
			break;
		}
		if (ret != 1) {
			end = "rdma_get_recv_comp failed";
			break;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			end = ibv_wc_status_str(wc.status);
			break;
		}
		slot = (int)(uintptr_t)wc.wr_id;
		m = &rbuf[slot];
		if (m->tag == KILL_TAG) {
			printf("RESULT server received=%ld bad=%ld writes_checked=0 end=killed\n",
			       received, bad);
			fflush(stdout);
			raise(SIGKILL);
		}
		if (m->tag == DONE_TAG) {
			done_n = m->seq;
			end = "done";
			break;
		}
		received++;
		bad += m->sum != checksum(m->body, sizeof(m->body)) || wc.byte_len != sizeof(*m);
		if (recv_limit < 0 || posted < recv_limit) {
			if (rdma_post_recv(id, (void *)(uintptr_t)slot, m, sizeof(*m), mmr))
				die("rdma_post_recv");
			posted++;
		}
	}
	/* After "done" (seq N + 1): every write slot the client wrote, every
	 * third from 1 below N */
	for (i = 1; done_n > 0 && i < done_n - 1; i += 3) {
		writes++;
		bad += !slot_ok(wregion + (size_t)i * SIZE, (uint32_t)i);
	}
	printf("RESULT server received=%ld bad=%ld writes_checked=%ld end=%s\n", received, bad,
	       writes, end);
	fflush(stdout);
	if (!strcmp(end, "done"))
		rdma_disconnect(id);
	return 0;
}
