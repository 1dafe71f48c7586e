/*
 * I/O APICs: each has an index register (IOREGSEL) and a data window
 * (IOWIN); redirection entry n is the register pair 0x10 + 2n. Pins
 * start masked and only those we route are opened.
 */
#include "drivers/ioapic.h"

#define IOREGSEL       0x00
#define IOWIN	       0x10
#define REG_VERSION    0x01
#define REG_REDIR(pin) (0x10 + 2 * (pin))
#define MAX_IOAPICS    8

struct ioapic {
	volatile uint32_t *base;
	uint32_t gsi_base;
	unsigned pins;
};

static struct ioapic ioapics[MAX_IOAPICS];
static unsigned nioapics;

static uint32_t ioapic_read(struct ioapic *io, uint32_t reg)
{
	io->base[IOREGSEL / 4] = reg;
	return io->base[IOWIN / 4];
}

static void ioapic_write(struct ioapic *io, uint32_t reg, uint32_t v)
{
	io->base[IOREGSEL / 4] = reg;
	io->base[IOWIN / 4] = v;
}

static void write_entry(struct ioapic *io, unsigned pin, uint64_t entry)
{
	/* Mask first, so the half-written entry can never fire. */
	ioapic_write(io, REG_REDIR(pin), (uint32_t)IOAPIC_MASKED);
	ioapic_write(io, REG_REDIR(pin) + 1, (uint32_t)(entry >> 32));
	ioapic_write(io, REG_REDIR(pin), (uint32_t)entry);
}

bool ioapic_add(uint64_t address, uint32_t gsi_base)
{
	struct ioapic *io;
	uint32_t ver;

	if (nioapics == MAX_IOAPICS || !address || address >= (4ull << 30))
		return false;
	io = &ioapics[nioapics];
	io->base = (volatile uint32_t *)address;
	ver = ioapic_read(io, REG_VERSION);
	if (ver == 0xFFFFFFFF)
		return false; /* nothing decodes the address */
	io->gsi_base = gsi_base;
	io->pins = ((ver >> 16) & 0xFF) + 1;
	for (unsigned pin = 0; pin < io->pins; pin++)
		write_entry(io, pin, IOAPIC_MASKED);
	nioapics++;
	return true;
}

static struct ioapic *find(uint32_t gsi, unsigned *pin)
{
	for (unsigned i = 0; i < nioapics; i++) {
		struct ioapic *io = &ioapics[i];

		if (gsi >= io->gsi_base && gsi < io->gsi_base + io->pins) {
			*pin = gsi - io->gsi_base;
			return io;
		}
	}
	return 0;
}

bool ioapic_route(uint32_t gsi, uint64_t entry)
{
	unsigned pin;
	struct ioapic *io = find(gsi, &pin);

	if (!io)
		return false;
	write_entry(io, pin, entry);
	return true;
}

void ioapic_mask(uint32_t gsi)
{
	unsigned pin;
	struct ioapic *io = find(gsi, &pin);

	if (io)
		write_entry(io, pin, IOAPIC_MASKED);
}

unsigned ioapic_count(void)
{
	return nioapics;
}
