/*
 * The C side of the bindings' verbs exchange (bindings/verbs-protocol.md):
 * the server each language's client runs against, and a client of its own
 * (the reference the languages' clients follow). Through the raw API: an
 * event channel and ids (rdma_create_id, rdma_resolve_addr, ...), a PD, two
 * CQs (the receive CQ on a completion channel), an SRQ, the id's QP made on
 * them (rdma_create_qp), ibv_post_send, ibv_post_srq_recv, ibv_poll_cq,
 * ibv_req_notify_cq, ibv_get_cq_event, ibv_ack_cq_events.
 *
 * With VERBS_PROFILE=iwarp in the environment, the exchange's iWARP profile
 * (soft-iWARP: c-tests/e2e/guest/siw.sh; bindings/verbs-protocol.md): the client
 * speaks first (its four sends before the keys), its three atomics become
 * an RDMA read of the server's word, then a write of SWAP into it and a
 * read back; the sends carry no immediate data; no completion has flags
 * (no GRH), and the fields RC leaves unset are not checked (siw does not
 * write them).
 *
 * Built into peer (peer.c): peer verbs server|client ADDR PORT
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

#include "peer-verbs.h"

#define SLOT 64
#define SLOTS 8
#define INITIAL 0x1122334455667788ULL
#define ADD 0x1000000000000001ULL
#define SWAP 0x0fedcba987654321ULL
#define STALE_SWAP 0xdeaddeaddeaddeadULL
#define CQ_CONTEXT ((void *)0xc0ffee)
#define WAIT_MS 60000

static const char *role;
static int iwarp;	/* VERBS_PROFILE=iwarp */

static void die(const char *what)
{
	fprintf(stderr, "verbs %s: %s (errno %d, %s)\n", role, what, errno, strerror(errno));
	exit(1);
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "verbs %s: %s\n", role, what);
		exit(1);
	}
}

/* An errno value a verb returned: 0, or the end. */
static void verb(int err, const char *what)
{
	if (err) {
		errno = err;
		die(what);
	}
}

/* Waits (poll, WAIT_MS) for a descriptor to be readable. */
static void readable(int fd, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, WAIT_MS);

	if (n < 0)
		die("poll");
	check(n == 1, what);
}

/* The channel's next event, of the type wanted, for id, status 0: acked. */
static void event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
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
static void completions(struct ibv_cq *cq, int n, struct ibv_wc *wc)
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
static void completion(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
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
static unsigned int recv_flags(int with_imm)
{
	return iwarp ? 0 : IBV_WC_GRH | (with_imm ? IBV_WC_WITH_IMM : 0);
}

/* The immediate data a receive carries: none on iWARP. */
static uint32_t imm_of(uint32_t imm)
{
	return iwarp ? 0 : imm;
}

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

static struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len, unsigned int access)
{
	struct ibv_mr *mr = ibv_reg_mr_iova2(pd, addr, len, (uintptr_t)addr, access);

	if (!mr)
		die("ibv_reg_mr_iova2");
	return mr;
}

