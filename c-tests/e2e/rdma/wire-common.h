/*
 * What wire.c's two sides share (wire-common.c): the messages and the
 * regions they exchange, their bytes and checksums, the watchdog, the next
 * completion (bounded in ours), the address and the QP's attributes.
 */
#ifndef WIRE_COMMON_H
#define WIRE_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#ifdef RDMAVERBS_API_H_WANTED
#endif
#if __has_include(<rdmaverbs.h>)
#include <rdmaverbs.h>
#endif

#define SIZE 256		/* bytes per message, write and read */
#define WINDOW 16
#define MAX_N 4096
#define DONE_TAG 0xd0ed0ed0u
#define KILL_TAG 0x6b696c6cu

/* What a send carries. */
struct msg {
	uint32_t tag;		/* 0, DONE_TAG or KILL_TAG */
	uint32_t seq;
	uint32_t sum;		/* of body */
	uint8_t body[SIZE - 12];
};

/* The server tells the client where its regions are (accept's private data). */
struct regions {
	uint64_t write_addr, read_addr;
	uint32_t write_rkey, read_rkey;
};

void watchdog(int sig);
uint8_t pattern(uint32_t seq, size_t i);
uint32_t checksum(const uint8_t *p, size_t n);
void fill_msg(struct msg *m, uint32_t tag, uint32_t seq);
int slot_ok(const uint8_t *p, uint32_t seq);
void fill_slot(uint8_t *p, uint32_t seq);
void die(const char *what);
/* The next completion: the bounded wait in our build, the blocking
 * original in the stock one (then the watchdog bounds it). */
int next_comp(struct rdma_cm_id *id, int recv, struct ibv_wc *wc, int timeout_ms);
struct rdma_addrinfo *resolve(const char *addr, const char *port, int passive);
void qp_attr(struct ibv_qp_init_attr *attr);

/* The two sides (wire-server.c, wire-client.c). */
int server(const char *port, int recv_limit, int rnr_retry, int time_limit);
int client(const char *addr, const char *port, int n, int k, const char *fault,
		  int sends_only, int rnr_retry, int time_limit, int stop_on_error);

#endif
