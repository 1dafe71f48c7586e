/*
 * Kernel panic: an exception or a broken invariant outside any test. The
 * log gets a TAP "Bail out!" line with the reason (so every TAP reader
 * stops there with the cause), the details as comments, and QEMU exits
 * with the panic code; on hardware the CPU halts.
 */
#include "kernel/panic.h"

#include "drivers/qemu_exit.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/trap.h"

static void __attribute__((noreturn)) stop(void)
{
	qemu_exit(QEMU_EXIT_PANIC);
	for (;;) {
		irq_disable();
		halt();
	}
}

void panic(const char *fmt, ...)
{
	va_list ap;

	irq_disable();
	kputs("Bail out! kernel panic: ");
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
	kputs("\n");
	stop();
}

void panic_trap(const struct trap_frame *f)
{
	irq_disable();
	kprintf("Bail out! kernel panic: unexpected %s (vector %lu) outside "
		"any test\n",
		trap_name(f->vector), f->vector);
	trap_dump(f, "# ");
	stop();
}

void panic_trap_in_nmi(const struct trap_frame *f)
{
	irq_disable();
	kprintf("Bail out! kernel panic: %s (vector %lu) inside an NMI "
		"handler: NMI handlers must not take exceptions\n",
		trap_name(f->vector), f->vector);
	trap_dump(f, "# ");
	stop();
}
