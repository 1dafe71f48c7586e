/*
 * kernel.*: the machinery every other test relies on. Exception fixups
 * (every hardware probe uses them), the interrupt entry path (all
 * registers saved and restored, handler changes to the frame applied), the
 * watchdog tick, the symbol table and the boot information.
 */
#include "kernel/arch.h"
#include "kernel/boot_info.h"
#include "kernel/fixup.h"
#include "kernel/ksyms.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/watchdog.h"
#include "lib/format.h"
#include "lib/json.h"
#include "lib/string.h"

#define MSR_IA32_EFER 0xC0000080
#define EFER_LMA      (1ull << 10)

/*
 * A probe that faults returns an error with the right vector instead of
 * reaching the runner; one that does not fault returns its value.
 */
static void kernel_fixup(struct test_run *t)
{
	uint64_t v = 0, before;

	T_EXPECT_EQ(t, "read_u64_safe(non-canonical) result", -1,
		    read_u64_safe(0x8000000000000000ull, &v));
	T_EXPECT_EQ(t, "vector for a non-canonical read", VEC_GP,
		    fault_vector());
	T_EXPECT_EQ(t, "read_u64_safe(unmapped) result", -1,
		    read_u64_safe(0x0000500000000000ull, &v));
	T_EXPECT_EQ(t, "vector for an unmapped read", VEC_PF, fault_vector());

	/* We run in long mode, so EFER.LMA is set; rewriting it is harmless. */
	T_EXPECT_EQ(t, "rdmsr_safe(IA32_EFER) result", 0,
		    rdmsr_safe(MSR_IA32_EFER, &v));
	T_EXPECT_EQ(t, "IA32_EFER.LMA", EFER_LMA, v & EFER_LMA);
	T_EXPECT_EQ(t, "wrmsr_safe(IA32_EFER, same value) result", 0,
		    wrmsr_safe(MSR_IA32_EFER, v));
	v = 0x1122334455667788ull;
	T_EXPECT_EQ(t, "read_u64_safe(mapped) result", 0,
		    read_u64_safe((uint64_t)&v, &before));
	T_EXPECT_EQ(t, "read_u64_safe(mapped) value", v, before);
}
TEST_CASE(fixup, .name = "kernel.fixup", .fn = kernel_fixup);

static volatile uint64_t ud_hits, ud_rip;

static void ud_handler(struct trap_frame *f)
{
	ud_hits++;
	ud_rip = f->rip;
	/* The handler's changes to the frame must reach the interrupted code. */
	f->rax = ~f->rax;
	f->rip += 2; /* step over UD2 */
}

/*
 * An exception goes through the stub and trap_dispatch and back: every
 * general register but the one the handler changes must come back as it
 * was. Everything goes through one pointer (rdi), since the test clobbers
 * the frame pointer the compiler would otherwise address memory with.
 *
 * The exception is #UD from UD2, not #BP from INT3: the nested KVM of the
 * build machines fails ("KVM internal error, emulation failure") when it has
 * to re-inject a software interrupt such as INT3, and stops the guest.
 */
