/*
 * Ending a run under QEMU through the isa-debug-exit device (port 0xF4):
 * QEMU exits with status (code << 1) | 1, so the host can tell a verdict
 * from a crash or a normal QEMU exit.
 */
#ifndef DRIVERS_QEMU_EXIT_H
#define DRIVERS_QEMU_EXIT_H

#include <stdbool.h>

enum qemu_exit_code {
	QEMU_EXIT_PASS = 0x10,	/* QEMU status 33 */
	QEMU_EXIT_FAIL = 0x11,	/* 35 */
	QEMU_EXIT_PANIC = 0x12, /* 37 */
};

/* Detect QEMU (hypervisor CPUID bit, then the fw_cfg signature). */
bool qemu_detect(void);
bool qemu_present(void);
/* Write the exit port when running under QEMU; returns if that did not end
 * the run (device not configured, or not QEMU). */
void qemu_exit(enum qemu_exit_code code);

#endif
