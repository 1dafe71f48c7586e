/*
 * QEMU detection and exit. Port 0xF4 is only written when QEMU's fw_cfg
 * interface answers with its signature: on a real machine nothing is
 * written to a port we do not know.
 */
#include "drivers/qemu_exit.h"

#include "kernel/arch.h"

#define FW_CFG_PORT_SEL	 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define DEBUG_EXIT_PORT	 0xF4

static bool under_qemu;

bool qemu_detect(void)
{
	char sig[4];

	/* Only probe fw_cfg inside a virtual machine (CPUID.1:ECX[31]). */
	if (!(cpuid(1, 0).ecx & (1u << 31)))
		return under_qemu = false;
	outw(FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	for (int i = 0; i < 4; i++)
		sig[i] = (char)inb(FW_CFG_PORT_DATA);
	under_qemu = sig[0] == 'Q' && sig[1] == 'E' && sig[2] == 'M' &&
		     sig[3] == 'U';
	return under_qemu;
}

bool qemu_present(void)
{
	return under_qemu;
}

void qemu_exit(enum qemu_exit_code code)
{
	if (under_qemu)
		outl(DEBUG_EXIT_PORT, code);
}