static void kernel_idt_regs(struct test_run *t)
{
	const uint64_t pattern = 0x0101010101010101ull;
	uint64_t io[16]; /* in: io[15] = pattern; out: 14 registers, RIP */
	trap_handler old = trap_get_handler(VEC_UD);

	io[15] = pattern;
	ud_hits = 0;
	trap_set_handler(VEC_UD, ud_handler);
	asm volatile("push %%rbp\n"
		     "push %%rbx\n"
		     "push %%rdi\n"
		     "mov 120(%%rdi), %%rax\n"
		     "mov %%rax, %%rbx\n add %%rax, %%rbx\n"
		     "mov %%rbx, %%rcx\n add %%rax, %%rcx\n"
		     "mov %%rcx, %%rdx\n add %%rax, %%rdx\n"
		     "mov %%rdx, %%rsi\n add %%rax, %%rsi\n"
		     "mov %%rsi, %%rbp\n add %%rax, %%rbp\n"
		     "mov %%rbp, %%r8\n add %%rax, %%r8\n"
		     "mov %%r8, %%r9\n add %%rax, %%r9\n"
		     "mov %%r9, %%r10\n add %%rax, %%r10\n"
		     "mov %%r10, %%r11\n add %%rax, %%r11\n"
		     "mov %%r11, %%r12\n add %%rax, %%r12\n"
		     "mov %%r12, %%r13\n add %%rax, %%r13\n"
		     "mov %%r13, %%r14\n add %%rax, %%r14\n"
		     "mov %%r14, %%r15\n add %%rax, %%r15\n"
		     "1: ud2\n"
		     "pop %%rdi\n"
		     "mov %%rax, 0(%%rdi)\n mov %%rbx, 8(%%rdi)\n"
		     "mov %%rcx, 16(%%rdi)\n mov %%rdx, 24(%%rdi)\n"
		     "mov %%rsi, 32(%%rdi)\n mov %%rbp, 40(%%rdi)\n"
		     "mov %%r8, 48(%%rdi)\n mov %%r9, 56(%%rdi)\n"
		     "mov %%r10, 64(%%rdi)\n mov %%r11, 72(%%rdi)\n"
		     "mov %%r12, 80(%%rdi)\n mov %%r13, 88(%%rdi)\n"
		     "mov %%r14, 96(%%rdi)\n mov %%r15, 104(%%rdi)\n"
		     "lea 1b(%%rip), %%rax\n"
		     "mov %%rax, 112(%%rdi)\n"
		     "pop %%rbx\n"
		     "pop %%rbp\n"
		     :
		     : "D"(io)
		     : "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11",
		       "r12", "r13", "r14", "r15", "memory");
	trap_set_handler(VEC_UD, old);

	T_EXPECT_EQ(t, "#UD handler calls", 1, ud_hits);
	T_EXPECT_EQ(t, "RIP seen by the handler (the UD2)", io[14], ud_rip);
	T_EXPECT_EQ(t, "rax (inverted by the handler)", ~pattern, io[0]);
	for (unsigned i = 1; i < 14; i++) {
		char what[48];

		lib_snprintf(what, sizeof(what), "register %u after #UD", i);
		T_EXPECT_EQ(t, what, pattern * (i + 1), io[i]);
	}
}
TEST_CASE(idt_regs, .name = "kernel.idt.regs", .fn = kernel_idt_regs);

/* The watchdog depends on the tick: it must run while a test runs. */
static void kernel_tick(struct test_run *t)
{
	uint64_t t0 = watchdog_ticks(), c0 = rdtsc();
	uint64_t limit = ms_to_tsc(500), cycles, ticks;
	char json[200];
	struct json jb;

	if (!tsc.hz)
		return t_skip(t, "TSC frequency unknown (tsc_source=none)");
	while (watchdog_ticks() - t0 < 10 && rdtsc() - c0 < limit)
		cpu_relax();
	cycles = rdtsc() - c0;
	ticks = watchdog_ticks() - t0;
	if (!T_ASSERT(t, ticks > 0))
		return;
	json_init(&jb, json, sizeof(json));
	json_begin(&jb, NULL);
	json_str(&jb, "name", "kernel.tick.period");
	json_str(&jb, "source", watchdog_source());
	json_str(&jb, "unit", "cycles");
	json_u64(&jb, "value", cycles / ticks);
	json_u64(&jb, "nominal", tsc.hz / watchdog_hz());
	json_end(&jb);
	t_metric(t, json);
}
TEST_CASE(tick, .name = "kernel.tick", .fn = kernel_tick);

extern void kernel_main(struct boot_info *);

/* The exception reports name functions through this table. */
static void kernel_ksyms(struct test_run *t)
{
	uint64_t off = 1;
	const char *name;
	char buf[64];

	T_ASSERT(t, ksym_count() > 10);
	name = ksym_lookup((uint64_t)kernel_ksyms, &off);
	if (T_ASSERT(t, name != NULL)) {
		if (strcmp(name, "kernel_ksyms"))
			t_fail(t, "lookup of kernel_ksyms gave '%s'", name);
		T_EXPECT_EQ(t, "offset of a function's own address", 0, off);
	}
	ksym_format((uint64_t)kernel_main + 5, buf, sizeof(buf));
	if (strcmp(buf, "kernel_main+0x5"))
		t_fail(t, "kernel_main+5 formatted as '%s'", buf);
	T_EXPECT_EQ(t, "address of kernel_main by name", (uint64_t)kernel_main,
		    ksym_address("kernel_main"));
	T_ASSERT(t, ksym_lookup(0x10, &off) == NULL);
}
TEST_CASE(ksyms, .name = "kernel.ksyms", .fn = kernel_ksyms);

/* RDTSC never goes backwards on one CPU. */
static void kernel_tsc_monotonic(struct test_run *t)
{
	uint64_t prev = rdtsc_ordered();

	for (int i = 0; i < 100000; i++) {
		uint64_t now = rdtsc_ordered();

		if (now < prev)
			return t_fail(t, "TSC went back from %lu to %lu", prev,
				      now);
		prev = now;
	}
}
TEST_CASE(tsc_mono, .name = "kernel.tsc.monotonic", .fn = kernel_tsc_monotonic);
