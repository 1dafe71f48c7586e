/*
 * Ring 3: the user mappings, the SYSCALL MSRs, the mode-transition hook
 * and the system-call table (see kernel/user.h).
 */
#include "kernel/user.h"

#include <stddef.h>

#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/pmm.h"
#include "kernel/thread.h"
#include "kernel/trap.h"
#include "lib/string.h"

#define PTE_P	 (1ull << 0)
#define PTE_W	 (1ull << 1)
#define PTE_U	 (1ull << 2)
#define PTE_ADDR 0x000FFFFFFFFFF000ull
#define PAGE	 4096ull

#define IA32_EFER  0xC0000080
#define EFER_SCE   (1ull << 0)
#define IA32_STAR  0xC0000081
#define IA32_LSTAR 0xC0000082
#define IA32_FMASK 0xC0000084
#define RFLAGS_IF  (1ull << 9)
#define RFLAGS_TF  (1ull << 8)
#define RFLAGS_DF  (1ull << 10)
#define RFLAGS_AC  (1ull << 18)

extern uint64_t boot_pml4[512];
extern const char __user_start[], __user_text_end[], __user_end[];

/* One PDPT, one PD, two page tables: image (PD[0]), stacks (PD[1]). */
static uint64_t u_pdpt[512] __attribute__((aligned(4096)));
static uint64_t u_pd[512] __attribute__((aligned(4096)));
static uint64_t u_pt_image[512] __attribute__((aligned(4096)));
static uint64_t u_pt_stack[512] __attribute__((aligned(4096)));

static const char *why_not;
static bool ready;

_Static_assert(USER_IMAGE_BASE >= USER_LO &&
		       USER_STACK_BASE + USER_STACK_SLOTS * USER_STACK_SLOT <=
			       USER_HI,
	       "user mappings inside the user range");
_Static_assert(USER_STACK_SLOTS *USER_STACK_SLOT <= (2ull << 20),
	       "stack slots fit one page table");
_Static_assert(offsetof(struct cpu, syscall_kstack) == CPU_SYSCALL_KSTACK,
	       "uentry.asm offset");
_Static_assert(offsetof(struct cpu, syscall_user_rsp) == CPU_SYSCALL_USER_RSP,
	       "uentry.asm offset");

static unsigned idx(uint64_t va, unsigned shift)
{
	return (va >> shift) & 511;
}

bool user_init(void)
{
	uint64_t start = (uint64_t)__user_start, end = (uint64_t)__user_end;
	uint64_t text_end = (uint64_t)__user_text_end;
	unsigned l4 = idx(USER_IMAGE_BASE, 39), l3 = idx(USER_IMAGE_BASE, 30);

	if (ready)
		return true;
	if (start & (PAGE - 1) || end - start > USER_IMAGE_MAX) {
		why_not = "the .user section is misaligned or too large";
		return false;
	}
	if (boot_pml4[l4] & PTE_P) {
		why_not = "the user range is already mapped";
		return false;
	}
	memset(u_pt_image, 0, sizeof(u_pt_image));
	for (uint64_t pa = start; pa < end; pa += PAGE) {
		/* Code read-only, data writable: a stray user store into
		 * its own code faults like on any OS. */
		uint64_t w = pa >= text_end ? PTE_W : 0;

		u_pt_image[(pa - start) / PAGE] = pa | PTE_P | PTE_U | w;
	}
	u_pd[0] = (uint64_t)u_pt_image | PTE_P | PTE_W | PTE_U;
	u_pd[1] = (uint64_t)u_pt_stack | PTE_P | PTE_W | PTE_U;
	u_pdpt[l3] = (uint64_t)u_pd | PTE_P | PTE_W | PTE_U;
	boot_pml4[l4] = (uint64_t)u_pdpt | PTE_P | PTE_W | PTE_U;
	write_cr3(read_cr3());
	ready = true;
	return true;
}

const char *user_unavailable(void)
{
	return ready ? 0 : why_not ? why_not : "user_init() not run";
}

void user_set_unavailable(const char *why)
{
	why_not = why;
	ready = false;
}

