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
 * This file: the server, the client and verbs_peer; what they use below
 * them is in peer-verbs-side.c.
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
#include "peer-verbs-side.h"

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
