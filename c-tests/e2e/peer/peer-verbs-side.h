/*
 * What both sides of the C verbs peer (peer-verbs.c) use, from
 * peer-verbs-side.c: the exchange's constants, a side's objects (struct
 * side: made, torn down), the checks of completions, the sends, the bytes,
 * and the steps of the server's and the client's own.
 */
#ifndef PEER_VERBS_SIDE_H
#define PEER_VERBS_SIDE_H

#include <stdint.h>

#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#define SLOT 64
#define SLOTS 8
#define INITIAL 0x1122334455667788ULL
#define ADD 0x1000000000000001ULL
#define SWAP 0x0fedcba987654321ULL
#define STALE_SWAP 0xdeaddeaddeaddeadULL
#define CQ_CONTEXT ((void *)0xc0ffee)
#define WAIT_MS 60000

extern const char *role;
extern int iwarp;	/* VERBS_PROFILE=iwarp */

/* The objects of one side: made on the id's context, the QP on them. */
struct side {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_mr *recv_mr, *send_mr, *atom_mr;
	uint32_t qp_num;
	uint8_t recv[SLOTS * SLOT], send[5 * SLOT];
	uint64_t atom[3];	/* the client's results; the server's word */
};

extern const uint32_t CLIENT_LENS[4];
extern const uint32_t SERVER_LENS[5];

void die(const char *what);
void check(int ok, const char *what);
/* An errno value a verb returned: 0, or the end. */
void verb(int err, const char *what);
/* Waits (poll, WAIT_MS) for a descriptor to be readable. */
void readable(int fd, const char *what);
/* The channel's next event, of the type wanted, for id, status 0: acked. */
void event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  struct rdma_cm_id *id, struct rdma_cm_id **new_id);
/* Polls cq (up to 8 at once) until n completions are in wc. */
void completions(struct ibv_cq *cq, int n, struct ibv_wc *wc);
/* One completion, every field: wr_id, SUCCESS, the opcode, the byte
 * count, the flags, the immediate data (0 without), on qp_num; the fields
 * RC leaves unset 0. What rxe gives where verbs.h leaves a field undefined
 * is checked too (bindings/verbs-protocol.md): a send's byte count is the
 * message's, its flags WITH_IMM with immediate data (but the data 0), a
 * receive's flags GRH (RoCE). */
void completion(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
		       unsigned int flags, uint32_t imm, uint32_t qp_num);
/* A receive's flags: GRH (RoCE), WITH_IMM with immediate data; none on
 * iWARP. */
unsigned int recv_flags(int with_imm);
/* The immediate data a receive carries: none on iWARP. */
uint32_t imm_of(uint32_t imm);
struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len, unsigned int access);
void objects(struct side *s);
/* In the order verbs.h's objects depend on each other: the QP, the SRQ,
 * the CQs (every event acked first: ibv_destroy_cq waits for it), the
 * channel, the MRs, the PD, the id. */
void teardown(struct side *s);
/* Sends (signaled, one list) n messages of send[], each over one SGE of
 * lens[k] bytes (two for the client's: 16 and the rest), with immediate
 * data imm + k; the last with flags too; then their n completions. */
void sends(struct side *s, int n, uint64_t wr_id, const uint32_t *lens, int with_imm, uint32_t imm,
		  unsigned int last_flags, int two_sges);
/* The pattern of message k of a side: (seed + 7k + j) mod 256. */
void fill(uint8_t *at, uint32_t len, int seed, int k);
void same(const uint8_t *at, uint32_t len, int seed, int k);
void le(uint8_t *at, uint64_t v, int n);
uint64_t from_le(const uint8_t *at, int n);
/* Step 1, the server's: the keys (the word's address, its rkey, its value). */
void server_keys(struct side *s);
/* Step 3, the client's: four sends into the server's SRQ, two SGEs each,
 * immediate data. */
void client_sends(struct side *s);
/* iWARP: the server waits (WAIT_MS at most) for the client's write of
 * SWAP into its word before step 4, so that the five do not join the keys
 * in the client's first poll (on RoCE the client's four sends come
 * between). */
void swapped(struct side *s);

#endif
