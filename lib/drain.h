/*
 * Drain strategies: how BTS records get from the buffer the producer
 * writes (described by the DS save area) to the consumers.
 *
 *   inline    the PMI handler copies the buffer out and resets the index
 *             (Linux's ds.c of 2009): all the work in NMI context.
 *   switch    the PMI handler only points the DS area at a free spare
 *             buffer and asks for deferred work (the kernel sends a
 *             self-IPI); the deferred handler drains the full buffer.
 *             1 + K buffers. With no spare free, a policy: keep writing
 *             into the full buffer's headroom, or stop at once; records
 *             the producer then cannot store are lost (cause no_spare).
 *   snapshot  circular buffer, no PMI at all; on demand the newest N
 *             records are copied out in order.
 *
 * The library never touches hardware. The kernel owns the DS area and the
 * buffers, calls the entries below from its PMI and self-IPI handlers,
 * and supplies the services in struct drain_env. Every entry runs on the
 * producer's CPU; the PMI entry may interrupt the deferred entry (NMI)
 * but never the reverse, and the PMI and flush entries require the
 * producer to be paused (hardware: DEBUGCTL.TR/BTS cleared on PMI entry,
 * as Linux does, so no record is written while DS fields change).
 *
 * Switch hand-off (see drain_switch.c): the DS area fields are written by
 * the PMI entry only. Each buffer has one state word, FREE -> ACTIVE ->
 * FULL -> FREE; only the PMI entry moves FREE->ACTIVE and ACTIVE->FULL
 * (filling in count, sequence and losses before publishing FULL with a
 * release store), only the deferred entry moves FULL->FREE (after its
 * last read of the records). A state word is one aligned store, so an
 * NMI between any two instructions of the deferred entry sees either
 * FULL (not yet free: ignored) or FREE (done with: reusable).
 *
 * Sequence numbers: every record the producer made has one (from 0,
 * lost records included), so the fixed format shows the stream's gaps.
 */
#ifndef LIB_DRAIN_H
#define LIB_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/bts_account.h"
#include "lib/ds_layout.h"

enum drain_id {
	DRAIN_INLINE,
	DRAIN_SWITCH,
	DRAIN_SNAPSHOT,
	DRAIN_NIDS
};

/* switch: what to do when the buffer is full and no spare is free */
enum drain_policy {
	DRAIN_HEADROOM, /* keep writing up to the absolute maximum */
	DRAIN_STOP,	/* stop storing at once */
};

#define DRAIN_MAX_BUFS 8 /* switch: the active buffer and 7 spares */

/* Where drained records go: consumer_set_emit(), or a test's own. */
struct drain_sink {
	void (*emit)(void *ctx, const struct bts_record *recs, size_t n,
		     uint64_t seq);
	void *ctx;
};

/* Kernel services. */
struct drain_env {
	/* switch: run drain_deferred() soon (the self-IPI). Required. */
	void (*defer)(void *ctx);
	/*
	 * switch: run drain_pmi() soon (a self-NMI, or the model's PMI).
	 * Asked for when a spare is freed while the producer was starved:
	 * the producer, stopped at the maximum, raises no PMI of its own.
	 * May be NULL: the next PMI then resumes (never, if it stopped).
	 */
	void (*kick)(void *ctx);
	void *ctx;
};

struct drain_cfg {
	struct ds_area *ds;
	void *bufs[DRAIN_MAX_BUFS]; /* record buffers, 8-byte aligned */
	size_t nbufs;		    /* inline, snapshot: 1; switch: 1 + K */
	size_t buf_records;	    /* records per buffer */
	size_t headroom;	    /* records between threshold and max */
	enum drain_policy policy;   /* switch */
	/*
	 * The producer's own counters, monotonic, written by it alone, NULL
	 * when it has none (hardware without a branch counter):
	 * dropped: records it could not store (index at the maximum);
	 * written: records it stored (snapshot needs this one).
	 */
	const uint64_t *dropped;
	const uint64_t *written;
	uint64_t seq0;	 /* sequence number of the producer's next record */
	bool per_record; /* one sink call per record: the 2009 baseline */
	struct drain_sink sink;
	struct drain_env env;
};

