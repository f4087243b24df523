/*
 * The preload library on the fake libibverbs (fakeverbs.c), without a VM.
 *
 * The parent re-executes this program ("preload PRELOAD_SO DIR CASE") with
 * LD_PRELOAD and RDMAVERBS_* set, its stderr in DIR/CASE.err, and checks
 * what the child did and what the library printed:
 *
 *   contexts  200 contexts opened and wrapped (no fixed limit), each used
 *             once per op, closed with the provider's ops put back: the exit
 *             table counts exactly what was called;
 *   leaked    200 contexts dropped without a close (their entries are never
 *             given back), then 100 more, all counted;
 *   quiet     nothing set: the contexts are not wrapped, nothing is printed;
 *   idle      counting on, no verbs call at all: no table is printed;
 *   once      a call of rdma_post_send, built against our header, on a
 *             wrapped context: counted once, as the function, not again as
 *             the op it calls; then the op called alone, counted as the op;
 *             again, traced: the trace file open once in the process (the
 *             linked library, seeing the preload library, opens nothing);
 *   fork      counting on: the child's table has its own calls, not its
 *             parent's;
 *   race      3,000 forks while another thread opens and closes devices,
 *             with counting on and with nothing set: no child may hang on a
 *             lock it inherited held;
 *   forkwait  a fork while another thread is inside a registration (its
 *             context's, then its extended QP's and CQ's, held in the
 *             registry's allocation by this program's calloc): the fork
 *             waits for it to end, so that the child never starts with a
 *             registry half written;
 *   nodelete  the preload library dlopen'ed and dlclose'd: its code stays
 *             mapped (a function pointer taken before still works);
 *   extended  a QP made with ibv_create_qp_ex and send operations, a CQ with
 *             ibv_create_cq_ex: 1,000 sends and 500 RDMA writes posted with
 *             ibv_wr_*, 1,500 completions polled with ibv_start_poll,
 *             ibv_next_poll and ibv_end_poll, all counted exactly, the
 *             provider's calls put back before the destroy.
 *
 * Here the parent; the child's cases in preload-child.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "preload.h"

static int failures;
#define FAIL(...) do { fprintf(stderr, "preload: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

/* ---- runs a case, checks it ---- */

static char err_path[4096];

static int run(const char *self, const char *preload, const char *dir, const char *mode,
	       const char *env1, const char *env2)
{
	pid_t pid;
	int st;

	snprintf(err_path, sizeof(err_path), "%s/%s.err", dir, mode);
	pid = fork();
	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		unsetenv("RDMAVERBS_TRACE");
		unsetenv("RDMAVERBS_STATS");
		if (strcmp(mode, "nodelete"))
			setenv("LD_PRELOAD", preload, 1);
		if (env1)
			putenv((char *)env1);
		if (env2)
			putenv((char *)env2);
		default_signals();
		execl(self, self, preload, dir, mode, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The exit table's row of `name` in the case's stderr: "calls bytes errors",
 * or "" when there is none; `nth` picks among several tables. */
static const char *row(const char *name, int nth)
{
	static char out[128];
	char line[512], fn[64], blocked[32];
	long calls, bytes, errors;
	FILE *f = fopen(err_path, "r");

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "rdmaverbs: %63s %ld %ld %ld %31s", fn, &calls, &bytes, &errors,
			   blocked) == 5 && !strcmp(fn, name) && nth-- == 0) {
			snprintf(out, sizeof(out), "%ld %ld %ld", calls, bytes, errors);
			break;
		}
	}
	if (f)
		fclose(f);
	return out;
}

static long err_bytes(void)
{
	FILE *f = fopen(err_path, "r");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

#define WANT_ROW(name, nth, want)                                               \
	do {                                                                  \
		if (strcmp(row(name, nth), want))                             \
			FAIL("%s: %s row \"%s\", want \"%s\"", mode, name,    \
			     row(name, nth), want);                           \
	} while (0)

int main(int argc, char **argv)
{
	const char *self = "/proc/self/exe", *preload, *dir, *mode;
	char exe[4096];
	ssize_t n;
	int rc;

	if (argc == 4)
		return preload_child(argv[1], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: %s PRELOAD_SO DIR\n", argv[0]);
		return 2;
	}
	preload = argv[1];
	dir = argv[2];
	n = readlink(self, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;

	mode = "contexts";
	rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL);
	if (rc)
		FAIL("contexts: child exited %d", rc);
	WANT_ROW("ibv_post_send", 0, "200 12800 0");
	WANT_ROW("ibv_post_recv", 0, "200 12800 0");
	WANT_ROW("ibv_post_srq_recv", 0, "200 12800 0");
	WANT_ROW("ibv_poll_cq", 0, "200 12800 0");
	WANT_ROW("ibv_req_notify_cq", 0, "200 0 0");

	mode = "leaked";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)))
		FAIL("leaked: child exited %d", rc);
	WANT_ROW("ibv_post_send", 0, "300 19200 0");

	mode = "quiet";
	if ((rc = run(exe, preload, dir, mode, NULL, NULL)) || err_bytes() != 0)
		FAIL("quiet: child exited %d, %ld bytes on stderr", rc, err_bytes());

	mode = "idle";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)) || err_bytes() != 0)
		FAIL("idle: child exited %d, %ld bytes on stderr (want no table)", rc, err_bytes());

	mode = "once";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)))
		FAIL("once: child exited %d", rc);
	WANT_ROW("rdma_post_send", 0, "1 64 0");
	WANT_ROW("ibv_post_send", 0, "1 16 0");
	{
		static char trace[4200];

		snprintf(trace, sizeof(trace), "RDMAVERBS_TRACE=%s/once.trace", dir);
		if ((rc = run(exe, preload, dir, mode, trace, NULL)))
			FAIL("once, traced: child exited %d (13: the trace file open more than once)", rc);
	}

	mode = "fork";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)))
		FAIL("fork: child exited %d", rc);
	WANT_ROW("ibv_post_send", 0, "2 128 0");	/* the child's, printed first */
	WANT_ROW("ibv_post_send", 1, "5 320 0");	/* the parent's */

	mode = "race";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)))
		FAIL("race (counting): exited %d", rc);
	if ((rc = run(exe, preload, dir, mode, NULL, NULL)))
		FAIL("race (nothing set): exited %d", rc);

	mode = "nodelete";
	if ((rc = run(exe, preload, dir, mode, NULL, NULL)))
		FAIL("nodelete: exited %d (the library was unloaded under a pointer into it?)", rc);

	mode = "forkwait";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)))
		FAIL("forkwait: child exited %d (21, 22, 23: a fork did not wait for the "
		     "registration of a context, an extended QP, an extended CQ; 20: no preload "
		     "library; see %s)", rc, err_path);

	mode = "extended";
	if ((rc = run(exe, preload, dir, mode, "RDMAVERBS_STATS=1", NULL)))
		FAIL("extended: child exited %d", rc);
	WANT_ROW("ibv_wr_start", 0, "15 0 0");
	WANT_ROW("ibv_wr_send", 0, "1000 0 0");
	WANT_ROW("ibv_wr_rdma_write", 0, "500 0 0");
	WANT_ROW("ibv_wr_set_sge", 0, "1500 96000 0");
	WANT_ROW("ibv_wr_complete", 0, "15 0 0");
	WANT_ROW("ibv_start_poll", 0, "150 9600 0");
	WANT_ROW("ibv_next_poll", 0, "1350 86400 0");
	WANT_ROW("ibv_end_poll", 0, "150 0 0");

	printf("preload: %s\n", failures ? "FAILED" : "all checks passed (contexts, leaked, "
	       "quiet, idle, once, fork, race x2, forkwait, nodelete, extended)");
	return failures != 0;
}
