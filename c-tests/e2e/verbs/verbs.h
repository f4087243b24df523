/*
 * verbs.c's exchange on rxe (verbs.c says what it does), shared by its
 * files: verbs.c (main), verbs-server.c, verbs-client.c and below them
 * verbs-helpers.c; its data, its wr_ids, the keys the sides swap.
 */
#ifndef VERBS_H
#define VERBS_H

#include "verbs-table.h"
#include "verbs-common.h"

/* Phase 1, client to server: 8 messages. 0-3 one ibv_post_send chain (1
 * with immediate data, over 2 SGEs; 2 inline), 4-7 ibv_wr_* (5 with
 * immediate data, 6 inline, 7 over an SGE list of two equal halves). */
#define P1_IMM(k) (0xc0de0000u + (k))
/* Phase 2, server to client: 6 messages, one ibv_post_send chain (1 with
 * immediate data, 2 inline, 3 over 2 SGEs, 5 solicited). */
#define P2_IMM 0x5e4d0001u
/* The counters and what the atomics do to them. */
#define S_INIT 0x0123456789abcdefull
#define S_ADD 0x1111ull
#define S_SWAP 0xfeedface00000001ull
#define C_INIT 41ull
#define C_SWAP 0x5151ull

/* wr_ids of the one-sided requests and of the server's chain */
enum { OS_WRITE = 0xa300, OS_READ, OS_FADD, OS_CAS, OS_CAS_FAIL, OS_DONE, OS_FLUSH };

/* A build against rdma-core 45's header or later also flushes the window it
 * wrote (ibv_wr_flush, RDMAVERBS_1.4): the server registers it for that,
 * the client's QP is created with it. */
#ifdef RDMAVERBS_HAS_ibv_wr_flush
#define WIN_FLUSH IBV_ACCESS_FLUSH_GLOBAL
#define QP_FLUSH IBV_QP_EX_WITH_FLUSH
#else
#define WIN_FLUSH 0
#define QP_FLUSH 0
#endif
enum { S_WRITE = 0xb400, S_READ, S_FADD, S_CAS, S_BYE };

/* A side's remote memory, in the connection's private data. */
struct keys {
	uint64_t win_addr;	/* server: the window; client: the sink, then the source */
	uint64_t ctr_addr;
	uint32_t win_rkey;
	uint32_t ctr_rkey;
};

/* One completion, as either kind of CQ gives it. */
struct comp {
	uint64_t wr_id;
	enum ibv_wc_status status;
	unsigned opcode, wc_flags;
	uint32_t byte_len, imm, qp_num;
};

const char *opcode_name(unsigned op);
void check_comp(const char *what, int i, const struct comp *c, uint64_t wr_id,
		       unsigned opcode, long byte_len, uint32_t qp_num);
void from_wc(struct comp *c, const struct ibv_wc *wc);
void read_ex(struct ibv_cq_ex *cq, struct comp *c, int full, const char *what);
void next_ex(struct ibv_cq_ex *cq, struct comp *c, const char *what);
void modify(struct rdma_cm_id *id, struct ibv_qp *qp, enum ibv_qp_state state,
		   const char *name);
void connect_param(struct rdma_conn_param *p, struct ibv_qp *qp, int srq,
			  const struct keys *mine);
struct keys peer_keys(const struct rdma_cm_event *event);
void check_atomics(struct ibv_context *ctx);

void server(const char *addr, const char *port);
void client(const char *addr, const char *port);

#endif
