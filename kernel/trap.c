/*
 * Trap dispatch: registered handlers first, then exception fixups for
 * probes, then the test runner (a fault inside a test fails that test and
 * the run goes on), and only then a kernel panic.
 */
#include "kernel/trap.h"

#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/fixup.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/runner.h"
#include "kernel/thread.h"
#include "kernel/user.h"

extern const struct ex_entry __ex_table_start[], __ex_table_end[];

static const char *const exception_names[32] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound range",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor segment overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack fault",
	"#GP general protection",
	"#PF page fault",
	"reserved 15",
	"#MF x87 floating point",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD floating point",
	"#VE virtualization",
	"#CP control protection",
	"reserved 22",
	"reserved 23",
	"reserved 24",
	"reserved 25",
	"reserved 26",
	"reserved 27",
	"#HV hypervisor injection",
	"#VC VMM communication",
	"#SX security",
	"reserved 31",
};

const char *trap_name(unsigned vector)
{
	if (vector < 32)
		return exception_names[vector];
	return vector == VEC_SPURIOUS ? "spurious interrupt" : "interrupt";
}

int fault_vector(void)
{
	return this_cpu()->fault_vector;
}

uint64_t fixup_lookup(uint64_t rip)
{
	/* Linker symbols: count by address, not by comparing pointers. */
	size_t n = ((uintptr_t)__ex_table_end - (uintptr_t)__ex_table_start) /
		   sizeof(struct ex_entry);

	for (size_t i = 0; i < n; i++)
		if (__ex_table_start[i].insn == rip)
			return __ex_table_start[i].fixup;
	return 0;
}

void trap_dump(const struct trap_frame *f, const char *p)
{
	char sym[96];

	ksym_format(f->rip, sym, sizeof(sym));
	kprintf("%sexception: \"%s\"\n", p, trap_name(f->vector));
	kprintf("%svector: %lu\n", p, f->vector);
	kprintf("%serror_code: \"0x%lx\"\n", p, f->error_code);
	kprintf("%srip: \"0x%016lx %s\"\n", p, f->rip, sym);
	kprintf("%srsp: \"0x%016lx\"\n", p, f->rsp);
	kprintf("%srflags: \"0x%lx\"\n", p, f->rflags);
	kprintf("%scs: \"0x%lx\"\n", p, f->cs);
	if (f->vector == VEC_PF)
		kprintf("%scr2: \"0x%016lx\"\n", p, read_cr2());
	kprintf("%sregisters:\n", p);
	kprintf("%s  rax: \"0x%016lx\"\n%s  rbx: \"0x%016lx\"\n", p, f->rax, p,
		f->rbx);
	kprintf("%s  rcx: \"0x%016lx\"\n%s  rdx: \"0x%016lx\"\n", p, f->rcx, p,
		f->rdx);
	kprintf("%s  rsi: \"0x%016lx\"\n%s  rdi: \"0x%016lx\"\n", p, f->rsi, p,
		f->rdi);
	kprintf("%s  rbp: \"0x%016lx\"\n%s  r8: \"0x%016lx\"\n", p, f->rbp, p,
		f->r8);
	kprintf("%s  r9: \"0x%016lx\"\n%s  r10: \"0x%016lx\"\n", p, f->r9, p,
		f->r10);
	kprintf("%s  r11: \"0x%016lx\"\n%s  r12: \"0x%016lx\"\n", p, f->r11, p,
		f->r12);
	kprintf("%s  r13: \"0x%016lx\"\n%s  r14: \"0x%016lx\"\n", p, f->r13, p,
		f->r14);
	kprintf("%s  r15: \"0x%016lx\"\n", p, f->r15);
}

static unsigned long unexpected_interrupts;

unsigned long trap_unexpected_count(void)
{
	return unexpected_interrupts;
}

static trap_handler entry_hook;

void trap_set_entry_hook(trap_handler h)
{
	__atomic_store_n(&entry_hook, h, __ATOMIC_RELEASE);
}

static void dispatch(struct trap_frame *f, bool from_user)
{
	unsigned v = f->vector;
	trap_handler h = trap_get_handler(v);
	trap_handler hook = __atomic_load_n(&entry_hook, __ATOMIC_ACQUIRE);
	uint64_t fix;

	if (hook)
		hook(f);

	if (h) {
		h(f);
		return;
	}
	if (v >= 32 || v == VEC_NMI) {
		/* Nobody asked for it: count it, the log reports the count. */
		__atomic_add_fetch(&unexpected_interrupts, 1, __ATOMIC_RELAXED);
		return;
	}
	/* An exception in user code ends that thread, not the kernel. */
	if (from_user && thread_fault_current(f))
		return;
	if (this_cpu()->nmi_depth) {
		/* Its IRETQ would unblock NMIs on a live NMI stack (nmi.h). */
		panic_trap_in_nmi(f);
	}
	fix = fixup_lookup(f->rip);
	if (fix) {
		this_cpu()->fault_vector = (int)v;
		f->rip = fix;
		return;
	}
	if (runner_abort_exception(f))
		return;
	panic_trap(f);
}

void trap_dispatch(struct trap_frame *f)
{
	bool from_user = (f->cs & 3) == 3;

	if (from_user)
		user_mode_enter(f);
	dispatch(f, from_user);
	/* Still going back to user mode (not redirected by the runner). */
	if ((f->cs & 3) == 3)
		user_mode_exit(f);
}
