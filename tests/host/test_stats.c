/*
 * Unit tests for lib/stats.c: the summary of a sample set against a
 * reference built independently here (qsort, percentile rank found by a
 * search on the definition, mean in 128 bits), over small hand-checked sets,
 * the percentile boundaries, inputs of every order up to n = 100000, and
 * sums that overflow 64 bits; then the measurement loop (warm-up discarded,
 * overhead subtracted and floored, failures counted) with a scripted
 * measure_fn, and the exact JSON members.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/rand.h"
#include "lib/stats.h"

#define BIG 100000

static uint64_t buf[BIG], ref[BIG];

/* --- the reference --------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank from its definition: the smallest rank k with k/n >= p%. */
static uint64_t ref_percentile(const uint64_t *sorted, size_t n, unsigned pct)
{
	size_t k = 1;

	while ((unsigned __int128)k * 100 < (unsigned __int128)pct * n)
		k++;
	return sorted[k - 1];
}

static uint64_t ref_mean(const uint64_t *v, size_t n)
{
	unsigned __int128 sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return (uint64_t)(sum / n);
}

/* Summarize buf[0..n-1] and check everything against the reference. */
static void check_against_ref(size_t n)
{
	struct sample_set s;
	struct summary sum;
	size_t i;

	memcpy(ref, buf, n * sizeof(ref[0]));
	qsort(ref, n, sizeof(ref[0]), cmp_u64);
	samples_init(&s, buf, n);
	for (i = 0; i < n; i++)
		samples_add(&s, buf[i]);
	assert_true(samples_summarize(&s, &sum));
	assert_memory_equal(buf, ref, n * sizeof(ref[0]));
	assert_int_equal(sum.n, n);
	assert_int_equal(sum.min, ref[0]);
	assert_int_equal(sum.median, ref_percentile(ref, n, 50));
	assert_int_equal(sum.p99, ref_percentile(ref, n, 99));
	assert_int_equal(sum.max, ref[n - 1]);
	assert_int_equal(sum.mean, ref_mean(ref, n));
}

/* --- small sets, checked by hand --------------------------------------- */

static struct summary summarize(const uint64_t *v, size_t n)
{
	struct sample_set s;
	struct summary sum;
	size_t i;

	samples_init(&s, buf, BIG);
	for (i = 0; i < n; i++)
		samples_add(&s, v[i]);
	assert_true(samples_summarize(&s, &sum));
	return sum;
}

static void assert_summary(struct summary got, size_t n, uint64_t min,
			   uint64_t median, uint64_t p99, uint64_t max,
			   uint64_t mean)
{
	assert_int_equal(got.n, n);
	assert_int_equal(got.min, min);
	assert_int_equal(got.median, median);
	assert_int_equal(got.p99, p99);
	assert_int_equal(got.max, max);
	assert_int_equal(got.mean, mean);
}

/* An empty set has no summary, and out is not left with old values. */
static void test_empty(void **state)
{
	struct sample_set s;
	struct summary sum;

	(void)state;
	samples_init(&s, buf, BIG);
	memset(&sum, 0xa5, sizeof(sum));
	assert_false(samples_summarize(&s, &sum));
	assert_summary(sum, 0, 0, 0, 0, 0, 0);

	samples_init(&s, NULL, 0);
	assert_false(samples_summarize(&s, &sum));
}

static void test_small(void **state)
{
	static const uint64_t two[] = { 5, 3 };
	static const uint64_t three[] = { 3, 1, 2 };
	static const uint64_t four[] = { 4, 1, 3, 2 };
	static const uint64_t same[] = { 7, 7, 7, 7, 7 };
	static const uint64_t zeros[] = { 0, 0, 0 };

	(void)state;
	assert_summary(summarize((uint64_t[]){ 42 }, 1), 1, 42, 42, 42, 42, 42);
	/* Even n: the lower middle sample, never an average of the two. */
	assert_summary(summarize(two, 2), 2, 3, 3, 5, 5, 4);
	assert_summary(summarize(three, 3), 3, 1, 2, 3, 3, 2);
	assert_summary(summarize(four, 4), 4, 1, 2, 4, 4, 2);
	assert_summary(summarize(same, 5), 5, 7, 7, 7, 7, 7);
	assert_summary(summarize(zeros, 3), 3, 0, 0, 0, 0, 0);
}

