/*
 * A stream of messages across a link, accounted for one by one, under
 * faults (c-tests/e2e/pair.sh runs it in the two Soft-RoCE guests).
 *
 *   wire server PORT [--recv-limit K] [--rnr-retry R] [--time-limit S]
 *   wire client ADDR PORT N K FAULT [--sends-only] [--rnr-retry R] [--time-limit S]
 *                                   [--stop-on-error]
 *
 * The client posts N requests over one RC connection, in turn a send (a
 * message carrying its number and a checksum), an RDMA write (into the
 * server's write region) and an RDMA read (of the server's read region,
 * whose contents both sides know), at most 16 outstanding, all signalled.
 * After the first K have completed (it waits for them), it applies FAULT:
 *
 *   none      nothing;
 *   cut       runs "ip link set $RDMAVERBS_NETDEV down" (this guest's card);
 *   kill      sends a message that makes the server kill itself (SIGKILL),
 *             then gives it 2 s to be gone;
 *   wait      waits until the file $WIRE_GO exists (another guest's script
 *             does something meanwhile, like powering the server's guest off);
 *
 * then posts the rest. Every request must come back exactly once through
 * rdma_get_send_comp: successful (a read's data checked), or in error. It
 * prints each error status met, and the account:
 *
 *   RESULT client posted=P ok=O error=E lost=L duplicate=D bad_data=B
 *
 * posted counts the requests handed to the API (N unless a wait gave up
 * before the last was posted; a post the QP refuses counts as an error),
 * lost what never came back, duplicate what came back twice; the exit
 * status is 0 only when P = N = O + E. Without a fault it ends with a "done" message carrying
 * N, and the server checks every write slot too.
 *
 * --stop-on-error (soft-iWARP, c-tests/e2e/guest/siw-pair.sh): the client posts
 * nothing more once a request has come back in error, or once the
 * connection manager has an event for the id (its channel readable: the
 * connection is gone; the event is read and printed). siw answers no request posted to a QP already in
 * the error state, not even with a flush (Linux 6.1): such a request would
 * be lost by the provider, not by the program. The account then ends with
 * "stopped=1" and P < N is no failure.
 *
 * The server posts receives (at most --recv-limit in all: the rest of the
 * sends find none, RNR), checks every message's checksum, and prints
 *
 *   RESULT server received=M bad=B writes_checked=W end=...
 *
 * where end is "done", "killed", or, for its last wait: in the stock build,
 * the blocking rdma_get_recv_comp, which a watchdog ends after --time-limit
 * seconds with "hung in rdma_get_recv_comp" (exit 124); in ours, the bounded
 * rdma_get_recv_comp_timeout, which returns ETIMEDOUT ("timed out").
 * The client has the same watchdog around its waits.
 *
 * Both sides connect with retry_count 6, not the 7 that the IB spec allows:
 * Soft-RoCE (rxe_comp.c) takes a retry_cnt of 7 as "retry for ever", as the
 * spec has it for rnr_retry only, and with 7 a request to a dead peer never
 * completes. --rnr-retry R is the rnr_retry_count each side gives (7, for
 * ever, unless said): the connection manager hands the server's, from the
 * accept, to the client's QP, and the client's to the server's.
 *
 * This file: the command line; the sides are in wire-server.c and
 * wire-client.c, what they share in wire-common.c.
 */
#include "wire-common.h"

int main(int argc, char **argv)
{
	int i, recv_limit = -1, time_limit = 20, sends_only = 0, rnr_retry = 7, stop_on_error = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--recv-limit") && i + 1 < argc)
			recv_limit = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--time-limit") && i + 1 < argc)
			time_limit = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sends-only"))
			sends_only = 1;
		else if (!strcmp(argv[i], "--stop-on-error"))
			stop_on_error = 1;
		else if (!strcmp(argv[i], "--rnr-retry") && i + 1 < argc)
			rnr_retry = atoi(argv[++i]);
	}
	if (argc >= 3 && !strcmp(argv[1], "server"))
		return server(argv[2], recv_limit, rnr_retry, time_limit);
	if (argc >= 7 && !strcmp(argv[1], "client")) {
		int n = atoi(argv[4]), k = atoi(argv[5]);

		if (n < 1 || n > MAX_N || k < 0 || k > n)
			return 2;
		return client(argv[2], argv[3], n, k, argv[6], sends_only, rnr_retry, time_limit,
			      stop_on_error);
	}
	fprintf(stderr, "usage: %s server PORT [--recv-limit K] [--rnr-retry R] [--time-limit S]\n"
		"       %s client ADDR PORT N K none|cut|kill|wait [--sends-only] "
		"[--rnr-retry R] [--time-limit S] [--stop-on-error]\n", argv[0], argv[0]);
	return 2;
}
