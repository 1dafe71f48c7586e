/*
 * Interrupt vector assignments. The APIC's priority class is the vector's
 * high nibble, so the deferral vector sits above the device vectors.
 */
#ifndef KERNEL_VECTORS_H
#define KERNEL_VECTORS_H

#define VEC_PIC_BASE	  0x20 /* 8259 IRQ 0..15 (watchdog tick on IRQ 0) */
#define VEC_TEST_BASE	  0x40 /* 0x40..0x4F: free for tests */
#define VEC_DEFER	  0xE0 /* self-IPI that runs deferred work */
#define VEC_CALL	  0xE8 /* cross-CPU call (kernel/smp.c) */
#define VEC_APIC_TIMER	  0xEE
#define VEC_PMI		  0xEF /* LVTPC in fixed-vector mode */
#define VEC_APIC_ERROR	  0xFE
#define VEC_APIC_SPURIOUS 0xFF

#endif
