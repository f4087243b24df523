/*
 * The helpers verbs.c's and siw-verbs.c's exchanges use alike
 * (verbs-common.h), and their messages' sizes.
 */
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs-table.h"
#include "verbs-common.h"

const uint32_t p1_size[P1_N] = { 1, 1500, 48, 4096, 333, 2048, 60, 1400 };
const uint32_t p2_size[P2_N] = { 4096, 7, 64, 1000, 2500, 1 };

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n completions of a classic CQ, polled in batches of up to 8. */
void reap(struct ibv_cq *cq, int n, struct ibv_wc *wc, const char *what)
{
	double end = now() + WAIT_MS / 1000.0;
	int got = 0, ret;

	while (got < n) {
		ret = v.ibv_poll_cq(cq, n - got < 8 ? n - got : 8, wc + got);
		CHECK(ret >= 0, "%s: ibv_poll_cq returned %d", what, ret);
		if (ret == 0) {
			CHECK(now() < end, "%s: %d of %d completions within %d ms", what, got, n,
			      WAIT_MS);
			usleep(20);
		}
		got += ret;
	}
}

/* Waits for the event of a CQ armed with ibv_req_notify_cq, and acks it. */
void wait_event(struct ibv_comp_channel *ch, struct ibv_cq *want, const char *what)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	CHECK(poll(&p, 1, WAIT_MS) == 1, "%s: no completion event within %d ms", what, WAIT_MS);
	CHECK(!ibv_get_cq_event(ch, &cq, &ctx), "%s: ibv_get_cq_event", what);
	CHECK(cq == want, "%s: the event of another CQ", what);
	ibv_ack_cq_events(cq, 1);
	obs("%s: a completion event on the channel", what);
}

struct rdma_addrinfo *resolve(const char *addr, const char *port, int passive)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	CHECK(!rdma_getaddrinfo(addr, port, &hints, &res), "rdma_getaddrinfo");
	return res;
}

struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	/* (ibv_reg_mr): the real function, not verbs.h's macro and inline
	 * __ibv_reg_mr */
	struct ibv_mr *mr = (ibv_reg_mr)(pd, addr, len, access);

	CHECK(mr, "ibv_reg_mr of %zu bytes", len);
	return mr;
}

struct ibv_qp_cap qp_cap(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	CHECK(!ibv_query_qp(qp, &attr, IBV_QP_CAP, &init), "ibv_query_qp");
	return attr.cap;
}
