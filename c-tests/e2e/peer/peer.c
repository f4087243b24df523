/*
 * The C side of the bindings' end-to-end test: the RC exchange of
 * bindings/rc-protocol.md, in either role, built against our header. Each
 * language's example runs against it: as the client against "peer server",
 * as the server against "peer client". With "verbs" first, the verbs
 * exchange of bindings/verbs-protocol.md instead (peer-verbs.c).
 *
 * With "echo" first, the echo of bindings/rc-protocol.md's last section
 * instead, against each language's minimal client and echo server.
 *
 * Usage: peer server|client ADDR PORT
 *        peer verbs server|client ADDR PORT
 *        peer echo server|client ADDR PORT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>

#include "peer-verbs.h"

#define SIZE 64

static const char *role;

static void die(const char *what)
{
	fprintf(stderr, "peer %s: %s (errno %d, %s)\n", role, what, errno, strerror(errno));
	exit(1);
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "peer %s: %s\n", role, what);
		exit(1);
	}
}

/* The next completion of the send or receive CQ, checked. */
static void comp(struct rdma_cm_id *id, int recv, uint64_t wr_id, enum ibv_wc_opcode op,
		 uint32_t len)
{
	struct ibv_wc wc;
	char what[160];
	int ret = recv ? rdma_get_recv_comp(id, &wc) : rdma_get_send_comp(id, &wc);

	if (ret != 1)
		die("rdma_get_*_comp");
	snprintf(what, sizeof(what), "completion: wr_id %#llx status %d opcode %d byte_len %u; "
		 "want %#llx SUCCESS %d %u", (unsigned long long)wc.wr_id, wc.status, wc.opcode,
		 wc.byte_len, (unsigned long long)wr_id, op, len);
	check(wc.wr_id == wr_id && wc.status == IBV_WC_SUCCESS && wc.opcode == op &&
	      (op == IBV_WC_SEND || op == IBV_WC_RDMA_WRITE ? 1 : wc.byte_len == len), what);
}

static void check_addr(struct sockaddr *sa, const char *addr, int port, const char *which)
{
	struct sockaddr_in *in = (struct sockaddr_in *)sa;
	char text[INET_ADDRSTRLEN] = "";

	inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
	check(sa && sa->sa_family == AF_INET && !strcmp(text, addr) &&
	      (port < 0 || ntohs(in->sin_port) == port), which);
}

/* The echo (bindings/rc-protocol.md, "The echo"): one message a connection,
 * sent back as it came. The client sends 1 B, 4 KiB and 64 KiB, each on a
 * connection of its own, and checks every byte of each answer; the server
 * answers one connection and checks nothing (its client does). */
#define ECHO_MAX 65536

static struct rdma_cm_id *echo_ep(const char *addr, const char *port, int passive)
{
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = passive ? RAI_PASSIVE : 0;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&id, res, NULL, &attr))
		die("rdma_create_ep");
	rdma_freeaddrinfo(res);
	return id;
}

