/*
 * Unit tests for lib/rec_format: every format's encoding round-trips
 * through its decoder, lost markers carry count and cause, the byte layout
 * is the documented one (a consumer in another language relies on it), and
 * a decoder rejects what its encoder never writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/rec_format.h"

static const struct bts_record samples[] = {
	{ 0x1000, 0x2000, 0 },
	{ 0xffffffff81000000ull, 0x401000, BTS_FLAG_PREDICTED },
	{ 0, 0, 0 },
	{ 0xffffffffull, 0xfffffffeull, BTS_FLAG_PREDICTED },
	{ 0x100000000ull, 0x10, 0 },
};

#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

/* Encode a batch at an odd offset and decode every record back. */
static void test_roundtrip(void **state)
{
	uint8_t buf[NSAMPLES * REC_MAX_SIZE + 1];
	int id;

	(void)state;
	for (id = 0; id < REC_NFORMATS; id++) {
		const struct rec_format *f = rec_format_get(id);
		size_t i;

		f->encode(buf + 1, samples, NSAMPLES, 1000, 7);
		for (i = 0; i < NSAMPLES; i++) {
			const struct bts_record *s = &samples[i];
			bool wide = (s->from | s->to) >> 32;
			struct rec_event ev;

			assert_true(f->decode(buf + 1 + i * f->size, &ev));
			assert_int_equal(ev.type, REC_BRANCH);
			assert_int_equal(ev.predicted,
					 !!(s->flags & BTS_FLAG_PREDICTED));
			if (id == REC_COMPAT32) {
				assert_int_equal(ev.from, (uint32_t)s->from);
				assert_int_equal(ev.to, (uint32_t)s->to);
				assert_int_equal(ev.truncated, wide);
			} else {
				assert_int_equal(ev.from, s->from);
				assert_int_equal(ev.to, s->to);
				assert_false(ev.truncated);
			}
			if (id == REC_FIXED) {
				assert_int_equal(ev.seq, 1000 + i);
				assert_int_equal(ev.cpu, 7);
			}
		}
	}
}

/* A lost marker decodes to its count and cause in every format. */
static void test_lost(void **state)
{
	uint8_t buf[REC_MAX_SIZE];
	int id, c;

	(void)state;
	for (id = 0; id < REC_NFORMATS; id++) {
		const struct rec_format *f = rec_format_get(id);

		for (c = 0; c < BTS_LOSS_NR; c++) {
			struct rec_event ev;

			f->encode_lost(buf, 12345 + c, c, 99, 3);
			assert_true(f->decode(buf, &ev));
			assert_int_equal(ev.type, REC_LOST);
			assert_int_equal(ev.lost, 12345 + c);
			assert_int_equal(ev.cause, c);
			if (id == REC_FIXED)
				assert_int_equal(ev.seq, 99);
		}
	}
}

/* compat32 saturates a count that does not fit in 32 bits. */
static void test_compat32_saturates(void **state)
{
	const struct rec_format *f = rec_format_get(REC_COMPAT32);
	uint8_t buf[12];
	struct rec_event ev;

	(void)state;
	f->encode_lost(buf, 1ull << 40, BTS_LOSS_RING_FULL, 0, 0);
	assert_true(f->decode(buf, &ev));
	assert_int_equal(ev.lost, UINT32_MAX);
}

/* The byte layouts are the documented ones. */
static void test_layout(void **state)
{
	const struct bts_record r = { 0x1122334455667788ull, 0x99, 0x10 };
	const uint8_t fixed[32] = {
		REC_BRANCH, REC_FIXED_VERSION,
		0x34,	    0x12,
		1,	    0,
		0,	    0,
		5,	    0,
		0,	    0,
		0,	    0,
		0,	    0,
		0x88,	    0x77,
		0x66,	    0x55,
		0x44,	    0x33,
		0x22,	    0x11,
		0x99,	    0,
		0,	    0,
		0,	    0,
		0,	    0,
	};
	const uint8_t c32[12] = {
		0x88, 0x77, 0x66, 0x55, 0x99, 0, 0, 0, 0x10, 0, 0, 0x40,
	};
	const uint8_t raw_lost[24] = {
		0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0,
		0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80,
	};
	uint8_t buf[32];

	(void)state;
	rec_formats[REC_RAW].encode(buf, &r, 1, 0, 0);
	assert_memory_equal(buf, &r, 24);
	rec_formats[REC_FIXED].encode(buf, &r, 1, 5, 0x1234);
	assert_memory_equal(buf, fixed, 32);
	rec_formats[REC_COMPAT32].encode(buf, &r, 1, 0, 0);
	assert_memory_equal(buf, c32, 12);
	rec_formats[REC_RAW].encode_lost(buf, 4, BTS_LOSS_RING_FULL, 0, 0);
	assert_memory_equal(buf, raw_lost, 24);
}

