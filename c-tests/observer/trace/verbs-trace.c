/*
 * RDMAVERBS_TRACE and RDMAVERBS_STATS of RDMAVERBS_1.3, the functions of
 * <infiniband/verbs.h>, on the fake provider of vfake.h: ours, found with
 * dlvsym(..., "RDMAVERBS_1.3") as a program finds them.
 *
 * The settings are read when the library loads, so each case re-executes
 * this program ("verbs-trace child DIR") with its environment set and its
 * stderr in DIR/stderr. The child calls a representative of every shape of
 * line the 1.3 exports have (posts of chains, polls of several completions,
 * an empty and a failing poll, arming, every ibv_wr_* builder, the extended
 * CQ's polls, control-path verbs that make an object or return a status,
 * the values, refused calls), writes for each the trace line it expects
 * (built here with snprintf from the arguments and the fake's answers) to
 * DIR/expected, and its own count of calls, bytes and errors per function
 * to DIR/expected-stats. The ibv_wc_read_* readers are called too: they
 * must add no line, and be counted. The parent compares the trace file
 * (each line whole, field by field, its t= in order and within the run)
 * and the exit table (every row, exactly) with those; again with counting
 * alone (the counting path, not the watched one); with RDMAVERBS_STAT,
 * the counters file of the child while it runs, as rdmaverbs-stat -n 1
 * shows it; and nothing set writes nothing.
 *
 * Usage: verbs-trace SCRATCH_DIR [RDMAVERBS_STAT]
 *
 * This file: the child's run and the parent's checks; the calls are in
 * verbs-trace-posts.c, verbs-trace-extended.c and verbs-trace-control.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "verbs-trace-shared.h"

/* ---- the child: its calls, then (as "hold") a wait for the parent ---- */

static int child(const char *dir, const char *how)
{
	int rc;

	if (find_ours()) {
		fprintf(stderr, "verbs-trace: ours not found at RDMAVERBS_1.3\n");
		return 2;
	}
	vfake_init();
	vfake_script = &S;
	expected = create_in(dir, "expected");
	if (!expected)
		return 3;
	posts();
	polls();
	builders();
	extended_polls();
	control();
	fclose(expected);
	rc = write_stats(dir);
	if (rc)
		return rc;
	if (!strcmp(how, "hold")) {	/* tell the parent, then wait for its word (EOF) */
		char c;

		if (write(1, "r", 1) != 1)
			return 5;
		while (read(0, &c, 1) > 0)
			;
	}
	return failures ? 4 : 0;
}

/* ---- the parent: run the child, compare ---- */

/* Runs "self child DIR run" with `env` added (NULL ended), stderr to
 * DIR/stderr; its exit status. */
static int run(const char *const *env)
{
	char errpath[4200];

	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	return wait_child(spawn_child(errpath, env, -1, -1, NULL, dir, "run"));
}

/* Whether a row of the table matches an expected one, word by word; an
 * expected "?" matches any word (a value this test leaves open). */
static int row_matches(const char *row, const char *w)
{
	char a[5][64], b[5][64];
	int i;

	if (sscanf(row, "%63s %63s %63s %63s %63s", a[0], a[1], a[2], a[3], a[4]) != 5 ||
	    sscanf(w, "%63s %63s %63s %63s %63s", b[0], b[1], b[2], b[3], b[4]) != 5)
		return 0;
	for (i = 0; i < 5; i++)
		if (strcmp(b[i], "?") && strcmp(a[i], b[i]))
			return 0;
	return 1;
}

/* The exit table's rows in DIR/stderr against DIR/expected-stats: one
 * table, every row expected, every expected row there once. */
static void check_table(const char *what)
{
	static char seen[1000];
	int n = lines("stderr", got, 1000), m = lines("expected-stats", want, 1000), i, j;
	int rows = 0, heads = 0, before = failures;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		char name[64], c[32], b[32], e[32], k[32], row[600];

		heads += !strncmp(got[i], "rdmaverbs: calls of process ", 28);
		if (sscanf(got[i], "rdmaverbs: %63s %31s %31s %31s %31s", name, c, b, e, k) != 5 ||
		    !strcmp(name, "function") || !strcmp(name, "calls"))
			continue;
		snprintf(row, sizeof(row), "%s %s %s %s %s", name, c, b, e, k);
		for (j = 0; j < m && (seen[j] || !row_matches(row, want[j])); j++)
			;
		if (j == m)
			FAIL("%s: exit table row \"%s\" not expected", what, row);
		else
			seen[j] = 1;
		rows++;
	}
	for (j = 0; j < m; j++)
		if (!seen[j])
			FAIL("%s: no exit table row \"%s\"", what, want[j]);
	if (heads != 1)
		FAIL("%s: %d tables printed, want 1", what, heads);
	check_columns(what, got, n);
	if (failures == before)
		printf("verbs-trace: ok: %s: the exit table's %d rows (calls, bytes, errors) as "
		       "counted, in columns as wide as its longest name\n", what, rows);
}

