/*
 * A stand-in libibverbs.so.1 with nothing behind the functions the preload
 * library interposes: only the five it imports (so that it loads), which
 * fail. With it first on LD_LIBRARY_PATH, the preload library finds no
 * ibv_open_device (and the others) at IBVERBS_1.1 after itself, as in a
 * process whose libibverbs is broken or missing them (nolibibverbs.c).
 */
#include <errno.h>
#include <stddef.h>

struct ibv_cq;
struct ibv_comp_channel;
struct ibv_mr;
struct ibv_pd;
struct ibv_qp;

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **context)
{
	(void)channel;
	(void)cq;
	(void)context;
	errno = ENOSYS;
	return -1;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	errno = ENOSYS;
	return NULL;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	(void)mr;
	return ENOSYS;
}

void *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	(void)qp;
	return NULL;
}
