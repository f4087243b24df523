/*
 * The live trace file under a tracing program: truncated three times (it
 * goes on, no warning, every line whole), deleted (one warning), at a file
 * size limit (one warning, no SIGXFSZ) and on a full file system (one
 * warning); each time exit 0 and the file ending at a line's end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"

void check_truncate(void)
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

void check_delete(void)
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

void check_limit(void)
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

void check_full(void)
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
