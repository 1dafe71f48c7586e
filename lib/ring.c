/*
 * What the three ring modes share: set-up from a ring_cfg, and encoding
 * into / copying out of a byte ring where a record may straddle the end.
 * The modes themselves are in ring_noloss.c, ring_overwrite.c and
 * ring_subbuf.c; see ring.h for the protocol.
 */
#include "lib/ring.h"
#include "lib/string.h"

static const struct ring_ops *const ring_modes[RING_NMODES] = {
	[RING_NOLOSS] = &ring_noloss_ops,
	[RING_OVERWRITE] = &ring_overwrite_ops,
	[RING_SUBBUF] = &ring_subbuf_ops,
};

const char *ring_mode_name(enum ring_mode mode)
{
	if ((unsigned int)mode >= RING_NMODES)
		return "?";
	return ring_modes[mode]->name;
}

static int init_subbufs(struct ring *r, const struct ring_cfg *cfg)
{
	struct ring_subbufs *s = &r->s;
	size_t total, i;

	if (cfg->subbuf_bytes % 8 ||
	    cfg->subbuf_bytes < sizeof(struct ring_packet) + r->rec)
		return -1;
	total = cfg->bytes / cfg->subbuf_bytes;
	if (total < 2 || total > RING_SUBBUF_MAX)
		return -1;
	s->n = total - 1;
	s->bytes = cfg->subbuf_bytes;
	s->per_packet = (s->bytes - sizeof(struct ring_packet)) / r->rec;
	for (i = 0; i < s->n; i++)
		s->slot[i] = (uint8_t *)cfg->mem + i * s->bytes;
	s->spare = (uint8_t *)cfg->mem + s->n * s->bytes;
	return 0;
}

int ring_init(struct ring *r, const struct ring_cfg *cfg,
	      struct bts_account *acct)
{
	if ((unsigned int)cfg->mode >= RING_NMODES || !cfg->fmt || !cfg->mem ||
	    (uintptr_t)cfg->mem % 8)
		return -1;
	memset(r, 0, sizeof(*r));
	r->ops = ring_modes[cfg->mode];
	r->fmt = cfg->fmt;
	r->acct = acct;
	r->rec = cfg->fmt->size;
	r->cpu = cfg->cpu;
	if (cfg->mode == RING_SUBBUF)
		return init_subbufs(r, cfg);
	r->b.mem = cfg->mem;
	r->b.bytes = cfg->bytes;
	r->b.cap = cfg->bytes;
	if (cfg->mode == RING_OVERWRITE)
		r->b.cap -= cfg->bytes % r->rec;
	if (r->b.cap < (cfg->mode == RING_NOLOSS ? 2 : 1) * r->rec)
		return -1;
	return 0;
}

size_t ring_capacity(const struct ring *r)
{
	if (r->ops->mode == RING_SUBBUF)
		return r->s.n * r->s.per_packet;
	return r->b.cap / r->rec;
}

size_t ring_write_mode(struct ring *r, enum rec_type type, enum entry_kind kind,
		       uint64_t from, uint64_t to, uint64_t seq)
{
	uint8_t tmp[REC_MAX_SIZE];

	r->fmt->encode_mode(tmp, type, kind, from, to, seq, r->cpu);
	return r->ops->write_encoded(r, tmp, seq);
}

/*
 * Encode n records at stream position pos. Whole runs are encoded in
 * place; the one record that straddles the end goes through a bounce
 * buffer.
 */
void ring_bytes_put(struct ring *r, uint64_t pos, const struct bts_record *src,
		    size_t n, uint64_t seq)
{
	const struct rec_format *f = r->fmt;
	size_t off = pos % r->b.bytes;

	while (n) {
		size_t room = r->b.bytes - off;
		size_t k = room / r->rec;

		if (k > n)
			k = n;
		if (k) {
			f->encode(r->b.mem + off, src, k, seq, r->cpu);
			off += k * r->rec;
			src += k;
			seq += k;
			n -= k;
			room -= k * r->rec;
		}
		if (!n)
			break;
		if (room) {
			uint8_t tmp[REC_MAX_SIZE];

			f->encode(tmp, src, 1, seq, r->cpu);
			ring_bytes_copy_in(r, off, tmp, r->rec);
			off = r->rec - room;
			src++;
			seq++;
			n--;
		} else {
			off = 0;
		}
	}
}

void ring_bytes_copy_in(struct ring *r, uint64_t pos, const void *src,
			size_t len)
{
	size_t off = pos % r->b.bytes;
	size_t first = r->b.bytes - off;

	if (first > len)
		first = len;
	memcpy(r->b.mem + off, src, first);
	memcpy(r->b.mem, (const uint8_t *)src + first, len - first);
}

void ring_bytes_get(const struct ring *r, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos % r->b.bytes;
	size_t first = r->b.bytes - off;

	if (first > len)
		first = len;
	memcpy(dst, r->b.mem + off, first);
	memcpy((uint8_t *)dst + first, r->b.mem, len - first);
}
