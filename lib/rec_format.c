/*
 * Encoders and decoders of the three record formats (see rec_format.h).
 *
 * Encoders are the per-record cost of a drain, so they are plain loops
 * over whole batches: raw is one memcpy, the others build each record in
 * registers and store it with one memcpy of a constant size, which the
 * compiler turns into unaligned stores (ring records may straddle nothing
 * but need not be aligned).
 */
#include "lib/rec_format.h"
#include "lib/string.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "fixed and compat32 are defined little-endian");

static void raw_encode(void *dst, const struct bts_record *src, size_t n,
		       uint64_t seq, uint16_t cpu)
{
	(void)seq;
	(void)cpu;
	memcpy(dst, src, n * sizeof(*src));
}

static void raw_encode_lost(void *dst, uint64_t count,
			    enum bts_loss_cause cause, uint64_t seq,
			    uint16_t cpu)
{
	struct bts_record r = {
		.from = 0,
		.to = count,
		.flags = REC_RAW_LOST | (uint64_t)cause << REC_CAUSE_SHIFT,
	};

	(void)seq;
	(void)cpu;
	memcpy(dst, &r, sizeof(r));
}

static void raw_encode_mode(void *dst, enum rec_type type, enum entry_kind kind,
			    uint64_t from, uint64_t to, uint64_t seq,
			    uint16_t cpu)
{
	struct bts_record r = {
		.from = from,
		.to = to,
		.flags = REC_RAW_MODE |
			 ((uint64_t)type & REC_TYPE_MASK) << REC_TYPE_SHIFT |
			 ((uint64_t)kind & REC_KIND_MASK) << REC_KIND_SHIFT,
	};

	(void)seq;
	(void)cpu;
	memcpy(dst, &r, sizeof(r));
}

static bool is_mode_type(uint64_t type)
{
	return type == REC_KERNEL_ENTER || type == REC_KERNEL_EXIT;
}

/*
 * The type and kind of a raw or compat32 pseudo-record from its flags
 * word, of which only the bits in allowed may be set.
 */
static bool mode_from_flags(uint64_t flags, uint64_t allowed,
			    struct rec_event *ev)
{
	uint64_t type = (flags >> REC_TYPE_SHIFT) & REC_TYPE_MASK;
	uint64_t kind = (flags >> REC_KIND_SHIFT) & REC_KIND_MASK;

	allowed |= REC_TYPE_MASK << REC_TYPE_SHIFT | REC_KIND_MASK
							     << REC_KIND_SHIFT;
	ev->type = (enum rec_type)type;
	ev->kind = (enum entry_kind)kind;
	return is_mode_type(type) && kind < ENTRY_NKINDS && !(flags & ~allowed);
}

static bool raw_decode(const void *src, struct rec_event *ev)
{
	struct bts_record r;

	memcpy(&r, src, sizeof(r));
	*ev = (struct rec_event){ .type = REC_BRANCH };
	if (r.flags & REC_RAW_LOST) {
		ev->type = REC_LOST;
		ev->lost = r.to;
		ev->cause = (r.flags >> REC_CAUSE_SHIFT) & REC_CAUSE_MASK;
		return r.from == 0 && ev->cause < BTS_LOSS_NR &&
		       !(r.flags & REC_RAW_MODE);
	}
	if (r.flags & REC_RAW_MODE) {
		ev->from = r.from;
		ev->to = r.to;
		return mode_from_flags(r.flags, REC_RAW_MODE, ev);
	}
	ev->from = r.from;
	ev->to = r.to;
	ev->predicted = r.flags & BTS_FLAG_PREDICTED;
	return true;
}

/*
 * Stores are whole 64-bit words built in registers: filling a struct
 * field by field and copying it out would make every record wait on a
 * failed store-to-load forward (several times the cost of the stores).
 */
static inline void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint64_t fixed_header(uint8_t type, uint16_t cpu, uint32_t flags)
{
	return type | (uint64_t)REC_FIXED_VERSION << 8 | (uint64_t)cpu << 16 |
	       (uint64_t)flags << 32;
}

static void fixed_encode(void *dst, const struct bts_record *src, size_t n,
			 uint64_t seq, uint16_t cpu)
{
	uint64_t hdr = fixed_header(REC_BRANCH, cpu, 0);
	uint8_t *out = dst;
	size_t i;

	_Static_assert(BTS_FLAG_PREDICTED >> 4 == REC_F_PREDICTED,
		       "predicted: hardware bit 4, fixed bit 0");
	for (i = 0; i < n; i++, out += sizeof(struct rec_fixed)) {
		uint64_t pred = (src[i].flags & BTS_FLAG_PREDICTED) >> 4;

		put64(out, hdr | pred << 32);
		put64(out + 8, seq + i);
		put64(out + 16, src[i].from);
		put64(out + 24, src[i].to);
	}
}

static void fixed_encode_lost(void *dst, uint64_t count,
			      enum bts_loss_cause cause, uint64_t seq,
			      uint16_t cpu)
{
	uint8_t *out = dst;

	put64(out, fixed_header(REC_LOST, cpu, 0));
	put64(out + 8, seq);
	put64(out + 16, count);
	put64(out + 24, cause);
}

