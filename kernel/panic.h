/* Fatal errors outside any test: report, then stop (kernel/panic.c). */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

struct trap_frame;

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt,
							   ...);
__attribute__((noreturn)) void panic_trap(const struct trap_frame *f);

__attribute__((noreturn)) void panic_trap_in_nmi(const struct trap_frame *f);

#endif
