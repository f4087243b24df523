/*
 * A trace you can follow live (RDMAVERBS_TRACE=FILE), on the fake provider.
 * Each case re-executes this program ("live child MODE FILE") with
 * RDMAVERBS_TRACE=FILE and its stderr in FILE.err, and reads FILE while the
 * child runs or after it died:
 *
 *   idle      10 lines of the main thread and 10 of a thread that has exited
 *             are in the file 1 s after they were posted, the program idle
 *             (its writer thread, "rdmaverbs-trace", is there); after a
 *             SIGKILL 1 s later, still 10 and 10, the file ending at a
 *             line's end; every line's t= within the run, in order
 *   killed    30 SIGKILLs at random moments of a program tracing from two
 *             threads as fast as it can: the file always ends at the end of
 *             a line, and every line in it is whole
 *   truncate  `: > FILE` three times under a tracing program: it goes on,
 *             no warning, every line whole, its last line there
 *   delete    the file deleted under it: one warning, exit 0
 *   limit     a file size limit (RLIMIT_FSIZE) of 64 KiB: one warning, exit 0
 *             (no SIGXFSZ), the file within the limit, ending at a line's end
 *   full      a 64 KiB tmpfs (root only, in a mount namespace of its own):
 *             ENOSPC, one warning, exit 0, the file ending at a line's end
 *   paced     100 lines 2 ms apart: all in the file, in few writes (the
 *             writer thread's, every 50 ms; not one per line)
 *   busy      300 ms of lines at full speed: the thread writes its own full
 *             buffers; the writer thread (which takes a buffer whose
 *             oldest line is 25 ms old) none of them while it posts
 *   alone     no writer thread (pthread_create refused): one warning; lines
 *             20 ms apart are written by their own thread once the oldest is
 *             100 ms old, the newest kept; 2000 quick lines in as few writes
 *             as full buffers make
 *
 *   race      2 threads posting 30000 lines each at full speed, their own
 *             write-outs meeting the writer thread's: every line once
 *   reclaim   100 threads one after the other (3 lines each, errno ESRCH
 *             at their first), the main thread alive: the slots of exited
 *             threads are reused (a write per thread, not per line), the
 *             main thread's kept
 *   forkwrite 64 threads hold every buffer; a 65th writes its line itself
 *             (no buffer for it), its writev(2) held by this program for
 *             300 ms: a fork meanwhile waits for that write-out to end (no
 *             write half done when the child starts)
 *   fork      5 lines, then fork(2): the child finds them in the file
 *             (written out before the fork), and its own 5 come after,
 *             under its own thread id, in the file while it idles (a
 *             writer thread of its own)
 *
 * The child counts the writev(2) calls on the trace file (this program
 * defines writev and pthread_create, which the library's calls reach: it
 * is linked with -rdynamic, or with the library's archive).
 *
 * Usage: live DIR
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include "child.h"
#include "fake.h"

static struct fake F;
static int failures;

#define FAIL(...) do { fprintf(stderr, "live: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)
#define OK(...) do { printf("live: ok: " __VA_ARGS__); putchar('\n'); } while (0)

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

static int hold_writev, writev_held, writev_go;	/* forkwrite: one writev held */
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

/* ---- what the library asks of the system, counted or refused ---- */

static int refuse_threads;	/* pthread_create fails with EAGAIN */
static volatile long writes;	/* writev calls on a descriptor above 2 */
static volatile long writer_writes;	/* those of them by the writer thread */

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

	if (refuse_threads)
		return EAGAIN;
	if (!real) {
		void *p = dlsym(RTLD_NEXT, "pthread_create");

		memcpy(&real, &p, sizeof(p));
	}
	return real(t, a, f, arg);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	char name[16] = "";

	if (fd > 2) {
		__atomic_add_fetch(&writes, 1, __ATOMIC_RELAXED);
		prctl(PR_GET_NAME, name);
		if (!strcmp(name, "rdmaverbs-trace"))
			__atomic_add_fetch(&writer_writes, 1, __ATOMIC_RELAXED);
		if (__atomic_exchange_n(&hold_writev, 0, __ATOMIC_ACQ_REL)) {
			__atomic_store_n(&writev_held, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&writev_go, __ATOMIC_ACQUIRE))
				usleep(1000);
		}
	}
	return syscall(SYS_writev, fd, iov, n);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- what a trace file holds ---- */

