/*
 * wire.c's client: the stream of sends, writes and reads, the fault after
 * the first K, and the account of every request (its RESULT line).
 */
#include "wire-common.h"

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

int client(const char *addr, const char *port, int n, int k, const char *fault,
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
