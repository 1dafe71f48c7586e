/*
 * The noloss ring: perf-style head/tail over a byte ring.
 *
 * The writer never overwrites unread data. When a batch does not fit, the
 * records that do not fit are dropped and counted (cause ring_full); the
 * next write that has room for a lost marker and at least one record
 * emits the marker first, with the count, so a reader sees exactly where
 * the gap is and how big it was. As in perf, the marker is not written
 * alone: a ring that stays full keeps one pending count.
 */
#include "lib/ring.h"

/*
 * Store n records: src (encoded here), or one record already encoded at
 * enc (a pseudo-record, n == 1).
 */
static size_t noloss_store(struct ring *r, const struct bts_record *src,
			   const void *enc, size_t n, uint64_t seq)
{
	struct ring_bytes *b = &r->b;
	uint64_t tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
	uint64_t head = b->head;
	size_t space = b->bytes - (size_t)(head - tail);
	size_t k;

	if (!n)
		return 0;
	if (b->pending) {
		uint8_t tmp[REC_MAX_SIZE];

		if (space < 2 * r->rec) {
			b->pending += n;
			bts_count_lost(r->acct, BTS_LOSS_RING_FULL, n);
			return 0;
		}
		r->fmt->encode_lost(tmp, b->pending, BTS_LOSS_RING_FULL, seq,
				    r->cpu);
		ring_bytes_copy_in(r, head, tmp, r->rec);
		head += r->rec;
		space -= r->rec;
		b->pending = 0;
	}
	k = space / r->rec;
	if (k > n)
		k = n;
	if (enc && k)
		ring_bytes_copy_in(r, head, enc, r->rec);
	else
		ring_bytes_put(r, head, src, k, seq);
	__atomic_store_n(&b->head, head + k * r->rec, __ATOMIC_RELEASE);
	bts_count(&r->acct->delivered, k);
	if (k < n) {
		b->pending += n - k;
		bts_count_lost(r->acct, BTS_LOSS_RING_FULL, n - k);
	}
	return k;
}

static size_t noloss_write(struct ring *r, const struct bts_record *src,
			   size_t n, uint64_t seq)
{
	return noloss_store(r, src, NULL, n, seq);
}

static size_t noloss_write_encoded(struct ring *r, const void *rec,
				   uint64_t seq)
{
	return noloss_store(r, NULL, rec, 1, seq);
}

static void noloss_flush(struct ring *r)
{
	(void)r; /* every write is published at once */
}

static size_t noloss_read(struct ring *r, void *dst, size_t max)
{
	struct ring_bytes *b = &r->b;
	uint64_t head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	uint64_t tail = b->tail;
	size_t k = (size_t)(head - tail) / r->rec;

	if (k > max)
		k = max;
	ring_bytes_get(r, tail, dst, k * r->rec);
	__atomic_store_n(&b->tail, tail + k * r->rec, __ATOMIC_RELEASE);
	return k;
}

const struct ring_ops ring_noloss_ops = {
	.mode = RING_NOLOSS,
	.name = "noloss",
	.write = noloss_write,
	.write_encoded = noloss_write_encoded,
	.flush = noloss_flush,
	.read = noloss_read,
};
