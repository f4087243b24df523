/*
 * A use of every function of <rdma/rdma_verbs.h>, written to be valid C90,
 * every later C and every C++ from C++98: header-matrix.sh compiles it
 * against the stock header and ours under each standard, and, with
 * RDMAVERBS_API defined, with our <rdmaverbs.h> too.
 */
#include <rdma/rdma_verbs.h>
#ifdef RDMAVERBS_API
#include <rdmaverbs.h>
#endif

int use_every_function(struct rdma_cm_id *id, struct ibv_mr *mr, struct ibv_sge *sgl,
		       struct ibv_ah *ah, struct ibv_wc *wc);

int use_every_function(struct rdma_cm_id *id, struct ibv_mr *mr, struct ibv_sge *sgl,
		       struct ibv_ah *ah, struct ibv_wc *wc)
{
	static char buf[64];
	struct ibv_mr *m;
	int r = 0;

	m = rdma_reg_msgs(id, buf, sizeof(buf));
	m = rdma_reg_read(id, buf, sizeof(buf));
	m = rdma_reg_write(id, buf, sizeof(buf));
	r |= rdma_dereg_mr(m);
	r |= rdma_post_recvv(id, buf, sgl, 2);
	r |= rdma_post_sendv(id, buf, sgl, 2, 0);
	r |= rdma_post_readv(id, buf, sgl, 2, 0, 0, 0);
	r |= rdma_post_writev(id, buf, sgl, 2, 0, 0, 0);
	r |= rdma_post_recv(id, buf, buf, sizeof(buf), mr);
	r |= rdma_post_send(id, buf, buf, sizeof(buf), mr, IBV_SEND_SIGNALED);
	r |= rdma_post_read(id, buf, buf, sizeof(buf), mr, 0, 0, 0);
	r |= rdma_post_write(id, buf, buf, sizeof(buf), mr, 0, 0, 0);
	r |= rdma_post_ud_send(id, buf, buf, sizeof(buf), mr, 0, ah, 1);
	r |= rdma_get_send_comp(id, wc);
	r |= rdma_get_recv_comp(id, wc);
#ifdef RDMAVERBS_API
	r |= rdma_get_send_comp_timeout(id, wc, 0);
	r |= rdma_get_recv_comp_timeout(id, wc, -1);
#endif
	r |= rdma_create_srq(id, id->pd, 0);
	rdma_destroy_srq(id);
	return rdma_seterrno(r);
}
