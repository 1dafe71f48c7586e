/*
 * Deferred work, like Linux's irq_work: code in any context, NMI included,
 * queues a work item; a self-IPI runs it in interrupt context as soon as
 * interrupts are enabled on this CPU (kernel/defer.c).
 *
 * This is the deferral the BTS "switch" drain strategy needs: the PMI (an
 * NMI) only swaps buffers and queues the drain.
 */
#ifndef KERNEL_DEFER_H
#define KERNEL_DEFER_H

#include <stdbool.h>
#include <stdint.h>

struct defer_work {
	struct defer_work *next;
	void (*fn)(struct defer_work *w);
	uint32_t pending; /* 1 from queueing until fn starts */
};

#define DEFER_WORK_INIT(f) \
	{                  \
		0, (f), 0  \
	}

/* How the self-IPI is sent (each APIC mode offers one or more ways). */
enum defer_ipi {
	DEFER_IPI_SHORTHAND, /* ICR, destination shorthand "self" */
	DEFER_IPI_DEST,	     /* ICR, destination = own APIC ID */
	DEFER_IPI_MSR,	     /* x2APIC SELF IPI register */
};

void defer_init(void);
void defer_set_ipi(enum defer_ipi how);
/*
 * Queue w on this CPU. False if it is already pending (it will run once
 * for both requests). Safe from NMI, interrupt and normal context.
 */
bool defer_queue(struct defer_work *w);
/* TSC when the most recent self-IPI was sent (for latency figures). */
uint64_t defer_last_send_tsc(void);
unsigned long defer_ipis_sent(void);

#endif
