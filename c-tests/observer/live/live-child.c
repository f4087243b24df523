/*
 * The live child ("live child MODE FILE", traced to FILE): each mode's
 * posts on the fake provider, from one thread or many, and what it saw
 * itself (the file, its writes, how long a fork took) on its stdout, for
 * the parent's checks. Every post must leave errno as it found it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include "fake.h"
#include "live.h"

static struct fake F;

static int nop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return 0;
}

/* One traced post; it must leave errno as it found it, in every mode (a
 * thread's first line, a write-out that fails, a truncated file, ...). */
static void post(uintptr_t id)
{
	char buf[8];
	int e = errno;

	rdma_post_send(&F.id, (void *)id, buf, sizeof(buf), NULL, IBV_SEND_INLINE);
	if (errno != e) {
		fprintf(stderr, "live: errno %d after a post, %d before\n", errno, e);
		_exit(9);
	}
}

static void *ten(void *arg)
{
	int i;

	for (i = 0; i < 10; i++)
		post((uintptr_t)arg);
	return NULL;
}

static void *many(void *arg)
{
	int i;

	for (i = 0; i < 30000; i++)
		post((uintptr_t)arg);
	return NULL;
}

static void *three(void *arg)
{
	(void)arg;
	errno = ESRCH;	/* as a failed tgkill of a gone thread leaves it */
	post(2);
	post(2);
	post(2);
	return NULL;
}

static pthread_barrier_t all_posted, may_exit;

static void *one_then_wait(void *arg)
{
	post((uintptr_t)arg);
	pthread_barrier_wait(&all_posted);
	pthread_barrier_wait(&may_exit);
	return NULL;
}

static void *one(void *arg)
{
	post((uintptr_t)arg);
	return NULL;
}