enum drain_buf_state {
	DB_FREE,
	DB_ACTIVE,
	DB_FULL
};

/* switch: one buffer and who owns it (see the top of this file). */
struct drain_buf {
	uint64_t base;	/* linear address of the first record */
	uint32_t state; /* enum drain_buf_state */
	/* Valid from FULL on; written by the PMI entry before FULL: */
	uint64_t nrec;		/* records in it */
	uint64_t seq;		/* sequence number of the first */
	uint64_t lost_stopped;	/* dropped after it filled: PMI late */
	uint64_t lost_no_spare; /* dropped after it filled: no spare */
};

struct drain;

struct drain_ops {
	enum drain_id id;
	const char *name;
	void (*start)(struct drain *d);
	bool (*pmi)(struct drain *d);
	void (*deferred)(struct drain *d);
	size_t (*snapshot)(struct drain *d, size_t n);
	void (*flush)(struct drain *d);
};

struct drain_stats {
	uint64_t pmis;	   /* PMI entries that found work */
	uint64_t spurious; /* PMI entries that did not */
	uint64_t switches; /* switch: buffers handed to deferred work */
	uint64_t starved;  /* switch: times no spare was free */
	uint64_t deferred; /* deferred entries */
	uint64_t snapshots;
};

struct drain {
	const struct drain_ops *ops;
	struct drain_cfg cfg;
	struct bts_account acct; /* the producer's */
	struct drain_stats stats;
	struct drain_buf buf[DRAIN_MAX_BUFS];
	uint64_t bytes; /* buffer size in bytes */
	/* PMI-owned (inline, switch) or caller-owned (snapshot) */
	size_t active;	       /* switch: index of the ACTIVE buffer */
	uint64_t next_seq;     /* sequence number of the next record */
	uint64_t dropped_seen; /* producer's dropped count, last read */
	uint64_t written_seen; /* snapshot: producer's written count */
	uint32_t starving;     /* switch: no spare was free */
};

extern const struct drain_ops drain_inline_ops, drain_switch_ops,
	drain_snapshot_ops;

/*
 * Check cfg and set d up; does not touch the DS area. Returns 0, or -1
 * when the configuration cannot work (buffer count for the strategy,
 * headroom not below the buffer size, missing sink or required service).
 */
int drain_init(struct drain *d, enum drain_id id, const struct drain_cfg *cfg);

const struct drain_ops *drain_ops_get(enum drain_id id);
const struct drain_ops *drain_ops_by_name(const char *name);

/* Program the DS BTS fields for the first buffer. Producer paused. */
static inline void drain_start(struct drain *d)
{
	d->ops->start(d);
}

/* PMI entry. Returns true when the PMI was ours (index at threshold). */
static inline bool drain_pmi(struct drain *d)
{
	return d->ops->pmi(d);
}

/* Deferred-work entry (the self-IPI handler). */
static inline void drain_deferred(struct drain *d)
{
	d->ops->deferred(d);
}

/* snapshot: copy out the newest n records not yet delivered. */
static inline size_t drain_snapshot(struct drain *d, size_t n)
{
	return d->ops->snapshot(d, n);
}

/*
 * Producer paused, no PMI pending, the deferred entry not running (call
 * it with interrupts off): drain everything and leave the DS area ready
 * to go on. Afterwards the producer account is balanced.
 */
static inline void drain_flush(struct drain *d)
{
	d->ops->flush(d);
}

/* For the strategies: hand records to the sink, counting them. */
void drain_emit(struct drain *d, const struct bts_record *recs, size_t n,
		uint64_t seq);
/* Records in [base, index) of the DS area, and the sequence of each. */
uint64_t drain_ds_records(const struct drain *d);
/* Producer's drops since the last call (0 without the counter). */
uint64_t drain_new_drops(struct drain *d);
/* Point the DS BTS fields at a buffer: empty, threshold, maximum. */
void drain_ds_set(struct drain *d, uint64_t base);

#endif
