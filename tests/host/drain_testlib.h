/*
 * Helpers shared by the drain-path host tests, the property test and the
 * benchmark: a synthetic record stream in which every record is a known
 * function of its sequence number (so any reader can check what it got),
 * and a check that a formatted record is the one expected.
 *
 * Records with seq % 7 < 3 are "kernel" records (both addresses in
 * TL_KERNEL_LO..), the others "user" records: runs of 3 and 4, so
 * filters have work to do.
 */
#ifndef TESTS_HOST_DRAIN_TESTLIB_H
#define TESTS_HOST_DRAIN_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ds_layout.h"
#include "lib/rec_format.h"

#define TL_KERNEL_LO 0xffffffff80000000ull
#define TL_KERNEL_HI 0xffffffffc0000000ull

static inline bool tl_is_kernel(uint64_t seq)
{
	return seq % 7 < 3;
}

static inline struct bts_record tl_rec(uint64_t seq)
{
	uint64_t base = tl_is_kernel(seq) ? TL_KERNEL_LO : 0x400000;
	struct bts_record r = {
		.from = base + (seq % 0x1000000) * 16,
		.to = base + (seq % 0x1000000) * 16 + 0x888,
		.flags = (seq & 1) ? BTS_FLAG_PREDICTED : 0,
	};

	return r;
}

/* How many kernel records among sequence numbers [0, n). */
static inline uint64_t tl_kernel_count(uint64_t n)
{
	return n / 7 * 3 + (n % 7 < 3 ? n % 7 : 3);
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
