/*
 * The bindings' recording provider (make builds BUILD_DIR/bindings/
 * librecorder.so; bindings/run.sh names it in RDMAVERBS_RECORDER).
 *
 * Each binding's test loads it with its own FFI, posts through
 * librdmaverbs' vectored calls (rdma_post_sendv, recvv, readv, writev) to
 * the fake id it makes, with an ordinary array of its language, and
 * compares what the provider received, SGE by SGE, with what it passed. No
 * RDMA device, no libibverbs call: the id's QP has a context whose
 * post_send and post_recv ops record the work request they are handed.
 * The id's route holds two IPv4 addresses with known ports, for
 * rdma_get_src_port and rdma_get_dst_port (librdmacm reads them there).
 *
 *   struct rdma_cm_id *recorder_id(void)   the fake id, its record cleared
 *   int recorder_posts(void)               work requests posted so far
 *   const char *recorder_last(void)        the last one, as text:
 *     "send wr_id=0x300 flags=0x2 sge=ADDR:LENGTH:LKEY sge=..."
 *     "write wr_id=... flags=... remote=0x... rkey=0x... sge=..." (read too)
 *     "recv wr_id=... sge=..."
 *   each number in hex, every SGE of the request in order.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* The ports of the fake route, in host order (test values). */
#define SRC_PORT 18577
#define DST_PORT 50000

static struct {
	struct ibv_context ctx;
	struct ibv_pd pd;
	struct ibv_qp qp;
	struct rdma_cm_id id;
} fake;

static int posts;
static char last[1024];

/* Appends to `last`; what does not fit is cut (the comparison then fails). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	size_t used = strlen(last);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last + used, sizeof(last) - used, fmt, ap);
	va_end(ap);
}

static void record_sges(const struct ibv_sge *sgl, int n)
{
	for (int i = 0; i < n; i++)
		say(" sge=0x%" PRIx64 ":0x%" PRIx32 ":0x%" PRIx32, sgl[i].addr, sgl[i].length,
		    sgl[i].lkey);
}

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	(void)bad;
	posts++;
	last[0] = '\0';
	switch (wr->opcode) {
	case IBV_WR_SEND:
		say("send wr_id=0x%" PRIx64 " flags=0x%x", wr->wr_id, wr->send_flags);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		say("%s wr_id=0x%" PRIx64 " flags=0x%x remote=0x%" PRIx64 " rkey=0x%" PRIx32,
		    wr->opcode == IBV_WR_RDMA_READ ? "read" : "write", wr->wr_id, wr->send_flags,
		    wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		break;
	default:
		say("opcode%d wr_id=0x%" PRIx64, (int)wr->opcode, wr->wr_id);
	}
	record_sges(wr->sg_list, wr->num_sge);
	return 0;
}

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	posts++;
	last[0] = '\0';
	say("recv wr_id=0x%" PRIx64, wr->wr_id);
	record_sges(wr->sg_list, wr->num_sge);
	return 0;
}

static void address(struct sockaddr *sa, uint16_t port, uint32_t addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr = { .s_addr = htonl(addr) } };

	memcpy(sa, &sin, sizeof(sin));
}

struct rdma_cm_id *recorder_id(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.ctx.ops.post_send = post_send;
	fake.ctx.ops.post_recv = post_recv;
	fake.pd.context = &fake.ctx;
	fake.qp.context = &fake.ctx;
	fake.qp.pd = &fake.pd;
	fake.qp.qp_type = IBV_QPT_RC;
	fake.id.verbs = &fake.ctx;
	fake.id.qp = &fake.qp;
	fake.id.pd = &fake.pd;
	fake.id.qp_type = IBV_QPT_RC;
	address(&fake.id.route.addr.src_addr, SRC_PORT, 0x0a000001);	/* 10.0.0.1 */
	address(&fake.id.route.addr.dst_addr, DST_PORT, 0x0a000002);	/* 10.0.0.2 */
	posts = 0;
	last[0] = '\0';
	return &fake.id;
}

int recorder_posts(void)
{
	return posts;
}

const char *recorder_last(void)
{
	return last;
}
