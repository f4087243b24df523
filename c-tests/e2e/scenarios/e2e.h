/*
 * The e2e program's shared parts (e2e.c, the scenarios in e2e-send.c,
 * e2e-onesided.c, e2e-errors.c; checks and setup in e2e-common.c): its
 * state, its checks, the endpoints' setup and each scenario's two sides.
 */
#ifndef E2E_H
#define E2E_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define ADDR "192.0.2.1"
#define SLOT 4096
#define GRH 40

/* A remote buffer: its address and the keys to write and read it. */
struct remote { uint64_t addr; uint32_t wkey, rkey; };

extern const char *scenario;
extern const char *port;
extern const char *role;	/* "", "server" or "client" */
extern sem_t listening;
extern sem_t client_done;
extern long msgs, bytes;	/* messages and bytes verified */

void fail(const char *fmt, ...);

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond))                                                  \
			fail(__VA_ARGS__);                                    \
	} while (0)

void obs(const char *fmt, ...);
void verified(long n_msgs, long n_bytes);
uint8_t pattern(int seed, size_t i);
void fill(void *buf, size_t len, int seed);
void expect(const void *buf, size_t len, int seed, size_t from, const char *what);
double now(void);
void comp(struct rdma_cm_id *id, int send, void *ctx, struct ibv_wc *wc,
	  const char *what);
int is_iwarp(struct rdma_cm_id *id);
struct rdma_addrinfo *resolve(int passive, int udp);
void qp_attr(struct ibv_qp_init_attr *attr, int udp);
struct rdma_conn_param *conn_param(void);
void close_listeners(void);
struct rdma_cm_id *accept_one(int udp, int with_qp);
struct rdma_cm_id *client_ep(int udp);
size_t msg_size(int i);

/* The scenarios: each one's server (a thread's body) and client. */
void *rc_server(void *arg);
void rc_client(void);
void *vector_server(void *arg);
void vector_client(void);
void *onesided_server(void *arg);
void onesided_client(void);
void *srq_server(void *arg);
void srq_client(void);
void *ud_server(void *arg);
void ud_client(void);
void *errors_server(void *arg);
void errors_client(void);
void *iwarp_server(void *arg);
void iwarp_client(void);

#endif
