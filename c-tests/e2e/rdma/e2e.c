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
 */
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

static const char *scenario;
static const char *port;
static const char *role = "";	/* "", "server" or "client" */
static sem_t listening;
static long msgs, bytes;	/* messages and bytes verified */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL: %s: ", scenario);
	vprintf(fmt, ap);
	printf(" (errno %d %s)\n", errno, strerror(errno));
	printf("RESULT %s FAIL msgs=%ld bytes=%ld\n", scenario, msgs, bytes);
	va_end(ap);
	fflush(stdout);
	_exit(1);
}

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond))                                                  \
			fail(__VA_ARGS__);                                    \
	} while (0)

/* obs: lines are compared between the two builds: print only what the
 * library decides (results, statuses, lengths), never pointers or numbers
 * the kernel picks. */
static void obs(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	va_start(ap, fmt);
	printf("obs: %s: ", scenario);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&lock);
}

static void verified(long n_msgs, long n_bytes)
{
	pthread_mutex_lock(&lock);
	msgs += n_msgs;
	bytes += n_bytes;
	pthread_mutex_unlock(&lock);
}

static uint8_t pattern(int seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static void fill(void *buf, size_t len, int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pattern(seed, i);
}

/* Checks `len` bytes of message `seed` starting at byte `from`. */
static void expect(const void *buf, size_t len, int seed, size_t from, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(((const uint8_t *)buf)[i] == pattern(seed, from + i),
		      "%s: byte %zu differs", what, from + i);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One completion, checked: 1 returned, success, the context posted. */
static void comp(struct rdma_cm_id *id, int send, void *ctx, struct ibv_wc *wc,
		 const char *what)
{
	int ret = send ? rdma_get_send_comp(id, wc) : rdma_get_recv_comp(id, wc);

	CHECK(ret == 1, "%s: rdma_get_%s_comp returned %d", what,
	      send ? "send" : "recv", ret);
	CHECK(wc->status == IBV_WC_SUCCESS, "%s: completion status %s", what,
	      ibv_wc_status_str(wc->status));
	CHECK(wc->wr_id == (uintptr_t)ctx, "%s: wr_id is not the context posted", what);
}

/* An iWARP device (siw), not RoCE (rxe). */
static int is_iwarp(struct rdma_cm_id *id)
{
	return id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

static struct rdma_addrinfo *resolve(int passive, int udp)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = udp ? RDMA_PS_UDP : RDMA_PS_TCP;
	hints.ai_qp_type = udp ? IBV_QPT_UD : IBV_QPT_RC;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	CHECK(!rdma_getaddrinfo(ADDR, port, &hints, &res), "rdma_getaddrinfo");
	return res;
}

static void qp_attr(struct ibv_qp_init_attr *attr, int udp)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = attr->cap.max_recv_wr = 32;
	attr->cap.max_send_sge = attr->cap.max_recv_sge = 4;
	attr->cap.max_inline_data = 64;
	attr->qp_type = udp ? IBV_QPT_UD : IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

static struct rdma_conn_param *conn_param(void)
{
	static struct rdma_conn_param p;

	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 3;
	p.rnr_retry_count = 0;	/* a send without a receive fails at once */
	return &p;
}

/* Listening ids: destroyed at the end, since destroying one waits until the
 * connection request it delivered has been accepted. */
static struct rdma_cm_id *listeners[4];
static int nlisteners;

static void close_listeners(void)
{
	while (nlisteners)
		rdma_destroy_ep(listeners[--nlisteners]);
}

/* Server: listen (with or without a QP template), then take one request. */
static struct rdma_cm_id *accept_one(int udp, int with_qp)
{
	struct rdma_addrinfo *res = resolve(1, udp);
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *listen_id, *id;

	qp_attr(&attr, udp);
	CHECK(!rdma_create_ep(&listen_id, res, NULL, with_qp ? &attr : NULL),
	      "server rdma_create_ep");
	rdma_freeaddrinfo(res);
	CHECK(!rdma_listen(listen_id, 1), "rdma_listen");
	sem_post(&listening);
	if (!strcmp(role, "server"))
		printf("listening\n");
	CHECK(!rdma_get_request(listen_id, &id), "rdma_get_request");
	listeners[nlisteners++] = listen_id;
	return id;
}

/* Client: an endpoint with a QP, not yet connected. */
static struct rdma_cm_id *client_ep(int udp)
{
	struct rdma_addrinfo *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;

	if (strcmp(role, "client"))
		sem_wait(&listening);
	res = resolve(0, udp);
	qp_attr(&attr, udp);
	CHECK(!rdma_create_ep(&id, res, NULL, &attr), "client rdma_create_ep");
	rdma_freeaddrinfo(res);
	CHECK(attr.cap.max_inline_data >= 64, "inline data of 64 bytes not supported");
	return id;
}

static size_t msg_size(int i)
{
	return 1 + (size_t)(i * 397) % 2000;
}

/* ---- rc: send and receive, registered and inline ---- */

#define RC_N 8
#define RC_INLINE_N 8

static void *rc_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 1);
	static char buf[(RC_N + RC_INLINE_N) * SLOT];
	static int ctx[RC_N + RC_INLINE_N], reply_ctx;
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	double t0, waited = 0;
	int i;

	(void)arg;
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < RC_N + RC_INLINE_N; i++)
		CHECK(!rdma_post_recv(id, &ctx[i], buf + i * SLOT, SLOT, mr),
		      "rdma_post_recv %d", i);
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	for (i = 0; i < RC_N + RC_INLINE_N; i++) {
		size_t len = i < RC_N ? msg_size(i) : (size_t)(16 + i);

		t0 = now();
		comp(id, 0, &ctx[i], &wc, "rc receive");
		if (i == 0)
			waited = now() - t0;
		CHECK(wc.byte_len == len, "rc receive %d: %u bytes, want %zu", i,
		      wc.byte_len, len);
		CHECK(wc.opcode == IBV_WC_RECV, "rc receive opcode");
		expect(buf + i * SLOT, len, i, 0, "rc receive");
		verified(1, (long)len);
	}
	/* The client waits before its first send: the first call blocked. */
	obs("receiver blocked in rdma_get_recv_comp before the first message: %s",
	    waited > 0.1 ? "yes" : "no");
	obs("%d receives completed, all in order, all bytes verified", i);
	CHECK(!rdma_post_send(id, &reply_ctx, "done", 5, NULL, IBV_SEND_INLINE),
	      "rdma_post_send inline reply");
	comp(id, 1, &reply_ctx, &wc, "rc reply");
	CHECK(!rdma_dereg_mr(mr), "rdma_dereg_mr");
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