static void objects(struct side *s)
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
static void teardown(struct side *s)
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
static void sends(struct side *s, int n, uint64_t wr_id, const uint32_t *lens, int with_imm, uint32_t imm,
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
static void fill(uint8_t *at, uint32_t len, int seed, int k)
{
	for (uint32_t j = 0; j < len; j++)
		at[j] = (uint8_t)(seed + 7 * k + (int)j);
}

static void same(const uint8_t *at, uint32_t len, int seed, int k)
{
	for (uint32_t j = 0; j < len; j++)
		check(at[j] == (uint8_t)(seed + 7 * k + (int)j), "a message byte differs");
}

static void le(uint8_t *at, uint64_t v, int n)
{
	for (int j = 0; j < n; j++)
		at[j] = (uint8_t)(v >> (8 * j));
}

static uint64_t from_le(const uint8_t *at, int n)
{
	uint64_t v = 0;

	for (int j = 0; j < n; j++)
		v |= (uint64_t)at[j] << (8 * j);
	return v;
}

static const uint32_t CLIENT_LENS[4] = { 64, 64, 64, 64 };
static const uint32_t SERVER_LENS[5] = { 8, 16, 24, 32, 40 };

/* Step 1, the server's: the keys (the word's address, its rkey, its value). */
static void server_keys(struct side *s)
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
static void client_sends(struct side *s)
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
static void swapped(struct side *s)
{
	struct timespec pause = { 0, 1000000 };
	int spins = 0;

	while (*(volatile uint64_t *)&s->atom[0] != SWAP) {
		check(++spins < WAIT_MS, "the client's write of SWAP did not come within the wait");
		nanosleep(&pause, NULL);
	}
}

static int server(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, *res;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	static struct side s;
	struct ibv_wc wc[8];
	uint32_t done = SLOT;
	int k;

	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	if (!(ch = rdma_create_event_channel()) || rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen, res->ai_src_addr) || rdma_listen(listen, 1))
		die("rdma_create_event_channel/rdma_create_id/rdma_bind_addr/rdma_listen");
	printf("verbs: listening\n");
	fflush(stdout);
	event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, &s.id);
	s.atom[0] = INITIAL;
	objects(&s);
	if (rdma_accept(s.id, &param))
		die("rdma_accept");
	event(ch, RDMA_CM_EVENT_ESTABLISHED, s.id, NULL);
	/* 1. Keys: the word's address, its rkey, its value (on iWARP after
	 * step 3: the client speaks first). */
	if (!iwarp)
		server_keys(&s);
	/* 3. The client's four sends into the SRQ, immediate data 0xc0de0000 + k. */
	completions(s.rcq, 4, wc);
	for (k = 0; k < 4; k++) {
		completion(&wc[k], 0x100 + (uint64_t)k, IBV_WC_RECV, SLOT, recv_flags(1),
			   imm_of(0xc0de0000 + (uint32_t)k), s.qp_num);
		same(s.recv + SLOT * k, SLOT, 0xc1, k);
	}
	if (iwarp) {
		server_keys(&s);
		swapped(&s);
	}
	/* 4. Five sends, the last solicited: the client's event. */
	for (k = 0; k < 5; k++)
		fill(s.send + SLOT * k, SERVER_LENS[k], 0x51, k);
	sends(&s, 5, 0x300, SERVER_LENS, 1, 0x5e4d0000, IBV_SEND_SOLICITED, 0);
	/* 5. DONE: the word is the compare-and-swap's; DONE and the word back. */
	completions(s.rcq, 1, wc);
	completion(&wc[0], 0x104, IBV_WC_RECV, SLOT, recv_flags(0), 0, s.qp_num);
	check(!memcmp(s.recv + 4 * SLOT, "DONE", 4), "no DONE");
	check(s.atom[0] == SWAP, "the word is not the compare-and-swap's value");
	memset(s.send, 0, SLOT);
	memcpy(s.send, "DONE", 4);
	le(s.send + 8, s.atom[0], 8);
	sends(&s, 1, 0x400, &done, 0, 0, 0, 0);
	/* 6. Teardown, after the client's disconnect. */
	event(ch, RDMA_CM_EVENT_DISCONNECTED, s.id, NULL);
	teardown(&s);
	if (rdma_destroy_id(listen))
		die("rdma_destroy_id");
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(res);
	printf("verbs: PASS role=server completions=12 word=%#" PRIx64 "\n", s.atom[0]);
	return 0;
}

/* A completion channel's event for the receive CQ: acked, the CQ armed
 * again (solicited_only), then its completions polled (up to 8 at once). */
static int next_event(struct side *s, int solicited_only, struct ibv_wc *wc)
{
	struct ibv_cq *cq;
	void *context;
	int n;

	readable(s->channel->fd, "no completion event within the wait");
	if (ibv_get_cq_event(s->channel, &cq, &context))
		die("ibv_get_cq_event");
	check(cq == s->rcq && context == CQ_CONTEXT, "the event is not the receive CQ's, with its context");
	ibv_ack_cq_events(cq, 1);
	verb(ibv_req_notify_cq(cq, solicited_only), "ibv_req_notify_cq");
	n = ibv_poll_cq(cq, 8, wc);
	if (n < 0)
		die("ibv_poll_cq");
	return n;
}

/* Steps 4 and 5, the client's receives: the next event (RoCE); on iWARP
 * the n completions polled (siw, Linux 6.1, signals no solicited
 * completion: a CQ armed for them never gives the event). */
static int received(struct side *s, int n, struct ibv_wc *wc)
{
	if (!iwarp)
		return next_event(s, 0, wc);
	completions(s->rcq, n, wc);
	return n;
}