/* Where ceil(99 n / 100) moves: p99 is the max up to n = 100, then not. */
static void test_percentile_boundaries(void **state)
{
	static const struct {
		size_t n;
		uint64_t median, p99;
	} cases[] = {
		{ 99, 50, 99 },	   { 100, 50, 99 },   { 101, 51, 100 },
		{ 199, 100, 198 }, { 200, 100, 198 }, { 201, 101, 199 },
	};
	uint64_t v[201];
	size_t c, i;

	(void)state;
	for (i = 0; i < 201; i++)
		v[i] = 201 - i; /* n..1 for the first n: reversed */
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c].n;
		struct summary got = summarize(v + 201 - n, n);

		assert_summary(got, n, 1, cases[c].median, cases[c].p99, n,
			       (n + 1) / 2);
	}

	/* 1..100 sorted: every percentile is its own value. */
	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	for (i = 1; i <= 100; i++)
		assert_int_equal(samples_percentile(v, 100, i), i);
	/* Out of range is clamped. */
	assert_int_equal(samples_percentile(v, 100, 0), 1);
	assert_int_equal(samples_percentile(v, 100, 101), 100);
	assert_int_equal(samples_percentile(v, 1, 50), 1);
}

/* --- every order, against the reference -------------------------------- */

enum order {
	SORTED,
	REVERSED,
	RANDOM,
	FEW,
	ORGAN,
	NORDERS
};

static void fill(size_t n, enum order o, uint64_t *seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (o) {
		case SORTED:
			buf[i] = 1000 + i;
			break;
		case REVERSED:
			buf[i] = 1000 + n - i;
			break;
		case RANDOM:
			buf[i] = splitmix64_next(seed);
			break;
		case FEW: /* many duplicates */
			buf[i] = splitmix64_next(seed) % 4;
			break;
		default: /* up then down */
			buf[i] = i < n / 2 ? i : n - i;
			break;
		}
	}
}

static void test_orders(void **state)
{
	uint64_t seed = 1;
	size_t n;
	int o;

	(void)state;
	for (o = 0; o < NORDERS; o++) {
		for (n = 1; n <= 300; n++) {
			fill(n, o, &seed);
			check_against_ref(n);
		}
		fill(4097, o, &seed);
		check_against_ref(4097);
	}
}

/* The largest set the kernel is expected to keep, in each order. */
static void test_large(void **state)
{
	uint64_t seed = 2;
	int o;

	(void)state;
	for (o = 0; o < NORDERS; o++) {
		fill(BIG, o, &seed);
		check_against_ref(BIG);
	}
}

/* Sums far past 2^64: the mean must still be exact. */
static void test_mean_overflow(void **state)
{
	static const uint64_t max3[] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };
	static const uint64_t near[] = { UINT64_MAX, UINT64_MAX - 1 };
	static const uint64_t ends[] = { UINT64_MAX, 0 };
	uint64_t seed = 3;
	size_t i;

	(void)state;
	assert_int_equal(summarize(max3, 3).mean, UINT64_MAX);
	assert_int_equal(summarize(near, 2).mean, UINT64_MAX - 1);
	assert_int_equal(summarize(ends, 2).mean, UINT64_MAX / 2);

	for (i = 0; i < BIG; i++)
		buf[i] = UINT64_MAX - i;
	check_against_ref(BIG);
	for (i = 0; i < BIG; i++)
		buf[i] = UINT64_MAX - splitmix64_next(&seed) % 1000;
	check_against_ref(BIG);
	for (i = 0; i < 7; i++)
		buf[i] = UINT64_MAX - 3 * i;
	check_against_ref(7);
}

/* A full set keeps what it has and counts the rest. */
static void test_dropped(void **state)
{
	uint64_t small[3];
	struct sample_set s;
	struct summary sum;
	uint64_t i;

	(void)state;
	samples_init(&s, small, 3);
	for (i = 10; i > 5; i--)
		samples_add(&s, i);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.dropped, 2);
	assert_true(samples_summarize(&s, &sum));
	assert_summary(sum, 3, 8, 9, 10, 10, 9);

	samples_init(&s, NULL, 0);
	samples_add(&s, 1);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.dropped, 1);
}

static void test_sub_sat(void **state)
{
	(void)state;
	assert_int_equal(sub_sat(10, 3), 7);
	assert_int_equal(sub_sat(3, 3), 0);
	assert_int_equal(sub_sat(3, 10), 0);
	assert_int_equal(sub_sat(0, UINT64_MAX), 0);
	assert_int_equal(sub_sat(UINT64_MAX, 0), UINT64_MAX);
}

