/*
 * The lower half of the C verbs peer (peer-verbs-side.h says what it holds),
 * below peer-verbs.c's server and client.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "peer-verbs-side.h"

const char *role;
int iwarp;	/* VERBS_PROFILE=iwarp */

void die(const char *what)
{
	fprintf(stderr, "verbs %s: %s (errno %d, %s)\n", role, what, errno, strerror(errno));
	exit(1);
}

void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "verbs %s: %s\n", role, what);
		exit(1);
	}
}

/* An errno value a verb returned: 0, or the end. */
void verb(int err, const char *what)
{
	if (err) {
		errno = err;
		die(what);
	}
}

/* Waits (poll, WAIT_MS) for a descriptor to be readable. */
void readable(int fd, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, WAIT_MS);

	if (n < 0)
		die("poll");
	check(n == 1, what);
}

/* The channel's next event, of the type wanted, for id, status 0: acked. */
void event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  struct rdma_cm_id *id, struct rdma_cm_id **new_id)
{
	struct rdma_cm_event *ev;
	char what[160];

	readable(ch->fd, "no rdma_cm event within the wait");
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	snprintf(what, sizeof(what), "rdma_cm event %s status %d; want %s", rdma_event_str(ev->event),
		 ev->status, rdma_event_str(want));
	check(ev->event == want && ev->status == 0 && (!id || ev->id == id), what);
	if (new_id)
		*new_id = ev->id;
	if (rdma_ack_cm_event(ev))
		die("rdma_ack_cm_event");
}

/* Polls cq (up to 8 at once) until n completions are in wc. */
void completions(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct timespec pause = { 0, 1000000 };
	int got = 0, r, spins = 0;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got < 8 ? n - got : 8, wc + got);
		if (r < 0)
			die("ibv_poll_cq");
		got += r;
		if (!r) {
			check(++spins < WAIT_MS, "too few completions within the wait");
			nanosleep(&pause, NULL);
		}
	}
}

/* One completion, every field: wr_id, SUCCESS, the opcode, the byte
 * count, the flags, the immediate data (0 without), on qp_num; the fields
 * RC leaves unset 0. What rxe gives where verbs.h leaves a field undefined
 * is checked too (bindings/verbs-protocol.md): a send's byte count is the
 * message's, its flags WITH_IMM with immediate data (but the data 0), a
 * receive's flags GRH (RoCE). */
void completion(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
		       unsigned int flags, uint32_t imm, uint32_t qp_num)
{
	char what[240];

	snprintf(what, sizeof(what), "completion: wr_id %#" PRIx64 " status %d opcode %d byte_len %u "
		 "flags %#x imm %#x qp %u src_qp %u pkey %u slid %u sl %u bits %u vendor_err %u; want "
		 "%#" PRIx64 " %d %u %#x %#x qp %u", wc->wr_id, wc->status, wc->opcode, wc->byte_len,
		 wc->wc_flags, ntohl(wc->imm_data), wc->qp_num, wc->src_qp, wc->pkey_index, wc->slid,
		 wc->sl, wc->dlid_path_bits, wc->vendor_err, wr_id, op, len, flags, imm, qp_num);
	check(wc->wr_id == wr_id && wc->status == IBV_WC_SUCCESS && wc->opcode == op && wc->byte_len == len &&
	      wc->wc_flags == flags && ntohl(wc->imm_data) == imm && wc->qp_num == qp_num &&
	      wc->vendor_err == 0 && (iwarp || (wc->src_qp == 0 && wc->pkey_index == 0 && wc->slid == 0 &&
	      wc->sl == 0 && wc->dlid_path_bits == 0)), what);
}

/* A receive's flags: GRH (RoCE), WITH_IMM with immediate data; none on
 * iWARP. */
unsigned int recv_flags(int with_imm)
{
	return iwarp ? 0 : IBV_WC_GRH | (with_imm ? IBV_WC_WITH_IMM : 0);
}

/* The immediate data a receive carries: none on iWARP. */
uint32_t imm_of(uint32_t imm)
{
	return iwarp ? 0 : imm;
}


struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len, unsigned int access)
{
	struct ibv_mr *mr = ibv_reg_mr_iova2(pd, addr, len, (uintptr_t)addr, access);

	if (!mr)
		die("ibv_reg_mr_iova2");
	return mr;
}

void objects(struct side *s)
{
	struct ibv_srq_init_attr srq_attr = { .attr = { .max_wr = SLOTS, .max_sge = 1 } };
	struct ibv_qp_init_attr attr;
	struct ibv_recv_wr recvs[SLOTS], *bad;
	struct ibv_sge sge[SLOTS];
	int i;

	if (!(s->pd = ibv_alloc_pd(s->id->verbs)) || !(s->channel = ibv_create_comp_channel(s->id->verbs)) ||
	    !(s->scq = ibv_create_cq(s->id->verbs, 16, NULL, NULL, 0)) ||
	    !(s->rcq = ibv_create_cq(s->id->verbs, 16, CQ_CONTEXT, s->channel, 0)) ||
	    !(s->srq = ibv_create_srq(s->pd, &srq_attr)))
		die("ibv_alloc_pd/ibv_create_comp_channel/ibv_create_cq/ibv_create_srq");
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = s->scq;
	attr.recv_cq = s->rcq;
	attr.srq = s->srq;
	attr.cap.max_send_wr = 8;
	attr.cap.max_send_sge = 2;
	attr.qp_type = IBV_QPT_RC;
	if (rdma_create_qp(s->id, s->pd, &attr))
		die("rdma_create_qp");
	check(s->id->qp && s->id->qp->send_cq == s->scq && s->id->qp->recv_cq == s->rcq &&
	      s->id->qp->srq == s->srq, "the id's QP is not on the CQs and the SRQ given");
	s->qp_num = s->id->qp->qp_num;
	s->recv_mr = reg(s->pd, s->recv, sizeof(s->recv), IBV_ACCESS_LOCAL_WRITE);
	s->send_mr = reg(s->pd, s->send, sizeof(s->send), 0);
	s->atom_mr = reg(s->pd, s->atom, sizeof(s->atom), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			 (iwarp ? IBV_ACCESS_REMOTE_WRITE : IBV_ACCESS_REMOTE_ATOMIC));
	/* The SRQ's receives, one list: slot i, wr_id 0x100 + i. */
	for (i = 0; i < SLOTS; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)(s->recv + SLOT * i), SLOT, s->recv_mr->lkey };
		recvs[i] = (struct ibv_recv_wr){ .wr_id = 0x100 + (uint64_t)i, .sg_list = &sge[i],
						 .num_sge = 1, .next = i + 1 < SLOTS ? &recvs[i + 1] : NULL };
	}
	verb(ibv_post_srq_recv(s->srq, recvs, &bad), "ibv_post_srq_recv");
}

/* In the order verbs.h's objects depend on each other: the QP, the SRQ,
 * the CQs (every event acked first: ibv_destroy_cq waits for it), the
 * channel, the MRs, the PD, the id. */
void teardown(struct side *s)
{
	rdma_destroy_qp(s->id);
	verb(ibv_destroy_srq(s->srq), "ibv_destroy_srq");
	verb(ibv_destroy_cq(s->scq), "ibv_destroy_cq");
	verb(ibv_destroy_cq(s->rcq), "ibv_destroy_cq");
	verb(ibv_destroy_comp_channel(s->channel), "ibv_destroy_comp_channel");
	verb(ibv_dereg_mr(s->recv_mr), "ibv_dereg_mr");
	verb(ibv_dereg_mr(s->send_mr), "ibv_dereg_mr");
	verb(ibv_dereg_mr(s->atom_mr), "ibv_dereg_mr");
	verb(ibv_dealloc_pd(s->pd), "ibv_dealloc_pd");
	if (rdma_destroy_id(s->id))
		die("rdma_destroy_id");
}

/* Sends (signaled, one list) n messages of send[], each over one SGE of
 * lens[k] bytes (two for the client's: 16 and the rest), with immediate
 * data imm + k; the last with flags too; then their n completions. */
