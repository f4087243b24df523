/*
 * The bounded waits, rdma_get_send_comp_timeout and rdma_get_recv_comp_timeout,
 * on a provider of this file's own whose completion channel is a real pipe:
 * a completion is "delivered" by making the CQ non-empty and, if the CQ is
 * armed, writing an event into the pipe, which the replaced
 * ibv_get_cq_event reads (-rdynamic makes it the library's too).
 *
 * Cases, each on both queues where it matters:
 *   timeout   nothing arrives: -1, ETIMEDOUT, after the time-out, not before;
 *   zero      0 only polls: ETIMEDOUT at once, the CQ not armed; a ready
 *             completion is returned;
 *   ready     a completion already there is returned at once;
 *   late      one delivered by another thread after 100 ms is returned then;
 *   lost      one delivered after a time-out is returned by the next call (of
 *             the original), and its event is read and acknowledged exactly
 *             once, later;
 *   signal    SIGALRM every 20 ms during a 300 ms wait: not shortened, not
 *             extended;
 *   forever   a negative time-out waits for a completion 150 ms away;
 *   invalid   NULL id, wc, CQ, or channel when it must wait: -1, EINVAL.
 * Every event read is acknowledged once (the events written, read and
 * acknowledged are counted).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <rdmaverbs.h>

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; \
	fprintf(stderr, "timeout: FAIL: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct ibv_context ctx;
static struct ibv_cq cq;
static struct ibv_comp_channel ch;
static struct rdma_cm_id id;
static int pipefd[2];
static int pending, armed, notifies;
static long written, read_events, acked;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int t_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *wc)
{
	int got = 0;

	(void)c;
	pthread_mutex_lock(&lock);
	if (pending && n > 0) {
		pending--;
		memset(wc, 0, sizeof(*wc));
		wc->wr_id = 0x77;
		wc->opcode = IBV_WC_RECV;
		wc->byte_len = 8;
		got = 1;
	}
	pthread_mutex_unlock(&lock);
	return got;
}

static int t_req_notify_cq(struct ibv_cq *c, int solicited_only)
{
	(void)c; (void)solicited_only;
	pthread_mutex_lock(&lock);
	armed = 1;
	notifies++;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* A completion arrives: an event too, if the CQ is armed. */
