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
 *
 * This file: main and the checks of when the lines reach the file (idle,
 * killed, paced, busy, alone); the file under the program in live-file.c,
 * threads and forks in live-threads.c, the child in live-child.c.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"

/* How long after the posts the file is read: 1 s, 300 ms under make
 * mutants (RDMAVERBS_TEST_QUICK; still 3 periods of the writer thread). */
#define AFTER_US (getenv("RDMAVERBS_TEST_QUICK") ? 300000 : 1000000)

static void check_idle(void)
{
	char line[64];
	struct scan s;
	double t0 = monotonic(), t1;
	struct seen before, after;
	long wakeups, most;

	snprintf(out, sizeof(out), "%s/idle.log", dir);
	start("idle", out, NULL);
	if (!fgets(line, sizeof(line), from_child)) {
		FAIL("idle: the child did not post");
		finish();
		return;
	}
	t1 = monotonic();
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

int main(int argc, char **argv)
{
	int rc = start_program("live", argc, argv, child, 0, "SCRATCH_DIR");

	if (rc >= 0)
		return rc;
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
	return end_program();
}
