/*
 * The probes' programs' records (probe-records.h): the re-execution with
 * descriptor 9 on the file, the records read back and checked, the summary.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe-records.h"

static const char *test_name = "probes";
static int failures, checked;
static FILE *records;

int probes_start(const char *name, int argc, char **argv)
{
	char what[64];

	test_name = name;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s FILE [--must]\n", argv[0]);
		return 2;
	}
	if (!getenv("RDMAVERBS_TEST_PROBES")) {
		int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 9) < 0) {
			snprintf(what, sizeof(what), "%s: open", name);
			perror(what);
			return 2;
		}
		setenv("RDMAVERBS_TEST_PROBES", "9", 1);
		execv("/proc/self/exe", argv);
		snprintf(what, sizeof(what), "%s: exec", name);
		perror(what);
		return 2;
	}
	return -1;
}

int probes_records(int must)
{
	char line[64], what[64];

	records = fdopen(9, "r");
	if (!records || fseek(records, 0, SEEK_SET)) {
		snprintf(what, sizeof(what), "%s: the records", test_name);
		perror(what);
		return 2;
	}
	if (!fgets(line, sizeof(line), records)) {
		if (must) {
			printf("%s: FAIL: no probe fired (a library built with the feature c-tests "
			       "records them)\n", test_name);
			return 1;
		}
		printf("%s: skipped (the library is not built with the cargo feature c-tests; "
		       "make mutants builds it so)\n", test_name);
		return 0;
	}
	rewind(records);
	return -1;
}

void expect(const char *what, const char *f, long a0, long a1, long a2, long a3, long a4,
	    long a5)
{
	char line[512], name[64];
	long a[6];

	checked++;
	if (!fgets(line, sizeof(line), records) ||
	    sscanf(line, "%63s %ld %ld %ld %ld %ld %ld", name, &a[0], &a[1], &a[2], &a[3], &a[4],
		   &a[5]) != 7) {
		printf("%s: FAIL: %s: no record\n", test_name, what);
		failures++;
		return;
	}
	if (strcmp(name, f) || a[0] != a0 || a[1] != a1 || a[2] != a2 || a[3] != a3 ||
	    a[4] != a4 || a[5] != a5) {
		printf("%s: FAIL: %s: got %s %ld %ld %ld %ld %ld %ld, want %s %ld %ld %ld %ld %ld "
		       "%ld\n", test_name, what, name, a[0], a[1], a[2], a[3], a[4], a[5], f, a0, a1,
		       a2, a3, a4, a5);
		failures++;
	}
}

int probes_end(const char *firings)
{
	char line[64];

	if (fgets(line, sizeof(line), records)) {
		printf("%s: FAIL: a firing more: %s", test_name, line);
		failures++;
	}
	printf("%s: %d %s checked, argument by argument: %s\n", test_name, checked, firings,
	       failures ? "FAILED" : "all passed");
	return failures != 0;
}
