/*
 * The interrupt descriptor table: 256 interrupt gates pointing at the stubs
 * of kernel/isr.asm, with NMI, #DF and #MC on IST stacks, and a table of C
 * handlers that trap_dispatch consults.
 */
#include "kernel/cpu.h"
#include "kernel/trap.h"

struct idt_gate {
	uint16_t off0;
	uint16_t sel;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t off1;
	uint32_t off2;
	uint32_t reserved;
} __attribute__((packed));

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#define GATE_INTERRUPT 0x8E /* present, DPL 0, 64-bit interrupt gate */

extern const uint64_t isr_stubs[256];

static struct idt_gate idt[256] __attribute__((aligned(16)));
static trap_handler handlers[256];

static void set_gate(unsigned v, uint64_t addr, unsigned ist)
{
	idt[v].off0 = addr & 0xFFFF;
	idt[v].sel = SEL_KCODE;
	idt[v].ist = ist;
	idt[v].type_attr = GATE_INTERRUPT;
	idt[v].off1 = (addr >> 16) & 0xFFFF;
	idt[v].off2 = addr >> 32;
	idt[v].reserved = 0;
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, isr_stubs[v], 0);
	idt[VEC_NMI].ist = IST_NMI;
	idt[VEC_DF].ist = IST_DF;
	idt[VEC_MC].ist = IST_MC;
	idt_load();
}

void idt_load(void)
{
	struct idt_ptr p = { sizeof(idt) - 1, (uint64_t)idt };

	asm volatile("lidt %0" : : "m"(p));
}

void trap_set_handler(unsigned vector, trap_handler h)
{
	if (vector < 256)
		__atomic_store_n(&handlers[vector], h, __ATOMIC_RELEASE);
}

trap_handler trap_get_handler(unsigned vector)
{
	return vector < 256
		       ? __atomic_load_n(&handlers[vector], __ATOMIC_ACQUIRE)
		       : 0;
}