struct scan {
	long lines, padding, bad, per[4], bytes;
	int ends_whole;		/* empty, or its last byte a newline */
	double first, last;	/* the smallest and largest t= */
	int in_order;		/* each thread's t= never went back */
};

/* Reads `path`: every line a whole rdma_post_send line with t= and ret=0,
 * or padding (spaces only); a line with a NUL byte (a hole the file got by
 * a write past its end, after a truncation without O_APPEND) is broken. */
static void scan(const char *path, struct scan *s)
{
	static struct { int tid; double t; } last[64];
	char *line = NULL;
	size_t room = 0;
	ssize_t n;
	int nlast = 0, c = '\n', i;
	FILE *f = fopen(path, "r");

	memset(s, 0, sizeof(*s));
	s->in_order = 1;
	s->first = 1e300;
	while (f && (n = getline(&line, &room, f)) > 0) {
		char *t = strstr(line, " t="), *w = strstr(line, " wr_id=");
		unsigned long id = 0;
		int tid = 0;
		double v = 0;

		s->bytes += (long)n;
		c = line[n - 1];
		if (memchr(line, 0, (size_t)n)) {	/* a hole: bytes never written */
			s->lines++;
			s->bad++;
			continue;
		}
		if (!line[strspn(line, " \n")]) {
			s->padding++;
			continue;
		}
		s->lines++;
		if (sscanf(line, "rdmaverbs[%d]: rdma_post_send ", &tid) != 1 || !t || !w ||
		    sscanf(t, " t=%lf", &v) != 1 || sscanf(w, " wr_id=%lx", &id) != 1 ||
		    id < 1 || id > 3 || c != '\n' || !strstr(line, " ret=0\n")) {
			s->bad++;
			continue;
		}
		s->per[id]++;
		s->first = v < s->first ? v : s->first;
		s->last = v > s->last ? v : s->last;
		for (i = 0; i < nlast && last[i].tid != tid; i++)
			;
		if (i == nlast && nlast < 64)
			last[nlast++].tid = tid;
		if (i < 64) {
			s->in_order &= v >= last[i].t;
			last[i].t = v;
		}
	}
	s->ends_whole = c == '\n';
	free(line);
	if (f)
		fclose(f);
}

/* The wr_id of the first line of `path` ("1", "2", "3" or "none"). */
static const char *first_id(const char *path)
{
	static char id[8];
	char line[1024], *w;
	FILE *f = fopen(path, "r");

	strcpy(id, "none");
	while (f && fgets(line, sizeof(line), f))
		if ((w = strstr(line, " wr_id=0x")) != NULL) {
			snprintf(id, sizeof(id), "%c", w[9]);
			break;
		}
	if (f)
		fclose(f);
	return id;
}

/* Lines of `path` made by thread `tid` with wr_id `id`. */
static int lines_of(const char *path, int tid, int id)
{
	char line[1024], head[32], want[32];
	FILE *f = fopen(path, "r");
	int n = 0;

	snprintf(head, sizeof(head), "rdmaverbs[%d]: ", tid);
	snprintf(want, sizeof(want), " wr_id=0x%x ", id);
	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, head, strlen(head)) && strstr(line, want);
	if (f)
		fclose(f);
	return n;
}

/* ---- the child ---- */

static int child(const char *mode, const char *file)
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
		double end = now() + 0.3;
		long posted = 0, w, ww;

		while (now() < end)
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

/* ---- the parent ---- */

static char self[4096], dir[4096], out[4200];
static pid_t pid;
static FILE *from_child;

/* Starts "self child MODE FILE" with RDMAVERBS_TRACE=FILE, stderr to
 * FILE.err, stdout read through from_child; `before` runs in the child
 * before the exec (for limits and mounts), and may refuse (exit 77). */
