/*
 * The preload library's trace lines and counts of the wrapped ops, field by
 * field, on the fake libibverbs (fakeverbs.c), with tracing and counting on
 * together.
 *
 * The parent re-executes this program ("opstrace PRELOAD_SO DIR MODE") with
 * LD_PRELOAD and RDMAVERBS_* set and its stderr in DIR/MODE.err:
 *
 *   ops   every wrapped op, classic and extended, succeeding and failing:
 *         chains of send work requests of each kind (RC and UD), receives
 *         to a QP and an SRQ, polls that find four completions of each kind
 *         (receives, a send, one in error), none, or fail; arming; the
 *         extended QP's every builder and the extended CQ's polls. The
 *         child writes the trace line it expects of each (built here with
 *         snprintf) to DIR/expected, and its own count of calls, bytes and
 *         errors per op to DIR/expected-stats; the parent compares the
 *         trace file (its t= aside) and the exit table with them. Then the
 *         device is closed and the QP and CQ destroyed: the fake checks
 *         that every op was put back first.
 *   full  the trace on stderr, which is /dev/full: every write fails; the
 *         program's errno is what it was before each op, as without the
 *         preload library.
 *
 * Here the parent; the child in opstrace-child.c.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opstrace.h"
#include "traced-run.h"

static int failures;
#define FAIL(...) do { fprintf(stderr, "opstrace: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

static char dir[4096];

static char got[200][400], want[200][400];

int main(int argc, char **argv)
{
	char self[4096], err[4200], trace[4200];
	int rc, n, m, i;

	if (argc == 4)
		return opstrace_child(argv[2], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: %s PRELOAD_SO DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	traced_self(self, sizeof(self));

	snprintf(err, sizeof(err), "%s/ops.err", dir);
	snprintf(trace, sizeof(trace), "%s/trace.log", dir);
	unlink(trace);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((rc = traced_run(self, argv[1], err, trace, 0, argv[1], dir, "ops")))
		FAIL("ops: the child exited %d (13: an op not put back before the close or destroy)", rc);
	n = traced_lines(dir, "trace.log", "rdmaverbs[", got, 200);
	m = traced_lines(dir, "expected", "rdmaverbs[", want, 200);
	if (n != m)
		FAIL("ops: %d trace lines for %d expected", n, m);
	for (i = 0; i < n && i < m; i++)
		if (strcmp(got[i], want[i]))
			FAIL("ops: trace line %d:\n  got  %s\n  want %s", i + 1, got[i], want[i]);
	n = traced_lines(dir, "ops.err", "rdmaverbs: ibv_", got, 200);
	m = traced_lines(dir, "expected-stats", "ibv_", want, 200);
	for (i = 0; i < m; i++) {
		char b[5][64];
		int j;

		if (sscanf(want[i], "%63s %63s %63s %63s %63s", b[0], b[1], b[2], b[3], b[4]) != 5)
			continue;
		for (j = 0; j < n; j++) {
			char a[5][64];

			if (sscanf(got[j], "rdmaverbs: %63s %63s %63s %63s %63s", a[0], a[1], a[2], a[3],
				   a[4]) == 5 && !strcmp(a[0], b[0]) && !strcmp(a[1], b[1]) &&
			    !strcmp(a[2], b[2]) && !strcmp(a[3], b[3]) && !strcmp(a[4], b[4]))
				break;
		}
		if (j == n)
			FAIL("ops: the exit table has no row \"%s\"", want[i]);
	}
	if (n != m)
		FAIL("ops: %d rows of ops in the exit table, %d expected", n, m);
	if (!failures)
		printf("opstrace: ok: %d trace lines of the 19 wrapped ops (classic and extended), each "
		       "field as expected; the exit table's %d rows; every op put back before the "
		       "close and destroy\n", traced_lines(dir, "expected", "rdmaverbs[", want, 200), m);

	snprintf(err, sizeof(err), "/dev/full");
	if ((rc = traced_run(self, argv[1], err, "1", 0, argv[1], dir, "full")))
		FAIL("full: the child exited %d (11: an op changed errno)", rc);
	else
		printf("opstrace: ok: the trace on /dev/full: every op leaves the program's errno as it was\n");
	return failures != 0;
}
