/*
 * Record accounting for the drain path.
 *
 * The one invariant btslab checks at the end of every drain test: every
 * record a producer made (or a consumer was offered) is either delivered,
 * rejected by a filter (consumers only; that is not a loss) or lost, and
 * every lost record has a cause. A run where the sums differ is a failed
 * test whatever else it shows, so the counters live here, in one place,
 * with the check next to them.
 *
 * Concurrency: each account has a single writer at any time (the PMI path
 * for the inline strategy, the deferred path for switch, the caller of a
 * snapshot or flush; for a consumer, whoever runs its sink). Readers may be
 * on another CPU, so fields are stored and loaded with relaxed atomics: a
 * reader never sees a torn value, only a momentarily unbalanced sum while a
 * drain is in flight. Check the invariant at a quiescent point.
 */
#ifndef LIB_BTS_ACCOUNT_H
#define LIB_BTS_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a record was lost. Stable numbers: they appear in lost records. */
enum bts_loss_cause {
	BTS_LOSS_NO_SPARE = 0,	  /* switch: the buffer was full, no spare */
	BTS_LOSS_RING_FULL = 1,	  /* a consumer's ring had no room */
	BTS_LOSS_OVERWRITTEN = 2, /* flight recorder: newer records won */
	BTS_LOSS_STOPPED = 3,	  /* producer stopped at the absolute max */
	BTS_LOSS_NR
};

/*
 * Per producer: produced == delivered + lost (filtered stays 0).
 * Per consumer: "produced" counts records offered to it, and
 * offered == delivered + filtered + lost.
 *
 * delivered: producer: records handed to the consumers' sink.
 *            consumer: records stored in its ring and not since
 *            overwritten (read, or still readable).
 */
struct bts_account {
	uint64_t produced;
	uint64_t delivered;
	uint64_t filtered;
	uint64_t lost[BTS_LOSS_NR];
};

/* Single-writer add (see the top of this file). */
static inline void bts_count(uint64_t *field, uint64_t n)
{
	uint64_t v = __atomic_load_n(field, __ATOMIC_RELAXED);

	__atomic_store_n(field, v + n, __ATOMIC_RELAXED);
}

static inline void bts_count_lost(struct bts_account *a,
				  enum bts_loss_cause cause, uint64_t n)
{
	bts_count(&a->lost[cause], n);
}

void bts_account_reset(struct bts_account *a);

/* Copy a (possibly live) account field by field with atomic loads. */
void bts_account_read(const struct bts_account *a, struct bts_account *out);

/* Add every counter of src to dst (e.g. to total several runs). */
void bts_account_add(struct bts_account *dst, const struct bts_account *src);

uint64_t bts_account_lost_total(const struct bts_account *a);

/*
 * produced - (delivered + filtered + lost), as a signed difference:
 * 0 when balanced, > 0 when records are unaccounted for, < 0 when some
 * were counted twice.
 */
int64_t bts_account_imbalance(const struct bts_account *a);

static inline bool bts_account_balanced(const struct bts_account *a)
{
	return bts_account_imbalance(a) == 0;
}

/* "no_spare", "ring_full", "overwritten", "stopped"; "?" when invalid. */
const char *bts_loss_name(enum bts_loss_cause cause);

#endif