void sends(struct side *s, int n, uint64_t wr_id, const uint32_t *lens, int with_imm, uint32_t imm,
		  unsigned int last_flags, int two_sges)
{
	struct ibv_send_wr wr[5], *bad;
	struct ibv_sge sge[10];
	struct ibv_wc wc[5];
	int k;

	with_imm = with_imm && !iwarp;
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < n; k++) {
		uint8_t *at = s->send + SLOT * k;

		sge[2 * k] = (struct ibv_sge){ (uintptr_t)at, two_sges ? 16 : lens[k], s->send_mr->lkey };
		sge[2 * k + 1] = (struct ibv_sge){ (uintptr_t)(at + 16), lens[k] - 16, s->send_mr->lkey };
		wr[k].wr_id = wr_id + (uint64_t)k;
		wr[k].sg_list = &sge[2 * k];
		wr[k].num_sge = two_sges ? 2 : 1;
		wr[k].opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		wr[k].send_flags = IBV_SEND_SIGNALED | (k == n - 1 ? last_flags : 0);
		wr[k].imm_data = htonl(imm + (uint32_t)k);
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
	}
	verb(ibv_post_send(s->id->qp, wr, &bad), "ibv_post_send");
	completions(s->scq, n, wc);
	for (k = 0; k < n; k++)
		completion(&wc[k], wr_id + (uint64_t)k, IBV_WC_SEND, lens[k], with_imm ? IBV_WC_WITH_IMM : 0, 0,
			   s->qp_num);
}

/* The pattern of message k of a side: (seed + 7k + j) mod 256. */
void fill(uint8_t *at, uint32_t len, int seed, int k)
{
	for (uint32_t j = 0; j < len; j++)
		at[j] = (uint8_t)(seed + 7 * k + (int)j);
}

void same(const uint8_t *at, uint32_t len, int seed, int k)
{
	for (uint32_t j = 0; j < len; j++)
		check(at[j] == (uint8_t)(seed + 7 * k + (int)j), "a message byte differs");
}

void le(uint8_t *at, uint64_t v, int n)
{
	for (int j = 0; j < n; j++)
		at[j] = (uint8_t)(v >> (8 * j));
}

uint64_t from_le(const uint8_t *at, int n)
{
	uint64_t v = 0;

	for (int j = 0; j < n; j++)
		v |= (uint64_t)at[j] << (8 * j);
	return v;
}

const uint32_t CLIENT_LENS[4] = { 64, 64, 64, 64 };
const uint32_t SERVER_LENS[5] = { 8, 16, 24, 32, 40 };

/* Step 1, the server's: the keys (the word's address, its rkey, its value). */
void server_keys(struct side *s)
{
	uint32_t len = SLOT;

	memset(s->send, 0, SLOT);
	le(s->send, (uintptr_t)&s->atom[0], 8);
	le(s->send + 8, s->atom_mr->rkey, 4);
	le(s->send + 16, INITIAL, 8);
	sends(s, 1, 0x200, &len, 0, 0, 0, 0);
}

/* Step 3, the client's: four sends into the server's SRQ, two SGEs each,
 * immediate data. */
void client_sends(struct side *s)
{
	int k;

	for (k = 0; k < 4; k++)
		fill(s->send + SLOT * k, SLOT, 0xc1, k);
	sends(s, 4, 0x300, CLIENT_LENS, 1, 0xc0de0000, 0, 1);
}

/* iWARP: the server waits (WAIT_MS at most) for the client's write of
 * SWAP into its word before step 4, so that the five do not join the keys
 * in the client's first poll (on RoCE the client's four sends come
 * between). */
void swapped(struct side *s)
{
	struct timespec pause = { 0, 1000000 };
	int spins = 0;

	while (*(volatile uint64_t *)&s->atom[0] != SWAP) {
		check(++spins < WAIT_MS, "the client's write of SWAP did not come within the wait");
		nanosleep(&pause, NULL);
	}
}
