/*
 * Unit tests for lib/modes: the user range at its edges, the four
 * classes of a branch, the default map, the entry_kind callback (and
 * what becomes of an answer that is no entry_kind), the names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "lib/modes.h"

static void test_default_map(void **state)
{
	struct mode_map m;

	(void)state;
	memset(&m, 0xa5, sizeof(m));
	mode_map_default(&m);
	assert_int_equal(m.user_lo, 0x0000400000000000ull);
	assert_int_equal(m.user_hi, 0x0000800000000000ull);
	assert_null(m.entry_kind);
	assert_null(m.ctx);
}

/* [lo, hi) is user; everything else, low or high, is kernel. */
static void test_is_user(void **state)
{
	const struct {
		uint64_t addr;
		bool user;
	} cases[] = {
		{ 0, false },
		{ 0x100000, false }, /* the kernel, identity-mapped */
		{ 0x00003fffffffffffull, false }, /* just below */
		{ 0x0000400000000000ull, true },  /* the model's user records */
		{ 0x0000400000000010ull, true },
		{ 0x0000700000000000ull, true },  /* the user code */
		{ 0x00007fffffffffffull, true },  /* last user address */
		{ 0x0000800000000000ull, false }, /* non-canonical hole */
		{ 0xffff800000000000ull, false }, /* the kernel's upper half */
		{ 0xffffffff81000000ull, false },
		{ ~0ull, false },
	};
	struct mode_map m;
	size_t i;

	(void)state;
	mode_map_default(&m);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(mode_is_user(&m, cases[i].addr),
				 cases[i].user);
}

static void test_classify(void **state)
{
	const uint64_t u = 0x0000700000001000ull, k = 0xffff800000200000ull;
	struct mode_map m;
	struct bts_record r;

	(void)state;
	mode_map_default(&m);
	r = (struct bts_record){ u, u + 4, 0 };
	assert_int_equal(br_classify(&m, &r), BR_USER);
	r = (struct bts_record){ k, 0x100000, 0 };
	assert_int_equal(br_classify(&m, &r), BR_KERNEL);
	r = (struct bts_record){ u, k, 0 };
	assert_int_equal(br_classify(&m, &r), BR_ENTRY);
	r = (struct bts_record){ k, u, 0 };
	assert_int_equal(br_classify(&m, &r), BR_EXIT);
	/* The edges of a small custom range. */
	m.user_lo = 0x1000;
	m.user_hi = 0x2000;
	r = (struct bts_record){ 0x1000, 0x1fff, 0 };
	assert_int_equal(br_classify(&m, &r), BR_USER);
	r = (struct bts_record){ 0x0fff, 0x2000, 0 };
	assert_int_equal(br_classify(&m, &r), BR_KERNEL);
	r = (struct bts_record){ 0x1fff, 0x2000, 0 };
	assert_int_equal(br_classify(&m, &r), BR_ENTRY);
	r = (struct bts_record){ 0x0fff, 0x1000, 0 };
	assert_int_equal(br_classify(&m, &r), BR_EXIT);
	/* An empty range: everything is kernel. */
	m.user_lo = m.user_hi = 0x1000;
	r = (struct bts_record){ 0x1000, 0x1000, 0 };
	assert_int_equal(br_classify(&m, &r), BR_KERNEL);
}

struct kind_ctx {
	unsigned int calls;
	uint64_t last;
	int answer;
};

static enum entry_kind kind_cb(void *ctx, uint64_t addr)
{
	struct kind_ctx *k = ctx;

	k->calls++;
	k->last = addr;
	return (enum entry_kind)k->answer;
}

/* The callback is asked with the address and its ctx; NULL: unknown. */
static void test_entry_kind(void **state)
{
	struct kind_ctx k = { 0, 0, ENTRY_SYSCALL };
	struct mode_map m;
	int a;

	(void)state;
	mode_map_default(&m);
	assert_int_equal(mode_entry_kind(&m, 0xffff800000001000ull),
			 ENTRY_UNKNOWN);
	m.entry_kind = kind_cb;
	m.ctx = &k;
	assert_int_equal(mode_entry_kind(&m, 0xffff800000001000ull),
			 ENTRY_SYSCALL);
	assert_int_equal(k.calls, 1);
	assert_int_equal(k.last, 0xffff800000001000ull);
	for (a = ENTRY_UNKNOWN; a < ENTRY_NKINDS; a++) {
		k.answer = a;
		assert_int_equal(mode_entry_kind(&m, 0x100000 + a), a);
		assert_int_equal(k.last, 0x100000 + a);
	}
	/* An answer that is no entry_kind is unknown. */
	k.answer = ENTRY_NKINDS;
	assert_int_equal(mode_entry_kind(&m, 1), ENTRY_UNKNOWN);
	k.answer = -1;
	assert_int_equal(mode_entry_kind(&m, 1), ENTRY_UNKNOWN);
	k.answer = 255;
	assert_int_equal(mode_entry_kind(&m, 1), ENTRY_UNKNOWN);
	assert_int_equal(k.calls, 1 + ENTRY_NKINDS + 3);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(entry_kind_name(ENTRY_UNKNOWN), "unknown");
	assert_string_equal(entry_kind_name(ENTRY_SYSCALL), "syscall");
	assert_string_equal(entry_kind_name(ENTRY_EXCEPTION), "exception");
	assert_string_equal(entry_kind_name(ENTRY_INTERRUPT), "interrupt");
	assert_string_equal(entry_kind_name(ENTRY_NKINDS), "?");
	assert_string_equal(entry_kind_name((enum entry_kind) - 1), "?");
	assert_string_equal(br_class_name(BR_USER), "user");
	assert_string_equal(br_class_name(BR_KERNEL), "kernel");
	assert_string_equal(br_class_name(BR_ENTRY), "entry");
	assert_string_equal(br_class_name(BR_EXIT), "exit");
	assert_string_equal(br_class_name(BR_NCLASSES), "?");
	/* Stable numbers: they are in pseudo-records. */
	assert_int_equal(ENTRY_UNKNOWN, 0);
	assert_int_equal(ENTRY_SYSCALL, 1);
	assert_int_equal(ENTRY_EXCEPTION, 2);
	assert_int_equal(ENTRY_INTERRUPT, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_map),
		cmocka_unit_test(test_is_user),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_entry_kind),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("modes", tests, NULL, NULL);
}