/* --- the measurement loop ------------------------------------------------ */

/* A measure_fn that returns script[call] and counts its calls. */
struct script {
	const uint64_t *ret;
	size_t len;
	size_t calls;
};

static uint64_t scripted(void *arg)
{
	struct script *sc = arg;

	assert_true(sc->calls < sc->len);
	return sc->ret[sc->calls++];
}

static void test_measure_warmup(void **state)
{
	/* Three warm-up runs, slow and one failed, then five reps. */
	static const uint64_t ret[] = {
		900, MEASURE_FAILED, 800, 100, 110, 120, 130, 140
	};
	struct script sc = { ret, 8, 0 };
	struct measure_cfg cfg = { .warmup = 3, .reps = 5, .overhead = 0 };
	struct sample_set s;
	struct summary sum;

	(void)state;
	samples_init(&s, buf, BIG);
	assert_int_equal(measure_run(&cfg, scripted, &sc, &s), 0);
	assert_int_equal(sc.calls, 8);
	assert_int_equal(s.n, 5);
	assert_true(samples_summarize(&s, &sum));
	assert_summary(sum, 5, 100, 120, 140, 140, 120);

	/* No reps: only the warm-up runs. */
	sc.calls = 0;
	cfg.reps = 0;
	samples_init(&s, buf, BIG);
	assert_int_equal(measure_run(&cfg, scripted, &sc, &s), 0);
	assert_int_equal(sc.calls, 3);
	assert_int_equal(s.n, 0);
}

static void test_measure_overhead_failures(void **state)
{
	static const uint64_t ret[] = {
		50, 20, MEASURE_FAILED, 19, MEASURE_FAILED, 25, UINT64_MAX - 1
	};
	struct script sc = { ret, 7, 0 };
	struct measure_cfg cfg = { .warmup = 0, .reps = 7, .overhead = 20 };
	uint64_t small[3];
	struct sample_set s;

	(void)state;
	/* Floored at 0, failures counted and not added, a full set drops. */
	samples_init(&s, small, 3);
	assert_int_equal(measure_run(&cfg, scripted, &sc, &s), 2);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.dropped, 2);
	assert_int_equal(small[0], 30);
	assert_int_equal(small[1], 0);
	assert_int_equal(small[2], 0);
}

static void test_measure_overhead(void **state)
{
	static const uint64_t ret[] = { 1, 40, MEASURE_FAILED, 38, 45 };
	static const uint64_t fail[] = { MEASURE_FAILED, MEASURE_FAILED };
	struct script sc = { ret, 5, 0 };
	struct measure_cfg cfg = { .warmup = 1, .reps = 4, .overhead = 999 };

	(void)state;
	/* The warm-up's 1 is not the minimum; the failure is skipped. */
	assert_int_equal(measure_overhead(&cfg, scripted, &sc), 38);
	assert_int_equal(sc.calls, 5);

	sc = (struct script){ fail, 2, 0 };
	cfg = (struct measure_cfg){ .warmup = 0, .reps = 2 };
	assert_int_equal(measure_overhead(&cfg, scripted, &sc), MEASURE_FAILED);
}

/* --- JSON ------------------------------------------------------------ */

/* The members in an object after a "name"; per < 0: summary_json. */
static const char *to_json(const struct summary *s, int64_t per, char *out,
			   size_t size)
{
	struct json j;

	json_init(&j, out, size);
	json_begin(&j, NULL);
	json_str(&j, "name", "x");
	if (per < 0)
		summary_json(&j, s);
	else
		summary_json_per(&j, s, (uint64_t)per);
	json_end(&j);
	assert_false(j.truncated);
	return out;
}

