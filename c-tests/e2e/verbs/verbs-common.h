/*
 * What verbs.c's exchange (on rxe) and siw-verbs.c's (on siw) share: the
 * sizes and the data of their messages, their wr_ids' numbering, and the
 * helpers both use alike (verbs-common.c): the clock, polling a CQ,
 * waiting for a CQ's event, resolving the address, registering memory,
 * asking a QP its capabilities.
 */
#ifndef VERBS_COMMON_H
#define VERBS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define WAIT_MS 30000	/* the longest wait for a completion or an event */
#define DEPTH 4		/* RDMA reads (rxe: and atomics) in flight, each way */
#define SLOT 4096
#define RSLOT (SLOT + 128)	/* a server receive: 100 bytes, a gap, the rest */
#define GAP 128
#define WIN 4096

/* Phase 1, client to server: 8 messages (verbs.c and siw-verbs.c say how
 * each is posted). */
#define P1_N 8
extern const uint32_t p1_size[P1_N];
#define P1_SEED(k) (0x10 + (k))
/* Phase 2, server to client: 6 messages, one ibv_post_send chain. */
#define P2_N 6
extern const uint32_t p2_size[P2_N];
#define P2_SEED(j) (0x20 + (j))
#define WRITE_SEED 0x30		/* the client's write into the server's window */
#define SINK_SEED 0x40		/* the server's write into the client's sink */
#define SOURCE_SEED 0x50	/* the client's source, read by the server */

/* wr_ids */
#define SRQ_ID(k) (0x5200u + (k))	/* server receive k (SRQ slot k % 16) */
#define CRECV_ID(j) (0xc100u + (j))	/* client receive j */
#define P1_ID(k) (0xa100u + (k))
#define P2_ID(j) (0xb200u + (j))

double now(void);
/* n completions of a classic CQ, polled through the table in batches of up
 * to 8. */
void reap(struct ibv_cq *cq, int n, struct ibv_wc *wc, const char *what);
/* Waits for the event of a CQ armed with ibv_req_notify_cq, and acks it. */
void wait_event(struct ibv_comp_channel *ch, struct ibv_cq *want, const char *what);
struct rdma_addrinfo *resolve(const char *addr, const char *port, int passive);
struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len, int access);
struct ibv_qp_cap qp_cap(struct ibv_qp *qp);

#endif
