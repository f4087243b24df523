/*
 * What the probes' programs (probes.c, verbs-probes.c) share: running
 * themselves again with RDMAVERBS_TEST_PROBES=9 and descriptor 9 on the
 * records file, reading the records back (skipped when there are none),
 * each record checked argument by argument, and the summary line.
 */
#ifndef OBSERVER_PROBE_RECORDS_H
#define OBSERVER_PROBE_RECORDS_H

#include <stdint.h>

/* A pointer as a record shows it. */
#define L(p) ((long)(intptr_t)(p))

/* What main does first, as "NAME FILE [--must]": when
 * RDMAVERBS_TEST_PROBES is not set, FILE made anew on descriptor 9 and
 * the program executed again with RDMAVERBS_TEST_PROBES=9 (2 if it could
 * not be); with it set, -1 (the calls go on). 2 after the usage line for
 * other arguments. */
int probes_start(const char *name, int argc, char **argv);

/* After the calls: the records read from their start. -1 when there are
 * some (the checks go on); else main's exit status: 0 skipped (a library
 * built without the feature c-tests), 1 when `must`, 2 on an error. */
int probes_records(int must);

/* The next record is f with these arguments; a FAIL line if not. */
void expect(const char *what, const char *f, long a0, long a1, long a2, long a3, long a4,
	    long a5);

/* No record left over; then "NAME: N `firings` checked, argument by
 * argument: all passed" (or FAILED). main's exit status. */
int probes_end(const char *firings);

#endif