static void rc_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char buf[RC_N * SLOT], reply[64];
	static int ctx[RC_N + RC_INLINE_N], reply_ctx;
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_mr *rmr = rdma_reg_msgs(id, reply, sizeof(reply));
	struct ibv_wc wc;
	int i;

	CHECK(mr && rmr, "rdma_reg_msgs");
	CHECK(!rdma_post_recv(id, &reply_ctx, reply, sizeof(reply), rmr), "post reply recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	usleep(300000);	/* the receiver is now blocked waiting */
	for (i = 0; i < RC_N; i++) {
		fill(buf + i * SLOT, msg_size(i), i);
		CHECK(!rdma_post_send(id, &ctx[i], buf + i * SLOT, msg_size(i), mr, 0),
		      "rdma_post_send %d", i);
		comp(id, 1, &ctx[i], &wc, "rc send");
	}
	for (; i < RC_N + RC_INLINE_N; i++) {
		char small[64];	/* not registered: inline data needs no MR */

		fill(small, (size_t)(16 + i), i);
		CHECK(!rdma_post_send(id, &ctx[i], small, (size_t)(16 + i), NULL,
				      IBV_SEND_INLINE), "rdma_post_send inline %d", i);
		comp(id, 1, &ctx[i], &wc, "rc inline send");
	}
	obs("%d sends completed (%d registered, %d inline with mr NULL)", i, RC_N,
	    RC_INLINE_N);
	comp(id, 0, &reply_ctx, &wc, "rc reply");
	CHECK(wc.byte_len == 5 && !strcmp(reply, "done"), "rc reply content");
	verified(1, 5);
	rdma_dereg_mr(mr);
	rdma_dereg_mr(rmr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- vector: rdma_post_sendv / rdma_post_recvv with uneven SGEs ---- */

static const uint32_t send_sizes[3] = { 7, 100, 1000 };
static const uint32_t send_offs[3] = { 0, 64, 512 };
static const uint32_t recv_sizes[4] = { 500, 300, 12, 1000 };
#define VEC_N 4

static void *vector_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 1);
	static char buf[VEC_N][2048];
	static int ctx[VEC_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_sge sge[VEC_N][4];
	struct ibv_wc wc;
	uint32_t total = send_sizes[0] + send_sizes[1] + send_sizes[2];
	int i, k;

	(void)arg;
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < VEC_N; i++) {
		size_t off = 0;

		for (k = 0; k < 4; k++) {	/* the SGEs lie apart in memory */
			sge[i][k].addr = (uintptr_t)(buf[i] + off + 8 * k);
			sge[i][k].length = recv_sizes[k];
			sge[i][k].lkey = mr->lkey;
			off += recv_sizes[k];
		}
		CHECK(!rdma_post_recvv(id, &ctx[i], sge[i], 4), "rdma_post_recvv %d", i);
	}
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	for (i = 0; i < VEC_N; i++) {
		uint32_t got = 0;

		comp(id, 0, &ctx[i], &wc, "vector receive");
		CHECK(wc.byte_len == total, "vector receive: %u bytes", wc.byte_len);
		/* scattered in order over the four SGEs */
		for (k = 0; k < 4 && got < total; k++) {
			uint32_t n = total - got < recv_sizes[k] ? total - got : recv_sizes[k];

			expect((void *)(uintptr_t)sge[i][k].addr, n, i, got, "vector scatter");
			got += n;
		}
		verified(1, total);
	}
	obs("%d vectored receives of %u bytes scattered over 4 SGEs (500/300/12/1000)",
	    VEC_N, total);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

static void vector_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char buf[VEC_N][2048];
	static int ctx[VEC_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	int i, k;

	CHECK(mr, "rdma_reg_msgs");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	for (i = 0; i < VEC_N; i++) {
		struct ibv_sge sge[3];
		uint32_t from = 0;
		char msg[1107];

		fill(msg, sizeof(msg), i);
		for (k = 0; k < 3; k++) {	/* gathered from three places */
			memcpy(buf[i] + send_offs[k], msg + from, send_sizes[k]);
			sge[k].addr = (uintptr_t)(buf[i] + send_offs[k]);
			sge[k].length = send_sizes[k];
			sge[k].lkey = mr->lkey;
			from += send_sizes[k];
		}
		CHECK(!rdma_post_sendv(id, &ctx[i], sge, 3, 0), "rdma_post_sendv %d", i);
		comp(id, 1, &ctx[i], &wc, "vector send");
	}
	obs("%d vectored sends of 3 SGEs (7/100/1000) completed", VEC_N);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- onesided: RDMA write and read, keys exchanged in a message ---- */

struct remote { uint64_t addr; uint32_t wkey, rkey; };

#define OS_LEN 4096

static void *onesided_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 1);
	static char target[OS_LEN], done[8], go[8];
	static struct remote info;
	static int info_ctx, done_ctx, go_ctx;
	struct ibv_mr *wmr = rdma_reg_write(id, target, sizeof(target));
	struct ibv_mr *rmr = rdma_reg_read(id, target, sizeof(target));
	struct ibv_mr *imr = rdma_reg_msgs(id, &info, sizeof(info));
	struct ibv_mr *dmr = rdma_reg_msgs(id, done, sizeof(done));
	struct ibv_mr *gmr = rdma_reg_msgs(id, go, sizeof(go));
	struct ibv_wc wc;

	(void)arg;
	CHECK(wmr && rmr && imr && dmr && gmr, "registration");
	if (is_iwarp(id))	/* the client speaks first */
		CHECK(!rdma_post_recv(id, &go_ctx, go, sizeof(go), gmr), "post recv");
	CHECK(!rdma_post_recv(id, &done_ctx, done, sizeof(done), dmr), "post recv");
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	if (is_iwarp(id)) {
		comp(id, 0, &go_ctx, &wc, "go message");
		CHECK(wc.byte_len == 3 && !memcmp(go, "go", 3), "the go message");
		obs("iWARP: the client's go message came first");
	}
	rdma_dereg_mr(gmr);
	info.addr = (uintptr_t)target;
	info.wkey = wmr->rkey;
	info.rkey = rmr->rkey;
	CHECK(!rdma_post_send(id, &info_ctx, &info, sizeof(info), imr, 0), "send keys");
	comp(id, 1, &info_ctx, &wc, "send keys");
	comp(id, 0, &done_ctx, &wc, "done message");
	/* what the client wrote: 2048 bytes with rdma_post_write, then 2048
	 * with rdma_post_writev */
	expect(target, 2048, 1, 0, "written by rdma_post_write");
	expect(target + 2048, 2048, 2, 0, "written by rdma_post_writev");
	verified(2, OS_LEN);
	obs("target buffer holds the %d bytes written", OS_LEN);
	obs("server rdma_dereg_mr: %d %d %d %d", rdma_dereg_mr(wmr), rdma_dereg_mr(rmr),
	    rdma_dereg_mr(imr), rdma_dereg_mr(dmr));
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

/* iWARP: an RDMA read has one sink SGE (max_sge_rd 1). rdma_post_readv of
 * the three SGEs: what it returns, the completion, the bytes that land in
 * each SGE (of a zeroed buffer). Then the SGEs become one of 2048 bytes,
 * which the caller reads with. (The buffer is filled with 0xee first:
 * what the read left alone shows.) */
static void onesided_iwarp_readv(struct rdma_cm_id *id, void *ctx, struct ibv_sge *sge,
				 char *dst, struct remote info)
{
	struct ibv_device_attr da;
	struct ibv_wc wc;
	uint32_t k, i, from = 0;
	int ret;

	CHECK(!ibv_query_device(id->verbs, &da), "ibv_query_device");
	obs("iWARP: the device's max_sge_rd is %d", da.max_sge_rd);
	memset(dst, 0xee, 2048);
	ret = rdma_post_readv(id, ctx, sge, 3, 0, info.addr + 2048, info.rkey);
	obs("rdma_post_readv of 3 SGEs (1000/48/1000): returns %d", ret);
	if (ret == 0) {
		ret = rdma_get_send_comp(id, &wc);
		CHECK(ret == 1 && wc.wr_id == (uintptr_t)ctx, "the 3-SGE read's completion");
		obs("rdma_post_readv of 3 SGEs: status %s, opcode %s, byte_len %u",
		    ibv_wc_status_str(wc.status), wc.opcode == IBV_WC_RDMA_READ ? "RDMA_READ" : "other",
		    wc.byte_len);
	}
	for (k = 0; k < 3; from += sge[k].length, k++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)sge[k].addr;
		uint32_t read = 0, untouched = 0;

		while (read < sge[k].length && p[read] == pattern(2, from + read))
			read++;
		for (i = read; i < sge[k].length; i++)
			untouched += p[i] == 0xee;
		obs("rdma_post_readv of 3 SGEs: SGE %u (%u bytes): the first %u the peer's, "
		    "%u of the rest untouched", k, sge[k].length, read, untouched);
	}
	memset(dst, 0, 2048);
	sge[0].length = 2048;
}

