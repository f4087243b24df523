/*
 * RDMAVERBS_TRACE, RDMAVERBS_STATS and bad settings, on the fake provider.
 *
 * The settings are read when the library loads, so each case re-executes
 * this program ("trace child MODE DIR") with its environment set and its
 * stderr in DIR/stderr. In mode "calls" the child makes calls of all 16
 * functions, successful and failing, and writes for each the trace line it
 * expects (built here with snprintf from the arguments, the result and
 * errno) to DIR/expected, and its own count of calls, bytes, errors and
 * blocked waits per function to DIR/expected-stats. The parent compares the
 * library's trace file and exit table with those, line by line.
 *
 * This file: the child's start and the checks of its calls' lines and
 * table and of the settings; the calls are in trace-calls.c, the cases of
 * the process's life in trace-process.c, the record in trace-expect.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* ---- the child ---- */

static int child(const char *mode, const char *dir)
{
	int rc;

	fake_init(&F);
	rc = process_child(mode);
	return rc >= 0 ? rc : calls_child(dir);
}

/* ---- the parent: run a child, compare ---- */

static void check_calls(void)
{
	char tracevar[4200];
	const char *env[] = { tracevar, "RDMAVERBS_STATS=1", NULL };
	double from, to, last = 0;
	int n, m, i, rows = 0;

	snprintf(tracevar, sizeof(tracevar), "RDMAVERBS_TRACE=%s/trace.log", dir);
	from = monotonic();
	if (run("calls", env)) {
		FAIL("the traced child failed");
		return;
	}
	to = monotonic();
	n = lines("trace.log", got, 10000);
	m = lines("expected", want, 1000);
	if (n != m)
		FAIL("%d trace lines for %d calls", n, m);
	for (i = 0; i < n && i < m; i++) {
		if (!take_time(got[i], &last, from, to))
			FAIL("trace line %d: no t=, or not in order and within the run: %s", i + 1,
			     got[i]);
		else if (strcmp(got[i], want[i]))
			FAIL("trace line %d:\n  got  %s\n  want %s", i + 1, got[i], want[i]);
	}

	/* The exit table: a row per function called, with the child's counts. */
	n = lines("stderr", got, 10000);
	m = lines("expected-stats", want, 1000);
	for (i = 0; i < n; i++) {
		char name[64], calls[32], bytes[32], errors[32], blocked[32], row[600];
		int j;

		if (sscanf(got[i], "rdmaverbs: %63s %31s %31s %31s %31s", name, calls,
			   bytes, errors, blocked) != 5 || strncmp(name, "rdma_", 5))
			continue;
		snprintf(row, sizeof(row), "%s %s %s %s %s", name, calls, bytes, errors, blocked);
		for (j = 0; j < m && strcmp(row, want[j]); j++)
			;
		if (j == m)
			FAIL("stats row \"%s\" is not expected", row);
		rows++;
	}
	if (rows != m)
		FAIL("%d stats rows for %d functions called", rows, m);
	/* Its columns: the names' as wide as the longest name shown plus a
	 * space (20 at least), each row's calls (13 wide) ending where the
	 * header's "calls" ends. */
	check_columns("calls", got, n);
	printf("trace: ok: %d calls of the %d functions of rdma_verbs.h and later nodes, each trace line as expected; "
	       "the exit table's %d rows match, in columns as wide as its longest name\n",
	       lines("expected", want, 1000), m, rows);
}

static void check_quiet(void)
{
	const char *bad[] = { "RDMAVERBS_TRACE=/nonexistent/dir/trace.log",
		"RDMAVERBS_STATS=yes", "RDMAVERBS_POLL_SPIN=12x", NULL };
	const char *stderr1[] = { "RDMAVERBS_TRACE=1", NULL };
	int n, m, i, warnings = 0, traced = 0;

	/* Nothing set: not a byte on stderr. */
	if (run("calls", NULL) || lines("stderr", got, 10000) != 0)
		FAIL("with nothing set, the library wrote to stderr");
	/* Bad values: one warning each, then the defaults (nothing traced). */
	if (run("calls", bad))
		FAIL("the child failed with bad settings");
	n = lines("stderr", got, 10000);
	for (i = 0; i < n; i++)
		warnings += !strncmp(got[i], "rdmaverbs: warning: RDMAVERBS_", 30);
	if (n != 3 || warnings != 3)
		FAIL("bad settings: %d lines on stderr, %d warnings; want 3 and 3", n, warnings);
	for (i = 0; i < n; i++)
		printf("trace: ok: %s\n", got[i]);
	/* RDMAVERBS_TRACE=1: the lines go to stderr. */
	if (run("calls", stderr1))
		FAIL("the child failed with RDMAVERBS_TRACE=1");
	n = lines("stderr", got, 10000);
	m = lines("expected", want, 1000);
	for (i = 0; i < n; i++) {
		double last = 0;

		if (!strncmp(got[i], "rdmaverbs[", 10) && take_time(got[i], &last, 0, 1e12) &&
		    traced < m && !strcmp(got[i], want[traced]))
			traced++;
	}
	if (traced != m || traced == 0)
		FAIL("RDMAVERBS_TRACE=1: %d lines on stderr as expected, of %d", traced, m);
}

int main(int argc, char **argv)
{
	int rc = start_program("trace", argc, argv, child, 0, "SCRATCH_DIR");

	if (rc >= 0)
		return rc;
	check_calls();
	check_threads();
	check_fork_and_signals();
	check_table_on_signals();
	check_errno();
	check_quiet();
	return end_program();
}
