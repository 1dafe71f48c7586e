/*
 * Consumers of one producer: filter and splay.
 *
 * Several consumers can watch one BTS stream, each with its own filter,
 * ring mode, record format and ring size (the "multiplexing" model of the
 * 2008 thread). A consumer set is a drain sink: every batch the strategy
 * drains is offered to each consumer, filtered, formatted and written to
 * its ring. A record a filter rejects is not lost; one the ring cannot
 * keep is. Each consumer keeps its own account:
 * offered == delivered + filtered + lost.
 *
 * Filters go by privilege mode (modes.h: the consumer's mode_map sorts
 * each record into user, kernel, entry or exit), one record at a time:
 *
 *   both    every record as it is.
 *   user    user records kept, kernel records filtered; an entry becomes
 *           a REC_KERNEL_ENTER pseudo-record (from = the user address,
 *           to = 0, kind = the map's entry_kind of the kernel target),
 *           an exit a REC_KERNEL_EXIT (from = 0, to = the user address).
 *   kernel  kernel records kept, user records filtered; an entry becomes
 *           REC_KERNEL_ENTER (from = 0, to = the kernel address, kind),
 *           an exit REC_KERNEL_EXIT (from = the kernel address, to = 0).
 *
 * So a user-only stream never shows a kernel address, nor a kernel-only
 * stream a user address, yet each shows where the other mode ran. A
 * pseudo-record is the record it replaces, delivered: one record in, one
 * out, with its sequence number (and lost, with the same cause, when the
 * ring cannot keep it), so the account above still balances.
 */
#ifndef LIB_CONSUMER_H
#define LIB_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/bts_account.h"
#include "lib/modes.h"
#include "lib/ring.h"

enum consumer_filter {
	CF_BOTH,
	CF_KERNEL,
	CF_USER,
	CF_NFILTERS
};

#define CONSUMER_MAX 8

struct consumer {
	enum consumer_filter filter;
	struct mode_map map; /* a copy of the one given at init */
	struct ring ring;
	struct bts_account acct;
};

struct consumer_set {
	struct consumer *c[CONSUMER_MAX];
	size_t n;
};

/*
 * Set up c with its ring over rc->mem. map (copied; its entry_kind
 * callback and ctx must outlive c) sorts records by mode; NULL is the
 * default map (mode_map_default). Returns 0, or -1 (bad filter, a map
 * with user_lo > user_hi, bad ring).
 */
int consumer_init(struct consumer *c, enum consumer_filter filter,
		  const struct mode_map *map, const struct ring_cfg *rc);

/* Does r reach c's ring (as it is or as a pseudo-record)? */
bool consumer_accepts(const struct consumer *c, const struct bts_record *r);

/* Add c to the set; -1 when the set is full. */
int consumer_set_add(struct consumer_set *set, struct consumer *c);

/* The drain sink: offer a batch to every consumer of the set (ctx). */
void consumer_set_emit(void *ctx, const struct bts_record *recs, size_t n,
		       uint64_t seq);

/* Writer side, after a drain_flush(): make every ring's data readable. */
void consumer_set_flush(struct consumer_set *set);

const char *consumer_filter_name(enum consumer_filter f);

#endif