static void onesided_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char src[OS_LEN], dst[OS_LEN];
	static struct remote info;
	static int ctx[5];
	struct ibv_mr *smr = rdma_reg_msgs(id, src, sizeof(src));
	struct ibv_mr *dmr = rdma_reg_msgs(id, dst, sizeof(dst));
	struct ibv_mr *imr = rdma_reg_msgs(id, &info, sizeof(info));
	struct ibv_sge sge[3];
	static const uint32_t part[3] = { 1000, 48, 1000 };
	struct ibv_wc wc;
	uint32_t off;
	int k;

	CHECK(smr && dmr && imr, "registration");
	CHECK(!rdma_post_recv(id, &ctx[0], &info, sizeof(info), imr), "post recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	if (is_iwarp(id)) {	/* the client speaks first */
		CHECK(!rdma_post_send(id, &ctx[1], "go", 3, NULL, IBV_SEND_INLINE), "send go");
		comp(id, 1, &ctx[1], &wc, "send go");
	}
	comp(id, 0, &ctx[0], &wc, "receive keys");
	fill(src, 2048, 1);
	fill(src + 2048, 2048, 2);

	CHECK(!rdma_post_write(id, &ctx[1], src, 2048, smr, IBV_SEND_SIGNALED,
			       info.addr, info.wkey), "rdma_post_write");
	comp(id, 1, &ctx[1], &wc, "rdma_post_write");
	for (k = 0, off = 2048; k < 3; off += part[k], k++) {
		sge[k].addr = (uintptr_t)(src + off);
		sge[k].length = part[k];
		sge[k].lkey = smr->lkey;
	}
	CHECK(!rdma_post_writev(id, &ctx[2], sge, 3, IBV_SEND_SIGNALED,
				info.addr + 2048, info.wkey), "rdma_post_writev");
	comp(id, 1, &ctx[2], &wc, "rdma_post_writev");
	obs("rdma_post_write and rdma_post_writev completed");

	CHECK(!rdma_post_read(id, &ctx[3], dst, 2048, dmr, 0, info.addr, info.rkey),
	      "rdma_post_read");
	comp(id, 1, &ctx[3], &wc, "rdma_post_read");
	CHECK(wc.opcode == IBV_WC_RDMA_READ, "read opcode");
	expect(dst, 2048, 1, 0, "read back by rdma_post_read");
	for (k = 0, off = 2048; k < 3; off += part[k], k++) {
		sge[k].addr = (uintptr_t)(dst + off);
		sge[k].length = part[k];
		sge[k].lkey = dmr->lkey;
	}
	if (is_iwarp(id))
		onesided_iwarp_readv(id, &ctx[4], sge, dst + 2048, info);
	CHECK(!rdma_post_readv(id, &ctx[4], sge, is_iwarp(id) ? 1 : 3, 0, info.addr + 2048,
			       info.rkey), "rdma_post_readv");
	comp(id, 1, &ctx[4], &wc, "rdma_post_readv");
	expect(dst + 2048, 2048, 2, 0, "read back by rdma_post_readv");
	verified(2, OS_LEN);
	obs("rdma_post_read and rdma_post_readv read back the %d bytes written%s", OS_LEN,
	    is_iwarp(id) ? " (rdma_post_readv into one SGE: iWARP)" : "");
	CHECK(!rdma_post_send(id, &ctx[0], "done", 5, NULL, IBV_SEND_INLINE), "send done");
	comp(id, 1, &ctx[0], &wc, "send done");
	obs("client rdma_dereg_mr: %d %d %d", rdma_dereg_mr(smr), rdma_dereg_mr(dmr),
	    rdma_dereg_mr(imr));
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- srq: receives posted through the id's shared receive queue ---- */

