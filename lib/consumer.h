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
 * Filters, until user mode exists, are address ranges: "kernel" keeps a
 * record with either end in the kernel range (the jumps into, inside and
 * out of the kernel), "user" one with either end outside it, "both" all.
 */
#ifndef LIB_CONSUMER_H
#define LIB_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/bts_account.h"
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
	uint64_t kernel_lo, kernel_hi; /* [lo, hi): kernel addresses */
	struct ring ring;
	struct bts_account acct;
};

struct consumer_set {
	struct consumer *c[CONSUMER_MAX];
	size_t n;
};

/* Set up c with its ring over rc->mem. Returns 0, or -1 (bad ring). */
int consumer_init(struct consumer *c, enum consumer_filter filter,
		  uint64_t kernel_lo, uint64_t kernel_hi,
		  const struct ring_cfg *rc);

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
