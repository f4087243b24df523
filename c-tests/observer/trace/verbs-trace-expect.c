/*
 * The verbs-trace child's record of what its calls should produce: the line
 * each call writes to DIR/expected, its count of calls, bytes and errors
 * per function (DIR/expected-stats), and the fake's answers.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "verbs-trace-shared.h"

#define NAME(ret, name, params, args) #name,
const char *const names[N_FN] = { RDMAVERBS_VERBS_H_FUNCTIONS(NAME) };
FILE *expected;
struct counts counts[N_FN];
struct vscript S;

void count(int fn, int failed, long bytes)
{
	counts[fn].calls++;
	counts[fn].errors += failed != 0;
	counts[fn].bytes += bytes;
}

/* The answers of the fake's ops: `ret` (and errno `err`) for `op`. */
void answer(int op, int64_t ret, int err)
{
	S.a[op].ret = ret;
	S.a[op].err = err;
}

char data[4096];
struct ibv_sge sge[3] = {
	{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 4096, 3 },
};

int write_stats(const char *dir)
{
	int i;

	expected = create_in(dir, "expected-stats");
	if (!expected)
		return 3;
	for (i = 0; i < N_FN; i++) {
		char bytes[32];

		if (!counts[i].calls)
			continue;
		snprintf(bytes, sizeof(bytes), "%ld", counts[i].bytes);
		fprintf(expected, "%s %ld %s %ld -\n", names[i], counts[i].calls,
			counts[i].open ? "?" : bytes, counts[i].errors);
	}
	fclose(expected);
	return 0;
}