static void start(const char *mode, const char *file, void (*before)(void))
{
	char env[4300], err[4300];
	int p[2];

	snprintf(env, sizeof(env), "RDMAVERBS_TRACE=%s", file);
	snprintf(err, sizeof(err), "%s.err", file);
	unlink(file);
	if (pipe(p))
		abort();
	pid = fork();
	if (pid == 0) {
		unsetenv("RDMAVERBS_STATS");
		unsetenv("RDMAVERBS_POLL_SPIN");
		putenv(env);
		dup2(p[1], 1);
		close(p[0]);
		if (!freopen(err, "w", stderr))
			_exit(126);
		default_signals();
		if (before)
			before();
		execl(self, self, "child", mode, file, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	from_child = fdopen(p[0], "r");
}

/* Waits for the child; its exit status, or 128 + its signal. */
static int finish(void)
{
	int st;

	fclose(from_child);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Lines of FILE.err holding `what`; all of its lines in *total. */
static int warnings(const char *file, const char *what, int *total)
{
	char path[4300], line[1024];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s.err", file);
	*total = 0;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		++*total;
		n += strstr(line, what) != NULL;
	}
	if (f)
		fclose(f);
	return n;
}

/* What p's thread named name shows of itself: its scheduling policy
 * (field 41 of its stat; -1 when there is no thread of that name), the CPU
 * time it has used (fields 14 and 15, in clock ticks) and its voluntary
 * context switches (its wake-ups). */
struct seen {
	int policy;
	long ticks, wakeups;
};

static struct seen thread_seen(pid_t p, const char *name)
{
	char path[300], comm[64], stat[1024];
	struct seen seen = { -1, 0, 0 };
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)p, e->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name))) {
			FILE *s;
			char *c, *tok;
			int field = 2;

			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)p, e->d_name);
			s = fopen(path, "r");
			if (s && fgets(stat, sizeof(stat), s) && (c = strrchr(stat, ')')))
				for (tok = strtok(c + 1, " "); tok; tok = strtok(NULL, " ")) {
					if (++field == 41)
						seen.policy = atoi(tok);
					if (field == 14 || field == 15)
						seen.ticks += atol(tok);
				}
			if (s)
				fclose(s);
			snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)p, e->d_name);
			s = fopen(path, "r");
			while (s && fgets(stat, sizeof(stat), s))
				sscanf(stat, "voluntary_ctxt_switches: %ld", &seen.wakeups);
			if (s)
				fclose(s);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return seen;
}

/* How long after the posts the file is read: 1 s, 300 ms under make
 * mutants (RDMAVERBS_TEST_QUICK; still 3 periods of the writer thread). */
#define AFTER_US (getenv("RDMAVERBS_TEST_QUICK") ? 300000 : 1000000)

static void check_idle(void)
{
	char line[64];
	struct scan s;
	double t0 = now(), t1;
	struct seen before, after;
	long wakeups, most;

	snprintf(out, sizeof(out), "%s/idle.log", dir);
	start("idle", out, NULL);
	if (!fgets(line, sizeof(line), from_child)) {
		FAIL("idle: the child did not post");
		finish();
		return;
	}
	t1 = now();
	before = thread_seen(pid, "rdmaverbs-trace");
	usleep(AFTER_US);
	after = thread_seen(pid, "rdmaverbs-trace");
	scan(out, &s);
	/* a wake-up every 50 ms: about 20 a second, and next to no CPU time */
	wakeups = after.wakeups - before.wakeups;
	most = 2 * AFTER_US / 50000 + 5;
	if (s.per[1] != 10 || s.per[2] != 10 || s.bad || !s.ends_whole || !s.in_order ||
	    s.first < t0 || s.last > t1 || after.policy != SCHED_IDLE || wakeups < 1 ||
	    wakeups > most || after.ticks - before.ticks > 5)
		FAIL("idle: %d ms after, %ld and %ld lines (want 10 and 10), %ld broken, ends whole %d, "
		     "in order %d, t= from %.6f to %.6f (the run %.6f to %.6f), writer thread's "
		     "policy %d (want SCHED_IDLE, %d), %ld wake-ups (want 1 to %ld), %ld ticks of "
		     "CPU (want 5 at most)",
		     AFTER_US / 1000, s.per[1], s.per[2], s.bad, s.ends_whole, s.in_order, s.first,
		     s.last, t0, t1, after.policy, SCHED_IDLE, wakeups, most,
		     after.ticks - before.ticks);
	else
		OK("idle: %d ms after they were posted, the program idle: the main thread's 10 lines "
		   "and an exited thread's 10 are in the file, t= in order within the run; the "
		   "writer thread at SCHED_IDLE, %ld wake-ups in the time, %ld ticks of CPU",
		   AFTER_US / 1000, wakeups, after.ticks - before.ticks);
	usleep(AFTER_US);
	kill(pid, SIGKILL);
	finish();
	scan(out, &s);
	if (s.per[1] != 10 || s.per[2] != 10 || s.bad || !s.ends_whole)
		FAIL("idle: after SIGKILL, %ld and %ld lines, %ld broken, ends whole %d", s.per[1],
		     s.per[2], s.bad, s.ends_whole);
	else
		OK("idle: SIGKILL %d ms later: still 10 and 10 lines, the file ends at a line's end",
		   AFTER_US / 1000);
}

