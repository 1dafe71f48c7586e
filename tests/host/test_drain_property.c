/*
 * The drain-path property test (fuzz_drain.c) as a unit test: many
 * seeded pseudo-random inputs, the same ones on every run, so that
 * "make host-test" checks the model agreement without libFuzzer; the
 * fuzz target explores further. Also a few hand-made inputs that pin
 * down one strategy each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs the headers above */
#include <cmocka.h>

#include "tests/host/fuzz_drain.c"

#define CASES 3000

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void run(const uint8_t *data, size_t size)
{
	const char *err = fuzz_drain_run(data, size);

	if (err)
		fail_msg("%s", err);
}

static void test_random_inputs(void **state)
{
	static uint8_t buf[1024];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i, k, n;

	(void)state;
	for (i = 0; i < CASES; i++) {
		n = 16 + xorshift(&x) % (sizeof(buf) - 16);
		for (k = 0; k < n; k++)
			buf[k] = (uint8_t)xorshift(&x);
		run(buf, n);
	}
}

/*
 * One input per strategy: set-up bytes (consumers, strategy, K, per
 * record, geometry, delays, three consumers with their maps, the
 * stream), then long production runs with reads, deferred work and a
 * resize in between.
 */
static void test_each_strategy(void **state)
{
	uint8_t in[128];
	int id;

	(void)state;
	for (id = 0; id < DRAIN_NIDS; id++) {
		size_t k = 0, i;

		memset(in, 0, sizeof(in));
		in[k++] = 2; /* three consumers */
		in[k++] = id;
		if (id == DRAIN_SWITCH)
			in[k++] = 1; /* two spares */
		in[k++] = 0;	     /* batched */
		in[k++] = 40;	     /* 44 records */
		in[k++] = 6;	     /* headroom */
		in[k++] = 0;	     /* policy headroom */
		in[k++] = 0;	     /* PMI on time */
		in[k++] = 30;	     /* self-IPI 30 records late */
		for (i = 0; i < 3; i++) {
			in[k++] = i;  /* format */
			in[k++] = 2;  /* 3 records per packet */
			in[k++] = i;  /* mode */
			in[k++] = 10; /* ring size */
			in[k++] = 5;
			in[k++] = i;	 /* filter */
			in[k++] = i + 1; /* map: default + callback, ... */
			if (i == 1) {	 /* ... a user range cut at seq 96 */
				in[k++] = 1 + 6 * 3;
				in[k++] = 2;
			} else if (i == 2) { /* ... [0, a kernel address) */
				in[k++] = 0;
				in[k++] = 3 + 6 * 10;
			}
		}
		in[k++] = id; /* inline: period 8; others: a seeded mix */
		for (; k + 2 <= sizeof(in); k += 2) {
			in[k] = (uint8_t)(k % 8);
			in[k + 1] = (uint8_t)(k * 37);
		}
		run(in, sizeof(in));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_inputs),
		cmocka_unit_test(test_each_strategy),
	};

	return cmocka_run_group_tests_name("drain_property", tests, NULL, NULL);
}
