/*
 * Deferred work. The queue is a per-CPU lock-free stack: queueing is one
 * compare-and-swap, so an NMI can queue while the interrupted code is
 * queueing too. The IPI handler takes the whole stack with one exchange and
 * runs it oldest first. Only the queuer that finds the stack empty sends
 * the IPI: an IPI is then pending or running for any non-empty stack, so no
 * work is left behind and no IPI is wasted.
 */
#include "kernel/defer.h"

#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"

static enum defer_ipi ipi_kind = DEFER_IPI_SHORTHAND;
static uint64_t last_send_tsc;
static unsigned long ipis;

static void send_self_ipi(void)
{
	__atomic_store_n(&last_send_tsc, rdtsc(), __ATOMIC_RELAXED);
	__atomic_add_fetch(&ipis, 1, __ATOMIC_RELAXED);
	switch (ipi_kind) {
	case DEFER_IPI_MSR:
		if (lapic_mode() == APIC_MODE_X2APIC) {
			lapic_self_ipi_msr(VEC_DEFER);
			return;
		}
		break;
	case DEFER_IPI_DEST:
		apic->send(apic->id(), APIC_DM_FIXED | VEC_DEFER);
		return;
	case DEFER_IPI_SHORTHAND:
		break;
	}
	apic->send(0, APIC_DEST_SELF | APIC_DM_FIXED | VEC_DEFER);
}

bool defer_queue(struct defer_work *w)
{
	struct cpu *c = this_cpu();
	struct defer_work *head;

	if (__atomic_exchange_n(&w->pending, 1, __ATOMIC_ACQ_REL))
		return false;
	head = __atomic_load_n(&c->defer_head, __ATOMIC_RELAXED);
	do {
		w->next = head;
	} while (!__atomic_compare_exchange_n(&c->defer_head, &head, w, 1,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (!head)
		send_self_ipi();
	return true;
}

static void defer_ipi_handler(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	struct defer_work *list, *prev = 0, *next;

	(void)f;
	lapic_eoi();
	list = __atomic_exchange_n(&c->defer_head, 0, __ATOMIC_ACQUIRE);
	/* The stack is newest first: reverse it to run in queueing order. */
	while (list) {
		next = list->next;
		list->next = prev;
		prev = list;
		list = next;
	}
	for (struct defer_work *w = prev; w; w = next) {
		next = w->next;
		/* Cleared first, so fn (or an NMI during it) can queue again. */
		__atomic_store_n(&w->pending, 0, __ATOMIC_RELEASE);
		w->fn(w);
	}
}

void defer_init(void)
{
	trap_set_handler(VEC_DEFER, defer_ipi_handler);
}

void defer_set_ipi(enum defer_ipi how)
{
	ipi_kind = how;
}

uint64_t defer_last_send_tsc(void)
{
	return __atomic_load_n(&last_send_tsc, __ATOMIC_RELAXED);
}

unsigned long defer_ipis_sent(void)
{
	return ipis;
}
