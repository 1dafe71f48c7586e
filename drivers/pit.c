/*
 * 8254 PIT. Channel 2's gate and output are visible in port 0x61, which
 * lets us time an interval by polling: the classic way to calibrate the
 * TSC when neither CPUID leaf 0x15 nor an HPET gives its frequency.
 * Channel 0 drives IRQ 0, used as the watchdog tick.
 */
#include "drivers/pit.h"

#include "kernel/arch.h"

#define PIT_CH0 0x40
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PORT_B	0x61

#define PORTB_GATE2   0x01
#define PORTB_SPEAKER 0x02
#define PORTB_OUT2    0x20

#define CMD_CH0_RATE_LOHI    0x34 /* channel 0, lo/hi byte, mode 2 */
#define CMD_CH2_ONESHOT_LOHI 0xB0 /* channel 2, lo/hi byte, mode 0 */

/* Polls of port 0x61 before we decide the PIT is not counting. */
#define MAX_POLLS 50000000ull

uint64_t pit_measure_tsc(unsigned ms)
{
	uint32_t count = (uint32_t)((uint64_t)PIT_HZ * ms / 1000);
	uint64_t flags = irq_save();
	uint64_t t0, t1, polls = 0;
	uint8_t b;

	if (count > 0xFFFF)
		count = 0xFFFF;
	/* Gate low, speaker off, then load the count: OUT2 goes low. */
	b = inb(PORT_B) & (uint8_t) ~(PORTB_SPEAKER | PORTB_GATE2);
	outb(PORT_B, b);
	outb(PIT_CMD, CMD_CH2_ONESHOT_LOHI);
	outb(PIT_CH2, count & 0xFF);
	outb(PIT_CH2, count >> 8);
	/* Raising the gate starts the count; OUT2 rises at terminal count. */
	outb(PORT_B, b | PORTB_GATE2);
	t0 = rdtsc_ordered();
	while (!(inb(PORT_B) & PORTB_OUT2))
		if (++polls > MAX_POLLS)
			break;
	t1 = rdtsc_ordered();
	outb(PORT_B, b);
	irq_restore(flags);
	if (polls > MAX_POLLS || polls == 0)
		return 0;
	/* Scale to exactly 'ms' when the count was clipped. */
	return (t1 - t0) * ((uint64_t)PIT_HZ * ms / 1000) / count;
}

void pit_start_periodic(unsigned hz)
{
	uint32_t div = PIT_HZ / hz;

	if (div > 0xFFFF)
		div = 0xFFFF;
	outb(PIT_CMD, CMD_CH0_RATE_LOHI);
	outb(PIT_CH0, div & 0xFF);
	outb(PIT_CH0, div >> 8);
}