static void check_traced(void)
{
	char tracevar[4200];
	const char *env[] = { tracevar, "RDMAVERBS_STATS=1", NULL };
	double from, to, last = 0;
	int n, m, i, rc;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/trace.log", dir);
	unlink(strchr(tracevar, '=') + 1);
	from = monotonic();
	rc = run(env);
	to = monotonic();
	if (rc) {
		FAIL("the traced child exited %d (see %s/stderr)", rc, dir);
		return;
	}
	n = lines("trace.log", got, 1000);
	m = lines("expected", want, 1000);
	if (n != m)
		FAIL("%d trace lines for %d expected", n, m);
	for (i = 0; i < n; i++) {
		if (!take_time(got[i], &last, from, to))
			FAIL("trace line %d: no t= after the name, or out of order or of the run: %s",
			     i + 1, got[i]);
		else if (i >= m || strcmp(got[i], want[i]))
			FAIL("trace line %d:\n  got  %s\n  want %s", i + 1, got[i], i < m ? want[i] : "");
	}
	if (!failures)
		printf("verbs-trace: ok: %d trace lines of the 1.3 exports (posts, polls, arming, "
		       "ibv_wr_*, the extended CQ, the control path, values, refusals), each field "
		       "as expected; none for an empty poll, ENOENT or the %d ibv_wc_read_* calls\n",
		       m, 16);
	check_table("traced and counted");
}

/* The counters file of a running child, as rdmaverbs-stat shows it: the
 * child, counting, makes its calls and waits; `stat -n 1 PID` must show
 * each row the exit table would (names up to 35 bytes long). */
static void check_counters_file(const char *stat)
{
	char run[4200], cmd[13000], path[4200], xdg[4300];
	const char *env[] = { "RDMAVERBS_STATS=1", xdg, NULL };
	int ready[2], done[2], n, m, i, j, before = failures, st;
	FILE *f;
	pid_t pid;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(xdg, sizeof(xdg), "XDG_RUNTIME_DIR=%s", run);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	mkdir(run, 0700);
	/* close-on-exec: the child keeps only its stdin and stdout ends */
	if (pipe2(ready, O_CLOEXEC) || pipe2(done, O_CLOEXEC))
		return;
	pid = spawn_child(path, env, done[0], ready[1], NULL, dir, "hold");
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], cmd, 1) != 1) {
		FAIL("counters file: the child did not get to its wait");
		close(done[1]);
		waitpid(pid, &st, 0);
		return;
	}
	snprintf(cmd, sizeof(cmd), "XDG_RUNTIME_DIR='%s' '%s' -n 1 %d > '%s/stat.out' 2>&1", run,
		 stat, (int)pid, dir);
	if (system(cmd))
		FAIL("counters file: %s failed", cmd);
	close(done[1]);
	waitpid(pid, &st, 0);
	close(ready[0]);
	m = lines("expected-stats", want, 1000);
	snprintf(path, sizeof(path), "%s/stat.out", dir);
	f = fopen(path, "r");
	n = 0;
	while (f && n < 1000 && fgets(got[n], 600, f)) {
		char name[64], c[32], rate[32], b[32], brate[32], e[32], k[32];

		if (sscanf(got[n], "%63s %31s %31s %31s %31s %31s %31s", name, c, rate, b, brate, e,
			   k) != 7 || !strcmp(name, "function") || !strcmp(name, "rdmaverbs-stat:"))
			continue;
		snprintf(got[n], 600, "%s %s %s %s %s", name, c, b, e, k);
		n++;
	}
	if (f)
		fclose(f);
	for (i = 0; i < n; i++) {
		for (j = 0; j < m && (!want[j][0] || !row_matches(got[i], want[j])); j++)
			;
		if (j == m)
			FAIL("counters file: rdmaverbs-stat's row \"%s\" not expected", got[i]);
		else
			want[j][0] = 0;
	}
	for (j = 0; j < m; j++)
		if (want[j][0])
			FAIL("counters file: rdmaverbs-stat has no row \"%s\"", want[j]);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("counters file: the child exited %d", st);
	if (failures == before)
		printf("verbs-trace: ok: the counters file of a running process: rdmaverbs-stat's %d "
		       "rows as counted (ibv_wc_read_completion_wallclock_ns among them)\n", n);
}

int main(int argc, char **argv)
{
	const char *counting[] = { "RDMAVERBS_STATS=1", NULL };
	int rc = start_program("verbs-trace", argc, argv, child, 1,
			       "SCRATCH_DIR [RDMAVERBS_STAT]");

	if (rc >= 0)
		return rc;
	check_traced();
	/* counting alone takes the counting path, not the watched one */
	if (run(counting))
		FAIL("the counting child failed");
	else
		check_table("counted alone");
	if (argc == 3)
		check_counters_file(argv[2]);
	/* nothing set: not a byte on stderr */
	if (run(NULL) || lines("stderr", got, 1000) != 0)
		FAIL("with nothing set, the child failed or the library wrote to stderr");
	else
		printf("verbs-trace: ok: nothing set: nothing written\n");
	return end_program();
}
