/*
 * A stand-in libibverbs.so.1 with nothing behind the functions the preload
 * library interposes: only those it imports (so that it loads), which
 * fail. With it first on LD_LIBRARY_PATH, the preload library finds no
 * ibv_open_device (and the others) at IBVERBS_1.1 after itself, as in a
 * process whose libibverbs is broken or missing them (nolibibverbs.c).
 */
#include <errno.h>
#include <stddef.h>

#include "functions.h"	/* RDMAVERBS_HAS_name: the build's functions (build/gen) */

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

/* The functions the exports of <infiniband/verbs.h> call: each fails with
 * ENOSYS, as libibverbs' own would without a provider. */
struct ibv_context;
struct ibv_device_attr;
struct ibv_srq_init_attr;
struct ibv_qp_init_attr;
struct ibv_srq;

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, unsigned long iova,
			       int access)
{
	(void)pd, (void)addr, (void)length, (void)iova, (void)access;
	errno = ENOSYS;
	return NULL;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				unsigned long iova, unsigned int access)
{
	(void)pd, (void)addr, (void)length, (void)iova, (void)access;
	errno = ENOSYS;
	return NULL;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	(void)pd, (void)attr;
	errno = ENOSYS;
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	(void)pd, (void)attr;
	errno = ENOSYS;
	return NULL;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context, (void)attr;
	return ENOSYS;
}

int ibv_query_port(struct ibv_context *context, unsigned char port, void *attr)
{
	(void)context, (void)port, (void)attr;
	return ENOSYS;
}

int _ibv_query_gid_ex(struct ibv_context *context, unsigned int port, unsigned int index,
		      void *entry, unsigned int flags, size_t size)
{
	(void)context, (void)port, (void)index, (void)entry, (void)flags, (void)size;
	return ENOSYS;
}

long _ibv_query_gid_table(struct ibv_context *context, void *entries, size_t max,
			  unsigned int flags, size_t size)
{
	(void)context, (void)entries, (void)max, (void)flags, (void)size;
	return -ENOSYS;
}

#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
struct ibv_context;
struct ibv_comp_cntr_caps;

int _ibv_query_comp_cntr_caps(struct ibv_context *context, struct ibv_comp_cntr_caps *caps, size_t size)
{
	(void)context;
	(void)caps;
	(void)size;
	return ENOSYS;
}
#endif
