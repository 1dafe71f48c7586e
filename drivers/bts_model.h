/*
 * Controls of the software BTS producer (drivers/bts_model.c) beyond the
 * common backend interface: what it produces and how fast.
 *
 * Synthetic records carry a sequence number so that loss can be checked
 * exactly: from = base | seq << 4 (seq below 2^40), to = from + 4,
 * flags = 0, where base is
 * a kernel-half address for CPL 0 records and a user-half address for
 * CPL 3 ones (every fourth record, seq % 4 == 3, is a "user" branch).
 */
#ifndef DRIVERS_BTS_MODEL_H
#define DRIVERS_BTS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/ds_layout.h"

enum model_source {
	MODEL_SYNTHETIC, /* sequence-numbered records at a rate */
	MODEL_BRANCHES,	 /* real branches of code built with trace-pc */
	/*
	 * Records by time as MODEL_SYNTHETIC, each of the privilege level
	 * the CPU was at (user: MODEL_USER_BASE, kernel: MODEL_KERNEL_BASE),
	 * and at every ring transition the transition's own record with
	 * its real addresses: user rip -> syscall entry or IDT stub, and
	 * SYSRET / IRETQ -> user rip. Interrupts in kernel mode are records
	 * too (rip -> stub). Every record takes a sequence number.
	 */
	MODEL_MODES,
};

/* Records per microsecond, in thousandths. */
#define MODEL_RATE_STOP 0
#define MODEL_RATE_MAX	1000000 /* 1000 records/us: faster than hardware */

struct model_counts {
	uint64_t produced;    /* records the producer made (after CPL filter) */
	uint64_t stored;      /* written into the buffer */
	uint64_t lost_at_max; /* not stored: buffer full in interrupt mode */
	uint64_t filtered;    /* suppressed by BTS_OFF_OS / BTS_OFF_USR */
	uint64_t wraps;	      /* circular mode: index back to the base */
	uint64_t pmis_raised; /* PMIs sent through the LVTPC entry */
	uint64_t next_seq;    /* sequence number of the next record */
	uint64_t raise_tsc;   /* TSC when the last PMI was raised */
	uint64_t raise_index; /* index when it was raised */
	uint64_t throttled;   /* owed by the rate but beyond what one tick
			       * can simulate: never produced, so no loss */
	uint64_t transitions; /* modes: ring transitions recorded */
};

void bts_model_set_rate(uint64_t milli_per_us);
void bts_model_set_source(enum model_source src);
/*
 * MODEL_MODES: n records of the current privilege level at every ring
 * transition and interrupt, on top of the rate: a workload-bound record
 * count that does not depend on how fast the machine (or emulator) runs.
 * Reset to 0 at start, like the rate.
 */
void bts_model_set_burst(uint64_t n);
/* Produce the records owed for the time tracing has been on. */
void bts_model_tick(void);
/* Produce n synthetic records now, whatever the rate. */
void bts_model_produce(uint64_t n);
void bts_model_counts(struct model_counts *out);
/*
 * Test oracle: from now on every record the model makes is also copied
 * to buf (up to cap; the count goes on past it), before the CPL filter
 * and whatever happens to it in the buffer. NULL turns it off.
 */
void bts_model_set_shadow(struct bts_record *buf, uint64_t cap);
uint64_t bts_model_shadow_count(void);
void bts_model_reset_counts(void);
/* The producer's own monotonic counters, for the drain strategies. */
const uint64_t *bts_model_dropped_counter(void);
const uint64_t *bts_model_written_counter(void);

#define MODEL_SEQ_MASK	  ((1ull << 40) - 1) /* bits 4..43 of from */
#define MODEL_KERNEL_BASE 0xFFFF800000000000ull
#define MODEL_USER_BASE	  0x0000400000000000ull

/* Decode a synthetic record. */
static inline uint64_t bts_model_seq(const struct bts_record *r)
{
	return (r->from >> 4) & MODEL_SEQ_MASK;
}

static inline bool bts_model_seq_user(uint64_t seq)
{
	return seq % 4 == 3;
}

/* The trace-pc hook (tests/kernel/workload_branches.c calls into it). */
void bts_model_branch(uint64_t from, uint64_t to);

#endif
