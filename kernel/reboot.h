/* Resetting the machine at the end of a run (kernel/reboot.c). */
#ifndef KERNEL_REBOOT_H
#define KERNEL_REBOOT_H

__attribute__((noreturn)) void machine_reboot(void);

#endif
