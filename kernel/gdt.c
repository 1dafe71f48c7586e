/*
 * Global descriptor table and task state segment, one of each per CPU.
 *
 * Long mode ignores most descriptor fields; what matters is the L bit of
 * the code segments, the DPLs, and the TSS, whose IST slots give NMI, #DF
 * and #MC stacks of their own: those can arrive at any instruction,
 * including one that just switched stacks or overflowed the current one.
 */
#include "kernel/cpu.h"

#include "kernel/arch.h"
#include "lib/string.h"

struct cpu cpus[MAX_CPUS];

#define DESC_CODE64(dpl) (0x00AF9A000000FFFFull | ((uint64_t)(dpl) << 45))
#define DESC_DATA(dpl)	 (0x00CF92000000FFFFull | ((uint64_t)(dpl) << 45))
#define DESC_CODE32(dpl) (0x00CF9A000000FFFFull | ((uint64_t)(dpl) << 45))

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static void set_tss_desc(uint64_t *slot, struct tss *tss)
{
	uint64_t base = (uint64_t)tss;
	uint64_t limit = sizeof(*tss) - 1;

	/* 64-bit available TSS (type 9), present, two GDT slots. */
	slot[0] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) |
		  (0x89ull << 40) | (((limit >> 16) & 0xF) << 48) |
		  (((base >> 24) & 0xFF) << 56);
	slot[1] = base >> 32;
}

void cpu_set_current(struct cpu *c)
{
	c->self = c;
	/* The segment loads in gdt_init leave GS alone; its base is the MSR. */
	wrmsr(IA32_GS_BASE, (uint64_t)c);
}

void gdt_init(struct cpu *c)
{
	struct gdt_ptr ptr;

	memset(c->gdt, 0, sizeof(c->gdt));
	c->gdt[SEL_KCODE / 8] = DESC_CODE64(0);
	c->gdt[SEL_KDATA / 8] = DESC_DATA(0);
	c->gdt[SEL_UCODE32 / 8] = DESC_CODE32(3);
	c->gdt[SEL_UDATA / 8] = DESC_DATA(3);
	c->gdt[SEL_UCODE64 / 8] = DESC_CODE64(3);

	memset(&c->tss, 0, sizeof(c->tss));
	c->tss.ist[IST_NMI - 1] = (uint64_t)(c->ist_nmi + IST_STACK_SIZE);
	c->tss.ist[IST_DF - 1] = (uint64_t)(c->ist_df + IST_STACK_SIZE);
	c->tss.ist[IST_MC - 1] = (uint64_t)(c->ist_mc + IST_STACK_SIZE);
	c->tss.iomap_base = sizeof(c->tss); /* no I/O bitmap */
	set_tss_desc(&c->gdt[SEL_TSS / 8], &c->tss);

	ptr.limit = sizeof(c->gdt) - 1;
	ptr.base = (uint64_t)c->gdt;
	asm volatile("lgdt %0\n"
		     "pushq %1\n"
		     "leaq 1f(%%rip), %%rax\n"
		     "pushq %%rax\n"
		     "lretq\n"
		     "1:\n"
		     "movw %w2, %%ds\n"
		     "movw %w2, %%es\n"
		     "movw %w2, %%ss\n"
		     "ltr %w3\n"
		     :
		     : "m"(ptr), "i"(SEL_KCODE), "r"(SEL_KDATA), "r"(SEL_TSS)
		     : "rax", "memory");
}
