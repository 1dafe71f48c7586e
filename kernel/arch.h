/*
 * Small x86-64 instruction wrappers: port I/O, MSRs, CPUID, TSC, control
 * registers and interrupt flag. Faulting probes (rdmsr_safe and friends)
 * are in kernel/fixup.h.
 */
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#define RFLAGS_IF (1ull << 9)

static inline void outb(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* A write to an unused port: a delay of about a microsecond on ISA timing. */
static inline void io_delay(void)
{
	outb(0x80, 0);
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr"
		     :
		     : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
		     : "memory");
}

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* RDTSC ordered against earlier loads and stores (LFENCE first). */
static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t read_cr0(void)
{
	uint64_t v;

	asm volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	asm volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;

	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;

	asm volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void irq_disable(void)
{
	asm volatile("cli" : : : "memory");
}

static inline void irq_enable(void)
{
	asm volatile("sti" : : : "memory");
}

static inline bool irq_enabled(void)
{
	return read_rflags() & RFLAGS_IF;
}

/* Save the interrupt flag and disable; restore with irq_restore(). */
static inline uint64_t irq_save(void)
{
	uint64_t f = read_rflags();

	irq_disable();
	return f;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF)
		irq_enable();
}

static inline void cpu_relax(void)
{
	asm volatile("pause" : : : "memory");
}

static inline void halt(void)
{
	asm volatile("hlt" : : : "memory");
}

/*
 * a * b / c with a 128-bit intermediate, without libgcc (whose helpers are
 * not built for kernel use): MUL gives RDX:RAX, DIV divides it. A quotient
 * that does not fit in 64 bits saturates instead of raising #DE.
 */
static inline uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t hi, lo, q;

	if (!c)
		return UINT64_MAX;
	asm("mulq %3" : "=a"(lo), "=d"(hi) : "a"(a), "rm"(b));
	if (hi >= c)
		return UINT64_MAX;
	asm("divq %4" : "=a"(q), "=d"(hi) : "a"(lo), "d"(hi), "rm"(c));
	return q;
}

/*
 * A pointer to physical memory (identity-mapped). The empty asm hides the
 * constant from GCC, which otherwise warns that low fixed addresses such
 * as the BIOS data area are "outside array bounds".
 */
static inline void *phys_ptr(uint64_t phys)
{
	void *p = (void *)phys;

	asm("" : "+r"(p));
	return p;
}

#define barrier() asm volatile("" : : : "memory")

#endif
