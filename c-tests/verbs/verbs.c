/*
 * The differential test of RDMAVERBS_1.3: the 94 static inline functions of
 * the system's <infiniband/verbs.h>, as compiled from it (original.c),
 * against librdmaverbs.so.1's exports of the same names, on the fake
 * provider of vfake.h (verbs.h says what a case is and what is compared).
 * Directed cases for every function (every context that hides its op,
 * every way its op can answer, the branches of the header's own code),
 * sweeps of the functions that call nothing, then seeded random cases over
 * all of them; every branch of every function must have been taken. Then
 * the refusals (verbs-refusals.c): ours given each NULL its doc refuses.
 *
 * Usage: verbs [random-cases [seed]]
 */
#include <stdio.h>
#include <stdlib.h>

#include "verbs.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 100000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed;
	long i, ndirected, nswept, branches_total, branches_missing;
	int f, bad = 0;

	rnd_seed(seed);
	if (find_ours())
		return 1;
	vfake_init();
	pristine = W;

	bad |= replaced();
	directed();
	ndirected = compared;
	bad |= poll_overrun();
	nswept = sweeps();
	for (i = 0; i < n; i++) {
		struct vcase c;

		W = pristine;
		random_case(&c);
		test(&c);
	}
	branches_missing = not_covered(&branches_total);
	printf("verbs: %ld cases compared over %d functions (%ld directed, %ld random; seed %#llx), "
	       "%ld pure values swept, %ld different; %ld of %ld branches covered\n",
	       compared, F_COUNT, ndirected, n, (unsigned long long)seed, nswept, failed,
	       branches_total - branches_missing, branches_total);
	for (f = 0; f < F_COUNT; f++)
		if (differing[f])
			printf("verbs: %s: %ld cases different\n", vfn_name[f], differing[f]);
	bad |= refusals();
	return bad || failed || branches_missing;
}