static int echo_peer(const char *which, const char *addr, const char *port)
{
	static uint8_t buf[ECHO_MAX], back[ECHO_MAX];
	static const uint32_t sizes[] = { 1, 4096, ECHO_MAX };
	struct rdma_cm_id *listen, *id;
	struct ibv_mr *mr, *back_mr;
	struct ibv_wc wc;
	uint32_t k, j, total = 0;

	role = which;
	if (!strcmp(which, "server")) {
		listen = echo_ep(addr, port, 1);
		if (rdma_listen(listen, 1))
			die("rdma_listen");
		printf("echo: listening on %s %s\n", addr, port);
		fflush(stdout);
		if (rdma_get_request(listen, &id))
			die("rdma_get_request");
		mr = rdma_reg_msgs(id, buf, ECHO_MAX);
		if (!mr || rdma_post_recv(id, (void *)1, buf, ECHO_MAX, mr) || rdma_accept(id, NULL))
			die("rdma_reg_msgs, rdma_post_recv or rdma_accept");
		if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
			die("the message's completion");
		total = wc.byte_len;
		if (rdma_post_send(id, (void *)2, buf, total, mr, 0) || rdma_get_send_comp(id, &wc) != 1 ||
		    wc.status != IBV_WC_SUCCESS)
			die("the answer");
		printf("echo: PASS role=server messages=1 bytes=%u\n", total);
		rdma_disconnect(id);
		rdma_dereg_mr(mr);
		rdma_destroy_ep(id);
		rdma_destroy_ep(listen);
		return 0;
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		id = echo_ep(addr, port, 0);
		for (j = 0; j < sizes[k]; j++)
			buf[j] = (uint8_t)(0x31 + 13 * k + 7 * j);
		memset(back, 0, sizeof(back));
		mr = rdma_reg_msgs(id, buf, sizes[k]);
		back_mr = rdma_reg_msgs(id, back, ECHO_MAX);
		if (!mr || !back_mr || rdma_post_recv(id, (void *)1, back, ECHO_MAX, back_mr) || rdma_connect(id, NULL))
			die("rdma_reg_msgs, rdma_post_recv or rdma_connect");
		if (rdma_post_send(id, (void *)2, buf, sizes[k], mr, 0) || rdma_get_send_comp(id, &wc) != 1 ||
		    wc.status != IBV_WC_SUCCESS)
			die("the message");
		if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
			die("the answer's completion");
		check(wc.byte_len == sizes[k], "the answer's length is not the message's");
		check(!memcmp(back, buf, sizes[k]), "the answer's bytes are not the message's");
		total += sizes[k];
		rdma_disconnect(id);
		rdma_dereg_mr(mr);
		rdma_dereg_mr(back_mr);
		rdma_destroy_ep(id);
	}
	printf("echo: PASS role=client messages=3 bytes=%u\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct rdma_cm_id *listen = NULL, *id;
	struct ibv_mr *recv_mr, *send_mr, *wmr, *rmr, *back_mr;
	static uint8_t recv[4 * SIZE], send[SIZE], win[SIZE], back[SIZE];
	struct ibv_sge sgl[2];
	struct ibv_wc wc;
	uint64_t peer_addr, win_addr;
	uint32_t peer_wkey, peer_rkey;
	int server, k, j, seed, peer_seed, port;

	if (argc == 5 && !strcmp(argv[1], "verbs") && (!strcmp(argv[2], "server") || !strcmp(argv[2], "client")))
		return verbs_peer(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "echo") && (!strcmp(argv[2], "server") || !strcmp(argv[2], "client")))
		return echo_peer(argv[2], argv[3], argv[4]);
	if (argc != 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: peer server|client ADDR PORT\n       peer verbs|echo server|client ADDR PORT\n");
		return 2;
	}
	role = argv[1];
	server = !strcmp(role, "server");
	port = atoi(argv[3]);
	seed = server ? 0x51 : 0xc1;
	peer_seed = server ? 0xc1 : 0x51;

	/* 1. Set up. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(argv[2], argv[3], &hints, &res))
		die("rdma_getaddrinfo");
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 8;
	attr.cap.max_send_sge = 2;
	attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (server) {
		if (rdma_create_ep(&listen, res, NULL, &attr) || rdma_listen(listen, 1))
			die("rdma_create_ep/rdma_listen");
		printf("rc: listening\n");
		fflush(stdout);
		if (rdma_get_request(listen, &id))
			die("rdma_get_request");
	} else if (rdma_create_ep(&id, res, NULL, &attr)) {
		die("rdma_create_ep");
	}
	/* 2. Memory; 3. receives. */
	if (!(recv_mr = rdma_reg_msgs(id, recv, sizeof(recv))) ||
	    !(send_mr = rdma_reg_msgs(id, send, SIZE)) || !(wmr = rdma_reg_write(id, win, SIZE)) ||
	    !(rmr = rdma_reg_read(id, win, SIZE)) || !(back_mr = rdma_reg_msgs(id, back, SIZE)))
		die("rdma_reg_*");
	for (k = 0; k < 4; k++)
		if (rdma_post_recv(id, (void *)(uintptr_t)(0x100 + k), recv + SIZE * k, SIZE, recv_mr))
			die("rdma_post_recv");
	/* 4. Connect. */
	memset(&param, 0, sizeof(param));
	param.responder_resources = param.initiator_depth = 1;
	param.retry_count = param.rnr_retry_count = 7;
	if (server ? rdma_accept(id, &param) : rdma_connect(id, &param))
		die("rdma_accept/rdma_connect");
	/* 5. Keys. */
	memset(send, 0, SIZE);
	win_addr = (uintptr_t)win;
	for (j = 0; j < 8; j++)
		send[j] = (uint8_t)(win_addr >> (8 * j));
	for (j = 0; j < 4; j++) {
		send[8 + j] = (uint8_t)(wmr->rkey >> (8 * j));
		send[12 + j] = (uint8_t)(rmr->rkey >> (8 * j));
	}
	if (rdma_post_send(id, (void *)0x200, send, SIZE, send_mr, 0))
		die("rdma_post_send");
	comp(id, 0, 0x200, IBV_WC_SEND, 0);
	comp(id, 1, 0x100, IBV_WC_RECV, SIZE);
	peer_addr = 0;
	peer_wkey = peer_rkey = 0;
	for (j = 0; j < 8; j++)
		peer_addr |= (uint64_t)recv[j] << (8 * j);
	for (j = 0; j < 4; j++) {
		peer_wkey |= (uint32_t)recv[8 + j] << (8 * j);
		peer_rkey |= (uint32_t)recv[12 + j] << (8 * j);
	}
	/* 6. Messages, over two SGEs. */
	for (k = 0; k < 2; k++) {
		for (j = 0; j < SIZE; j++)
			send[j] = (uint8_t)(seed + 7 * k + j);
		sgl[0].addr = (uintptr_t)send;
		sgl[0].length = 16;
		sgl[0].lkey = send_mr->lkey;
		sgl[1].addr = (uintptr_t)(send + 16);
		sgl[1].length = 48;
		sgl[1].lkey = send_mr->lkey;
		if (rdma_post_sendv(id, (void *)(uintptr_t)(0x300 + k), sgl, 2, 0))
			die("rdma_post_sendv");
		comp(id, 0, 0x300 + k, IBV_WC_SEND, 0);
	}
	for (k = 0; k < 2; k++) {
		comp(id, 1, 0x101 + k, IBV_WC_RECV, SIZE);
		for (j = 0; j < SIZE; j++)
			check(recv[SIZE * (1 + k) + j] == (uint8_t)(peer_seed + 7 * k + j),
			      "a message byte differs");
	}
	/* 7. RDMA write, and read back. */
	for (j = 0; j < SIZE; j++)
		send[j] = (uint8_t)((seed ^ 0xa5) + j);
	if (rdma_post_write(id, (void *)0x400, send, SIZE, send_mr, 0, peer_addr, peer_wkey))
		die("rdma_post_write");
	comp(id, 0, 0x400, IBV_WC_RDMA_WRITE, 0);
	memset(back, 0, SIZE);
	if (rdma_post_read(id, (void *)0x401, back, SIZE, back_mr, 0, peer_addr, peer_rkey))
		die("rdma_post_read");
	comp(id, 0, 0x401, IBV_WC_RDMA_READ, SIZE);
	check(!memcmp(back, send, SIZE), "the bytes read back differ from those written");
	/* 8. A bounded wait that times out; 9. refused input. */
	check(rdma_get_send_comp_timeout(id, &wc, 100) == -1 && errno == ETIMEDOUT,
	      "rdma_get_send_comp_timeout did not time out");
	check(rdma_post_send(NULL, NULL, send, SIZE, send_mr, 0) == -1 && errno == EINVAL,
	      "rdma_post_send(NULL) was not refused");
	/* 10. Addresses (the inline ones of <rdma/rdma_cma.h>: this is C). */
	check_addr(rdma_get_local_addr(id), argv[2], server ? port : -1, "local address");
	check_addr(rdma_get_peer_addr(id), argv[2], server ? -1 : port, "peer address");
	/* 11. Done. */
	memset(send, 0, SIZE);
	memcpy(send, "DONE", 4);
	if (rdma_post_send(id, (void *)0x500, send, SIZE, send_mr, 0))
		die("rdma_post_send");
	comp(id, 0, 0x500, IBV_WC_SEND, 0);
	comp(id, 1, 0x103, IBV_WC_RECV, SIZE);
	check(!memcmp(recv + 3 * SIZE, "DONE", 4), "no DONE");
	/* 12. Teardown. */
	rdma_disconnect(id);
	rdma_dereg_mr(recv_mr);
	rdma_dereg_mr(send_mr);
	rdma_dereg_mr(wmr);
	rdma_dereg_mr(rmr);
	rdma_dereg_mr(back_mr);
	rdma_destroy_ep(id);
	if (listen)
		rdma_destroy_ep(listen);
	rdma_freeaddrinfo(res);
	printf("rc: PASS role=%s sends=4 bytes=384\n", role);
	return 0;
}
