/*
 * The table of verbs.c and siw-verbs.c: one function pointer per static
 * inline function of <infiniband/verbs.h> (build/gen/functions.h,
 * RDMAVERBS_VERBS_H_FUNCTIONS: those the build's header has), filled by
 * fill_table (verbs-table.c): librdmaverbs.so.1's exports found with
 * dlvsym(..., NODE) when VERBS_LIBRARY names the library (ours), else the
 * inline originals themselves (stock). And what both programs print:
 * fail(), CHECK(), obs() (the lines the two builds must print alike),
 * verified() (what the RESULT line counts); and the messages' bytes:
 * fill() and expect().
 */
#ifndef VERBS_TABLE_H
#define VERBS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "functions.h"	/* build/gen: the build's exports */

#define MEMBER(ret, name, params, args) ret(*name) params;
struct verbs_table {
	RDMAVERBS_VERBS_H_FUNCTIONS(MEMBER)
};
extern struct verbs_table v;

extern const char *role;	/* "server" or "client" */
extern long msgs, bytes;	/* messages and bytes verified */

/* Prints the failure and the RESULT line, and exits 1. */
void fail(const char *fmt, ...);

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond))                                                  \
			fail(__VA_ARGS__);                                    \
	} while (0)

/* obs: lines are compared between the two builds: only values the library
 * and the provider decide, never pointers, keys or QP numbers. */
void obs(const char *fmt, ...);
void verified(long n_msgs, long n_bytes);

/* Fills the table and checks where each pointer lies (prints "verbs: the
 * table: ..."). */
void fill_table(void);

/* Message `seed`'s bytes from its byte `from` on: written, checked. */
void fill(void *buf, size_t len, int seed, size_t from);
void expect(const void *buf, size_t len, int seed, size_t from, const char *what);

#endif
