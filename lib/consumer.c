/*
 * Filter and splay: offer each drained batch to every consumer, which
 * keeps the runs of records its filter accepts and writes each run to its
 * ring in one call (so "both", the common case, costs one ring write per
 * batch, and a filter costs a scan). See consumer.h.
 */
#include "lib/consumer.h"

static const char *const filter_names[CF_NFILTERS] = {
	[CF_BOTH] = "both",
	[CF_KERNEL] = "kernel",
	[CF_USER] = "user",
};

const char *consumer_filter_name(enum consumer_filter f)
{
	if ((unsigned int)f >= CF_NFILTERS)
		return "?";
	return filter_names[f];
}

int consumer_init(struct consumer *c, enum consumer_filter filter,
		  uint64_t kernel_lo, uint64_t kernel_hi,
		  const struct ring_cfg *rc)
{
	if ((unsigned int)filter >= CF_NFILTERS || kernel_lo > kernel_hi)
		return -1;
	c->filter = filter;
	c->kernel_lo = kernel_lo;
	c->kernel_hi = kernel_hi;
	bts_account_reset(&c->acct);
	return ring_init(&c->ring, rc, &c->acct);
}

static bool in_kernel(const struct consumer *c, uint64_t addr)
{
	return addr >= c->kernel_lo && addr < c->kernel_hi;
}

bool consumer_accepts(const struct consumer *c, const struct bts_record *r)
{
	switch (c->filter) {
	case CF_KERNEL:
		return in_kernel(c, r->from) || in_kernel(c, r->to);
	case CF_USER:
		return !in_kernel(c, r->from) || !in_kernel(c, r->to);
	default:
		return true;
	}
}

int consumer_set_add(struct consumer_set *set, struct consumer *c)
{
	if (set->n >= CONSUMER_MAX)
		return -1;
	set->c[set->n++] = c;
	return 0;
}

static void offer(struct consumer *c, const struct bts_record *recs, size_t n,
		  uint64_t seq)
{
	size_t i = 0, start, filtered = 0;

	bts_count(&c->acct.produced, n);
	if (c->filter == CF_BOTH) {
		ring_write(&c->ring, recs, n, seq);
		return;
	}
	while (i < n) {
		while (i < n && !consumer_accepts(c, &recs[i])) {
			i++;
			filtered++;
		}
		start = i;
		while (i < n && consumer_accepts(c, &recs[i]))
			i++;
		if (i > start)
			ring_write(&c->ring, recs + start, i - start,
				   seq + start);
	}
	bts_count(&c->acct.filtered, filtered);
}

void consumer_set_emit(void *ctx, const struct bts_record *recs, size_t n,
		       uint64_t seq)
{
	struct consumer_set *set = ctx;
	size_t i;

	for (i = 0; i < set->n; i++)
		offer(set->c[i], recs, n, seq);
}

void consumer_set_flush(struct consumer_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		ring_flush(&set->c[i]->ring);
}
