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
 */
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

static volatile const char *waiting_in = "nothing";

static void watchdog(int sig)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "RESULT hung in %s (watchdog)\n", waiting_in);

	(void)sig;
	if (write(1, line, (size_t)n) < 0)
		_exit(125);
	_exit(124);
}

static uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + 1);
}

static uint32_t checksum(const uint8_t *p, size_t n)
{
	uint32_t s = 2166136261u;

	while (n--)
		s = (s ^ *p++) * 16777619u;
	return s;
}

static void fill_msg(struct msg *m, uint32_t tag, uint32_t seq)
{
	size_t i;

	m->tag = tag;
	m->seq = seq;
	for (i = 0; i < sizeof(m->body); i++)
		m->body[i] = pattern(seq, i);
	m->sum = checksum(m->body, sizeof(m->body));
}

static int slot_ok(const uint8_t *p, uint32_t seq)
{
	size_t i;

	for (i = 0; i < SIZE; i++)
		if (p[i] != pattern(seq, i))
			return 0;
	return 1;
}

static void fill_slot(uint8_t *p, uint32_t seq)
{
	size_t i;

	for (i = 0; i < SIZE; i++)
		p[i] = pattern(seq, i);
}

static void die(const char *what)
{
	printf("RESULT failed: %s (errno %d %s)\n", what, errno, strerror(errno));
	exit(1);
}

/* The next completion: the bounded wait in our build, the blocking
 * original in the stock one (then the watchdog bounds it). */
static int next_comp(struct rdma_cm_id *id, int recv, struct ibv_wc *wc, int timeout_ms)
{
	waiting_in = recv ? "rdma_get_recv_comp" : "rdma_get_send_comp";
#ifdef RDMAVERBS_H
	waiting_in = recv ? "rdma_get_recv_comp_timeout" : "rdma_get_send_comp_timeout";
	return recv ? rdma_get_recv_comp_timeout(id, wc, timeout_ms) :
		      rdma_get_send_comp_timeout(id, wc, timeout_ms);
#else
	(void)timeout_ms;
	return recv ? rdma_get_recv_comp(id, wc) : rdma_get_send_comp(id, wc);
#endif
}

static struct rdma_addrinfo *resolve(const char *addr, const char *port, int passive)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	hints.ai_flags = passive ? RAI_PASSIVE : 0;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	return res;
}

static void qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = attr->cap.max_recv_wr = 64;
	attr->cap.max_send_sge = attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

/* ---- the server ---- */

static int server(const char *port, int recv_limit, int rnr_retry, int time_limit)
{
	static uint8_t wregion[MAX_N * SIZE], rregion[MAX_N * SIZE];
	static struct msg rbuf[32];
	struct rdma_addrinfo *res = resolve(NULL, port, 1);
	struct rdma_cm_id *listen_id, *id;
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct ibv_mr *wmr, *rmr, *mmr;
	struct regions reg;
	struct ibv_wc wc;
	long received = 0, bad = 0, writes = 0, posted = 0, done_n = -1;
	const char *end = "?";
	int i, ret;

	qp_attr(&attr);
	if (rdma_create_ep(&listen_id, res, NULL, &attr) || rdma_listen(listen_id, 1))
		die("server listen");
	printf("listening on port %s\n", port);
	fflush(stdout);
	if (rdma_get_request(listen_id, &id))
		die("rdma_get_request");
	for (i = 0; i < MAX_N; i++)
		fill_slot(rregion + (size_t)i * SIZE, (uint32_t)i);
	wmr = rdma_reg_write(id, wregion, sizeof(wregion));
	rmr = rdma_reg_read(id, rregion, sizeof(rregion));
	mmr = rdma_reg_msgs(id, rbuf, sizeof(rbuf));
	if (!wmr || !rmr || !mmr)
		die("registration");
	for (i = 0; i < 32 && (recv_limit < 0 || posted < recv_limit); i++, posted++)
		if (rdma_post_recv(id, (void *)(uintptr_t)i, &rbuf[i], sizeof(rbuf[i]), mmr))
			die("rdma_post_recv");
	reg.write_addr = (uintptr_t)wregion;
	reg.read_addr = (uintptr_t)rregion;
	reg.write_rkey = wmr->rkey;
	reg.read_rkey = rmr->rkey;
	memset(&param, 0, sizeof(param));
	param.private_data = &reg;
	param.private_data_len = sizeof(reg);
	param.responder_resources = param.initiator_depth = 4;
	param.retry_count = 6;
	param.rnr_retry_count = (uint8_t)rnr_retry;
	if (rdma_accept(id, &param))
		die("rdma_accept");
	signal(SIGALRM, watchdog);
	for (;;) {
		int slot;
		struct msg *m;

		alarm((unsigned)time_limit);
		ret = next_comp(id, 1, &wc, time_limit * 1000 / 2);
		alarm(0);
		if (ret < 0 && errno == ETIMEDOUT) {
			end = "timed out (rdma_get_recv_comp_timeout: ETIMEDOUT)";
			break;
		}
		if (ret != 1) {
			end = "rdma_get_recv_comp failed";
			break;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			end = ibv_wc_status_str(wc.status);
			break;
		}
		slot = (int)(uintptr_t)wc.wr_id;
		m = &rbuf[slot];
		if (m->tag == KILL_TAG) {
			printf("RESULT server received=%ld bad=%ld writes_checked=0 end=killed\n",
			       received, bad);
			fflush(stdout);
			raise(SIGKILL);
		}
		if (m->tag == DONE_TAG) {
			done_n = m->seq;
			end = "done";
			break;
		}
		received++;
		bad += m->sum != checksum(m->body, sizeof(m->body)) || wc.byte_len != sizeof(*m);
		if (recv_limit < 0 || posted < recv_limit) {
			if (rdma_post_recv(id, (void *)(uintptr_t)slot, m, sizeof(*m), mmr))
				die("rdma_post_recv");
			posted++;
		}
	}
	/* After "done" (seq N + 1): every write slot the client wrote, every
	 * third from 1 below N */
	for (i = 1; done_n > 0 && i < done_n - 1; i += 3) {
		writes++;
		bad += !slot_ok(wregion + (size_t)i * SIZE, (uint32_t)i);
	}
	printf("RESULT server received=%ld bad=%ld writes_checked=%ld end=%s\n", received, bad,
	       writes, end);
	fflush(stdout);
	if (!strcmp(end, "done"))
		rdma_disconnect(id);
	return 0;
}