/* 6 under make mutants (RDMAVERBS_TEST_QUICK): a mutant is a wrong
 * value, not a rare moment. */
#define KILLS (getenv("RDMAVERBS_TEST_QUICK") ? 6 : 30)

static void check_killed(void)
{
	long lines = 0, padding = 0;
	int i, bad = 0;

	srand((unsigned)getpid());
	for (i = 0; i < KILLS; i++) {
		struct scan s;

		snprintf(out, sizeof(out), "%s/killed.log", dir);
		start("killed", out, NULL);
		usleep(5000 + rand() % 40000);
		kill(pid, SIGKILL);
		finish();
		scan(out, &s);
		lines += s.lines;
		padding += s.padding;
		if (s.bad || !s.ends_whole || !s.in_order) {
			FAIL("killed: run %d: %ld lines, %ld broken, ends whole %d, in order %d", i,
			     s.lines, s.bad, s.ends_whole, s.in_order);
			bad++;
		}
	}
	if (!bad)
		OK("killed: %d SIGKILLs at random moments of two threads tracing at full speed: "
		   "the file always ended at a line's end (%ld lines in all, each whole, each thread's "
		   "in order; %ld padding lines)", KILLS, lines, padding);
}

static void check_truncate(void)
{
	char line[64];
	struct scan s;
	int i, rc, total;

	snprintf(out, sizeof(out), "%s/truncate.log", dir);
	start("steady", out, NULL);
	if (!fgets(line, sizeof(line), from_child))
		FAIL("truncate: the child did not start");
	for (i = 0; i < 3; i++) {
		usleep(300000);
		close(open(out, O_WRONLY | O_TRUNC));	/* : > FILE */
	}
	rc = finish();
	scan(out, &s);
	if (rc || warnings(out, "rdmaverbs", &total) || total || s.bad || !s.ends_whole ||
	    s.per[3] != 1 || s.lines < 10)
		FAIL("truncate: exit %d, %d lines on stderr, %ld lines after (%ld broken), the last "
		     "there %ld", rc, total, s.lines, s.bad, s.per[3]);
	else
		OK("truncate: ': > FILE' three times under a tracing program: it went on, no warning, "
		   "%ld lines after the last truncation, each whole, its last line there", s.lines);
}

static void check_delete(void)
{
	char line[64];
	int rc, total, n;

	snprintf(out, sizeof(out), "%s/delete.log", dir);
	start("steady", out, NULL);
	if (!fgets(line, sizeof(line), from_child))
		FAIL("delete: the child did not start");
	usleep(300000);
	unlink(out);
	rc = finish();
	n = warnings(out, "the trace file was deleted; not tracing from here", &total);
	if (rc || n != 1 || total != 1)
		FAIL("delete: exit %d, %d warnings of %d lines on stderr", rc, n, total);
	else
		OK("delete: the file deleted under a tracing program: one warning, exit 0");
}

static void limit_64k(void)
{
	struct rlimit r = { 65536, 65536 };

	setrlimit(RLIMIT_FSIZE, &r);
}

static void check_limit(void)
{
	char line[256];
	struct scan s;
	int rc, total, n;

	snprintf(out, sizeof(out), "%s/limit.log", dir);
	start("many", out, limit_64k);
	if (!fgets(line, sizeof(line), from_child))
		line[0] = 0;
	rc = finish();
	n = warnings(out, "the trace file has reached the file size limit (RLIMIT_FSIZE, 65536 "
		     "bytes); not tracing from here", &total);
	scan(out, &s);
	if (rc || n != 1 || total != 1 || s.bytes > 65536 || s.bytes < 32768 || s.bad ||
	    !s.ends_whole)
		FAIL("limit: exit %d, %d warnings of %d lines, %ld bytes, %ld broken, ends whole %d",
		     rc, n, total, s.bytes, s.bad, s.ends_whole);
	else
		OK("limit: RLIMIT_FSIZE 64 KiB: one warning, exit 0 (no SIGXFSZ), %ld bytes, the "
		   "file ending at a line's end", s.bytes);
}

