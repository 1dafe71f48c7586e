/*
 * Reset, trying the ways PCs offer from the most to the least common: the
 * reset control register at 0xCF9, the keyboard controller's reset line,
 * and finally a triple fault (an empty IDT and an exception).
 */
#include "kernel/reboot.h"

#include "kernel/arch.h"
#include "kernel/time.h"

#define RESET_CONTROL	0xCF9
#define RST_CPU_SYS	0x06 /* SYS_RST | RST_CPU: a full reset */
#define KBC_STATUS	0x64
#define KBC_INPUT_FULL	0x02
#define KBC_PULSE_RESET 0xFE

void machine_reboot(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) empty = { 0, 0 };

	irq_disable();
	outb(RESET_CONTROL, 0x02);
	io_delay();
	outb(RESET_CONTROL, RST_CPU_SYS);
	tsc_delay_us(50000);
	for (int i = 0; i < 100000 && (inb(KBC_STATUS) & KBC_INPUT_FULL); i++)
		io_delay();
	outb(KBC_STATUS, KBC_PULSE_RESET);
	tsc_delay_us(50000);
	asm volatile("lidt %0; int3" : : "m"(empty));
	for (;;)
		halt();
}
