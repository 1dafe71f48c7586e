/*
 * splitmix64: a small, fast, well-mixed pseudo-random generator whose
 * whole state is one seed, so a run can be repeated from the seed printed
 * in its log.
 */
#ifndef LIB_RAND_H
#define LIB_RAND_H

#include <stdint.h>

static inline uint64_t splitmix64_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif
