/*
 * The two cascaded 8259A PICs. The BIOS leaves them on vectors 0x08-0x0F
 * and 0x70-0x77, which collide with CPU exceptions, so they are remapped
 * first. They only carry the PIT's IRQ 0 (the watchdog tick) until the
 * IOAPIC work takes over; everything else stays masked.
 */
#include "drivers/pic8259.h"

#include "kernel/arch.h"
#include "kernel/trap.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1

#define ICW1_INIT_ICW4 0x11
#define ICW4_8086      0x01
#define OCW2_EOI       0x20
#define OCW3_READ_ISR  0x0B
#define CASCADE_IRQ    2

static uint8_t vector_base;
static uint16_t mask = 0xFFFF;
static unsigned long spurious;

static void write_mask(void)
{
	outb(PIC1_DATA, mask & 0xFF);
	outb(PIC2_DATA, mask >> 8);
}

static uint16_t read_isr(void)
{
	outb(PIC1_CMD, OCW3_READ_ISR);
	outb(PIC2_CMD, OCW3_READ_ISR);
	return (uint16_t)(inb(PIC1_CMD) | (inb(PIC2_CMD) << 8));
}

/*
 * IRQ 7 and 15 arrive spuriously when a request goes away before the CPU
 * acknowledges it; the in-service bit tells. A spurious IRQ 15 still needs
 * an EOI to the master, for the cascade.
 */
static void spurious_handler(struct trap_frame *f)
{
	unsigned irq = (unsigned)(f->vector - vector_base);

	if (read_isr() & (1u << irq)) {
		pic_eoi(irq);
		return;
	}
	spurious++;
	if (irq == 15)
		outb(PIC1_CMD, OCW2_EOI);
}

void pic_init(uint8_t base)
{
	vector_base = base;
	outb(PIC1_CMD, ICW1_INIT_ICW4);
	io_delay();
	outb(PIC2_CMD, ICW1_INIT_ICW4);
	io_delay();
	outb(PIC1_DATA, base);
	io_delay();
	outb(PIC2_DATA, base + 8);
	io_delay();
	outb(PIC1_DATA, 1u << CASCADE_IRQ); /* slave on IRQ 2 */
	io_delay();
	outb(PIC2_DATA, CASCADE_IRQ); /* slave identity */
	io_delay();
	outb(PIC1_DATA, ICW4_8086);
	io_delay();
	outb(PIC2_DATA, ICW4_8086);
	io_delay();
	mask = 0xFFFF & ~(1u << CASCADE_IRQ);
	write_mask();
	trap_set_handler(base + 7, spurious_handler);
	trap_set_handler(base + 15, spurious_handler);
}

void pic_unmask(unsigned irq)
{
	mask &= (uint16_t) ~(1u << irq);
	write_mask();
}

void pic_mask_all(void)
{
	mask = 0xFFFF;
	write_mask();
}

void pic_eoi(unsigned irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, OCW2_EOI);
	outb(PIC1_CMD, OCW2_EOI);
}

void pic_eoi_in_service(void)
{
	uint16_t isr = read_isr();

	if (isr & 0xFF00)
		outb(PIC2_CMD, OCW2_EOI);
	if (isr)
		outb(PIC1_CMD, OCW2_EOI);
}

unsigned long pic_spurious_count(void)
{
	return spurious;
}
