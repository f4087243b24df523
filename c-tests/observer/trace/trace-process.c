/*
 * The trace over a process's life: threads posting at once (every line
 * whole, none lost), a fork (the buffered lines written out before it, the
 * child's not twice), fatal signals (the buffer written out, the process
 * dying of its signal), the exit table at SIGINT and SIGTERM, and errno
 * kept when the trace cannot be written. The child's modes, then the
 * parent's checks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

/* ---- the child ---- */

/* Threads posting at once: each line must arrive whole. */
static int nop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return 0;
}

/* Two waves of threads, more in each than the library has buffers (64): all
 * of a wave alive after their first line (a barrier), so some write
 * directly, none taking a live thread's buffer; the second wave takes over
 * the buffers of the first, whose threads have exited. */
enum { WAVES = 2, THREADS = 80, PER_THREAD = 500 };

static pthread_barrier_t all_alive;

static void *poster(void *arg)
{
	char buf[8];
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		rdma_post_send(&F.id, arg, buf, sizeof(buf), NULL, IBV_SEND_INLINE);
		if (i == 0)
			pthread_barrier_wait(&all_alive);
	}
	return NULL;
}

/* n posts with wr_id `id`, each traced. */
static void post_n(int id, int n)
{
	char buf[8];

	while (n--)
		rdma_post_send(&F.id, (void *)(uintptr_t)id, buf, sizeof(buf), NULL, IBV_SEND_INLINE);
}

/* A program's own handler, which ends the program with exit(3). */
static void exit_on_signal(int sig)
{
	exit(100 + sig);
}

/* errno after each call while no trace line can be written (stderr is
 * /dev/full): the call's own, as without tracing. In mode "eintr", the
 * program's errno is EINTR before a call that succeeds: the line is
 * written once, errno left as it was. A bit per check that failed. */
static int errno_calls(int eintr)
{
	struct fake_script ok = { 0 }, fail = { .post_ret = ENOMEM };
	struct rlimit small = { 1 << 20, 1 << 20 };
	char buf[8];
	int bad = 0;

	setrlimit(RLIMIT_FSIZE, &small);	/* a line written for ever ends here */
	alarm(10);
	fake_reset(&F, &ok);
	errno = eintr ? EINTR : 1234;
	bad |= rdma_post_send(&F.id, NULL, buf, sizeof(buf), NULL, 0) != 0 ||
	       errno != (eintr ? EINTR : 1234);
	if (eintr)
		return bad;
	bad |= (rdma_post_send(NULL, NULL, buf, sizeof(buf), NULL, 0) != -1 || errno != EINVAL) << 1;
	bad |= (rdma_seterrno(EIO) != -1 || errno != EIO) << 2;
	fake_reset(&F, &fail);
	bad |= (rdma_post_send(&F.id, NULL, buf, sizeof(buf), NULL, 0) != -1 || errno != ENOMEM) << 3;
	return bad;
}

