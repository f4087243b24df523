/* The random values of random.h: xorshift64*, pick, edge, edge_int. */
#include <limits.h>
#include <stdint.h>

#include "random.h"

uint64_t (*case_rnd)(void);

static uint64_t rng_state;

static uint64_t xorshift(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

void rnd_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
	case_rnd = xorshift;
}

int pick(int n)
{
	return (int)(case_rnd() % (uint64_t)n);
}

uint64_t edge(uint64_t max)
{
	uint64_t v = case_rnd();

	switch (pick(15)) {
	case 0: return 0;
	case 1: return 1 & max;
	case 2: return max - 1;
	case 3: return max;
	case 4: return max / 2 + 1;
	default: return max == UINT64_MAX ? v : v % (max + 1);
	}
}

int edge_int(void)
{
	static const int e[] = { 0, 1, -1, INT_MAX, INT_MIN };

	return pick(3) ? (int)case_rnd() : e[pick(5)];
}