#define SRQ_N 8

static void *srq_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 0);	/* no QP yet */
	struct ibv_srq_init_attr sattr;
	struct ibv_qp_init_attr attr;
	static char buf[SRQ_N][SLOT];
	static int ctx[SRQ_N];
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int i, seen = 0;

	(void)arg;
	memset(&sattr, 0, sizeof(sattr));
	sattr.attr.max_wr = 32;
	sattr.attr.max_sge = 4;
	CHECK(!rdma_create_srq(id, NULL, &sattr), "rdma_create_srq");
	qp_attr(&attr, 0);
	CHECK(!rdma_create_qp(id, NULL, &attr), "rdma_create_qp");
	CHECK(id->srq && id->qp, "the id has an SRQ and a QP");
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < SRQ_N / 2; i++)	/* half with rdma_post_recv */
		CHECK(!rdma_post_recv(id, &ctx[i], buf[i], SLOT, mr), "rdma_post_recv (SRQ)");
	for (; i < SRQ_N; i++) {	/* half with rdma_post_recvv, 2 SGEs */
		struct ibv_sge sge[2] = {
			{ (uintptr_t)buf[i], 100, mr->lkey },
			{ (uintptr_t)buf[i] + 100, SLOT - 100, mr->lkey },
		};

		CHECK(!rdma_post_recvv(id, &ctx[i], sge, 2), "rdma_post_recvv (SRQ)");
	}
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	for (i = 0; i < SRQ_N; i++) {
		int k;

		CHECK(rdma_get_recv_comp(id, &wc) == 1, "rdma_get_recv_comp");
		CHECK(wc.status == IBV_WC_SUCCESS, "srq completion %s",
		      ibv_wc_status_str(wc.status));
		for (k = 0; k < SRQ_N && wc.wr_id != (uintptr_t)&ctx[k]; k++)
			;
		CHECK(k < SRQ_N && !(seen & (1 << k)), "wr_id of a receive not posted");
		seen |= 1 << k;
		CHECK(wc.qp_num == id->qp->qp_num, "completion of another QP");
		CHECK(wc.byte_len == msg_size(k), "srq receive %d: %u bytes", k, wc.byte_len);
		expect(buf[k], msg_size(k), k, 0, "srq receive");
		verified(1, (long)msg_size(k));
	}
	obs("%d receives posted to the SRQ (%d rdma_post_recv, %d rdma_post_recvv) completed",
	    SRQ_N, SRQ_N / 2, SRQ_N / 2);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	rdma_destroy_srq(id);
	rdma_destroy_ep(id);
	return NULL;
}