int process_child(const char *mode)
{
	int i;

	if (!strcmp(mode, "full") || !strcmp(mode, "eintr"))
		return errno_calls(!strcmp(mode, "eintr"));
	if (!strcmp(mode, "fork")) {	/* 100 lines, a child's 50, 30 more */
		pid_t pid;
		int st;

		F.ctx.ops.post_send = nop_post_send;
		post_n(1, 100);
		pid = fork();
		if (pid == 0) {
			post_n(2, 50);
			exit(0);
		}
		waitpid(pid, &st, 0);
		post_n(3, 30);
		return !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (!strncmp(mode, "table-", 6)) {	/* 7 counted sends, then a signal */
		F.ctx.ops.post_send = nop_post_send;
		if (!strcmp(mode, "table-handled"))
			signal(SIGINT, exit_on_signal);
		post_n(1, 7);
		raise(!strcmp(mode, "table-sigterm") ? SIGTERM : SIGINT);
		return 0;
	}
	if (!strcmp(mode, "sigterm") || !strcmp(mode, "segv")) {	/* 100, then death */
		F.ctx.ops.post_send = nop_post_send;
		post_n(1, 100);
		if (!strcmp(mode, "sigterm"))
			raise(SIGTERM);
		{
			volatile int *nowhere = (volatile int *)(uintptr_t)atoi("8");

			*nowhere = 1;	/* SIGSEGV */
		}
		return 0;
	}
	if (!strcmp(mode, "threads")) {
		pthread_t t[THREADS];
		int w;

		F.ctx.ops.post_send = nop_post_send;
		for (w = 0; w < WAVES; w++) {
			pthread_barrier_init(&all_alive, NULL, THREADS);
			for (i = 0; i < THREADS; i++)
				pthread_create(&t[i], NULL, poster,
					       (void *)(uintptr_t)(w * THREADS + i + 1));
			for (i = 0; i < THREADS; i++)
				pthread_join(t[i], NULL);
			pthread_barrier_destroy(&all_alive);
		}
		return 0;
	}
	return -1;
}

/* ---- the parent ---- */

void check_threads(void)
{
	static int per[WAVES * THREADS + 1];
	char tracevar[4200], path[4200], line[600];
	const char *env[] = { tracevar, NULL };
	static struct { int tid; double t; } last[WAVES * THREADS];
	int n = 0, bad = 0, wrong = 0, unordered = 0, nlast = 0, i;
	FILE *f;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/threads.log", dir);
	if (run("threads", env)) {
		FAIL("the threaded child failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/threads.log", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long id;
		char *w = strstr(line, " wr_id="), *t = strstr(line, " t=");
		double v;
		int tid;

		if (padding(line))
			continue;
		n++;
		if (sscanf(line, "rdmaverbs[%d]: rdma_post_send t=%lf ", &tid, &v) != 2 || !t ||
		    strcmp(line + strlen(line) - 7, " ret=0\n") || !w ||
		    sscanf(w, " wr_id=%lx", &id) != 1 || id < 1 || id > WAVES * THREADS) {
			bad++;
			continue;
		}
		per[id]++;
		/* each thread's lines in its own order: its times never go back */
		for (i = 0; i < nlast && last[i].tid != tid; i++)
			;
		if (i == nlast && nlast < WAVES * THREADS)
			last[nlast++].tid = tid;
		if (i < WAVES * THREADS) {
			unordered += v < last[i].t;
			last[i].t = v;
		}
	}
	/* no line straddles a page of the file: a newline ends each page */
	{
		long pages = 0, straddled = 0, off;
		int c;

		for (off = 4096; f && !fseek(f, off - 1, SEEK_SET) && (c = fgetc(f)) != EOF;
		     off += 4096) {
			pages++;
			straddled += c != '\n';
		}
		if (pages < 8 || straddled) {
			FAIL("%ld of the file's %ld page boundaries inside a line", straddled, pages);
			bad++;
		}
	}
	if (f)
		fclose(f);
	for (i = 1; i <= WAVES * THREADS; i++)
		wrong += per[i] != PER_THREAD;
	if (n != WAVES * THREADS * PER_THREAD || bad || wrong || unordered)
		FAIL("%d lines from %d threads' %d posts, %d of them broken, %d threads with "
		     "lines missing or doubled, %d lines out of their thread's order", n,
		     WAVES * THREADS, WAVES * THREADS * PER_THREAD, bad, wrong, unordered);
	else
		printf("trace: ok: %d threads in %d waves, %d lines, each whole, each thread's %d "
		       "there once and in its order; every page of the file ends a line\n",
		       WAVES * THREADS, WAVES, n, PER_THREAD);
}

/* Lines of the last count_ids whose wr_id is below the line's before. */
static int unordered;

/* How many lines of the trace file `name` have each wr_id (1 to 3); -1 if
 * a line is not a whole rdma_post_send line. */
static int count_ids(const char *name, int per[4])
{
	char path[4200], line[600];
	FILE *f;
	int n = 0;
	unsigned long last_id = 0;

	unordered = 0;
	memset(per, 0, 4 * sizeof(*per));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *w = strstr(line, " wr_id=");
		unsigned long id;

		if (padding(line))
			continue;
		if (!w || sscanf(w, " wr_id=%lx", &id) != 1 || id < 1 || id > 3 ||
		    strcmp(line + strlen(line) - 7, " ret=0\n"))
			n = -1;
		else if (n >= 0)
			n++, per[id]++;
		if (w && sscanf(w, " wr_id=%lx", &id) == 1) {
			unordered += id < last_id;
			last_id = id;
		}
	}
	if (f)
		fclose(f);
	return n;
}

/* The buffered lines are written out before a fork (the child's copy is
 * not written again) and on a fatal signal. */
void check_fork_and_signals(void)
{
	char tracevar[4200];
	const char *env[] = { tracevar, NULL };
	int per[4], rc, n;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/fork.log", dir);
	rc = run("fork", env);
	n = count_ids("fork.log", per);
	/* the parent's lines from before the fork are written out before it,
	 * the child's at its exit, before the parent's last ones */
	if (rc || n != 180 || per[1] != 100 || per[2] != 50 || per[3] != 30 || unordered)
		FAIL("fork: exit %d, %d lines (%d, %d, %d), want 100 + the child's 50 + 30; %d out "
		     "of order", rc, n, per[1], per[2], per[3], unordered);
	else
		printf("trace: ok: fork: the parent's 130 lines and the child's 50, each once, "
		       "in the order they were made\n");
	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/sigterm.log", dir);
	rc = run("sigterm", env);
	n = count_ids("sigterm.log", per);
	if (rc != 128 + SIGTERM || n != 100)
		FAIL("SIGTERM: status %d, %d lines written out (want death by SIGTERM, 100)", rc, n);
	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/segv.log", dir);
	rc = run("segv", env);
	n = count_ids("segv.log", per);
	if (rc != 128 + SIGSEGV || n != 100)
		FAIL("SIGSEGV: status %d, %d lines written out (want death by SIGSEGV, 100)", rc, n);
	else
		printf("trace: ok: SIGTERM and SIGSEGV: the 100 buffered lines written out, "
		       "the process dies of its signal\n");
}

/* RDMAVERBS_STATS=1 and a program stopped by SIGINT or SIGTERM (default
 * action), or by SIGINT with its own handler that calls exit(3): the table
 * is printed once, with the 7 sends, and the program ends as the signal or
 * its handler says. */
void check_table_on_signals(void)
{
	static const struct { const char *mode; int status; } cases[] = {
		{ "table-sigint", 128 + SIGINT },
		{ "table-sigterm", 128 + SIGTERM },
		{ "table-handled", 100 + SIGINT },
	};
	const char *env[] = { "RDMAVERBS_STATS=1", NULL };
	size_t k;
	int bad = 0;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int rc = run(cases[k].mode, env), n = lines("stderr", got, 10000), i, rows = 0,
		    heads = 0;

		for (i = 0; i < n; i++) {
			char name[64];
			long calls, bytes, errors;

			heads += !strncmp(got[i], "rdmaverbs: calls of process ", 28);
			if (sscanf(got[i], "rdmaverbs: %63s %ld %ld %ld", name, &calls, &bytes,
				   &errors) == 4 && !strcmp(name, "rdma_post_send"))
				rows += calls == 7 && bytes == 56 && errors == 0 ? 1 : 100;
		}
		if (rc != cases[k].status || heads != 1 || rows != 1) {
			FAIL("%s: status %d (want %d), %d tables, rdma_post_send rows %d", cases[k].mode,
			     rc, cases[k].status, heads, rows);
			bad++;
		}
	}
	if (!bad)
		printf("trace: ok: RDMAVERBS_STATS=1 and SIGINT, SIGTERM: the table printed once "
		       "(7 sends, 56 bytes), the program dies of its signal; a handler of its own "
		       "that calls exit(3): the table once, its exit status\n");
}

/* errno when the trace cannot be written, and a line written once when the
 * program's errno was EINTR (see errno_calls). */
void check_errno(void)
{
	const char *env[] = { "RDMAVERBS_TRACE=1", "RDMAVERBS_STATS=1", NULL };
	int rc = run("full", env), n, i, lines_seen = 0;

	if (rc)
		FAIL("full: the child exited %d (a bit per wrong errno: 1 success, 2 NULL id, "
		     "4 rdma_seterrno, 8 provider failure)", rc);
	rc = run("eintr", env);
	n = lines("stderr", got, 10000);
	for (i = 0; i < n; i++)
		lines_seen += !strncmp(got[i], "rdmaverbs[", 10);
	if (rc || lines_seen != 1)
		FAIL("eintr: the child exited %d, %d trace lines for one call", rc, lines_seen);
	if (!failures)
		printf("trace: ok: the trace on /dev/full: each call's errno as without tracing; "
		       "errno EINTR before a call: its line written once\n");
}