/* Decoders reject bytes their encoder never writes. */
static void test_reject(void **state)
{
	struct rec_fixed f = { REC_BRANCH, REC_FIXED_VERSION, 0, 0, 0, 0, 0 };
	struct rec_compat32 c = { 0, 0, 1u << 5 };
	struct bts_record r = { 1, 2, REC_RAW_LOST };
	struct rec_event ev;

	(void)state;
	assert_true(rec_formats[REC_FIXED].decode(&f, &ev));
	f.version = 0;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	f.version = REC_FIXED_VERSION;
	f.type = 5;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	f.type = 0;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	f.type = REC_LOST;
	f.to = BTS_LOSS_NR;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	f.type = REC_BRANCH;
	f.flags = 2;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));
}

/*
 * Mode pseudo-records round-trip in every format: type, kind, both
 * addresses (compat32: their low halves, and whether high bits were
 * lost), sequence and CPU where the format has them.
 */
static void test_mode_roundtrip(void **state)
{
	static const uint64_t ends[][2] = {
		{ 0x0000700000000040ull, 0 },	  /* user side of an entry */
		{ 0, 0xffff800000001000ull },	  /* kernel side of it */
		{ 0, 0x0000400000000010ull },	  /* user side of an exit */
		{ 0xffffffff81000000ull, 0 },	  /* kernel side of it */
		{ 0x1000, 0 },			  /* fits in 32 bits */
		{ 0, 0xfffffffful },		  /* just fits */
		{ 0x100000000ull, 0x10 },	  /* just does not */
		{ 0x123456789abcdef0ull, ~0ull }, /* anything */
	};
	static const enum rec_type types[] = { REC_KERNEL_ENTER,
					       REC_KERNEL_EXIT };
	uint8_t buf[REC_MAX_SIZE + 3];
	int id, t, k;
	size_t e;

	(void)state;
	for (id = 0; id < REC_NFORMATS; id++)
		for (t = 0; t < 2; t++)
			for (k = 0; k < ENTRY_NKINDS; k++)
				for (e = 0; e < sizeof(ends) / sizeof(ends[0]);
				     e++) {
					const struct rec_format *f =
						rec_format_get(id);
					uint64_t from = ends[e][0],
						 to = ends[e][1];
					bool wide = (from | to) >> 32;
					struct rec_event ev;

					memset(buf, 0xee, sizeof(buf));
					f->encode_mode(buf + 3, types[t], k,
						       from, to, 77 + e, 9);
					assert_int_equal(buf[2], 0xee);
					if (f->size < REC_MAX_SIZE)
						assert_int_equal(
							buf[3 + f->size], 0xee);
					assert_true(f->decode(buf + 3, &ev));
					assert_int_equal(ev.type, types[t]);
					assert_int_equal(ev.kind, k);
					assert_false(ev.predicted);
					assert_int_equal(ev.lost, 0);
					if (id == REC_COMPAT32) {
						assert_int_equal(
							ev.from,
							(uint32_t)from);
						assert_int_equal(ev.to,
								 (uint32_t)to);
						assert_int_equal(ev.truncated,
								 wide);
					} else {
						assert_int_equal(ev.from, from);
						assert_int_equal(ev.to, to);
						assert_false(ev.truncated);
					}
					if (id == REC_FIXED) {
						assert_int_equal(ev.seq,
								 77 + e);
						assert_int_equal(ev.cpu, 9);
					}
				}
}

/* The documented byte layouts of the pseudo-records. */
static void test_mode_layout(void **state)
{
	const uint8_t raw[24] = {
		0x40, 0, 0,    0, 0,
		0x70, 0, 0, /* from */
		0,    0, 0,    0, 0,
		0,    0, 0, /* to */
		0,    3, 3,    0, 0,
		0,    0, 0x40, /* kind 3 << 8, type 3 << 16,
						    bit 62 */
	};
	const uint8_t fixed[32] = {
		REC_KERNEL_EXIT,
		REC_FIXED_VERSION,
		0x34,
		0x12, /* cpu */
		0,
		2,
		0,
		0, /* flags: kind 2 << 8 */
		5,
		0,
		0,
		0,
		0,
		0,
		0,
		0, /* seq */
		0x00,
		0x10,
		0x00,
		0x81,
		0xff,
		0xff,
		0xff,
		0xff, /* from */
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0, /* to */
	};
	const uint8_t c32[12] = {
		0x00, 0x10, 0,
		0, /* from */
		0,    0,    0,
		0, /* to */
		0,    1,    3,
		0x60, /* kind 1 << 8, type 3 << 16,
					   bit 29, bit 30 (truncated) */
	};
	const uint8_t c32_short[12] = {
		0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0, 0, 4, 0x20,
	};
	uint8_t buf[32];

	(void)state;
	rec_formats[REC_RAW].encode_mode(buf, REC_KERNEL_ENTER, ENTRY_INTERRUPT,
					 0x0000700000000040ull, 0, 1, 2);
	assert_memory_equal(buf, raw, 24);
	rec_formats[REC_FIXED].encode_mode(buf, REC_KERNEL_EXIT,
					   ENTRY_EXCEPTION,
					   0xffffffff81001000ull, 0, 5, 0x1234);
	assert_memory_equal(buf, fixed, 32);
	rec_formats[REC_COMPAT32].encode_mode(buf, REC_KERNEL_ENTER,
					      ENTRY_SYSCALL,
					      0xffff800000001000ull, 0, 0, 0);
	assert_memory_equal(buf, c32, 12);
	rec_formats[REC_COMPAT32].encode_mode(
		buf, REC_KERNEL_EXIT, ENTRY_UNKNOWN, 0, 0x11223344, 0, 0);
	assert_memory_equal(buf, c32_short, 12);
}

