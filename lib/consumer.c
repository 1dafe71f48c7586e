/*
 * Filter and splay: offer each drained batch to every consumer. "both",
 * the common case, costs one ring write per batch. A mode filter scans
 * the batch: each run of records it keeps goes to the ring in one call,
 * each record crossing between user and kernel goes as one pseudo-record,
 * the rest are counted filtered. See consumer.h.
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
		  const struct mode_map *map, const struct ring_cfg *rc)
{
	if ((unsigned int)filter >= CF_NFILTERS ||
	    (map && map->user_lo > map->user_hi))
		return -1;
	c->filter = filter;
	if (map)
		c->map = *map;
	else
		mode_map_default(&c->map);
	bts_account_reset(&c->acct);
	return ring_init(&c->ring, rc, &c->acct);
}

bool consumer_accepts(const struct consumer *c, const struct bts_record *r)
{
	switch (c->filter) {
	case CF_KERNEL:
		return br_classify(&c->map, r) != BR_USER;
	case CF_USER:
		return br_classify(&c->map, r) != BR_KERNEL;
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

/* An entry or exit, as the pseudo-record that stands in for it. */
static void write_pseudo(struct consumer *c, enum br_class cls,
			 const struct bts_record *r, uint64_t seq)
{
	bool user = c->filter == CF_USER;

	if (cls == BR_ENTRY)
		ring_write_mode(&c->ring, REC_KERNEL_ENTER,
				mode_entry_kind(&c->map, r->to),
				user ? r->from : 0, user ? 0 : r->to, seq);
	else
		ring_write_mode(&c->ring, REC_KERNEL_EXIT, ENTRY_UNKNOWN,
				user ? 0 : r->from, user ? r->to : 0, seq);
}

/*
 * A filter's cost is its scan, so runs are found a block of four records
 * at a time with one branch, and each end is tested with one compare:
 * a - lo < hi - lo (consumer_init saw to lo <= hi).
 */
static inline bool in_user(uint64_t a, uint64_t lo, uint64_t span)
{
	return a - lo < span;
}

/* Does r end a run of records with both ends in user space (user) or
 * both in the kernel? */
static inline bool ends_run(const struct bts_record *r, uint64_t lo,
			    uint64_t span, bool user)
{
	bool from = in_user(r->from, lo, span), to = in_user(r->to, lo, span);

	return user ? !from | !to : from | to;
}

/* The end of the run from i (constant user: one copy per side). */
static inline size_t run_end(const struct bts_record *r, size_t i, size_t n,
			     uint64_t lo, uint64_t span, bool user)
{
	for (; i + 4 <= n; i += 4)
		if (ends_run(&r[i], lo, span, user) |
		    ends_run(&r[i + 1], lo, span, user) |
		    ends_run(&r[i + 2], lo, span, user) |
		    ends_run(&r[i + 3], lo, span, user))
			break;
	for (; i < n && !ends_run(&r[i], lo, span, user); i++)
		;
	return i;
}

static size_t user_run(const struct bts_record *r, size_t i, size_t n,
		       uint64_t lo, uint64_t span)
{
	return run_end(r, i, n, lo, span, true);
}

static size_t kernel_run(const struct bts_record *r, size_t i, size_t n,
			 uint64_t lo, uint64_t span)
{
	return run_end(r, i, n, lo, span, false);
}

/*
 * A filter: a run of kept records, written in one call; a run of the
 * other side's, counted; then an entry or exit as its pseudo-record.
 */
static void offer(struct consumer *c, const struct bts_record *recs, size_t n,
		  uint64_t seq)
{
	const uint64_t lo = c->map.user_lo, span = c->map.user_hi - lo;
	const bool user = c->filter == CF_USER;
	size_t i = 0, start, filtered = 0;
	enum br_class cls;

	bts_count(&c->acct.produced, n);
	if (c->filter == CF_BOTH) {
		ring_write(&c->ring, recs, n, seq);
		return;
	}
	while (i < n) {
		start = i;
		i = user ? user_run(recs, i, n, lo, span)
			 : kernel_run(recs, i, n, lo, span);
		if (i > start)
			ring_write(&c->ring, recs + start, i - start,
				   seq + start);
		start = i;
		i = user ? kernel_run(recs, i, n, lo, span)
			 : user_run(recs, i, n, lo, span);
		filtered += i - start;
		if (i == n)
			break;
		cls = br_classify(&c->map, &recs[i]);
		if (cls == BR_ENTRY || cls == BR_EXIT) {
			write_pseudo(c, cls, &recs[i], seq + i);
			i++;
		}
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
