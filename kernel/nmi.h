/*
 * NMI dispatch (kernel/nmi.c). NMIs carry no vector, so every registered
 * handler is asked in turn whether the NMI was its own; an NMI nobody
 * claims is counted and reported.
 *
 * NMI handlers must not take exceptions: the IRETQ at the end of an
 * exception would end NMI blocking while the NMI's frame is still live on
 * its IST stack, and a second NMI would overwrite it. Instead of the nested
 * NMI dance Linux does, btslab makes that a rule and enforces it: an
 * exception in NMI context is a kernel panic with the report, never a
 * silent corruption. (So no *_safe probes in NMI handlers: probe first.)
 */
#ifndef KERNEL_NMI_H
#define KERNEL_NMI_H

#include <stdbool.h>

struct trap_frame;

/* Returns true when it recognized the NMI as its own. */
typedef bool (*nmi_handler)(struct trap_frame *f);

#define NMI_MAX_HANDLERS 8

void nmi_init(void);
int nmi_register(nmi_handler h);
void nmi_unregister(nmi_handler h);
bool in_nmi(void);
unsigned long nmi_count(void);
unsigned long nmi_unclaimed(void);

/* Called on every NMI after the handlers (the watchdog checks deadlines). */
void nmi_set_tick_hook(void (*hook)(struct trap_frame *f));

#endif