static void *go_later(void *arg)
{
	(void)arg;
	usleep(300000);
	__atomic_store_n(&writev_go, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *forever(void *arg)
{
	for (;;)
		post((uintptr_t)arg);
	return NULL;
}

int child(const char *mode, const char *file)
{
	pthread_t t[2];
	int i;

	fake_init(&F);
	F.ctx.ops.post_send = nop_post_send;
	if (!strcmp(mode, "idle")) {	/* 10 + a thread's 10, then idle */
		ten((void *)1);
		pthread_create(&t[0], NULL, ten, (void *)2);
		pthread_join(t[0], NULL);
		printf("posted\n");
		fflush(stdout);
		sleep(60);
		return 0;
	}
	if (!strcmp(mode, "killed")) {	/* two threads, as fast as they can */
		pthread_create(&t[0], NULL, forever, (void *)1);
		forever((void *)2);
	}
	if (!strcmp(mode, "steady")) {	/* 3000 lines over about 1.5 s, then a last one */
		printf("posting\n");
		fflush(stdout);
		for (i = 0; i < 3000; i++) {
			post(1);
			if (i % 10 == 9)
				usleep(5000);
		}
		post(3);
		return 0;
	}
	if (!strcmp(mode, "busy")) {	/* 300 ms at full speed: its own write-outs */
		struct scan s;
		double end = monotonic() + 0.3;
		long posted = 0, w, ww;

		while (monotonic() < end)
			for (i = 0; i < 100; i++, posted++)
				post(1);
		w = writes;
		ww = writer_writes;
		usleep(200000);		/* its last lines: the writer thread's */
		scan(file, &s);
		printf("%ld lines of %ld, %ld writes, %ld by the writer thread\n", s.lines, posted,
		       w, ww);
		return 0;
	}
	if (!strcmp(mode, "paced")) {	/* 100 lines 2 ms apart; then the file and the writes */
		struct scan s;

		for (i = 0; i < 100; i++) {
			post(1);
			usleep(2000);
		}
		usleep(300000);		/* the writer thread's turn */
		scan(file, &s);
		printf("%ld lines, %ld writes\n", s.lines, writes);
		return 0;
	}
	if (!strcmp(mode, "alone")) {	/* no writer thread: the thread's own rules */
		struct scan s;
		long w, lines, bytes;

		refuse_threads = 1;
		for (i = 0; i < 15; i++) {	/* 280 ms */
			if (i)
				usleep(20000);
			post(1);
		}
		scan(file, &s);
		printf("age: %ld lines, %ld writes\n", s.lines, writes);
		w = writes;
		lines = s.lines;
		bytes = s.bytes;
		for (i = 0; i < 2000; i++)
			post(1);
		scan(file, &s);
		printf("size: %ld lines, %ld bytes, %ld writes\n", s.lines - lines, s.bytes - bytes,
		       writes - w);
		return 0;
	}
	if (!strcmp(mode, "race")) {	/* 2 threads, 30000 lines each */
		struct scan s;

		pthread_create(&t[0], NULL, many, (void *)1);
		many((void *)2);
		pthread_join(t[0], NULL);
		usleep(200000);
		scan(file, &s);
		printf("%ld %ld lines, %ld broken, in order %d\n", s.per[1], s.per[2], s.bad,
		       s.in_order);
		return 0;
	}
	if (!strcmp(mode, "reclaim")) {	/* 100 threads one after the other */
		struct scan s;

		post(1);
		for (i = 0; i < 100; i++) {
			pthread_create(&t[0], NULL, three, NULL);
			pthread_join(t[0], NULL);
		}
		post(1);
		usleep(200000);
		scan(file, &s);
		printf("%ld %ld lines, %ld broken, %ld writes\n", s.per[1], s.per[2], s.bad, writes);
		return 0;
	}
	if (!strcmp(mode, "forkwrite")) {	/* a fork during a slotless thread's write */
		pthread_t holders[64], x, r;
		struct timespec a, b;
		pid_t p;
		int st;

		pthread_barrier_init(&all_posted, NULL, 65);
		pthread_barrier_init(&may_exit, NULL, 65);
		for (i = 0; i < 64; i++)
			pthread_create(&holders[i], NULL, one_then_wait, (void *)1);
		pthread_barrier_wait(&all_posted);
		usleep(150000);		/* their lines written out by the writer thread */
		hold_writev = 1;
		pthread_create(&x, NULL, one, (void *)2);
		for (i = 0; i < 2000 && !__atomic_load_n(&writev_held, __ATOMIC_ACQUIRE); i++)
			usleep(1000);
		pthread_create(&r, NULL, go_later, NULL);
		clock_gettime(CLOCK_MONOTONIC, &a);
		p = fork();
		if (p == 0)
			_exit(0);
		clock_gettime(CLOCK_MONOTONIC, &b);
		waitpid(p, &st, 0);
		pthread_join(r, NULL);
		pthread_join(x, NULL);
		pthread_barrier_wait(&may_exit);
		for (i = 0; i < 64; i++)
			pthread_join(holders[i], NULL);
		printf("held %d, fork %ld ms\n", writev_held,
		       (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000);
		return 0;
	}
	if (!strcmp(mode, "fork")) {	/* the parent's lines before the child's */
		struct scan s;
		pid_t p;
		int st;

		for (i = 0; i < 5; i++)
			post(1);
		p = fork();
		if (p == 0) {
			struct scan mine;

			scan(file, &s);
			for (i = 0; i < 5; i++)
				post(2);
			usleep(300000);	/* idle: its own writer thread writes them */
			scan(file, &mine);
			exit(s.per[1] != 5 ? 3 : mine.per[2] != 5 ? 4 : 0);
		}
		waitpid(p, &st, 0);
		usleep(200000);
		scan(file, &s);
		printf("%ld %ld lines, child %d, first %s, %d of the child's its own\n", s.per[1],
		       s.per[2], WIFEXITED(st) ? WEXITSTATUS(st) : -1, first_id(file),
		       lines_of(file, p, 2));
		return 0;
	}
	if (!strcmp(mode, "many")) {	/* 3000 lines at once; then, what is in the file */
		struct scan s;

		for (i = 0; i < 3000; i++)
			post(1);
		usleep(300000);		/* the writer thread's turn */
		scan(file, &s);
		printf("file %ld bytes, %ld lines, %ld broken, ends whole %d\n", s.bytes, s.lines,
		       s.bad, s.ends_whole);
		return 0;
	}
	return 2;
}
