/*
 * The environment and the trace file, as an attacker or an unlucky user
 * would meet them. The parent re-executes this program ("hardening LIB DIR
 * CASE") with RDMAVERBS_* set, in DIR/CASE/ as its working directory, with
 * its stderr in DIR/CASE.err, and checks:
 *
 *   setuid     a set-user-ID-root copy (SELF-static: linked with the static
 *              archive), in a directory of its own under /tmp, run by nobody
 *              with RDMAVERBS_TRACE naming a root-only directory and
 *              RDMAVERBS_STATS=1, obeys neither (secure_getenv); the same
 *              copy without the set-uid bit does (needs root, and a /tmp
 *              that allows set-user-ID programs: skipped with a message
 *              otherwise);
 *   values     RDMAVERBS_TRACE=yes, 2, -1, " 1": a warning each, and no file;
 *   percent    ./t.%p: a file named after the process, mode 0600; a forked
 *              child's lines in a file of its own;
 *   stopped    ./t.%p, the file deleted under the program (one warning, the
 *              trace stopped), then a fork: the child makes no file;
 *   renamed    ./t.log renamed to t.old, then a fork: the child's line goes
 *              to the parent's file (t.old), no new t.log is made;
 *   symlink    a path whose last component is a symbolic link: refused, the
 *              link's target untouched;
 *   fifo       a FIFO with no reader: refused at once (the load does not
 *              block); with a reader, and /dev/null: not regular files;
 *   reused     the program closes every descriptor above 2 and opens its own
 *              file on each number: no trace line gets into it; one warning;
 *   dlclose    1,000 dlopen/dlclose cycles of the library with a trace file,
 *              each with a traced call: no descriptor is left open, no
 *              thread left running (the writer thread is joined);
 *   long       a path over PATH_MAX: refused as too long; one of 4095 bytes:
 *              tried, and cannot be opened;
 *   nofile     RLIMIT_NOFILE 32 (no descriptor free at 256): traced on the
 *              descriptor open() gave;
 *   fixed      counting, its directory refused at load, then put right
 *              (0700), then a fork: the child counts in memory too, and
 *              makes no file (it publishes what its parent published);
 *   nostdin    as nofile, and standard input closed (as daemons do): the
 *              trace on descriptor 0, a forked child's (%p) too, each
 *              process's lines in its own file; counting as well, its file
 *              made and mapped;
 *   handlers   a fatal signal's handler installed when tracing to a file or
 *              counting, not when tracing to stderr or with nothing set;
 *   unload     at dlclose the handlers of fatal signals are taken away, and
 *              only the library's own;
 *   ignored    a SIGINT ignored since before the load stays ignored;
 *   escape     a value with a newline and other control characters: one
 *              warning line, the characters escaped.
 *
 * This file: main, the cases in turn (hardening.h says where each is) and
 * the summary line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "hardening.h"

const char *lib;

int main(int argc, char **argv)
{
	ssize_t n;

	test_name = "hardening";
	if (argc == 4) {
		snprintf(dir, sizeof(dir), "%s", argv[2]);
		return child(argv[1], argv[3]);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s LIBRDMAVERBS_SO DIR\n", argv[0]);
		return 2;
	}
	lib = argv[1];
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;

	setuid_case();
	stats_dir_cases();
	value_cases();
	file_cases();
	lifetime_cases();

	printf("hardening: %d passed, %d failed\n", passed, failures);
	return failures != 0;
}
