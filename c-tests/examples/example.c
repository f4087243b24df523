/*
 * A small program that uses <rdma/rdma_verbs.h> through librdmaverbs, on a
 * tiny in-process "loopback" provider, so that it runs on any machine:
 * rdma_post_send hands a work request to the provider, which completes it
 * at once; rdma_get_send_comp returns that completion.
 *
 * Build: cc example.c $(pkg-config --cflags --libs rdmaverbs)
 */
#include <stdio.h>
#include <string.h>
#include <rdma/rdma_verbs.h>

static struct ibv_wc pending;	/* the one completion the provider holds */
static int npending;
static char wire[64];		/* where the "sent" bytes go */

static int loop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	(void)qp;
	(void)bad;
	memcpy(wire, (void *)(uintptr_t)wr->sg_list[0].addr, wr->sg_list[0].length);
	memset(&pending, 0, sizeof(pending));
	pending.wr_id = wr->wr_id;
	pending.status = IBV_WC_SUCCESS;
	pending.opcode = IBV_WC_SEND;
	pending.byte_len = wr->sg_list[0].length;
	npending = 1;
	return 0;
}

static int loop_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	if (n < 1 || !npending)
		return 0;
	*wc = pending;
	npending = 0;
	return 1;
}

int main(void)
{
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct rdma_cm_id id;
	struct ibv_wc wc;
	char msg[] = "hello from librdmaverbs";
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	memset(&qp, 0, sizeof(qp));
	memset(&cq, 0, sizeof(cq));
	memset(&id, 0, sizeof(id));
	ctx.ops.post_send = loop_post_send;
	ctx.ops.poll_cq = loop_poll_cq;
	qp.context = &ctx;
	cq.context = &ctx;
	id.qp = &qp;
	id.send_cq = &cq;

	ret = rdma_post_send(&id, msg, msg, sizeof(msg), NULL, IBV_SEND_INLINE);
	printf("rdma_post_send returned %d\n", ret);
	ret = rdma_get_send_comp(&id, &wc);
	printf("rdma_get_send_comp returned %d: status %s, %u bytes, wr_id %s\n",
	       ret, ibv_wc_status_str(wc.status), wc.byte_len,
	       wc.wr_id == (uintptr_t)msg ? "is the context posted" : "WRONG");
	printf("the provider received \"%s\"\n", wire);
	ret = rdma_seterrno(EAGAIN);
	printf("rdma_seterrno(EAGAIN) returned %d, errno %s\n", ret,
	       errno == EAGAIN ? "EAGAIN" : "WRONG");
	return !(wc.wr_id == (uintptr_t)msg && !strcmp(wire, msg) && errno == EAGAIN);
}