static void test_summary_json(void **state)
{
	struct summary s = { .n = 5,
			     .min = 1,
			     .median = 2,
			     .p99 = 3,
			     .max = UINT64_MAX,
			     .mean = 20 };
	char out[256];

	(void)state;
	assert_string_equal(to_json(&s, -1, out, sizeof(out)),
			    "{\"name\":\"x\",\"min\":1,\"median\":2,\"p99\":3,"
			    "\"max\":18446744073709551615,\"n\":5,"
			    "\"mean\":20}");
	/* Per 1000: the cycles/record of OUTPUT.md. */
	s = (struct summary){ .n = 200,
			      .min = 1900,
			      .median = 2100,
			      .p99 = 2625,
			      .max = 4000,
			      .mean = 2999 };
	assert_string_equal(to_json(&s, 1000, out, sizeof(out)),
			    "{\"name\":\"x\",\"min\":1.9,\"median\":2.1,"
			    "\"p99\":2.625,\"max\":4.0,\"n\":200,"
			    "\"mean\":2.999}");
	/* Rounded down, exact up to UINT64_MAX / 3000. */
	s = (struct summary){ .n = 1,
			      .min = 10000,
			      .median = 2000,
			      .p99 = 0,
			      .max = UINT64_MAX,
			      .mean = UINT64_MAX - 1 };
	assert_string_equal(to_json(&s, 3000, out, sizeof(out)),
			    "{\"name\":\"x\",\"min\":3.333,\"median\":0.666,"
			    "\"p99\":0.0,\"max\":6148914691236517.205,\"n\":1,"
			    "\"mean\":6148914691236517.204}");
	/* Past what json_milli holds: saturated. */
	s = (struct summary){ .n = 1,
			      .min = 5,
			      .median = 5,
			      .p99 = 5,
			      .max = UINT64_MAX,
			      .mean = UINT64_MAX / 1000 };
	assert_string_equal(to_json(&s, 1, out, sizeof(out)),
			    "{\"name\":\"x\",\"min\":5.0,\"median\":5.0,"
			    "\"p99\":5.0,\"max\":9223372036854775.807,\"n\":1,"
			    "\"mean\":9223372036854775.807}");
	/* per == 0 is taken as 1. */
	s = (struct summary){
		.n = 1, .min = 7, .median = 7, .p99 = 7, .max = 7, .mean = 7
	};
	assert_string_equal(to_json(&s, 0, out, sizeof(out)),
			    "{\"name\":\"x\",\"min\":7.0,\"median\":7.0,"
			    "\"p99\":7.0,\"max\":7.0,\"n\":1,\"mean\":7.0}");
}

/* Read back a decimal member as thousandths. */
static uint64_t read_milli(const char *json, const char *key)
{
	char pat[32];
	const char *p;
	uint64_t whole = 0, frac = 0;
	int digits = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	assert_non_null(p);
	for (p += strlen(pat); *p >= '0' && *p <= '9'; p++)
		whole = whole * 10 + (uint64_t)(*p - '0');
	assert_true(*p++ == '.');
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		frac = frac * 10 + (uint64_t)(*p - '0');
	assert_true(digits >= 1 && digits <= 3);
	for (; digits < 3; digits++)
		frac *= 10;
	return whole * 1000 + frac;
}

/* floor(x * 1000 / per) over random and extreme x and per, in 128 bits. */
static void test_summary_json_per_ref(void **state)
{
	static const uint64_t edge[] = { 0, 1, 2, 3, 999, 1000, 1001,
					 UINT64_MAX / 1000, INT64_MAX,
					 /* q * 1000 fits, + 999 does not */
					 (uint64_t)INT64_MAX / 1000 * 1000 +
						 999,
					 UINT64_MAX - 1, UINT64_MAX };
	const size_t nedge = sizeof(edge) / sizeof(edge[0]);
	uint64_t seed = 4, x, per;
	unsigned __int128 want;
	struct summary s = { .n = 1 };
	struct json j;
	char out[512];
	size_t i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		if (i < nedge * nedge) {
			x = edge[i / nedge];
			per = edge[i % nedge];
		} else {
			x = splitmix64_next(&seed) >> (i % 64);
			per = splitmix64_next(&seed) >> (i / 64 % 64);
		}
		s.min = s.median = s.p99 = s.max = s.mean = x;
		json_init(&j, out, sizeof(out));
		json_begin(&j, NULL);
		summary_json_per(&j, &s, per);
		json_end(&j);
		assert_false(j.truncated);
		want = (unsigned __int128)x * 1000 / (per ? per : 1);
		if (want > INT64_MAX)
			want = INT64_MAX;
		assert_int_equal(read_milli(out, "min"), (uint64_t)want);
		assert_int_equal(read_milli(out, "mean"), (uint64_t)want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_percentile_boundaries),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_mean_overflow),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_sub_sat),
		cmocka_unit_test(test_measure_warmup),
		cmocka_unit_test(test_measure_overhead_failures),
		cmocka_unit_test(test_measure_overhead),
		cmocka_unit_test(test_summary_json),
		cmocka_unit_test(test_summary_json_per_ref),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
