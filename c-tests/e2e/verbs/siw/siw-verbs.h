/*
 * siw-verbs.c's exchange on soft-iWARP (siw-verbs.c says what it does),
 * shared by its files: siw-verbs.c (main), siw-server.c, siw-client.c and
 * below them siw-helpers.c; its wr_ids and the keys the sides swap.
 */
#ifndef SIW_VERBS_H
#define SIW_VERBS_H

#include "../verbs-table.h"
#include "../verbs-common.h"

/* wr_ids of the one-sided requests and of the server's chain */
enum { OS_WRITE = 0xa300, OS_READ, OS_DONE };
enum { S_WRITE = 0xb400, S_READ, S_BYE };

/* A side's remote memory, in the connection's private data. */
struct keys {
	uint64_t win_addr;	/* server: the window; client: the sink, then the source */
	uint32_t win_rkey;
	uint32_t pad;
};

const char *opcode_name(unsigned op);
void check_wc(const char *what, int i, const struct ibv_wc *wc, uint64_t wr_id,
		     unsigned opcode, long byte_len, uint32_t qp_num);
void nothing_more(struct ibv_cq *cq, const char *what);
void to_init(struct rdma_cm_id *id, struct ibv_qp *qp);
void qp_state(struct ibv_qp *qp, const char *when);
void connect_param(struct rdma_conn_param *p, struct ibv_qp *qp, int srq,
			  const struct keys *mine);
struct keys peer_keys(const struct rdma_cm_event *event);
struct ibv_device_attr device(struct ibv_context *ctx);
void refuse_send(struct ibv_qp *qp, struct ibv_send_wr *wr, const char *what);

void server(const char *addr, const char *port);
void client(const char *addr, const char *port);

#endif
