/*
 * End-to-end scenarios on a real verbs stack (Soft-RoCE in the test guest).
 * Each scenario runs a server thread and a client thread, each with its own
 * rdma_cm_id, connected over 192.0.2.1; every payload byte and every
 * completion's wr_id is checked.
 *
 * The same source is built twice: against our header (the calls go to
 * librdmaverbs.so.1) and against the stock header (the inline original).
 * Lines starting "obs:" are what the two builds must report identically;
 * the last line is "RESULT <scenario> PASS|FAIL msgs=N bytes=M".
 *
 * On an iWARP device (soft-iWARP, c-tests/e2e/guest/siw.sh) rc, vector and srq run
 * as they are. In onesided the client sends first, a message the server
 * waits for before it sends the keys (on iWARP the side that connects
 * speaks first: siw leaves a message that comes before the client's QP is
 * ready unread until more data comes), and reads back with one SGE a read
 * (iWARP's RDMA read has one sink SGE: siw fills the first of three and
 * reports success, which is observed, both builds alike). ud and errors
 * are RoCE's; the iwarp scenario is what iWARP refuses or does instead: a
 * UD endpoint, requests past the provider's limits, a send no receive
 * waits for, a write with a wrong key.
 *
 * Usage: e2e SCENARIO PORT [server|client]
 *   (rc, vector, onesided, srq, ud, errors, iwarp). With a role, only that side
 *   runs, for two hosts (c-tests/e2e/guest/pair-guest.sh): the server listens on
 *   192.0.2.1 and prints "listening"; the client connects to it once told.
 *   The errors scenario needs both sides in one process.
 *
 * This file: the scenarios' table and main; the scenarios are in e2e-send.c,
 * e2e-onesided.c and e2e-errors.c, their checks and setup in e2e-common.c.
 */
#include "e2e.h"

static const struct {
	const char *name;
	void *(*server)(void *);
	void (*client)(void);
} scenarios[] = {
	{ "rc", rc_server, rc_client },
	{ "vector", vector_server, vector_client },
	{ "onesided", onesided_server, onesided_client },
	{ "srq", srq_server, srq_client },
	{ "ud", ud_server, ud_client },
	{ "errors", errors_server, errors_client },
	{ "iwarp", iwarp_server, iwarp_client },
};

int main(int argc, char **argv)
{
	pthread_t server;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s SCENARIO PORT [server|client]\n", argv[0]);
		return 2;
	}
	scenario = argv[1];
	port = argv[2];
	role = argc == 4 ? argv[3] : "";
	sem_init(&listening, 0, 0);
	sem_init(&client_done, 0, 0);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(scenario, scenarios[i].name))
			continue;
		if (!strcmp(role, "server")) {
			scenarios[i].server(NULL);
		} else if (!strcmp(role, "client")) {
			scenarios[i].client();
		} else {
			pthread_create(&server, NULL, scenarios[i].server, NULL);
			scenarios[i].client();
			pthread_join(server, NULL);
		}
		close_listeners();
		printf("RESULT %s PASS msgs=%ld bytes=%ld\n", scenario, msgs, bytes);
		return 0;
	}
	fprintf(stderr, "unknown scenario %s\n", scenario);
	return 2;
}
