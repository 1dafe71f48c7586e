/*
 * user.*: ring 3. Entry and exit by SYSCALL/SYSRET and by interrupts,
 * system calls, exceptions in user code reported and survived, threads
 * switched by yield and by the APIC timer.
 */
#include "kernel/user.h"
#include "drivers/apic_timer.h"
#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/test.h"
#include "kernel/thread.h"
#include "kernel/trap.h"
#include "lib/format.h"
#include "user/usys.h"

#define TIMEOUT_MS 10000

static bool need_user(struct test_run *t)
{
	const char *why = user_unavailable();

	if (why)
		t_skip(t, "no user mode: %s", why);
	return !why;
}

/* Run one thread to its end; false (test failed) if it could not run. */
static bool run_one(struct test_run *t, struct thread *th, const void *fn,
		    uint64_t arg, uint64_t slice_us)
{
	struct thread *ts[1] = { th };
	struct sched_cfg cfg = { .slice_us = slice_us,
				 .timeout_ms = TIMEOUT_MS };
	char err[128];

	if (thread_init(th, 0, fn, arg, err, sizeof(err)) ||
	    threads_run(ts, 1, &cfg, 0, err, sizeof(err))) {
		t_fail(t, "%s", err);
		return false;
	}
	return true;
}

static void user_exit_code(struct test_run *t)
{
	struct thread th = { 0 };
	uint64_t code = 0x1234 + (t_rand() & 0xff);

	if (!need_user(t) || !run_one(t, &th, uprog_exit, code, 0))
		return;
	T_EXPECT_EQ(t, "state", TH_EXITED, th.state);
	T_EXPECT_EQ(t, "exit code", code, th.exit_code);
	T_EXPECT_EQ(t, "system calls (exit only)", 1, th.syscalls);
}
TEST_CASE(user_exit, .name = "user.exit", .fn = user_exit_code);

static void user_syscalls(struct test_run *t)
{
	struct thread th = { 0 };

	if (!need_user(t) || !run_one(t, &th, uprog_syscalls, 1000, 0))
		return;
	T_EXPECT_EQ(t, "state", TH_EXITED, th.state);
	/* The thread's id, every call the same; -2: ENOSYS missing. */
	T_EXPECT_EQ(t, "exit code (thread id)", th.id, th.exit_code);
	T_EXPECT_EQ(t, "system calls", 1000 + 3, th.syscalls);
}
TEST_CASE(user_syscalls, .name = "user.syscalls", .fn = user_syscalls);

/* The user code really runs at CPL 3: a privileged instruction and a
 * supervisor page fault, and the kernel lives on. */
struct fault_case {
	const char *what;
	const void *fn;
	unsigned vector;
	uint64_t error_bits; /* #PF: bits that must be set */
};

static void user_fault(struct test_run *t)
{
	const struct fault_case *fc = t_arg(t);
	struct thread th = { 0 };
	uint64_t kaddr = (uint64_t)&th; /* a kernel address (the stack) */

	if (!need_user(t) || !run_one(t, &th, fc->fn, kaddr, 0))
		return;
	T_EXPECT_EQ(t, "state", TH_FAULTED, th.state);
	T_EXPECT_EQ(t, "vector", fc->vector, th.fault.vector);
	T_ASSERT(t, user_is_user_addr(th.fault.rip));
	T_EXPECT_EQ(t, "rip in the program",
		    user_addr(fc->fn) <= th.fault.rip &&
			    th.fault.rip < user_addr(fc->fn) + 256,
		    1);
	if (fc->vector == VEC_PF) {
		/* error code: U/S (bit 2) set: a user access */
		T_EXPECT_EQ(t, "#PF error code bits", fc->error_bits,
			    th.fault.error_code & fc->error_bits);
		if (fc->fn == (const void *)uprog_fault_kernel_read)
			T_EXPECT_EQ(t, "cr2", kaddr, th.fault.cr2);
		else
			T_EXPECT_EQ(t, "cr2", user_addr(uprog_exit),
				    th.fault.cr2);
	}
	/* And user mode still works afterwards. */
	if (run_one(t, &th, uprog_exit, 7, 0))
		T_EXPECT_EQ(t, "exit code after the fault", 7, th.exit_code);
}

