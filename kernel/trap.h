/*
 * Interrupt and exception dispatch. The entry stubs (kernel/isr.asm) save
 * the full register state as a struct trap_frame; handlers may change it.
 */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

enum {
	VEC_DE = 0,
	VEC_DB = 1,
	VEC_NMI = 2,
	VEC_BP = 3,
	VEC_UD = 6,
	VEC_DF = 8,
	VEC_GP = 13,
	VEC_PF = 14,
	VEC_MC = 18,
	VEC_SPURIOUS = 0xFF,
};

typedef void (*trap_handler)(struct trap_frame *f);

void idt_init(void);
/* Load the IDT on this CPU (after idt_init on the boot CPU). */
void idt_load(void);
void trap_set_handler(unsigned vector, trap_handler h);
trap_handler trap_get_handler(unsigned vector);

const char *trap_name(unsigned vector);
/* Print vector, error code, RIP with symbol, RSP, CR2 and the registers. */
void trap_dump(const struct trap_frame *f, const char *prefix);

void trap_dispatch(struct trap_frame *f);
/* Called first on every trap (the BTS model records interrupt branches). */
void trap_set_entry_hook(trap_handler h);
/* Interrupts and NMIs that arrived with no handler registered. */
unsigned long trap_unexpected_count(void);

#endif
