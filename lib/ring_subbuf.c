/*
 * The sub-buffer ring, LTTng style: the writer fills fixed-size packets
 * and the reader takes whole packets by exchanging its spare sub-buffer
 * into the ring's table, without copying a record.
 *
 * Synchronisation is per packet, not per record: the writer publishes the
 * count of committed packets once per packet (release), the reader the
 * count of taken packets once per exchange. Packet k lives in slot
 * k % n. The writer owns slot committed % n while committed - taken < n;
 * the reader owns slot taken % n while taken < committed. When the
 * writer has no packet to open (all n committed, none taken), records
 * are discarded and counted, and the count goes into the header of the
 * next packet that is committed.
 */
#include "lib/ring.h"
#include "lib/string.h"

static uint8_t *open_packet(struct ring *r)
{
	struct ring_subbufs *s = &r->s;
	uint64_t taken = __atomic_load_n(&s->taken, __ATOMIC_ACQUIRE);

	if (s->committed - taken >= s->n)
		return NULL;
	return s->slot[s->committed % s->n];
}

static void commit_packet(struct ring *r, uint8_t *p)
{
	struct ring_subbufs *s = &r->s;
	struct ring_packet h = {
		.seq = s->committed,
		.discarded = s->discarded,
		.nrec = s->used,
		.rec_size = (uint16_t)r->rec,
		.format = (uint16_t)r->fmt->id,
	};

	memcpy(p, &h, sizeof(h));
	s->used = 0;
	s->discarded = 0;
	__atomic_store_n(&s->committed, s->committed + 1, __ATOMIC_RELEASE);
}

/* Store n records: src, or one already encoded at enc (n == 1). */
static size_t subbuf_store(struct ring *r, const struct bts_record *src,
			   const void *enc, size_t n, uint64_t seq)
{
	struct ring_subbufs *s = &r->s;
	size_t done = 0;

	while (done < n) {
		uint8_t *p = open_packet(r), *dst;
		size_t k = s->per_packet - s->used;

		if (!p)
			break;
		if (k > n - done)
			k = n - done;
		dst = p + sizeof(struct ring_packet) + s->used * r->rec;
		if (enc)
			memcpy(dst, enc, r->rec);
		else
			r->fmt->encode(dst, src + done, k, seq + done, r->cpu);
		s->used += k;
		done += k;
		if (s->used == s->per_packet)
			commit_packet(r, p);
	}
	bts_count(&r->acct->delivered, done);
	if (done < n) {
		s->discarded += n - done;
		bts_count_lost(r->acct, BTS_LOSS_RING_FULL, n - done);
	}
	return done;
}

static size_t subbuf_write(struct ring *r, const struct bts_record *src,
			   size_t n, uint64_t seq)
{
	return subbuf_store(r, src, NULL, n, seq);
}

static size_t subbuf_write_encoded(struct ring *r, const void *rec,
				   uint64_t seq)
{
	return subbuf_store(r, NULL, rec, 1, seq);
}

/* Close the open packet if it holds records or a discard count. */
static void subbuf_flush(struct ring *r)
{
	struct ring_subbufs *s = &r->s;
	uint8_t *p;

	if (!s->used && !s->discarded)
		return;
	p = open_packet(r);
	if (p)
		commit_packet(r, p);
}

const struct ring_packet *ring_subbuf_get(struct ring *r)
{
	struct ring_subbufs *s = &r->s;
	uint64_t committed = __atomic_load_n(&s->committed, __ATOMIC_ACQUIRE);
	uint64_t taken = s->taken;
	uint8_t *p;

	if (taken == committed || !s->spare)
		return NULL;
	p = s->slot[taken % s->n];
	s->slot[taken % s->n] = s->spare;
	s->spare = NULL;
	__atomic_store_n(&s->taken, taken + 1, __ATOMIC_RELEASE);
	return (const struct ring_packet *)p;
}

void ring_subbuf_put(struct ring *r, const struct ring_packet *p)
{
	r->s.spare = (uint8_t *)p;
}

/* Copying reader on top of get/put, for tests and the kernel's checks. */
static size_t subbuf_read(struct ring *r, void *dst, size_t max)
{
	struct ring_subbufs *s = &r->s;
	size_t done = 0;

	while (done < max) {
		const struct ring_packet *h;
		size_t k;

		if (!s->held) {
			h = ring_subbuf_get(r);
			if (!h)
				break;
			s->held = (uint8_t *)h;
			s->held_off = 0;
		}
		h = (const struct ring_packet *)s->held;
		k = h->nrec - s->held_off;
		if (k > max - done)
			k = max - done;
		memcpy((uint8_t *)dst + done * r->rec,
		       s->held + sizeof(*h) + s->held_off * r->rec, k * r->rec);
		done += k;
		s->held_off += k;
		if (s->held_off == h->nrec) {
			ring_subbuf_put(r, h);
			s->held = NULL;
		}
	}
	return done;
}

const struct ring_ops ring_subbuf_ops = {
	.mode = RING_SUBBUF,
	.name = "subbuf",
	.write = subbuf_write,
	.write_encoded = subbuf_write_encoded,
	.flush = subbuf_flush,
	.read = subbuf_read,
};
