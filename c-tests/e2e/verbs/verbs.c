/*
 * RDMAVERBS_1.3 on Soft-RoCE: an RC exchange between a server and a client
 * whose every data-path call goes through a table of function pointers, one
 * per static inline function of <infiniband/verbs.h> (build/gen/functions.h,
 * RDMAVERBS_VERBS_H_FUNCTIONS). The same source is built twice:
 *
 *   stock  the table holds the inline originals' addresses (v.ibv_post_send
 *          = ibv_post_send), which compiles the header's code into this
 *          program;
 *   ours   the table holds librdmaverbs.so.1's exports of the same names,
 *          found with dlvsym(handle, name, its node) in the library
 *          VERBS_LIBRARY names (set by the Makefile); a missing one fails.
 *
 * Either way the program checks that each of the 94 pointers lies in the
 * object it should (this program, or the library). Set-up and teardown use
 * librdmacm's and libibverbs' real functions: the ids have no QP of
 * librdmacm's, the QPs are created through the table and moved through
 * their states with rdma_init_qp_attr and ibv_modify_qp, as librdmacm does,
 * and the connection is made with the QP numbers in the parameters
 * (rdma_connect, rdma_accept, rdma_establish).
 *
 * The exchange (client: an extended QP, ibv_wr_*, and two extended CQs;
 * server: a QP made with comp_mask IBV_QP_INIT_ATTR_PD, an SRQ, two
 * classic CQs, ibv_post_send and ibv_poll_cq):
 *   1. the client sends 8 messages, 4 as one chain through ibv_post_send
 *      (one with immediate data over 2 SGEs, one inline) and 4 through
 *      ibv_wr_* (ibv_wr_send, ibv_wr_send_imm, inline data, an SGE list),
 *      the last solicited; they land in the server's SRQ (ibv_post_srq_recv);
 *      the server's CQ was armed with ibv_req_notify_cq(cq, 1), so its event
 *      comes with the last one, and one ibv_poll_cq of 16 reaps all 8;
 *   2. the server sends 6 messages as one chain through ibv_post_send (the
 *      last solicited) into the client's receives (ibv_post_recv); the
 *      client's extended CQ, armed the same way, is read after its event
 *      with one ibv_start_poll, five ibv_next_poll and one ibv_end_poll;
 *   3. the client, in one ibv_wr_start/ibv_wr_complete batch, writes 4096
 *      bytes into the server's window, reads them back, and does a
 *      fetch-and-add and two compare-and-swaps (one that swaps, one that
 *      does not) on the server's counter; then sends DONE, inline;
 *   4. the server, on DONE (an event of its CQ armed for any completion),
 *      checks the window and the counter, then posts one chain: an RDMA
 *      write into the client's memory, an RDMA read of it, a fetch-and-add
 *      and a compare-and-swap on the client's counter, and BYE; the client
 *      checks them when BYE arrives.
 * Every completion's status, opcode, wr_id and (where defined) byte_len,
 * every byte and every atomic's old value are checked, and a few requests
 * the provider refuses (too many SGEs, a misaligned atomic, inline data too
 * long, an unsupported CQ flag and send operation). Lines starting "obs:"
 * are what both builds must report alike (values, never addresses); the
 * last line is "RESULT verbs PASS|FAIL msgs=N bytes=M" (N messages and M
 * bytes verified by this side).
 *
 * ibv_next_poll is called only where the completions it reads are known to
 * be there (after a solicited event): in rdma-core 44's rxe provider, a
 * next_poll that finds nothing unlocks the CQ and stores its index, and the
 * end_poll that must follow does both again (fixed in rdma-core 55 and
 * 59). ibv_wr_set_sge_list is given SGEs of equal lengths (rdma-core 44's
 * rxe adds the first one's length num_sge times; fixed later), and inline
 * data goes with IBV_SEND_INLINE in wr_flags (rxe's kernel reads the WQE's
 * data as inline only then).
 *
 * Usage: verbs server|client ADDR PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "verbs.h"

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
