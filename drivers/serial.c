/*
 * 16550 UART driver for COM1, 115200 baud, 8 data bits, no parity, one
 * stop bit, polled.
 *
 * Real machines often have no COM1: the probe writes the scratch register
 * and runs the UART's own loopback before trusting it, and every wait for
 * the transmitter is bounded, so a missing or stuck UART costs a little
 * time once and never hangs the kernel.
 */
#include "drivers/serial.h"

#include "kernel/arch.h"
#include "kernel/console.h"

#define COM1 0x3F8

/* Register offsets (DLAB=0 unless noted). */
#define UART_THR 0 /* transmit holding (write) */
#define UART_RBR 0 /* receive buffer (read) */
#define UART_DLL 0 /* divisor latch low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1 /* divisor latch high (DLAB=1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7

#define LCR_DLAB	 0x80
#define LCR_8N1		 0x03
#define FCR_ENABLE_CLEAR 0x07 /* enable FIFOs, clear both */
#define MCR_DTR_RTS_OUT2 0x0B
#define MCR_LOOP	 0x10
#define LSR_THRE	 0x20 /* transmit holding register empty */

#define FIFO_DEPTH   16
/* About 10 ms of polling at ISA port speed: a character takes 87 us. */
#define THRE_SPINS   10000
/* After this many timeouts in a row, consider the UART gone. */
#define MAX_TIMEOUTS 4

static bool present;
static unsigned timeouts;
static unsigned long dropped;

static bool wait_thre(void)
{
	for (unsigned i = 0; i < THRE_SPINS; i++)
		if (inb(COM1 + UART_LSR) & LSR_THRE)
			return true;
	return false;
}

static void serial_write(const char *s, size_t n)
{
	size_t i = 0;

	if (!present) {
		dropped += n;
		return;
	}
	while (i < n) {
		if (!wait_thre()) {
			dropped += n - i;
			if (++timeouts >= MAX_TIMEOUTS)
				present = false;
			return;
		}
		timeouts = 0;
		/* THRE with FIFOs on means the whole FIFO is empty. */
		for (unsigned k = 0; k < FIFO_DEPTH && i < n; i++) {
			if (s[i] == '\n') {
				/* CR LF for terminals: both in this round. */
				if (k + 2 > FIFO_DEPTH)
					break;
				outb(COM1 + UART_THR, '\r');
				k++;
			}
			outb(COM1 + UART_THR, (uint8_t)s[i]);
			k++;
		}
	}
}

static struct console serial_console = {
	.name = "serial-com1",
	.write = serial_write,
};

bool serial_init(void)
{
	/* A floating bus reads 0xFF: the scratch register must hold a value. */
	outb(COM1 + UART_SCR, 0x5A);
	if (inb(COM1 + UART_SCR) != 0x5A)
		return false;

	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DLL, 1); /* 115200 = 1843200 / 16 / 1 */
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, FCR_ENABLE_CLEAR);

	/* Loopback: what we send must come back. */
	outb(COM1 + UART_MCR, MCR_LOOP | MCR_DTR_RTS_OUT2);
	outb(COM1 + UART_THR, 0xAE);
	for (unsigned i = 0; i < THRE_SPINS; i++)
		if (inb(COM1 + UART_LSR) & 1)
			break;
	if (inb(COM1 + UART_RBR) != 0xAE) {
		outb(COM1 + UART_MCR, MCR_DTR_RTS_OUT2);
		return false;
	}
	outb(COM1 + UART_MCR, MCR_DTR_RTS_OUT2);
	present = true;
	console_register(&serial_console);
	return true;
}

unsigned long serial_dropped(void)
{
	return dropped;
}