static const struct fault_case fault_pf = { "read of a kernel page",
					    uprog_fault_kernel_read, VEC_PF,
					    1u << 2 | 1u << 0 };
static const struct fault_case fault_wp = { "write to user code",
					    uprog_fault_write_text, VEC_PF,
					    1u << 2 | 1u << 1 | 1u << 0 };
static const struct fault_case fault_ud = { "ud2", uprog_fault_ud, VEC_UD, 0 };
static const struct fault_case fault_gp = { "cli at CPL 3", uprog_fault_gp,
					    VEC_GP, 0 };
TEST_CASE(user_fault_pf, .name = "user.fault.kernel_read", .fn = user_fault,
	  .arg = &fault_pf);
TEST_CASE(user_fault_wp, .name = "user.fault.write_code", .fn = user_fault,
	  .arg = &fault_wp);
TEST_CASE(user_fault_ud, .name = "user.fault.ud", .fn = user_fault,
	  .arg = &fault_ud);
TEST_CASE(user_fault_gp, .name = "user.fault.gp", .fn = user_fault,
	  .arg = &fault_gp);

/* Three threads yield to each other; registers survive every switch. */
static void user_yield(struct test_run *t)
{
	struct thread th[3], *ts[3] = { &th[0], &th[1], &th[2] };
	struct sched_cfg cfg = { .timeout_ms = TIMEOUT_MS };
	struct sched_stats st;
	char err[128];

	if (!need_user(t))
		return;
	for (unsigned i = 0; i < 3; i++)
		if (thread_init(&th[i], i, uprog_regs, 1000 + i, err,
				sizeof(err)))
			return t_fail(t, "%s", err);
	if (threads_run(ts, 3, &cfg, &st, err, sizeof(err)))
		return t_fail(t, "%s", err);
	for (unsigned i = 0; i < 3; i++) {
		T_EXPECT_EQ(t, "state", TH_EXITED, th[i].state);
		T_EXPECT_EQ(t, "registers intact (0)", 0, th[i].exit_code);
		T_EXPECT_EQ(t, "yields", 50, th[i].yields);
		T_EXPECT_EQ(t, "runs", 51, th[i].runs);
	}
	T_EXPECT_EQ(t, "switches", 153, st.switches);
}
TEST_CASE(user_yield, .name = "user.threads.yield", .fn = user_yield);

/* Threads that never make a system call share the CPU only because the
 * timer preempts them in user mode. */
static void user_preempt(struct test_run *t)
{
	struct thread th[2], *ts[2] = { &th[0], &th[1] };
	struct sched_cfg cfg = { .slice_us = 2000, .timeout_ms = TIMEOUT_MS };
	struct sched_stats st;
	char err[128];
	uint64_t loops = 2000000;

	if (!need_user(t))
		return;
	if (!apic_timer_hz())
		return t_skip(t, "no APIC timer: %s", apic_timer_reason());
	for (unsigned i = 0; i < 2; i++)
		if (thread_init(&th[i], i, uprog_spin, loops, err, sizeof(err)))
			return t_fail(t, "%s", err);
	if (threads_run(ts, 2, &cfg, &st, err, sizeof(err)))
		return t_fail(t, "%s", err);
	for (unsigned i = 0; i < 2; i++) {
		T_EXPECT_EQ(t, "state", TH_EXITED, th[i].state);
		T_EXPECT_EQ(t, "system calls (exit only)", 1, th[i].syscalls);
		T_ASSERT(t, th[i].preemptions >= 1);
		t_diag(t, "thread %u: preempted %lu times, %lu runs", th[i].id,
		       th[i].preemptions, th[i].runs);
	}
	T_EXPECT_EQ(t, "exit codes equal (same work)", th[0].exit_code,
		    th[1].exit_code);
	T_ASSERT(t, st.ticks >= th[0].preemptions + th[1].preemptions);
}
TEST_CASE(user_preempt, .name = "user.threads.preempt", .fn = user_preempt);
