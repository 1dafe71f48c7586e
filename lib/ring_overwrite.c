/*
 * The overwrite ring: a flight recorder, for a debugger that wants the
 * tail of the execution trace and never polls.
 *
 * The writer owns both head and tail: before a batch would pass the
 * oldest record it moves the tail past just enough whole records and
 * publishes it, so a reader always finds the first whole record at the
 * tail (records all have the ring's one size; the capacity is a whole
 * number of records). Every record pushed out is counted as lost
 * (overwritten) and taken off "delivered", so the consumer's delivered
 * count is what the ring still holds or a reader already had.
 *
 * Reading does not consume: ring_read_newest() copies the newest N and
 * then discards whatever the writer overwrote meanwhile (see ring.h).
 */
#include "lib/ring.h"
#include "lib/string.h"

/* Store n records: src, or one already encoded at enc (n == 1). */
static size_t overwrite_store(struct ring *r, const struct bts_record *src,
			      const void *enc, size_t n, uint64_t seq)
{
	struct ring_bytes *b = &r->b;
	size_t max = b->cap / r->rec;
	size_t skip = n > max ? n - max : 0;
	uint64_t end = b->head + n * r->rec;
	uint64_t over = 0;

	/*
	 * Positions advance by the whole batch, so a record's stream index
	 * is the number of records written before it; a batch longer than
	 * the ring never stores its oldest records.
	 */
	if (end - b->tail > b->cap) {
		uint64_t tail = end - b->cap;

		over = (tail - b->tail) / r->rec;
		__atomic_store_n(&b->tail, tail, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
	}
	if (enc)
		ring_bytes_copy_in(r, b->head, enc, r->rec);
	else
		ring_bytes_put(r, b->head + skip * r->rec, src + skip, n - skip,
			       seq + skip);
	__atomic_store_n(&b->head, end, __ATOMIC_RELEASE);
	bts_count(&r->acct->delivered, n - over);
	bts_count_lost(r->acct, BTS_LOSS_OVERWRITTEN, over);
	return n - skip;
}

static size_t overwrite_write(struct ring *r, const struct bts_record *src,
			      size_t n, uint64_t seq)
{
	return overwrite_store(r, src, NULL, n, seq);
}

static size_t overwrite_write_encoded(struct ring *r, const void *rec,
				      uint64_t seq)
{
	return overwrite_store(r, NULL, rec, 1, seq);
}

static void overwrite_flush(struct ring *r)
{
	(void)r;
}

size_t ring_read_newest(struct ring *r, void *dst, size_t max, uint64_t *first)
{
	struct ring_bytes *b = &r->b;
	uint64_t head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
	size_t k = (size_t)(head - tail) / r->rec;
	uint64_t start;

	if (k > max)
		k = max;
	start = head - k * r->rec;
	ring_bytes_get(r, start, dst, k * r->rec);
	/* Whatever lies below the tail now may have changed under us. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&b->tail, __ATOMIC_RELAXED);
	if (tail > start) {
		size_t bad = tail >= head ? k : (size_t)(tail - start) / r->rec;

		k -= bad;
		memmove(dst, (uint8_t *)dst + bad * r->rec, k * r->rec);
		start += bad * r->rec;
	}
	if (first)
		*first = start / r->rec;
	return k;
}

static size_t overwrite_read(struct ring *r, void *dst, size_t max)
{
	return ring_read_newest(r, dst, max, NULL);
}

const struct ring_ops ring_overwrite_ops = {
	.mode = RING_OVERWRITE,
	.name = "overwrite",
	.write = overwrite_write,
	.write_encoded = overwrite_write_encoded,
	.flush = overwrite_flush,
	.read = overwrite_read,
};
