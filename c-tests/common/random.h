/*
 * Where the differential tests' random cases take their numbers (c-tests/rdma
 * and c-tests/verbs): a seeded xorshift64*, or whatever a test puts in
 * case_rnd (the fuzzer: its input's bytes); and the values at the boundaries
 * that a fuzzer's value dictionary gives.
 */
#ifndef RDMAVERBS_RANDOM_H
#define RDMAVERBS_RANDOM_H

#include <stdint.h>

/* The source of every random value below. */
extern uint64_t (*case_rnd)(void);
/* case_rnd becomes xorshift64* from `seed` (0 taken as 1). */
void rnd_seed(uint64_t seed);
/* A number in [0, n). */
int pick(int n);
/* A value at a boundary of [0, max] (0, 1, max - 1, max, the middle) one
 * time in three, else any. */
uint64_t edge(uint64_t max);
/* An int at its boundaries (0, 1, -1, INT_MAX, INT_MIN) one time in three,
 * else any. */
int edge_int(void);

#endif