static void fixed_encode_mode(void *dst, enum rec_type type,
			      enum entry_kind kind, uint64_t from, uint64_t to,
			      uint64_t seq, uint16_t cpu)
{
	uint8_t *out = dst;
	uint32_t flags = ((uint32_t)kind << REC_F_KIND_SHIFT) & REC_F_KIND_MASK;

	put64(out, fixed_header((uint8_t)type, cpu, flags));
	put64(out + 8, seq);
	put64(out + 16, from);
	put64(out + 24, to);
}

static bool fixed_decode(const void *src, struct rec_event *ev)
{
	struct rec_fixed f;

	memcpy(&f, src, sizeof(f));
	*ev = (struct rec_event){
		.type = f.type,
		.cpu = f.cpu,
		.seq = f.seq,
	};
	if (f.version != REC_FIXED_VERSION)
		return false;
	if (is_mode_type(f.type)) {
		ev->from = f.from;
		ev->to = f.to;
		ev->kind = (enum entry_kind)(f.flags >> REC_F_KIND_SHIFT);
		return !(f.flags & ~REC_F_KIND_MASK) && ev->kind < ENTRY_NKINDS;
	}
	if (f.flags & ~REC_F_PREDICTED)
		return false;
	if (f.type == REC_LOST) {
		ev->lost = f.from;
		ev->cause = f.to;
		return f.flags == 0 && f.to < BTS_LOSS_NR;
	}
	ev->from = f.from;
	ev->to = f.to;
	ev->predicted = f.flags & REC_F_PREDICTED;
	return f.type == REC_BRANCH;
}

static void c32_encode(void *dst, const struct bts_record *src, size_t n,
		       uint64_t seq, uint16_t cpu)
{
	uint8_t *out = dst;
	size_t i;

	(void)seq;
	(void)cpu;
	for (i = 0; i < n; i++, out += sizeof(struct rec_compat32)) {
		uint64_t from = src[i].from, to = src[i].to;
		uint32_t wide = ((from | to) >> 32) != 0;

		put64(out, (uint32_t)from | to << 32);
		put32(out + 8, (uint32_t)(src[i].flags & BTS_FLAG_PREDICTED) |
				       wide << 30);
	}
}

static void c32_encode_lost(void *dst, uint64_t count,
			    enum bts_loss_cause cause, uint64_t seq,
			    uint16_t cpu)
{
	struct rec_compat32 c = {
		.from = 0,
		.to = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count,
		.flags = REC_C32_LOST | (uint32_t)cause << REC_CAUSE_SHIFT,
	};

	(void)seq;
	(void)cpu;
	memcpy(dst, &c, sizeof(c));
}

static void c32_encode_mode(void *dst, enum rec_type type, enum entry_kind kind,
			    uint64_t from, uint64_t to, uint64_t seq,
			    uint16_t cpu)
{
	struct rec_compat32 c = {
		.from = (uint32_t)from,
		.to = (uint32_t)to,
		.flags = REC_C32_MODE |
			 (uint32_t)((type & REC_TYPE_MASK) << REC_TYPE_SHIFT) |
			 (uint32_t)((kind & REC_KIND_MASK) << REC_KIND_SHIFT) |
			 (((from | to) >> 32) ? REC_C32_TRUNC : 0),
	};

	(void)seq;
	(void)cpu;
	memcpy(dst, &c, sizeof(c));
}

static bool c32_decode(const void *src, struct rec_event *ev)
{
	const uint32_t known = REC_C32_TRUNC | (uint32_t)BTS_FLAG_PREDICTED;
	struct rec_compat32 c;

	memcpy(&c, src, sizeof(c));
	*ev = (struct rec_event){ .type = REC_BRANCH };
	if (c.flags & REC_C32_LOST) {
		ev->type = REC_LOST;
		ev->lost = c.to;
		ev->cause = (c.flags >> REC_CAUSE_SHIFT) & REC_CAUSE_MASK;
		return c.from == 0 && ev->cause < BTS_LOSS_NR &&
		       !(c.flags & REC_C32_MODE);
	}
	if (c.flags & REC_C32_MODE) {
		ev->from = c.from;
		ev->to = c.to;
		ev->truncated = c.flags & REC_C32_TRUNC;
		return mode_from_flags(c.flags, REC_C32_MODE | REC_C32_TRUNC,
				       ev);
	}
	ev->from = c.from;
	ev->to = c.to;
	ev->predicted = c.flags & BTS_FLAG_PREDICTED;
	ev->truncated = c.flags & REC_C32_TRUNC;
	return (c.flags & ~known) == 0;
}

const struct rec_format rec_formats[REC_NFORMATS] = {
	[REC_RAW] = { REC_RAW, "raw", sizeof(struct bts_record), raw_encode,
		      raw_encode_lost, raw_encode_mode, raw_decode },
	[REC_FIXED] = { REC_FIXED, "fixed", sizeof(struct rec_fixed),
			fixed_encode, fixed_encode_lost, fixed_encode_mode,
			fixed_decode },
	[REC_COMPAT32] = { REC_COMPAT32, "compat32",
			   sizeof(struct rec_compat32), c32_encode,
			   c32_encode_lost, c32_encode_mode, c32_decode },
};

const struct rec_format *rec_format_get(enum rec_format_id id)
{
	if ((unsigned int)id >= REC_NFORMATS)
		return NULL;
	return &rec_formats[id];
}

const struct rec_format *rec_format_by_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < REC_NFORMATS; i++)
		if (strcmp(rec_formats[i].name, name) == 0)
			return &rec_formats[i];
	return NULL;
}