static void deliver(void)
{
	pthread_mutex_lock(&lock);
	pending++;
	if (armed) {
		armed = 0;
		if (write(pipefd[1], "e", 1) == 1)
			written++;
	}
	pthread_mutex_unlock(&lock);
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **c, void **c_ctx)
{
	char e;

	if (read(channel->fd, &e, 1) != 1)
		return -1;
	read_events++;
	*c = &cq;
	*c_ctx = &id;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *c, unsigned int n)
{
	(void)c;
	acked += n;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *deliver_after(void *ms)
{
	usleep((useconds_t)(*(int *)ms) * 1000);
	deliver();
	return NULL;
}

static int (*const get[2])(struct rdma_cm_id *, struct ibv_wc *, int) = {
	rdma_get_send_comp_timeout, rdma_get_recv_comp_timeout,
};
static const char *const qname[2] = { "send", "recv" };

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	struct ibv_wc wc;
	struct rdma_cm_id bad;
	double t0, dt;
	int q, ret, err;

	if (pipe(pipefd))
		return 2;
	ctx.ops.poll_cq = t_poll_cq;
	ctx.ops.req_notify_cq = t_req_notify_cq;
	cq.context = &ctx;
	cq.channel = &ch;
	cq.cq_context = &id;
	ch.context = &ctx;
	ch.fd = pipefd[0];
	id.send_cq = id.recv_cq = &cq;
	id.send_cq_channel = id.recv_cq_channel = &ch;

	for (q = 0; q < 2; q++) {
		pthread_t t;
		int ms;

		/* timeout */
		t0 = now_ms();
		errno = 0;
		ret = get[q](&id, &wc, 200);
		err = errno;
		dt = now_ms() - t0;
		CHECK(ret == -1 && err == ETIMEDOUT && dt >= 200 && dt < 1200,
		      "%s: timeout: ret %d errno %d after %.0f ms (want -1 ETIMEDOUT after 200)",
		      qname[q], ret, err, dt);

		/* zero: no arming, no wait; then a ready completion */
		notifies = 0;
		t0 = now_ms();
		ret = get[q](&id, &wc, 0);
		err = errno;
		CHECK(ret == -1 && err == ETIMEDOUT && notifies == 0 && now_ms() - t0 < 50,
		      "%s: zero: ret %d errno %d, %d armings", qname[q], ret, err, notifies);
		deliver();
		ret = get[q](&id, &wc, 0);
		CHECK(ret == 1 && wc.wr_id == 0x77, "%s: zero with a completion: ret %d", qname[q], ret);

		/* ready */
		deliver();
		t0 = now_ms();
		ret = get[q](&id, &wc, 1000);
		CHECK(ret == 1 && wc.wr_id == 0x77 && now_ms() - t0 < 50,
		      "%s: ready: ret %d after %.0f ms", qname[q], ret, now_ms() - t0);

		/* late */
		ms = 100;
		pthread_create(&t, NULL, deliver_after, &ms);
		t0 = now_ms();
		ret = get[q](&id, &wc, 5000);
		dt = now_ms() - t0;
		pthread_join(t, NULL);
		CHECK(ret == 1 && wc.wr_id == 0x77 && dt >= 90 && dt < 2000,
		      "%s: late: ret %d after %.0f ms (want 1 after about 100)", qname[q], ret, dt);
	}

	/* lost: a completion after the time-out is the next call's, its event
	 * is read and acknowledged once, by the next call that waits */
	ret = rdma_get_recv_comp_timeout(&id, &wc, 50);
	CHECK(ret == -1 && errno == ETIMEDOUT, "lost: first call ret %d", ret);
	deliver();	/* the CQ is armed: an event is written */
	ret = rdma_get_recv_comp(&id, &wc);	/* the original, blocking */
	CHECK(ret == 1 && wc.wr_id == 0x77, "lost: the blocking original did not get it (%d)", ret);
	ret = rdma_get_recv_comp_timeout(&id, &wc, 100);	/* reads the stale event */
	CHECK(ret == -1 && errno == ETIMEDOUT, "lost: last call ret %d", ret);

	/* signal */
	{
		struct sigaction sa;
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;	/* no SA_RESTART: poll returns EINTR */
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		t0 = now_ms();
		ret = rdma_get_send_comp_timeout(&id, &wc, 300);
		err = errno;
		dt = now_ms() - t0;
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		CHECK(ret == -1 && err == ETIMEDOUT && dt >= 300 && dt < 1300,
		      "signal: ret %d errno %d after %.0f ms (want ETIMEDOUT after 300)", ret, err, dt);
	}

	/* forever */
	{
		pthread_t t;
		int ms = 150;

		pthread_create(&t, NULL, deliver_after, &ms);
		ret = rdma_get_send_comp_timeout(&id, &wc, -1);
		pthread_join(t, NULL);
		CHECK(ret == 1, "forever: ret %d", ret);
	}

	/* invalid */
	errno = 0;
	CHECK(rdma_get_send_comp_timeout(NULL, &wc, 10) == -1 && errno == EINVAL, "NULL id");
	errno = 0;
	CHECK(rdma_get_recv_comp_timeout(&id, NULL, 10) == -1 && errno == EINVAL, "NULL wc");
	bad = id;
	bad.send_cq = NULL;
	errno = 0;
	CHECK(rdma_get_send_comp_timeout(&bad, &wc, 10) == -1 && errno == EINVAL, "NULL CQ");
	bad = id;
	bad.recv_cq_channel = NULL;
	errno = 0;
	CHECK(rdma_get_recv_comp_timeout(&bad, &wc, 10) == -1 && errno == EINVAL,
	      "NULL channel when it must wait");

	CHECK(written == read_events && read_events == acked,
	      "events: %ld written, %ld read, %ld acknowledged", written, read_events, acked);
	printf("timeout: %d checks, %d failed (events: %ld written, %ld read, %ld acknowledged)\n",
	       checks, failures, written, read_events, acked);
	return failures != 0;
}