static void srq_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char buf[SRQ_N][SLOT];
	static int ctx[SRQ_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	int i;

	CHECK(mr, "rdma_reg_msgs");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	/* receives are taken from the SRQ in the order they were posted */
	for (i = 0; i < SRQ_N; i++) {
		fill(buf[i], msg_size(i), i);
		CHECK(!rdma_post_send(id, &ctx[i], buf[i], msg_size(i), mr, 0), "send %d", i);
		comp(id, 1, &ctx[i], &wc, "srq send");
	}
	obs("%d sends completed", SRQ_N);
	rdma_dereg_mr(mr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- ud: datagrams with rdma_post_ud_send ---- */

#define UD_N 8

static size_t ud_size(int i)
{
	return 1 + (size_t)(i * 131) % 1000;
}

static void *ud_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(1, 1);
	static char buf[UD_N][GRH + 1024];
	static int ctx[UD_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_wc wc;
	int i;

	(void)arg;
	CHECK(mr, "rdma_reg_msgs");
	for (i = 0; i < UD_N; i++)
		CHECK(!rdma_post_recv(id, &ctx[i], buf[i], sizeof(buf[i]), mr), "post recv");
	CHECK(!rdma_accept(id, NULL), "rdma_accept");
	for (i = 0; i < UD_N; i++) {
		comp(id, 0, &ctx[i], &wc, "ud receive");
		CHECK(wc.byte_len == GRH + ud_size(i), "ud receive %d: %u bytes", i,
		      wc.byte_len);
		expect(buf[i] + GRH, ud_size(i), i, 0, "ud datagram");
		verified(1, (long)ud_size(i));
	}
	obs("%d datagrams received, each with the %d-byte GRH in front", UD_N, GRH);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	return NULL;
}

static void ud_client(void)
{
	struct rdma_cm_id *id = client_ep(1);
	static char buf[UD_N][1024];
	static int ctx[UD_N];
	struct ibv_mr *mr = rdma_reg_msgs(id, buf, sizeof(buf));
	struct ibv_ah *ah;
	uint32_t qpn;
	struct ibv_wc wc;
	int i;

	CHECK(mr, "rdma_reg_msgs");
	CHECK(!rdma_connect(id, NULL), "rdma_connect (UD)");
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED,
	      "the connection event");
	ah = ibv_create_ah(id->pd, &id->event->param.ud.ah_attr);
	CHECK(ah, "ibv_create_ah from the event's UD parameters");
	qpn = id->event->param.ud.qp_num;
	obs("remote qkey from the connection event is RDMA_UDP_QKEY: %s",
	    id->event->param.ud.qkey == RDMA_UDP_QKEY ? "yes" : "no");
	for (i = 0; i < UD_N; i++) {
		fill(buf[i], ud_size(i), i);
		CHECK(!rdma_post_ud_send(id, &ctx[i], buf[i], ud_size(i), mr, 0, ah, qpn),
		      "rdma_post_ud_send %d", i);
		comp(id, 1, &ctx[i], &wc, "ud send");
	}
	obs("%d rdma_post_ud_send completed", UD_N);
	usleep(200000);	/* let the receiver take them before the QP goes */
	ibv_destroy_ah(ah);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
}

/* ---- errors: a send nobody receives, a write with a wrong rkey ---- */

static sem_t client_done;

static void *errors_server(void *arg)
{
	static char target[256];
	static struct remote info;
	static int ctx;
	struct rdma_cm_id *id;
	struct ibv_mr *wmr, *imr;
	struct ibv_wc wc;

	(void)arg;
	/* 1: accept, post no receive at all */
	id = accept_one(0, 1);
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	close_listeners();	/* the port is listened on again below */
	sem_wait(&client_done);
	rdma_disconnect(id);
	rdma_destroy_ep(id);

	/* 2: give the client an address and a key */
	id = accept_one(0, 1);
	wmr = rdma_reg_write(id, target, sizeof(target));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	CHECK(wmr && imr, "registration");
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	info.addr = (uintptr_t)target;
	info.wkey = wmr->rkey;
	CHECK(!rdma_post_send(id, &ctx, &info, sizeof(info), imr, 0), "send key");
	comp(id, 1, &ctx, &wc, "send key");
	sem_wait(&client_done);
	rdma_dereg_mr(wmr);
	rdma_dereg_mr(imr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

/* Posts a send on a QP now in the error state: what the API returns. */
static void post_after_error(struct rdma_cm_id *id, const char *what)
{
	static int ctx;
	struct ibv_wc wc;
	int ret, err;

	errno = 0;
	ret = rdma_post_send(id, &ctx, "x", 2, NULL, IBV_SEND_INLINE);
	err = errno;
	obs("%s: rdma_post_send returns %d, errno %s", what, ret, ret ? strerror(err) : "-");
	if (ret == 0) {
		ret = rdma_get_send_comp(id, &wc);
		obs("%s: rdma_get_send_comp returns %d, status %s", what, ret,
		    ibv_wc_status_str(wc.status));
	}
}

/* Work requests the provider itself refuses (more SGEs than the QP has):
 * the return value and errno. Nothing is posted, the QP stays usable. */
static void provider_refuses(struct rdma_cm_id *id)
{
	static char buf[64];
	static int ctx;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_sge sge[256];
	int k, ret;

	CHECK(!ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &qia), "ibv_query_qp");
	CHECK(qa.cap.max_send_sge < 255 && qa.cap.max_recv_sge < 255, "SGE limits");
	for (k = 0; k < 256; k++) {
		sge[k].addr = (uintptr_t)buf;
		sge[k].length = 1;
		sge[k].lkey = 0;
	}
	errno = 0;
	ret = rdma_post_sendv(id, &ctx, sge, (int)qa.cap.max_send_sge + 1, 0);
	obs("rdma_post_sendv with one SGE too many: returns %d, errno %s", ret,
	    strerror(errno));
	errno = 0;
	ret = rdma_post_recvv(id, &ctx, sge, (int)qa.cap.max_recv_sge + 1);
	obs("rdma_post_recvv with one SGE too many: returns %d, errno %s", ret,
	    strerror(errno));
}

static void errors_client(void)
{
	static char src[256];
	static struct remote info;
	static int ctx[3];
	struct rdma_cm_id *id;
	struct ibv_mr *smr, *imr;
	struct ibv_wc wc;
	int ret;

	/* 1: a send that no receive is waiting for (no RNR retries) */
	id = client_ep(0);
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	provider_refuses(id);
	ret = rdma_post_send(id, &ctx[0], "hello", 6, NULL, IBV_SEND_INLINE);
	obs("send without receive: rdma_post_send returns %d", ret);
	ret = rdma_get_send_comp(id, &wc);
	CHECK(wc.wr_id == (uintptr_t)&ctx[0], "wr_id of the failed send");
	obs("send without receive: rdma_get_send_comp returns %d, status %s",
	    ret, ibv_wc_status_str(wc.status));
	CHECK(ret == 1 && wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "want an RNR error");
	post_after_error(id, "after the RNR error");
	verified(1, 0);
	sem_post(&client_done);	/* both sides disconnect together */
	rdma_disconnect(id);
	rdma_destroy_ep(id);

	/* 2: an RDMA write with a wrong rkey */
	id = client_ep(0);
	smr = rdma_reg_msgs(id, src, sizeof(src));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	CHECK(smr && imr, "registration");
	CHECK(!rdma_post_recv(id, &ctx[1], &info, sizeof(info), imr), "post recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	comp(id, 0, &ctx[1], &wc, "receive key");
	ret = rdma_post_write(id, &ctx[2], src, sizeof(src), smr, 0, info.addr,
			      info.wkey ^ 0xff);
	obs("write with a wrong rkey: rdma_post_write returns %d", ret);
	ret = rdma_get_send_comp(id, &wc);
	CHECK(wc.wr_id == (uintptr_t)&ctx[2], "wr_id of the failed write");
	obs("write with a wrong rkey: rdma_get_send_comp returns %d, status %s",
	    ret, ibv_wc_status_str(wc.status));
	CHECK(ret == 1 && wc.status == IBV_WC_REM_ACCESS_ERR, "want a remote access error");
	post_after_error(id, "after the access error");
	verified(1, 0);
	sem_post(&client_done);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(imr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- iwarp: what an iWARP device refuses or does instead ---- */

static void refused(const char *what, int ret, int err);

/* The server: a connection with no receive posted; then one that gives
 * the client a key once the client has spoken (iWARP: the client first). */
static void *iwarp_server(void *arg)
{
	static char target[256], go[8];
	static struct remote info;
	static int ctx, go_ctx;
	struct rdma_cm_id *id;
	struct ibv_mr *wmr, *imr, *gmr;
	struct ibv_wc wc;

	(void)arg;
	id = accept_one(0, 1);
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	close_listeners();	/* the port is listened on again below */
	sem_wait(&client_done);
	rdma_disconnect(id);
	rdma_destroy_ep(id);

	id = accept_one(0, 1);
	wmr = rdma_reg_write(id, target, sizeof(target));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	gmr = rdma_reg_msgs(id, go, sizeof(go));
	CHECK(wmr && imr && gmr, "registration");
	CHECK(!rdma_post_recv(id, &go_ctx, go, sizeof(go), gmr), "post recv");
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	comp(id, 0, &go_ctx, &wc, "go message");
	info.addr = (uintptr_t)target;
	info.wkey = wmr->rkey;
	CHECK(!rdma_post_send(id, &ctx, &info, sizeof(info), imr, 0), "send key");
	comp(id, 1, &ctx, &wc, "send key");
	sem_wait(&client_done);
	rdma_dereg_mr(wmr);
	rdma_dereg_mr(imr);
	rdma_dereg_mr(gmr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

/* The completion of a request the peer answers with a TERMINATE: siw
 * completes a send or a write once TCP has it, so it is successful, unless
 * the TERMINATE came first, which makes it a local QP operation error (seen
 * both ways in one boot, stock and ours alike). Which one is siw's race,
 * not the library's: it is checked to be one of the two and printed, not
 * compared. */
static void siw_race(const char *what, int ret, const struct ibv_wc *wc)
{
	obs("%s: rdma_get_send_comp returns %d, the request's wr_id", what, ret);
	printf("note: %s: status %s\n", what, ibv_wc_status_str(wc->status));
	CHECK(wc->status == IBV_WC_SUCCESS || wc->status == IBV_WC_LOC_QP_OP_ERR,
	      "%s: status %s", what, ibv_wc_status_str(wc->status));
}

/* After a completion that ends the connection on iWARP (the peer answers
 * with a TERMINATE): the connection manager's event (the id's own channel,
 * waited on 10 s at most; read here, so the caller must not wait for it
 * again in rdma_disconnect), then a send posted and the send CQ polled for
 * 2 s, not waited on (siw leaves a request posted to a QP in error
 * unanswered: rdma_get_send_comp would wait for ever). */
static void after_terminate(struct rdma_cm_id *id, const char *what)
{
	static int ctx;
	struct pollfd p = { .fd = id->channel->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct ibv_wc wc;
	double end;
	int ret, err, n = 0;

	CHECK(poll(&p, 1, 10000) == 1, "%s: no connection event within 10 s", what);
	CHECK(!rdma_get_cm_event(id->channel, &ev), "rdma_get_cm_event");
	obs("%s: the connection manager's event: %s", what, rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	errno = 0;
	ret = rdma_post_send(id, &ctx, "x", 2, NULL, IBV_SEND_INLINE);
	err = errno;
	refused(what, ret, err);
	for (end = now() + 2; ret == 0 && n == 0 && now() < end;) {
		n = ibv_poll_cq(id->send_cq, 1, &wc);
		if (n == 0)
			usleep(1000);
	}
	if (ret == 0 && n == 1)
		obs("%s: its completion: status %s", what, ibv_wc_status_str(wc.status));
	else if (ret == 0)
		obs("%s: ibv_poll_cq for 2 s: %d", what, n);
}

/* The value and errno of a call, as obs prints them: errno by number too
 * (siw's library returns its errors negated, -EINVAL, which rdma_seterrno
 * leaves in errno as they are). */
static void refused(const char *what, int ret, int err)
{
	obs("%s: returns %d, errno %d (%s)", what, ret, ret ? err : 0, ret ? strerror(err) : "-");
}

static void iwarp_client(void)
{
	static char src[256];
	static struct remote info;
	static int ctx[4];
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct ibv_device_attr da;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct rdma_cm_id *id;
	struct ibv_mr *smr, *imr;
	struct ibv_sge sge[64];
	struct ibv_wc wc;
	char big[256];
	int k, ret;

	/* 1: a UD endpoint (iWARP is connected only) */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_UDP;
	hints.ai_qp_type = IBV_QPT_UD;
	CHECK(!rdma_getaddrinfo(ADDR, port, &hints, &res), "rdma_getaddrinfo (UD)");
	qp_attr(&attr, 1);
	errno = 0;
	ret = rdma_create_ep(&id, res, NULL, &attr);
	refused("rdma_create_ep of a UD endpoint", ret, errno);
	CHECK(ret == -1, "a UD endpoint on iWARP");
	rdma_freeaddrinfo(res);

	/* 2: the limits, on a connected RC QP: one SGE more than the device
	 * takes, an empty receive, inline data one byte too long; the server
	 * posts no receive, so a send that is taken meets none. */
	id = client_ep(0);
	CHECK(is_iwarp(id), "the device is not iWARP");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	CHECK(!ibv_query_device(id->verbs, &da), "ibv_query_device");
	CHECK(!ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &qia), "ibv_query_qp");
	obs("device: max_sge %d, max_sge_rd %d, atomic_cap %d; QP: max_send_sge %u, "
	    "max_recv_sge %u, max_inline_data %u", da.max_sge, da.max_sge_rd, da.atomic_cap,
	    qa.cap.max_send_sge, qa.cap.max_recv_sge, qa.cap.max_inline_data);
	CHECK(da.max_sge < 63 && qa.cap.max_inline_data < sizeof(big), "limits");
	for (k = 0; k < 64; k++)
		sge[k] = (struct ibv_sge){ (uintptr_t)src, 1, 0 };
	memset(big, 'x', sizeof(big));
	errno = 0;
	ret = rdma_post_sendv(id, &ctx[0], sge, da.max_sge + 1, 0);
	refused("rdma_post_sendv of the device's max_sge+1 SGEs", ret, errno);
	CHECK(ret == -1, "too many SGEs taken");
	errno = 0;
	ret = rdma_post_recvv(id, &ctx[0], sge, da.max_sge + 1);
	refused("rdma_post_recvv of the device's max_sge+1 SGEs", ret, errno);
	CHECK(ret == -1, "too many SGEs taken");
	errno = 0;
	ret = rdma_post_recvv(id, &ctx[0], sge, 0);
	refused("rdma_post_recvv of no SGE", ret, errno);
	errno = 0;
	ret = rdma_post_send(id, &ctx[0], big, qa.cap.max_inline_data + 1, NULL, IBV_SEND_INLINE);
	refused("rdma_post_send of max_inline_data+1 bytes inline", ret, errno);
	CHECK(ret == -1, "inline data too long taken");
	smr = rdma_reg_msgs(id, src, sizeof(src));
	CHECK(smr, "rdma_reg_msgs");
	for (k = 0; k <= (int)qa.cap.max_send_sge; k++)
		sge[k] = (struct ibv_sge){ (uintptr_t)src + 16 * k, 16, smr->lkey };
	errno = 0;
	ret = rdma_post_sendv(id, &ctx[1], sge, (int)qa.cap.max_send_sge + 1, 0);
	refused("rdma_post_sendv of the QP's max_send_sge+1 SGEs (no receive posted)", ret, errno);
	CHECK(ret == 0, "the send");
	ret = rdma_get_send_comp(id, &wc);
	CHECK(ret == 1 && wc.wr_id == (uintptr_t)&ctx[1], "its completion");
	siw_race("the send no receive waits for", ret, &wc);
	after_terminate(id, "after the send no receive waits for");
	verified(1, 0);
	sem_post(&client_done);
	rdma_dereg_mr(smr);
	rdma_destroy_ep(id);	/* no rdma_disconnect: its event came */

	/* 3: an RDMA write with a wrong key */
	id = client_ep(0);
	smr = rdma_reg_msgs(id, src, sizeof(src));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	CHECK(smr && imr, "registration");
	CHECK(!rdma_post_recv(id, &ctx[2], &info, sizeof(info), imr), "post recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	CHECK(!rdma_post_send(id, &ctx[0], "go", 3, NULL, IBV_SEND_INLINE), "send go");
	comp(id, 1, &ctx[0], &wc, "send go");
	comp(id, 0, &ctx[2], &wc, "receive key");
	ret = rdma_post_write(id, &ctx[3], src, sizeof(src), smr, 0, info.addr, info.wkey ^ 0xff);
	obs("write with a wrong rkey: rdma_post_write returns %d", ret);
	ret = rdma_get_send_comp(id, &wc);
	CHECK(ret == 1 && wc.wr_id == (uintptr_t)&ctx[3], "the write's completion");
	siw_race("write with a wrong rkey", ret, &wc);
	after_terminate(id, "after the write with a wrong rkey");
	verified(1, 0);
	sem_post(&client_done);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(imr);
	rdma_destroy_ep(id);	/* no rdma_disconnect: its event came */
}

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
