/*
 * Record accounting: the produced == delivered + filtered + lost check and
 * the names of the loss causes. See bts_account.h.
 */
#include "lib/bts_account.h"

static const char *const loss_names[BTS_LOSS_NR] = {
	[BTS_LOSS_NO_SPARE] = "no_spare",
	[BTS_LOSS_RING_FULL] = "ring_full",
	[BTS_LOSS_OVERWRITTEN] = "overwritten",
	[BTS_LOSS_STOPPED] = "stopped",
};

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

void bts_account_reset(struct bts_account *a)
{
	size_t i;

	__atomic_store_n(&a->produced, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&a->delivered, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&a->filtered, 0, __ATOMIC_RELAXED);
	for (i = 0; i < BTS_LOSS_NR; i++)
		__atomic_store_n(&a->lost[i], 0, __ATOMIC_RELAXED);
}

void bts_account_read(const struct bts_account *a, struct bts_account *out)
{
	size_t i;

	out->produced = load(&a->produced);
	out->delivered = load(&a->delivered);
	out->filtered = load(&a->filtered);
	for (i = 0; i < BTS_LOSS_NR; i++)
		out->lost[i] = load(&a->lost[i]);
}

void bts_account_add(struct bts_account *dst, const struct bts_account *src)
{
	size_t i;

	bts_count(&dst->produced, load(&src->produced));
	bts_count(&dst->delivered, load(&src->delivered));
	bts_count(&dst->filtered, load(&src->filtered));
	for (i = 0; i < BTS_LOSS_NR; i++)
		bts_count(&dst->lost[i], load(&src->lost[i]));
}

uint64_t bts_account_lost_total(const struct bts_account *a)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < BTS_LOSS_NR; i++)
		sum += load(&a->lost[i]);
	return sum;
}

int64_t bts_account_imbalance(const struct bts_account *a)
{
	uint64_t out = load(&a->delivered) + load(&a->filtered) +
		       bts_account_lost_total(a);

	return (int64_t)(load(&a->produced) - out);
}

const char *bts_loss_name(enum bts_loss_cause cause)
{
	if ((unsigned int)cause >= BTS_LOSS_NR)
		return "?";
	return loss_names[cause];
}
