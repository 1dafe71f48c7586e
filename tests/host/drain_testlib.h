/*
 * Helpers shared by the drain-path host tests, the property test and the
 * benchmark: a synthetic record stream in which every record is a known
 * function of its sequence number (so any reader can check what it got),
 * and a check that a formatted record is the one expected.
 *
 * Records come in the four mode classes of lib/modes.h under the default
 * map: user addresses at TL_USER_LO.., kernel ones at TL_KERNEL_LO...
 * By default the classes repeat every 8 records: 3 kernel, an exit, 3
 * user, an entry, so filters have work to do. With tl_seed set (the
 * property test), the class of each record is a pseudo-random function
 * of its number and the seed, in aligned runs of 1 to 8 records.
 */
#ifndef TESTS_HOST_DRAIN_TESTLIB_H
#define TESTS_HOST_DRAIN_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ds_layout.h"
#include "lib/modes.h"
#include "lib/rec_format.h"

#define TL_KERNEL_LO 0xffffffff80000000ull
#define TL_USER_LO   MODE_USER_LO_DEFAULT

/* 0: the period-8 pattern; else the seed of the pseudo-random one. */
static uint64_t tl_seed __attribute__((unused));

static inline uint64_t tl_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* The class of record seq under the default map. */
static inline enum br_class tl_class(uint64_t seq)
{
	static const enum br_class period[8] = {
		BR_KERNEL, BR_KERNEL, BR_KERNEL, BR_EXIT,
		BR_USER,   BR_USER,   BR_USER,	 BR_ENTRY,
	};

	if (!tl_seed)
		return period[seq % 8];
	return (enum br_class)(tl_mix((seq >> (tl_seed % 4)) ^ tl_seed) % 4);
}

static inline struct bts_record tl_rec(uint64_t seq)
{
	enum br_class c = tl_class(seq);
	uint64_t off = (seq % 0x1000000) * 16;
	bool from_user = c == BR_USER || c == BR_ENTRY;
	bool to_user = c == BR_USER || c == BR_EXIT;
	struct bts_record r = {
		.from = (from_user ? TL_USER_LO : TL_KERNEL_LO) + off,
		.to = (to_user ? TL_USER_LO : TL_KERNEL_LO) + off + 0x888,
		.flags = (seq & 1) ? BTS_FLAG_PREDICTED : 0,
	};

	return r;
}

static inline void tl_recs(struct bts_record *r, size_t n, uint64_t seq)
{
	size_t i;

	for (i = 0; i < n; i++)
		r[i] = tl_rec(seq + i);
}

/* Does buf hold, in format f, the branch record with sequence seq? */
static inline bool tl_match(const struct rec_format *f, const void *buf,
			    uint64_t seq)
{
	struct bts_record want = tl_rec(seq);
	struct rec_event ev;

	if (!f->decode(buf, &ev) || ev.type != REC_BRANCH)
		return false;
	if (ev.predicted != !!(want.flags & BTS_FLAG_PREDICTED))
		return false;
	if (f->id == REC_COMPAT32)
		return ev.from == (uint32_t)want.from &&
		       ev.to == (uint32_t)want.to &&
		       ev.truncated == !!((want.from | want.to) >> 32);
	if (f->id == REC_FIXED && ev.seq != seq)
		return false;
	return ev.from == want.from && ev.to == want.to;
}

#endif