static int client(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct rdma_event_channel *ch;
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	static struct side s;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_wc wc[8];
	uint64_t word;
	uint32_t rkey, done = SLOT;
	int k, n;

	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	if (!(ch = rdma_create_event_channel()) || rdma_create_id(ch, &s.id, NULL, RDMA_PS_TCP))
		die("rdma_create_event_channel/rdma_create_id");
	if (rdma_resolve_addr(s.id, NULL, res->ai_dst_addr, 2000))
		die("rdma_resolve_addr");
	event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, s.id, NULL);
	if (rdma_resolve_route(s.id, 2000))
		die("rdma_resolve_route");
	event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, s.id, NULL);
	objects(&s);
	verb(ibv_req_notify_cq(s.rcq, 0), "ibv_req_notify_cq");
	if (rdma_connect(s.id, &param))
		die("rdma_connect");
	event(ch, RDMA_CM_EVENT_ESTABLISHED, s.id, NULL);
	/* On iWARP the client speaks first: step 3 now. */
	if (iwarp)
		client_sends(&s);
	/* 1. Keys, the first event; armed again for solicited completions only. */
	n = next_event(&s, 1, wc);
	check(n == 1, "the keys' event: not one completion");
	completion(&wc[0], 0x100, IBV_WC_RECV, SLOT, recv_flags(0), 0, s.qp_num);
	word = from_le(s.recv, 8);
	rkey = (uint32_t)from_le(s.recv + 8, 4);
	check(from_le(s.recv + 16, 8) == INITIAL, "the word's value is not the initial one");
	/* 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
	 * iWARP has none: a read of the word; then one list of a write of SWAP
	 * and a read back (siw completes a write as it sends it, a read when
	 * the answer comes: in one list with a read before it, the write's
	 * completion would come first). */
	memset(wr, 0, sizeof(wr));
	for (k = 0; iwarp && k < 3; k++) {
		s.atom[k] = k == 1 ? SWAP : 0;
		sge[k] = (struct ibv_sge){ (uintptr_t)&s.atom[k], 8, s.atom_mr->lkey };
		wr[k].wr_id = 0x700 + (uint64_t)k;
		wr[k].sg_list = &sge[k];
		wr[k].num_sge = 1;
		wr[k].opcode = k == 1 ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr[k].send_flags = IBV_SEND_SIGNALED;
		wr[k].wr.rdma.remote_addr = word;
		wr[k].wr.rdma.rkey = rkey;
		wr[k].next = k == 1 ? &wr[k + 1] : NULL;
	}
	if (iwarp) {
		verb(ibv_post_send(s.id->qp, wr, &bad), "ibv_post_send");
		completions(s.scq, 1, wc);
		completion(&wc[0], 0x700, IBV_WC_RDMA_READ, 8, 0, 0, s.qp_num);
	}
	for (k = 0; !iwarp && k < 3; k++) {
		s.atom[k] = 0;
		sge[k] = (struct ibv_sge){ (uintptr_t)&s.atom[k], 8, s.atom_mr->lkey };
		wr[k].wr_id = 0x700 + (uint64_t)k;
		wr[k].sg_list = &sge[k];
		wr[k].num_sge = 1;
		wr[k].opcode = k ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr[k].send_flags = IBV_SEND_SIGNALED;
		wr[k].wr.atomic.remote_addr = word;
		wr[k].wr.atomic.rkey = rkey;
		wr[k].wr.atomic.compare_add = k ? INITIAL + ADD : ADD;
		wr[k].wr.atomic.swap = k == 1 ? SWAP : k == 2 ? STALE_SWAP : 0;
		wr[k].next = k < 2 ? &wr[k + 1] : NULL;
	}
	verb(ibv_post_send(s.id->qp, iwarp ? &wr[1] : wr, &bad), "ibv_post_send");
	completions(s.scq, iwarp ? 2 : 3, iwarp ? &wc[1] : wc);
	if (!iwarp)
		completion(&wc[0], 0x700, IBV_WC_FETCH_ADD, 8, 0, 0, s.qp_num);
	completion(&wc[1], 0x701, iwarp ? IBV_WC_RDMA_WRITE : IBV_WC_COMP_SWAP, 8, 0, 0, s.qp_num);
	completion(&wc[2], 0x702, iwarp ? IBV_WC_RDMA_READ : IBV_WC_COMP_SWAP, 8, 0, 0, s.qp_num);
	check(s.atom[0] == INITIAL && s.atom[1] == (iwarp ? SWAP : INITIAL + ADD) && s.atom[2] == SWAP,
	      "the atomics' old values are not the word's");
	/* 3. Four sends into the server's SRQ, two SGEs each, immediate data
	 * (done already on iWARP). */
	if (!iwarp)
		client_sends(&s);
	/* 4. The server's five, the event at the solicited last: five at once. */
	n = received(&s, 5, wc);
	check(n == 5, "the solicited event: not five completions in one poll");
	for (k = 0; k < 5; k++) {
		completion(&wc[k], 0x101 + (uint64_t)k, IBV_WC_RECV, SERVER_LENS[k], recv_flags(1),
			   imm_of(0x5e4d0000 + (uint32_t)k), s.qp_num);
		same(s.recv + SLOT * (1 + k), SERVER_LENS[k], 0x51, k);
	}
	/* 5. DONE, and the server's DONE with the word's last value. */
	memset(s.send, 0, SLOT);
	memcpy(s.send, "DONE", 4);
	sends(&s, 1, 0x500, &done, 0, 0, 0, 0);
	n = received(&s, 1, wc);
	check(n == 1, "the DONE event: not one completion");
	completion(&wc[0], 0x106, IBV_WC_RECV, SLOT, recv_flags(0), 0, s.qp_num);
	check(!memcmp(s.recv + 6 * SLOT, "DONE", 4) && from_le(s.recv + 6 * SLOT + 8, 8) == SWAP,
	      "no DONE with the word's value");
	/* 6. Teardown. */
	if (rdma_disconnect(s.id))
		die("rdma_disconnect");
	event(ch, RDMA_CM_EVENT_DISCONNECTED, s.id, NULL);
	teardown(&s);
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(res);
	printf("verbs: PASS role=client completions=15 bytes=248\n");
	return 0;
}

int verbs_peer(const char *which, const char *addr, const char *port)
{
	role = which;
	iwarp = getenv("VERBS_PROFILE") && !strcmp(getenv("VERBS_PROFILE"), "iwarp");
	return strcmp(which, "server") ? client(addr, port) : server(addr, port);
}
