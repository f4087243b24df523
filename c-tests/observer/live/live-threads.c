/*
 * The live trace under threads and forks: two threads' write-outs meeting
 * the writer thread's (every line once), threads one after the other (the
 * slots of exited ones reused), a fork during a write-out of a thread
 * without a buffer (it waits for it), and a child's lines after its
 * parent's (written by a writer thread of its own).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "live.h"

void check_threads(void)
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