/* ---- the client ---- */

enum state { UNPOSTED, POSTED, OK, FAILED };

/* The client's connection and its account of requests 0 .. n-1 (n and n+1:
 * the kill and done messages, not counted). */
static struct {
	struct rdma_cm_id *id;
	const struct regions *reg;
	struct ibv_mr *rmr, *wmr, *smr;
	int n, sends_only, wait_ms, stop_on_error, stopped;
	long ok, err, dup, bad_data, outstanding;
	long statuses[32];
	enum state st[MAX_N + 2];
} c;
static uint8_t rslots[MAX_N * SIZE], wsrc[MAX_N * SIZE];
static struct msg smsgs[MAX_N + 2];

/* Posts request i: a send, a write or a read, by i % 3 (sends only with
 * --sends-only); n and n+1 are the kill and done messages. A post the QP
 * refuses (in the error state) counts as an error completion. */
static void post(int i, uint32_t tag)
{
	int kind = c.sends_only || i >= c.n ? 0 : i % 3, r;
	void *ctx = (void *)(uintptr_t)i;
	size_t at = (size_t)i * SIZE;

	if (kind == 0) {
		fill_msg(&smsgs[i], tag, (uint32_t)i);
		r = rdma_post_send(c.id, ctx, &smsgs[i], sizeof(smsgs[i]), c.smr, 0);
	} else if (kind == 1) {
		fill_slot(wsrc + at, (uint32_t)i);
		r = rdma_post_write(c.id, ctx, wsrc + at, SIZE, c.wmr, 0,
				    c.reg->write_addr + at, c.reg->write_rkey);
	} else {
		r = rdma_post_read(c.id, ctx, rslots + at, SIZE, c.rmr, 0,
				   c.reg->read_addr + at, c.reg->read_rkey);
	}
	if (r) {
		c.st[i] = FAILED;
		c.err += i < c.n;
	} else {
		c.st[i] = POSTED;
		c.outstanding++;
	}
}

/* Takes one completion and accounts for it; 0 when the wait gave up. */
static int reap(void)
{
	struct ibv_wc wc;
	long w;
	int got;

	alarm((unsigned)(c.wait_ms / 500 + 1));
	got = next_comp(c.id, 0, &wc, c.wait_ms) == 1;
	alarm(0);
	if (!got)
		return 0;
	w = (long)wc.wr_id;
	if (w < 0 || w > c.n + 1 || c.st[w] != POSTED) {
		c.dup++;
		return 1;
	}
	c.outstanding--;
	if (wc.status == IBV_WC_SUCCESS) {
		c.st[w] = OK;
		if (w < c.n) {
			c.ok++;
			if (!c.sends_only && w % 3 == 2 && !slot_ok(rslots + (size_t)w * SIZE,
								     (uint32_t)w))
				c.bad_data++;
		}
	} else {
		c.st[w] = FAILED;
		if (w < c.n) {
			c.err++;
			c.statuses[wc.status < 32 ? wc.status : 31]++;
		}
	}
	return 1;
}

/* With --stop-on-error: whether to post no more (a request came back in
 * error, or the connection manager has an event: the connection is gone). */