/* Decoders reject pseudo-records their encoder never writes. */
static void test_mode_reject(void **state)
{
	const uint64_t type3 = (uint64_t)REC_KERNEL_ENTER << REC_TYPE_SHIFT;
	struct bts_record r = { 1, 2, REC_RAW_MODE | type3 };
	struct rec_fixed f = {
		REC_KERNEL_ENTER, REC_FIXED_VERSION, 0, 0, 0, 0, 0
	};
	struct rec_compat32 c = { 1, 2, REC_C32_MODE | (uint32_t)type3 };
	struct rec_event ev;

	(void)state;
	assert_true(rec_formats[REC_RAW].decode(&r, &ev));
	r.flags = REC_RAW_MODE | (uint64_t)REC_BRANCH << REC_TYPE_SHIFT;
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));
	r.flags = REC_RAW_MODE | (uint64_t)5 << REC_TYPE_SHIFT;
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));
	r.flags = REC_RAW_MODE | type3 | (uint64_t)ENTRY_NKINDS << 8;
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));
	r.flags = REC_RAW_MODE | type3 | BTS_FLAG_PREDICTED;
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));
	r.flags = REC_RAW_MODE | type3 | REC_RAW_LOST;
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));
	r.flags = REC_RAW_MODE | type3 | 1ull << 40;
	assert_false(rec_formats[REC_RAW].decode(&r, &ev));

	assert_true(rec_formats[REC_FIXED].decode(&f, &ev));
	f.type = REC_KERNEL_EXIT;
	f.flags = (ENTRY_NKINDS - 1) << REC_F_KIND_SHIFT;
	assert_true(rec_formats[REC_FIXED].decode(&f, &ev));
	assert_int_equal(ev.kind, ENTRY_NKINDS - 1);
	f.flags = ENTRY_NKINDS << REC_F_KIND_SHIFT;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	f.flags = REC_F_PREDICTED;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	f.flags = 1u << 16;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));
	/* A branch record may not carry a kind. */
	f.type = REC_BRANCH;
	f.flags = 1u << REC_F_KIND_SHIFT;
	assert_false(rec_formats[REC_FIXED].decode(&f, &ev));

	assert_true(rec_formats[REC_COMPAT32].decode(&c, &ev));
	c.flags = REC_C32_MODE | 4u << REC_TYPE_SHIFT | 9u << REC_KIND_SHIFT;
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
	c.flags = REC_C32_MODE | 6u << REC_TYPE_SHIFT;
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
	c.flags = REC_C32_MODE | (uint32_t)type3 | (uint32_t)BTS_FLAG_PREDICTED;
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
	c.flags = REC_C32_MODE | (uint32_t)type3 | REC_C32_LOST;
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
	c.flags = REC_C32_MODE | (uint32_t)type3 | 1u << 25;
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
	/* Without the mode bit a type is no branch flag. */
	c.flags = (uint32_t)type3;
	assert_false(rec_formats[REC_COMPAT32].decode(&c, &ev));
}

/* Lookup by id and by name, as the kernel command line does. */
static void test_lookup(void **state)
{
	(void)state;
	assert_ptr_equal(rec_format_by_name("raw"), &rec_formats[REC_RAW]);
	assert_ptr_equal(rec_format_by_name("fixed"), &rec_formats[REC_FIXED]);
	assert_ptr_equal(rec_format_by_name("compat32"),
			 &rec_formats[REC_COMPAT32]);
	assert_null(rec_format_by_name("raw2"));
	assert_null(rec_format_by_name(NULL));
	assert_null(rec_format_get(REC_NFORMATS));
	assert_int_equal(rec_format_get(REC_RAW)->size, 24);
	assert_int_equal(rec_format_get(REC_FIXED)->size, 32);
	assert_int_equal(rec_format_get(REC_COMPAT32)->size, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_compat32_saturates),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_mode_roundtrip),
		cmocka_unit_test(test_mode_layout),
		cmocka_unit_test(test_mode_reject),
		cmocka_unit_test(test_lookup),
	};

	return cmocka_run_group_tests_name("rec_format", tests, NULL, NULL);
}
