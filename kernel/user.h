/*
 * Ring 3: the user address space, entry to user mode, and the system-call
 * table.
 *
 * The user programs (the C files of user/) are linked into the kernel image, in a
 * section of their own (.user, page aligned), and compiled position
 * independent: the kernel maps the physical pages of that section a
 * second time, with the user bit, at USER_IMAGE_BASE, and runs them there.
 * User stacks are 4 KiB pages from the page allocator mapped at
 * USER_STACK_BASE, one slot per thread with an unmapped guard page below
 * each. Everything else (the identity map of the kernel) stays supervisor
 * only, so a user access to it faults.
 *
 * User addresses lie in [USER_LO, USER_HI), as lib/modes.h classifies
 * them; no kernel code or data lives there.
 *
 * System calls (SYSCALL/SYSRET, kernel/uentry.asm): number in rax,
 * arguments in rdi, rsi, rdx, r10, result in rax; rcx and r11 are
 * clobbered. GS is not swapped: the user programs are part of the kernel
 * image and trusted not to load GS (a test kernel, not an OS).
 */
#ifndef KERNEL_USER_H
#define KERNEL_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "user/abi.h"

struct trap_frame;

#define USER_LO		 0x0000400000000000ull
#define USER_HI		 0x0000800000000000ull
#define USER_IMAGE_BASE	 0x0000700000000000ull /* the .user section */
#define USER_IMAGE_MAX	 (2ull << 20)
#define USER_STACK_BASE	 0x0000700000200000ull /* stack slots */
#define USER_STACK_SLOT	 (32ull << 10)	       /* guard + stack */
#define USER_STACK_SIZE	 (16ull << 10)
#define USER_STACK_SLOTS 64

/* Pseudo-vectors: a frame built by the SYSCALL entry, and the frame of
 * a thread's first entry into user mode. */
#define VEC_SYSCALL    0x100
#define VEC_USER_START 0x101

/* Map the user image (once, on the boot CPU). False when it cannot be. */
bool user_init(void);
const char *user_unavailable(void);
/* Disable user mode (a failed probe), with the reason. */
void user_set_unavailable(const char *why);

/* The user alias of a kernel symbol inside the .user section, or 0. */
uint64_t user_addr(const void *kernel_sym);
/* The kernel address of a user address in the image (for symbols). */
uint64_t user_to_kernel(uint64_t uaddr);
bool user_is_user_addr(uint64_t a);

/* Stack slot: map a fresh stack; returns its top, or 0 (slot busy). */
uint64_t user_stack_map(unsigned slot);

/* This CPU: SYSCALL MSRs (EFER.SCE, STAR, LSTAR, FMASK). */
void user_cpu_init(void);

/*
 * Mode transitions, for the BTS model: called on the way into the
 * kernel from user mode (after the frame is saved) and on the way back
 * (just before SYSRET/IRETQ), with the frame that holds the user state.
 */
typedef void (*user_hook_fn)(const struct trap_frame *f, bool entering);
void user_set_mode_hook(user_hook_fn fn);
void user_mode_enter(const struct trap_frame *f);
void user_mode_exit(const struct trap_frame *f);

/* Addresses of the transitions, for records and classification. */
extern const char syscall_entry[], syscall_sysret[], isr_iret[], user_iret[];

/* kernel/uentry.asm: into ring 3 at rip with rsp, rdi, rsi; no return. */
__attribute__((noreturn)) void user_enter(uint64_t rip, uint64_t rsp,
					  uint64_t rdi, uint64_t rsi);

/* The system-call dispatcher (the frame is the user's). */
void syscall_dispatch(struct trap_frame *f);

#endif
