/*
 * Per-CPU data: descriptor tables, IST stacks, and the test runner's state
 * for the CPU. Until SMP comes up only the boot CPU (index 0) is in use;
 * this_cpu() returns it.
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ctx.h"

struct defer_work;
struct bts_session;
struct ds_area;

#define MAX_CPUS     16
#define IA32_GS_BASE 0xC0000101

#define IST_NMI		   1
#define IST_DF		   2
#define IST_MC		   3
#define IST_STACK_SIZE	   (16 * 1024)
#define TEST_STACK_SIZE	   (64 * 1024)
#define LANDING_STACK_SIZE (4 * 1024)
#define KERNEL_STACK_SIZE  (16 * 1024) /* an AP's own stack */

/* Selectors; the user ones are laid out for SYSRET (STAR[63:48] = 0x18). */
#define SEL_KCODE   0x08
#define SEL_KDATA   0x10
#define SEL_UCODE32 0x18
#define SEL_UDATA   0x20
#define SEL_UCODE64 0x28
#define SEL_TSS	    0x30

/* Offsets used by assembly (checked in kernel/thread.c). */
#define CPU_SYSCALL_KSTACK   8
#define CPU_SYSCALL_USER_RSP 16

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

enum test_state {
	TEST_IDLE,
	TEST_RUNNING,
};

struct cpu {
	struct cpu *self; /* at %gs:0, see this_cpu() */
	/* SYSCALL entry (kernel/uentry.asm): the kernel stack to switch to
	 * and where the user stack pointer is kept meanwhile. */
	uint64_t syscall_kstack;   /* at %gs:8 */
	uint64_t syscall_user_rsp; /* at %gs:16 */
	unsigned index;
	uint32_t apic_id;
	volatile bool online;
	uint64_t gdt[8];
	struct tss tss;

	/* Probe faults (kernel/fixup.h). */
	int fault_vector;

	/* NMI nesting (kernel/nmi.c) and deferred work (kernel/defer.c). */
	volatile unsigned nmi_depth;
	struct defer_work *defer_head;

	/* BTS (kernel/bts.c): the running session, its DS area, buffer. */
	struct bts_session *bts;
	struct ds_area *ds_area;
	void *bts_buf;
	uint64_t bts_buf_bytes;

	/* Test runner: where an aborted test resumes, and why it stopped. */
	volatile enum test_state test_state;
	struct ctx runner_ctx;
	struct test_run *test;

	/* Threads (kernel/thread.c): the one running here, the scheduler. */
	struct thread *thread;
	struct sched *sched;

	uint8_t ist_nmi[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t ist_df[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t ist_mc[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t test_stack[TEST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t landing_stack[LANDING_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t stack[KERNEL_STACK_SIZE] __attribute__((aligned(16)));
};

extern struct cpu cpus[MAX_CPUS];

/* The GS base points at this CPU's struct cpu (set by cpu_set_current). */
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	asm volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

/* Make c this CPU's per-CPU data (IA32_GS_BASE). */
void cpu_set_current(struct cpu *c);
/* Load this CPU's GDT, TSS and segment registers. */
void gdt_init(struct cpu *c);

#endif
