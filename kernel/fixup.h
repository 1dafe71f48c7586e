/*
 * Probes that may fault. Each faulting instruction has an entry in the
 * exception table (section .ex_table: faulting RIP, continuation RIP); the
 * trap handler resumes at the continuation instead of reporting the fault,
 * and records the vector for fault_vector(). Every hardware probe (an MSR
 * that may not exist, a feature a hypervisor may refuse) goes through these.
 */
#ifndef KERNEL_FIXUP_H
#define KERNEL_FIXUP_H

#include <stdint.h>

struct ex_entry {
	uint64_t insn;	/* address of the instruction that may fault */
	uint64_t fixup; /* where to continue if it does */
};

/* Emit an exception-table entry for label 'insn' continuing at 'fixup'. */
#define EX_TABLE(insn, fixup)             \
	".pushsection .ex_table, \"a\"\n" \
	".balign 8\n"                     \
	".quad " insn ", " fixup "\n"     \
	".popsection\n"

/* Vector of the last fault taken inside a probe on this CPU. */
int fault_vector(void);

/* Continuation address for a faulting RIP, or 0 if there is none. */
uint64_t fixup_lookup(uint64_t rip);

/* Returns 0, or -1 when the instruction faulted (vector in fault_vector()). */
static inline int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	int err = 0;

	asm volatile(
		"1: rdmsr\n"
		"2:\n" EX_TABLE("1b", "3f") ".pushsection .text.fixup, \"ax\"\n"
					    "3: movl $-1, %[err]\n"
					    "   jmp 2b\n"
					    ".popsection\n"
		: [err] "+r"(err), "+a"(lo), "+d"(hi)
		: "c"(msr));
	*val = ((uint64_t)hi << 32) | lo;
	return err;
}

static inline int wrmsr_safe(uint32_t msr, uint64_t val)
{
	int err = 0;

	asm volatile(
		"1: wrmsr\n"
		"2:\n" EX_TABLE("1b", "3f") ".pushsection .text.fixup, \"ax\"\n"
					    "3: movl $-1, %[err]\n"
					    "   jmp 2b\n"
					    ".popsection\n"
		: [err] "+r"(err)
		: "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		: "memory");
	return err;
}

/* Read 8 bytes at addr; -1 if that faults (#PF, #GP for non-canonical). */
static inline int read_u64_safe(uint64_t addr, uint64_t *val)
{
	uint64_t v = 0;
	int err = 0;

	asm volatile(
		"1: movq (%[a]), %[v]\n"
		"2:\n" EX_TABLE("1b", "3f") ".pushsection .text.fixup, \"ax\"\n"
					    "3: movl $-1, %[err]\n"
					    "   jmp 2b\n"
					    ".popsection\n"
		: [err] "+r"(err), [v] "+r"(v)
		: [a] "r"(addr)
		: "memory");
	*val = v;
	return err;
}

#endif
