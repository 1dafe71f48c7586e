/*
 * NMI entry: count, ask each handler, run the tick hook, and keep the
 * per-CPU depth that trap_dispatch uses to refuse exceptions in NMI
 * context (see kernel/nmi.h for why).
 */
#include "kernel/nmi.h"

#include "kernel/cpu.h"
#include "kernel/trap.h"

static nmi_handler handlers[NMI_MAX_HANDLERS];
static void (*tick_hook)(struct trap_frame *f);
static unsigned long count, unclaimed;

static void nmi_entry(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	bool claimed = false;

	c->nmi_depth++;
	__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		nmi_handler h = __atomic_load_n(&handlers[i], __ATOMIC_ACQUIRE);

		if (h && h(f))
			claimed = true;
	}
	if (!claimed)
		__atomic_add_fetch(&unclaimed, 1, __ATOMIC_RELAXED);
	c->nmi_depth--;
	/* Last: the watchdog may redirect the frame back to the runner. */
	if (tick_hook)
		tick_hook(f);
}

void nmi_init(void)
{
	trap_set_handler(VEC_NMI, nmi_entry);
}

int nmi_register(nmi_handler h)
{
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		nmi_handler none = 0;

		if (__atomic_compare_exchange_n(&handlers[i], &none, h, 0,
						__ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
	}
	return -1;
}

void nmi_unregister(nmi_handler h)
{
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		nmi_handler cur = h;

		__atomic_compare_exchange_n(&handlers[i], &cur, 0, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
}

bool in_nmi(void)
{
	return this_cpu()->nmi_depth != 0;
}

unsigned long nmi_count(void)
{
	return count;
}

unsigned long nmi_unclaimed(void)
{
	return unclaimed;
}

void nmi_set_tick_hook(void (*hook)(struct trap_frame *f))
{
	tick_hook = hook;
}