/* In the child before the exec: a mount namespace of its own, with a
 * 64 KiB tmpfs at DIR/full. */
static void tmpfs_64k(void)
{
	char at[4200];

	snprintf(at, sizeof(at), "%s/full", dir);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", at, "tmpfs", 0, "size=64k"))
		_exit(77);
}

static void check_full(void)
{
	char line[256], at[4200];
	long bytes = -1, lines = -1, broken = -1;
	int rc, total, n, whole = 0;

	snprintf(at, sizeof(at), "%s/full", dir);
	mkdir(at, 0700);
	snprintf(out, sizeof(out), "%s/full/trace.log", dir);
	start("many", out, tmpfs_64k);
	if (fgets(line, sizeof(line), from_child))
		sscanf(line, "file %ld bytes, %ld lines, %ld broken, ends whole %d", &bytes, &lines,
		       &broken, &whole);
	rc = finish();
	if (rc == 77) {
		printf("live: skipped: full (a tmpfs in a mount namespace of its own needs root)\n");
		return;
	}
	/* stderr was opened before the mount: it is here */
	n = warnings(out, "rdmaverbs: warning: cannot write the trace file (errno 28; a full "
		     "disk?); not tracing from here", &total);
	if (rc || n != 1 || total != 1 || bytes <= 0 || bytes > 65536 || broken || !whole)
		FAIL("full: exit %d, %d warnings of %d lines; the child saw: %s", rc, n, total, line);
	else
		OK("full: a 64 KiB file system filled under a tracing program: exit 0, %ld bytes "
		   "(%ld lines), the file ending at a line's end", bytes, lines);
}

static void check_paced(void)
{
	char line[256];
	long lines = -1, n = -1;
	int rc;

	snprintf(out, sizeof(out), "%s/paced.log", dir);
	start("paced", out, NULL);
	if (!fgets(line, sizeof(line), from_child) || sscanf(line, "%ld lines, %ld writes", &lines,
							     &n) != 2)
		line[0] = 0;
	rc = finish();
	/* about 200 ms of lines: 4 or 5 periods of the writer thread */
	if (rc || lines != 100 || n < 1 || n > 30)
		FAIL("paced: exit %d, %ld lines (want 100) in %ld writes (want 1 to 30)", rc, lines, n);
	else
		OK("paced: 100 lines 2 ms apart: all in the file after 300 ms, in %ld writes", n);
}

static void check_busy(void)
{
	char line[256];
	long lines = -1, posted = -2, n = -1, by_writer = -1;
	int rc;

	snprintf(out, sizeof(out), "%s/busy.log", dir);
	start("busy", out, NULL);
	if (!fgets(line, sizeof(line), from_child) ||
	    sscanf(line, "%ld lines of %ld, %ld writes, %ld by the writer thread", &lines, &posted,
		   &n, &by_writer) != 4)
		line[0] = 0;
	rc = finish();
	/* its buffer fills long before a line in it is 25 ms old */
	if (rc || lines != posted || n < 2 || by_writer != 0)
		FAIL("busy: exit %d, %ld lines of %ld posted, %ld writes, %ld by the writer thread "
		     "while it posted (want 0)", rc, lines, posted, n, by_writer);
	else
		OK("busy: a thread posting at full speed for 300 ms wrote its %ld lines itself, in "
		   "%ld writes of full buffers; the writer thread took none of them while it posted",
		   lines, n);
}