uint64_t user_addr(const void *sym)
{
	uint64_t a = (uint64_t)sym;

	if (a < (uint64_t)__user_start || a >= (uint64_t)__user_end)
		return 0;
	return USER_IMAGE_BASE + (a - (uint64_t)__user_start);
}

uint64_t user_to_kernel(uint64_t ua)
{
	uint64_t size = (uint64_t)__user_end - (uint64_t)__user_start;

	if (ua < USER_IMAGE_BASE || ua >= USER_IMAGE_BASE + size)
		return 0;
	return (uint64_t)__user_start + (ua - USER_IMAGE_BASE);
}

bool user_is_user_addr(uint64_t a)
{
	return a >= USER_LO && a < USER_HI;
}

uint64_t user_stack_map(unsigned slot)
{
	uint64_t base = USER_STACK_BASE + slot * USER_STACK_SLOT;
	/* The first page of a slot stays unmapped: the guard. */
	unsigned first = (unsigned)((base - USER_STACK_BASE) / PAGE) +
			 (unsigned)((USER_STACK_SLOT - USER_STACK_SIZE) / PAGE);
	unsigned n = (unsigned)(USER_STACK_SIZE / PAGE);

	if (slot >= USER_STACK_SLOTS || !ready)
		return 0;
	if (!(u_pt_stack[first] & PTE_P)) {
		uint8_t *mem = pmm_alloc(USER_STACK_SIZE);

		if (!mem)
			return 0;
		for (unsigned i = 0; i < n; i++)
			u_pt_stack[first + i] = ((uint64_t)mem + i * PAGE) |
						PTE_P | PTE_W | PTE_U;
		write_cr3(read_cr3());
	}
	return base + USER_STACK_SLOT;
}

void user_cpu_init(void)
{
	wrmsr(IA32_STAR,
	      ((uint64_t)SEL_UCODE32 << 48) | ((uint64_t)SEL_KCODE << 32));
	wrmsr(IA32_LSTAR, (uint64_t)syscall_entry);
	/* Interrupts off on entry until the kernel stack is in place. */
	wrmsr(IA32_FMASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_DF | RFLAGS_AC);
	wrmsr(IA32_EFER, rdmsr(IA32_EFER) | EFER_SCE);
}

static user_hook_fn mode_hook;

void user_set_mode_hook(user_hook_fn fn)
{
	__atomic_store_n(&mode_hook, fn, __ATOMIC_RELEASE);
}

void user_mode_enter(const struct trap_frame *f)
{
	user_hook_fn h = __atomic_load_n(&mode_hook, __ATOMIC_ACQUIRE);

	if (h)
		h(f, true);
}

void user_mode_exit(const struct trap_frame *f)
{
	user_hook_fn h = __atomic_load_n(&mode_hook, __ATOMIC_ACQUIRE);

	if (h)
		h(f, false);
}

/* A branchy loop the kernel runs for SYS_WORK: kernel-mode branches. */
static uint64_t kernel_work(uint64_t n)
{
	uint64_t x = n * 2654435761u + 1;

	for (uint64_t i = 0; i < n; i++) {
		if (x & 1)
			x = x * 3 + 1;
		else
			x >>= 1;
		if ((x & 6) == 6)
			x ^= i;
		asm volatile("" : "+r"(x));
	}
	return x;
}

void syscall_dispatch(struct trap_frame *f)
{
	uint64_t nr = f->rax;

	user_mode_enter(f);
	thread_count_syscall(nr);
	switch (nr) {
	case SYS_EXIT:
		thread_exit_current((int64_t)f->rdi);
		break; /* not reached while a thread runs */
	case SYS_YIELD:
		thread_yield_current();
		f->rax = 0;
		break;
	case SYS_GETTID:
		f->rax = thread_current_id();
		break;
	case SYS_WORK:
		f->rax = kernel_work(f->rdi > 1000000 ? 1000000 : f->rdi);
		break;
	default:
		f->rax = (uint64_t)(int64_t)SYS_ENOSYS;
		break;
	}
	if ((f->cs & 3) == 3)
		user_mode_exit(f);
}
