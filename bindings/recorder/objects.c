/*
 * The recording provider (recorder.c): its fake objects. recorder_id()
 * makes them anew, on one context whose ops record (record_start); the
 * id's route holds two IPv4 addresses with known ports, for
 * rdma_get_src_port and rdma_get_dst_port (librdmacm reads them there).
 * recorder_empty_cq() is a CQ of a context of its own whose polls find
 * nothing.
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "recorder.h"

/* The ports of the fake route, in host order (test values). */
#define SRC_PORT 18577
#define DST_PORT 50000

static void address(struct sockaddr *sa, uint16_t port, uint32_t addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr = { .s_addr = htonl(addr) } };

	memcpy(sa, &sin, sizeof(sin));
}

struct rdma_cm_id *recorder_id(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.vctx.sz = sizeof(fake.vctx);
	CTX.abi_compat = __VERBS_ABI_IS_EXTENDED;
	record_start();
	fake.pd.context = &CTX;
	fake.srq.context = &CTX;
	fake.srq.pd = &fake.pd;
	fake.cq.context = &CTX;
	fake.cq.cqe = 16;
	fake.qp.context = &CTX;
	fake.qp.pd = &fake.pd;
	fake.qp.qp_type = IBV_QPT_RC;
	fake.qpx.qp_base.context = &CTX;
	fake.qpx.qp_base.pd = &fake.pd;
	fake.qpx.qp_base.qp_type = IBV_QPT_RC;
	fake.id.verbs = &CTX;
	fake.id.qp = &fake.qp;
	fake.id.pd = &fake.pd;
	fake.id.qp_type = IBV_QPT_RC;
	address(&fake.id.route.addr.src_addr, SRC_PORT, 0x0a000001);	/* 10.0.0.1 */
	address(&fake.id.route.addr.dst_addr, DST_PORT, 0x0a000002);	/* 10.0.0.2 */
	return &fake.id;
}

struct ibv_qp *recorder_qp(void)
{
	return &fake.qp;
}

struct ibv_qp_ex *recorder_qp_ex(void)
{
	return &fake.qpx;
}

struct ibv_pd *recorder_pd(void)
{
	return &fake.pd;
}

struct ibv_srq *recorder_srq(void)
{
	return &fake.srq;
}

struct ibv_cq *recorder_cq(void)
{
	return &fake.cq;
}

static int poll_none(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	(void)n;
	(void)wc;
	return 0;
}

struct ibv_cq *recorder_empty_cq(void)
{
	static struct ibv_context ctx;
	static struct ibv_cq cq;

	ctx.ops.poll_cq = poll_none;
	cq.context = &ctx;
	return &cq;
}

