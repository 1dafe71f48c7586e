/*
 * Sample sets, their summary (nearest-rank percentiles, exact integer mean)
 * and the repeat / warm-up / overhead loop of every measurement. See
 * stats.h. Integer-only, with 64-bit operations alone: the kernel has
 * neither floating point nor libgcc's 128-bit division.
 */
#include "lib/stats.h"

void samples_init(struct sample_set *s, uint64_t *buf, size_t cap)
{
	s->v = buf;
	s->cap = cap;
	s->n = 0;
	s->dropped = 0;
}

void samples_add(struct sample_set *s, uint64_t x)
{
	if (s->n >= s->cap) {
		s->dropped++;
		return;
	}
	s->v[s->n++] = x;
}

uint64_t sub_sat(uint64_t x, uint64_t y)
{
	return x > y ? x - y : 0;
}

/* Heapsort, ascending: a max-heap in v[0..n-1], the largest moved last. */
static void sift_down(uint64_t *v, size_t root, size_t n)
{
	uint64_t x = v[root];
	size_t child;

	/* n <= SIZE_MAX / 8 (an array of uint64_t): 2 * root + 2 fits. */
	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[child] <= x)
			break;
		v[root] = v[child];
		root = child;
	}
	v[root] = x;
}

static void sort_u64(uint64_t *v, size_t n)
{
	uint64_t top;
	size_t i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n - 1; i > 0; i--) {
		top = v[0];
		v[0] = v[i];
		v[i] = top;
		sift_down(v, 0, i);
	}
}

uint64_t samples_percentile(const uint64_t *sorted, size_t n, unsigned pct)
{
	size_t rank;

	if (pct < 1)
		pct = 1;
	if (pct > 100)
		pct = 100;
	/* ceil(pct * n / 100), as n = 100q + r so that pct * n cannot wrap. */
	rank = n / 100 * pct + (n % 100 * pct + 99) / 100;
	return sorted[rank - 1];
}

/*
 * acc = (acc + x) mod m for acc, x < m, without wrapping; true when the sum
 * reached m (a carry into the quotient).
 */
static bool add_mod(uint64_t *acc, uint64_t x, uint64_t m)
{
	if (*acc >= m - x) {
		*acc -= m - x;
		return true;
	}
	*acc += x;
	return false;
}

/*
 * floor(sum / n), kept as sum = q * n + r with r < n while adding: each
 * sample contributes x / n to q and x % n to r, and r carries into q.
 */
static uint64_t mean_u64(const uint64_t *v, size_t n)
{
	uint64_t q = 0, r = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		q += v[i] / n;
		if (add_mod(&r, v[i] % n, n))
			q++;
	}
	return q;
}

bool samples_summarize(struct sample_set *s, struct summary *out)
{
	*out = (struct summary){ 0 };
	if (s->n == 0)
		return false;
	sort_u64(s->v, s->n);
	out->n = s->n;
	out->min = s->v[0];
	out->median = samples_percentile(s->v, s->n, 50);
	out->p99 = samples_percentile(s->v, s->n, 99);
	out->max = s->v[s->n - 1];
	out->mean = mean_u64(s->v, s->n);
	return true;
}

size_t measure_run(const struct measure_cfg *cfg, measure_fn fn, void *arg,
		   struct sample_set *out)
{
	size_t failed = 0;
	uint64_t x;
	unsigned i;

	for (i = 0; i < cfg->warmup; i++)
		fn(arg);
	for (i = 0; i < cfg->reps; i++) {
		x = fn(arg);
		if (x == MEASURE_FAILED)
			failed++;
		else
			samples_add(out, sub_sat(x, cfg->overhead));
	}
	return failed;
}

uint64_t measure_overhead(const struct measure_cfg *cfg, measure_fn empty,
			  void *arg)
{
	uint64_t best = MEASURE_FAILED, x;
	unsigned i;

	for (i = 0; i < cfg->warmup; i++)
		empty(arg);
	for (i = 0; i < cfg->reps; i++) {
		x = empty(arg);
		if (x < best)
			best = x;
	}
	return best;
}

void summary_json(struct json *j, const struct summary *s)
{
	json_u64(j, "min", s->min);
	json_u64(j, "median", s->median);
	json_u64(j, "p99", s->p99);
	json_u64(j, "max", s->max);
	json_u64(j, "n", s->n);
	json_u64(j, "mean", s->mean);
}

/* floor(x * 1000 / per), saturated at INT64_MAX, for json_milli. */
static int64_t milli_of(uint64_t x, uint64_t per)
{
	uint64_t q = x / per, r = x % per, frac = 0;
	unsigned digit, k;

	/* Three decimal digits of r / per: r * 10 by repeated adds mod per. */
	for (digit = 0; digit < 3; digit++) {
		uint64_t acc = 0, d = 0;

		for (k = 0; k < 10; k++)
			if (add_mod(&acc, r, per))
				d++;
		frac = frac * 10 + d;
		r = acc;
	}
	if (q > (uint64_t)INT64_MAX / 1000)
		return INT64_MAX;
	q *= 1000;
	if (q > (uint64_t)INT64_MAX - frac)
		return INT64_MAX;
	return (int64_t)(q + frac);
}

void summary_json_per(struct json *j, const struct summary *s, uint64_t per)
{
	if (per == 0)
		per = 1;
	json_milli(j, "min", milli_of(s->min, per));
	json_milli(j, "median", milli_of(s->median, per));
	json_milli(j, "p99", milli_of(s->p99, per));
	json_milli(j, "max", milli_of(s->max, per));
	json_u64(j, "n", s->n);
	json_milli(j, "mean", milli_of(s->mean, per));
}
