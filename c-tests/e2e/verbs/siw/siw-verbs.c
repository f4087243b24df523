/*
 * RDMAVERBS_1.3 on soft-iWARP (siw): verbs.c's table of the 94 static
 * inline functions of <infiniband/verbs.h> (verbs-table.h: librdmaverbs.so.1's
 * exports by dlvsym in ours, the inline originals in stock), on the
 * operations iWARP allows, and what it refuses. c-tests/e2e/guest/siw.sh runs a
 * server and a client of each build; both must pass and print the same
 * "obs:" lines.
 *
 * What differs from verbs.c's exchange on rxe, and why:
 *   - no atomics (atomic_cap is IBV_ATOMIC_NONE), no immediate data, no
 *     extended QP or CQ (rdma-core's siw provider has no create_qp_ex or
 *     create_cq_ex: the ibv_wr_* and ibv_start_poll paths cannot be
 *     reached): each is posted or made once and must be refused, nothing
 *     posted, the same way by both builds;
 *   - an RDMA read lands in one SGE (max_sge_rd 1);
 *   - the QP is moved to INIT only: on iWARP the connection manager moves
 *     it to RTS as it connects (and the client's rdma_connect ends with
 *     RDMA_CM_EVENT_ESTABLISHED, not a connect response to answer with
 *     rdma_establish); siw's ibv_query_qp reports no state;
 *   - the client speaks first (phase 1), as iWARP wants: the keys go in the
 *     connection's private data;
 *   - no completion carries flags (no GRH, no immediate data);
 *   - siw (Linux 6.1) signals no solicited completion: siw_rqe_complete
 *     asks the CQ to notify with the flag of any completion, so a CQ armed
 *     with ibv_req_notify_cq(cq, 1) never gives its event. The server arms
 *     its CQ so and shows that no event came for the solicited message; the
 *     client waits on a CQ armed for any completion.
 *
 * The exchange (every data-path call through the table):
 *   1. the client sends 8 messages in one ibv_post_send chain (one over two
 *      SGEs, two inline, one over two equal halves, the last solicited) into
 *      the server's SRQ (ibv_post_srq_recv); the server's CQ is armed with
 *      ibv_req_notify_cq(cq, 1); it polls until the 8 are there, then looks
 *      for the solicited event (none, on siw);
 *   2. the server sends 6 in one chain (one inline, one over two SGEs, the
 *      last solicited) into the client's receives (ibv_post_recv); the
 *      client's CQ, armed for any completion, gives its event, and it polls
 *      the 6;
 *   3. the client writes 4096 bytes into the server's window and reads them
 *      back (one chain), then sends DONE inline;
 *   4. the server, on DONE, checks the window, writes into the client's
 *      sink and reads the client's source (one chain), then sends BYE.
 * A send goes in a chain of its own after a read: siw completes a send or
 * a write as it hands it to TCP, a read when its answer comes, so a send
 * posted after a read may complete first (the IB specification keeps a
 * send queue's completions in order; siw does not).
 * Every completion's status, opcode, wr_id, byte_len (where defined),
 * flags and QP, every byte, are checked. The last line is
 * "RESULT verbs PASS|FAIL msgs=N bytes=M".
 *
 * Usage: siw-verbs server|client ADDR PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "siw-verbs.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client ADDR PORT\n", argv[0]);
		return 2;
	}
	role = argv[1];
	fill_table();
	if (!strcmp(role, "server"))
		server(argv[2], argv[3]);
	else
		client(argv[2], argv[3]);
	printf("RESULT verbs PASS msgs=%ld bytes=%ld\n", msgs, bytes);
	return 0;
}
