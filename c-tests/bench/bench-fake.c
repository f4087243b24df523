/*
 * The benchmark's fake provider: ops and replaced libibverbs functions that
 * do trivial work. In a file of its own so that no variant can inline them;
 * the binary exports them (-rdynamic), so the two libraries bind to them.
 */
#include <stdlib.h>
#include <infiniband/verbs.h>

int op_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int op_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int op_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *w);

static struct ibv_mr mr;

int op_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)q; (void)wr; (void)bad;
	return 0;
}

int op_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)q; (void)wr; (void)bad;
	return 0;
}

int op_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *w)
{
	(void)c; (void)n;
	w->wr_id = 1;
	return 1;	/* a completion is always ready */
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *p, void *addr, size_t length, int access)
{
	(void)p; (void)addr; (void)length; (void)access;
	return &mr;
}

int ibv_dereg_mr(struct ibv_mr *m)
{
	(void)m;
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **c, void **context)
{
	(void)ch; (void)c; (void)context;
	abort();	/* never on the main path */
}

void ibv_ack_cq_events(struct ibv_cq *c, unsigned int n)
{
	(void)c; (void)n;
	abort();
}

