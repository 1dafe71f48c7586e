/*
 * Repeated measurements and their summary, for the "# metric" lines:
 *
 *	uint64_t buf[200];
 *	struct sample_set s;
 *	struct measure_cfg cfg = { .warmup = 10, .reps = 200 };
 *	struct summary sum;
 *
 *	cfg.overhead = measure_overhead(&cfg, time_nothing, NULL);
 *	samples_init(&s, buf, 200);
 *	failed = measure_run(&cfg, time_drain, &ctx, &s);
 *	if (samples_summarize(&s, &sum))
 *		summary_json(&j, &sum);		-> "min":..,"n":200,"mean":..
 *
 * A sample is a cycle count of one run. Warm-up runs (cold caches, TLB,
 * branch predictors) are thrown away, and the cost of the timing itself
 * (two TSC reads and what surrounds them, measured the same way around
 * nothing) is subtracted from every sample, floored at 0.
 *
 * Percentiles are nearest-rank on the sorted samples v[0..n-1]:
 *
 *	pXX = v[ceil(XX * n / 100) - 1]
 *
 * so every reported value is a sample that was really seen, never an
 * interpolation. The median is p50: for even n the lower of the two middle
 * samples. p99 is the max when n <= 100, the second largest for
 * n = 101..199. The mean is the exact integer mean rounded down.
 *
 * No floating point, no allocation, no 128-bit division: this runs in the
 * kernel as well as on the host.
 */
#ifndef LIB_STATS_H
#define LIB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/json.h"

/* Samples in a caller's buffer. Adding to a full set only counts a drop. */
struct sample_set {
	uint64_t *v;
	size_t cap;
	size_t n;
	size_t dropped;
};

void samples_init(struct sample_set *s, uint64_t *buf, size_t cap);
void samples_add(struct sample_set *s, uint64_t x);

struct summary {
	size_t n;
	uint64_t min, median, p99, max, mean;
};

/*
 * Sorts s->v in place (heapsort: O(n log n), no recursion, no extra memory)
 * and fills out. False, with out zeroed, when the set is empty.
 */
bool samples_summarize(struct sample_set *s, struct summary *out);

/*
 * The nearest-rank pct-th percentile of n >= 1 sorted samples; pct is
 * clamped to 1..100.
 */
uint64_t samples_percentile(const uint64_t *sorted, size_t n, unsigned pct);

/* x - y, floored at 0. */
uint64_t sub_sat(uint64_t x, uint64_t y);

#define MEASURE_FAILED UINT64_MAX

struct measure_cfg {
	unsigned warmup;   /* runs whose results are thrown away */
	unsigned reps;	   /* runs that make samples */
	uint64_t overhead; /* cycles subtracted from every sample */
};

/* One run: its cost in cycles, or MEASURE_FAILED. */
typedef uint64_t (*measure_fn)(void *arg);

/*
 * Calls fn cfg->warmup times (results thrown away, failures included), then
 * cfg->reps times, adding sub_sat(sample, cfg->overhead) to out. Returns the
 * number of those reps that failed; they are not added.
 */
size_t measure_run(const struct measure_cfg *cfg, measure_fn fn, void *arg,
		   struct sample_set *out);

/*
 * The cost of the timing itself: the smallest of cfg->reps samples of
 * empty (after cfg->warmup runs), where empty times nothing the way the
 * real measurement times its work. The minimum, so that subtracting it
 * never takes away more than the timing can cost. cfg->overhead is not
 * used. MEASURE_FAILED when no rep succeeded.
 */
uint64_t measure_overhead(const struct measure_cfg *cfg, measure_fn empty,
			  void *arg);

/*
 * Adds "min","median","p99","max","n","mean" members, as integers, to an
 * open JSON object.
 */
void summary_json(struct json *j, const struct summary *s);

/*
 * The same members with min, median, p99, max and mean divided by per
 * (e.g. the records in each sample, for a unit of "cycles/record"), as
 * decimals with three digits, rounded down: 2125 / 1000 -> 2.125. Values
 * past what json_milli can hold saturate. per == 0 is taken as 1.
 */
void summary_json_per(struct json *j, const struct summary *s, uint64_t per);

#endif