static void check_alone(void)
{
	char age[256] = "", size[256] = "";
	long lines = -1, n = -1, slines = -1, bytes = -1, sn = -1, most;
	int rc, total, warned;

	snprintf(out, sizeof(out), "%s/alone.log", dir);
	start("alone", out, NULL);
	if (fgets(age, sizeof(age), from_child))
		sscanf(age, "age: %ld lines, %ld writes", &lines, &n);
	if (fgets(size, sizeof(size), from_child))
		sscanf(size, "size: %ld lines, %ld bytes, %ld writes", &slines, &bytes, &sn);
	rc = finish();
	warned = warnings(out, "rdmaverbs: warning: cannot start the trace writer thread", &total);
	/* 15 lines 20 ms apart: written when the oldest is over 100 ms old (at
	 * about the 6th and the 12th), never the newest; each write holds all
	 * the lines of the buffer, so 2 or 3 writes */
	if (rc || warned != 1 || total != 1 || lines < 6 || lines > 14 || n < 1 || n > 3)
		FAIL("alone: exit %d, %d warnings of %d lines; 15 lines 20 ms apart: %ld in the file "
		     "(want 6 to 14) in %ld writes (want 1 to 3)", rc, warned, total, lines, n);
	else
		OK("alone: no writer thread: one warning; 15 lines 20 ms apart: %ld in the file by the "
		   "age rule, in %ld writes", lines, n);
	/* 2000 quick lines: a write when a buffer has less than a line's room
	 * (512 bytes) left, so each holds more than 16384 - 512 bytes */
	most = bytes / (16384 - 512) + 1;
	if (slines < 2000 - 16384 / 100 || slines > 2015 || sn < 1 || sn > most)
		FAIL("alone: 2000 quick lines: %ld in the file (%ld bytes) in %ld writes (want at "
		     "most %ld)", slines, bytes, sn, most);
	else
		OK("alone: 2000 quick lines: %ld in the file, in %ld writes of full buffers", slines,
		   sn);
}

/* Runs child MODE; its one line of results. */
static int run(const char *mode, char *line, size_t size)
{
	snprintf(out, sizeof(out), "%s/%s.log", dir, mode);
	start(mode, out, NULL);
	if (!fgets(line, (int)size, from_child))
		line[0] = 0;
	return finish();
}

static void check_threads(void)
{
	char line[256];
	long a = -1, b = -1, bad = -1, n = -1;
	int rc, in_order = 0, child = -1;
	char first[8] = "";

	rc = run("race", line, sizeof(line));
	sscanf(line, "%ld %ld lines, %ld broken, in order %d", &a, &b, &bad, &in_order);
	if (rc || a != 30000 || b != 30000 || bad || !in_order)
		FAIL("race: exit %d; the child saw: %s", rc, line);
	else
		OK("race: 2 threads, 30000 lines each at full speed: each line once, in order");
	rc = run("reclaim", line, sizeof(line));
	sscanf(line, "%ld %ld lines, %ld broken, %ld writes", &a, &b, &bad, &n);
	/* a thread's lines are written out when it exits (one write each);
	 * with 64 slots, threads 64 to 99 reuse those of exited threads, else
	 * they would write each line at once (3 writes each: 172 in all) */
	if (rc || a != 2 || b != 300 || bad || n < 1 || n > 140)
		FAIL("reclaim: exit %d; the child saw: %s", rc, line);
	else
		OK("reclaim: 100 threads one after the other: all 302 lines, in %ld writes (the "
		   "slots of exited threads reused)", n);
	rc = run("forkwrite", line, sizeof(line));
	{
		int held = 0;

		n = -1;
		sscanf(line, "held %d, fork %ld ms", &held, &n);
		if (rc || !held || n < 200)
			FAIL("forkwrite: exit %d; the child saw: %s (want the write held, the fork "
			     "waiting for it: 200 ms or more)", rc, line);
		else
			OK("forkwrite: a fork while a thread without a buffer was in its own write-out "
			   "waited for it to end (%ld ms)", n);
	}
	rc = run("fork", line, sizeof(line));
	n = -1;
	sscanf(line, "%ld %ld lines, child %d, first %7[^,], %ld", &a, &b, &child, first, &n);
	if (rc || a != 5 || b != 5 || child != 0 || strcmp(first, "1") || n != 5)
		FAIL("fork: exit %d; the child saw: %s", rc, line);
	else
		OK("fork: the parent's 5 lines in the file before the fork, the child's 5 after, "
		   "under its own thread id, written while it idles");
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "child"))
		return child(argv[2], argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
		return 2;
	}
	if (!realpath("/proc/self/exe", self) || !realpath(argv[1], dir)) {
		perror("live: realpath");
		return 2;
	}
	check_idle();
	check_killed();
	check_truncate();
	check_delete();
	check_limit();
	check_full();
	check_paced();
	check_busy();
	check_alone();
	check_threads();
	printf("live: %s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