static int stop_posting(void)
{
	struct pollfd p = { .fd = c.id->channel->fd, .events = POLLIN };

	if (!c.stop_on_error || c.stopped)
		return c.stopped;
	if (c.err) {
		c.stopped = 1;
		printf("posting stopped: a request came back in error\n");
	} else if (poll(&p, 1, 0) == 1) {
		struct rdma_cm_event *ev;

		c.stopped = 1;
		if (rdma_get_cm_event(c.id->channel, &ev))
			die("rdma_get_cm_event");
		printf("posting stopped: the connection manager's event %s, status %d\n",
		       rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
	}
	return c.stopped;
}

/* Posts requests from `*next` up to `upto`, WINDOW at most outstanding, and
 * takes their completions; 0 when a wait gave up. */
static int stream(int *next, int upto)
{
	while ((*next < upto && !c.stopped) || c.outstanding) {
		while (*next < upto && c.outstanding < WINDOW && !stop_posting())
			post((*next)++, 0);
		if (c.outstanding && !reap())
			return 0;
	}
	return 1;
}

/* The client's bound on a wait for a completion: half of --time-limit, and
 * at least twice what the transport may take to give up on a request
 * ((retry_cnt + 1) local ACK time-outs, each 4.096 us x 2^timeout), so that
 * a dead peer is reported by the transport before the wait gives up. The
 * watchdog of the stock build waits twice as long. */
static int wait_bound(struct ibv_qp *qp, int time_limit)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;
	double ack_ms;
	int ms = time_limit * 1000 / 2;

	if (ibv_query_qp(qp, &a, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY, &init))
		die("ibv_query_qp");
	ack_ms = 4.096e-3 * (double)(1u << a.timeout);
	if (ms < 2 * (a.retry_cnt + 1) * ack_ms + 1000)
		ms = (int)(2 * (a.retry_cnt + 1) * ack_ms) + 1000;
	printf("qp: local ACK timeout %u (%.0f ms), retry_cnt %u, rnr_retry %u; "
	       "a wait gives up after %d ms\n", a.timeout, ack_ms, a.retry_cnt, a.rnr_retry, ms);
	return ms;
}

static int client(const char *addr, const char *port, int n, int k, const char *fault,
		  int sends_only, int rnr_retry, int time_limit, int stop_on_error)
{
	struct rdma_addrinfo *res = resolve(addr, port, 0);
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	long lost = 0, posted = 0;
	int next = 0, i, tries, alive;

	c.n = n;
	c.sends_only = sends_only;
	c.stop_on_error = stop_on_error;
	qp_attr(&attr);
	memset(&param, 0, sizeof(param));
	param.responder_resources = param.initiator_depth = 4;
	param.retry_count = 6;
	param.rnr_retry_count = (uint8_t)rnr_retry;
	for (tries = 0;; tries++) {	/* the server may still be starting */
		if (rdma_create_ep(&c.id, res, NULL, &attr))
			die("rdma_create_ep");
		if (!rdma_connect(c.id, &param))
			break;
		rdma_destroy_ep(c.id);
		if (tries == 60)
			die("rdma_connect");
		sleep(1);
	}
	c.reg = c.id->event->param.conn.private_data;
	if (!c.reg)
		die("no regions from the server");
	c.rmr = rdma_reg_msgs(c.id, rslots, sizeof(rslots));
	c.wmr = rdma_reg_msgs(c.id, wsrc, sizeof(wsrc));
	c.smr = rdma_reg_msgs(c.id, smsgs, sizeof(smsgs));
	if (!c.rmr || !c.wmr || !c.smr)
		die("registration");
	c.wait_ms = wait_bound(c.id->qp, time_limit);
	signal(SIGALRM, watchdog);

	/* 1: the first k, all completed */
	alive = stream(&next, k);
	printf("at the fault point: %ld ok, %ld in error\n", c.ok, c.err);
	/* 2: the fault */
	if (!strcmp(fault, "cut")) {
		const char *dev = getenv("RDMAVERBS_NETDEV");
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "ip link set %s down", dev ? dev : "?");
		if (system(cmd))
			die(cmd);
	} else if (!strcmp(fault, "kill")) {
		post(n, KILL_TAG);
		while (alive && c.outstanding)
			alive = reap();
		sleep(2);
	} else if (!strcmp(fault, "wait")) {
		const char *go = getenv("WIRE_GO");
		struct stat sb;

		for (i = 0; go && i < 600 && stat(go, &sb); i++)
			usleep(100000);
	}
	/* 3: the rest */
	if (alive)
		stream(&next, n);
	for (i = 0; i < n; i++) {
		posted += c.st[i] != UNPOSTED;
		lost += c.st[i] == POSTED;
	}
	if (!strcmp(fault, "none") && !lost && !c.err) {
		post(n + 1, DONE_TAG);
		while (c.outstanding && reap())
			;
	}
	for (i = 0; i < 32; i++)
		if (c.statuses[i])
			printf("error status %s: %ld\n", ibv_wc_status_str((enum ibv_wc_status)i),
			       c.statuses[i]);
	printf("RESULT client posted=%ld ok=%ld error=%ld lost=%ld duplicate=%ld bad_data=%ld "
	       "stopped=%d\n", posted, c.ok, c.err, lost, c.dup, c.bad_data, c.stopped);
	fflush(stdout);
	/* rdma_seterrno, the 16th function, makes the account the exit status:
	 * 0, or -1 with errno EIO. */
	return rdma_seterrno(lost || c.dup || c.bad_data || (posted != n && !c.stopped) ? EIO : 0) ?
	       1 : 0;
}

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
