/*
 * The trace child's record of what its calls should produce: the line
 * each writes to DIR/expected (built with snprintf from the arguments, the
 * result and errno) and its count of calls, bytes, errors and blocked
 * waits per function, written to DIR/expected-stats.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "trace.h"

struct fake F;
FILE *expected;

#define NAME(ret, name, params, args) #name,
const char *const names[N_FN] = { RDMAVERBS_FUNCTIONS(NAME) };
#define BLOCKS(name) [F_##name] = 1,
static const char may_block[N_FN] = { RDMAVERBS_MAY_BLOCK(BLOCKS) };
struct counts counts[N_FN];

void count(int fn, int failed, long bytes)
{
	counts[fn].calls++;
	if (failed)
		counts[fn].errors++;
	else
		counts[fn].bytes += bytes;
}

/* " id=0x... qpn=N [srq=0x...]" as the library shows an id. */
const char *idf(struct rdma_cm_id *id)
{
	static char s[128];
	int n = snprintf(s, sizeof(s), " id=%#lx", p2u(id));

	if (id && id->qp)
		n += snprintf(s + n, sizeof(s) - n, " qpn=%u", id->qp->qp_num);
	if (id && id->srq)
		snprintf(s + n, sizeof(s) - n, " srq=%#lx", p2u(id->srq));
	return s;
}

/* " ret=R" and, when it failed, " errno=E". */
const char *retf(int ret, int err)
{
	static char s[64];

	if (ret < 0)
		snprintf(s, sizeof(s), " ret=%d errno=%d", ret, err);
	else
		snprintf(s, sizeof(s), " ret=%d", ret);
	return s;
}

int write_stats(const char *dir)
{
	int i;

	expected = create_in(dir, "expected-stats");
	if (!expected)
		return 1;
	for (i = 0; i < N_FN; i++) {
		if (!counts[i].calls)
			continue;
		fprintf(expected, "%s %ld %ld %ld ", names[i], counts[i].calls,
			counts[i].bytes, counts[i].errors);
		if (may_block[i])
			fprintf(expected, "%ld\n", counts[i].blocked);
		else
			fprintf(expected, "-\n");
	}
	fclose(expected);
	return 0;
}
